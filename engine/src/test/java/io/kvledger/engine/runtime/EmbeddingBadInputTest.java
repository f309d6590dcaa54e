package io.kvledger.engine.runtime;

import io.kvledger.engine.api.Decision;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bad-input contract through the embedding API: every bad call a server can make through a {@link Session}
 * (its typed calls and {@code submit} of any record) answers a negative result code and the engine goes on serving;
 * the journal holds, for each input the engine refused, one document with the input, its result code and no effect,
 * and nothing for an input refused before the ring (no input type, more pages than the ring holds, no tokens); the
 * journal reads clean and replays to the same results and effects.
 */
class EmbeddingBadInputTest
{
    private static final int PAGE = EmbeddingFixture.PAGE;
    private static final int MAX_PAGES = EmbeddingFixture.MAX_PAGES;

    @TempDir
    Path dir;

    /** What the caller saw, in call order: the type of each input that reached the engine and its result. */
    private final List<InputType> types = new ArrayList<>();
    private final List<Integer> results = new ArrayList<>();

    private int reached(final InputType type, final int result)
    {
        types.add(type);
        results.add(result);
        return result;
    }

    private int refusedBad(final InputType type, final int result)
    {
        assertTrue(result < 0, type + " answered " + ResultCode.name(result));
        return reached(type, result);
    }

    private static InputRecord record(final InputType type, final long request, final long op, final long... values)
    {
        final InputRecord in = new InputRecord(MAX_PAGES).reset().type(type).request(request).op(op);
        in.value1(values.length > 0 ? values[0] : 0).value2(values.length > 1 ? values[1] : 0)
            .value3(values.length > 2 ? values[2] : 0).value4(values.length > 3 ? values[3] : 0)
            .value5(values.length > 4 ? values[4] : 0);
        return in;
    }

    @ParameterizedTest(name = "journal thread {0}")
    @ValueSource(booleans = {true, false})
    void shouldRefuseARecordOfTheNullInputTypeAndKeepServing(final boolean journalThread)
    {
        final KvLedgerOptions options = EmbeddingFixture.options(dir, "null-" + journalThread, journalThread, 100);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            try (KvLedger ledger = KvLedger.open(options))
            {
                final Session s = ledger.session();
                final Decision decision = new Decision(MAX_PAGES);
                final InputRecord untyped = record(InputType.NULL_VAL, 1, 1, 1, 2, 3);
                assertEquals(ResultCode.BAD_INPUT, s.submit(untyped, decision));
                assertEquals(ResultCode.BAD_INPUT, decision.resultCode);
                assertEquals(ResultCode.OK, s.tick(0), "the engine still serves");
                assertNull(ledger.loop().failure());
            }
            final LiveRuntimeTest.Documents docs = LiveRuntimeTest.Documents.read(options.journalDir);
            assertEquals(1, docs.inputs.size(), "only the tick is journaled");
            assertEquals(InputType.TICK, docs.inputs.get(0).type());
        });
    }

    @ParameterizedTest(name = "journal thread {0}")
    @ValueSource(booleans = {true, false})
    void shouldAnswerEveryBadCallWithACodeAndJournalItAsRefused(final boolean journalThread)
    {
        final KvLedgerOptions options = EmbeddingFixture.options(dir, "bad-" + journalThread, journalThread, 100);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            try (KvLedger ledger = KvLedger.open(options))
            {
                final Session s = ledger.session();
                final Decision decision = new Decision(MAX_PAGES);
                final int[] prompt = EmbeddingFixture.tokens(6 * PAGE + 1, 1000);

                // Refused before the ring: never journaled.
                final InputRecord untyped = new InputRecord(1).reset();
                untyped.type(null);
                assertEquals(ResultCode.BAD_INPUT, s.submit(untyped, decision));
                assertEquals(ResultCode.BAD_REQUEST_SIZE, s.arrive(1, 0, prompt, 0, 4));
                assertEquals(ResultCode.BAD_INPUT, s.submit(Inputs.tick(new InputRecord(1), 0), new Decision(1)));

                // The schema's null type is no input type either: refused before the ring, not a fail-stop.
                assertEquals(ResultCode.BAD_INPUT, s.submit(record(InputType.NULL_VAL, 1, 1, 1, 2, 3), decision));
                assertEquals(ResultCode.BAD_INPUT, decision.resultCode);

                reached(InputType.ARRIVE, s.arrive(1, 0, prompt, prompt.length, 4));
                assertEquals(ResultCode.OK, results.get(results.size() - 1));
                refusedBad(InputType.ARRIVE, s.arrive(1, 0, prompt, prompt.length, 4));
                refusedBad(InputType.ARRIVE, s.submit(record(InputType.ARRIVE, -5, -1, 1, 4), decision));
                refusedBad(InputType.ARRIVE, s.submit(record(InputType.ARRIVE, 9, -1, PAGE, 4), decision));
                refusedBad(InputType.ARRIVE, s.submit(record(InputType.ARRIVE, 9, -1, 1, -4), decision));
                refusedBad(InputType.ARRIVE, s.submit(record(InputType.ARRIVE, 9, -1, Long.MIN_VALUE, 4), decision));
                refusedBad(InputType.PASS_END, s.endPass());
                refusedBad(InputType.ADMIT, s.admit(1));
                refusedBad(InputType.CHUNK, s.chunk(1, 1, 1, 0, 0, 0));
                refusedBad(InputType.FINISH, s.finish(1, 6, 6, 0, 0, 0));
                refusedBad(InputType.RETRACT, s.retract(1));
                refusedBad(InputType.ABORT, s.abort(77, Long.MAX_VALUE, Long.MIN_VALUE, -1));
                refusedBad(InputType.ACK, s.submit(Inputs.ack(new InputRecord(MAX_PAGES), 999, true), decision));
                refusedBad(InputType.ACK, s.submit(Inputs.ack(new InputRecord(MAX_PAGES), -1, false), decision));
                refusedBad(InputType.STORAGE_HIT,
                    s.submit(Inputs.storageHit(new InputRecord(MAX_PAGES), Long.MAX_VALUE, 3, 3), decision));
                refusedBad(InputType.FETCH_DONE,
                    s.submit(Inputs.fetchDone(new InputRecord(MAX_PAGES), 0, true, 3, true), decision));

                reached(InputType.PASS_BEGIN, s.beginPass(8, 1 << 20, 1 << 20, 1 << 20));
                refusedBad(InputType.PASS_BEGIN, s.beginPass(-1, Long.MIN_VALUE, Long.MAX_VALUE, 0));
                refusedBad(InputType.ADMIT, s.admit(2));
                reached(InputType.ADMIT, s.admit(1));
                assertEquals(ResultCode.OK, results.get(results.size() - 1));
                refusedBad(InputType.ADMIT, s.admit(1));
                reached(InputType.PASS_END, s.endPass());
                refusedBad(InputType.RETRACT, s.retract(-1));
                refusedBad(InputType.FINISH, s.finish(1, 7, 6, 0, 0, 0));
                refusedBad(InputType.CHUNK, s.chunk(1, 3, 4, 0, 0, 0));
                refusedBad(InputType.CHUNK, s.chunk(1, -1, 0, 0, 0, 0));
                refusedBad(InputType.FINISH,
                    s.submit(record(InputType.FINISH, 1, -1, Long.MAX_VALUE, 0, 0, 0, 0), decision));
                refusedBad(InputType.FINISH,
                    s.submit(record(InputType.FINISH, 1, -1, Integer.MAX_VALUE + 7L, 1, 0, 0, 0), decision));
                reached(InputType.CHUNK, s.chunk(1, 3, 3, 1, 0, 0));
                assertEquals(ResultCode.OK, results.get(results.size() - 1));
                reached(InputType.FINISH, s.finish(1, 6, 6, 2, 1, 0));
                assertEquals(ResultCode.OK, results.get(results.size() - 1));
                refusedBad(InputType.FINISH, s.finish(1, 6, 6, 0, 0, 0));
                refusedBad(InputType.ABORT, s.abort(1, 0, 0, 0));

                reached(InputType.TICK, s.tick(0));
                reached(InputType.ARRIVE, s.arrive(2, 0, prompt, prompt.length, 4));
                assertEquals(ResultCode.OK, results.get(results.size() - 1), "the engine still serves");
                assertNull(ledger.loop().failure());
            }
            final LiveRuntimeTest.Documents docs = LiveRuntimeTest.Documents.read(options.journalDir);
            final List<InputType> journaledTypes = new ArrayList<>();
            final List<Integer> journaledResults = new ArrayList<>();
            for (int i = 0; i < docs.inputs.size(); i++)
            {
                final InputType type = docs.inputs.get(i).type();
                final int result = docs.results.get(i);
                final boolean completion = type == InputType.ACK || type == InputType.STORAGE_HIT ||
                    type == InputType.FETCH_DONE;
                if (completion && result >= 0)
                {
                    continue;
                }
                journaledTypes.add(type);
                journaledResults.add(result);
                if (result < 0)
                {
                    assertEquals(0, docs.effects.get(i).size(), "document " + (i + 1) + " refused with effects");
                }
            }
            assertEquals(types, journaledTypes, "one document per input the engine got, in order");
            assertEquals(results, journaledResults, "each with the result code the caller got");
            LiveRuntimeTest.assertReplaysIdentically(docs, 0);
        });
    }
}
