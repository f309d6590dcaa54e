package io.kvledger.engine.runtime;

import io.kvledger.engine.api.Decision;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Black-box (README, Embedding: "an ACK submitted for a copy still running is applied as its completion"; bad input
 * "gets a result code, not an exception ... the engine goes on serving"): a copy-on-write acked through
 * {@link Session#submit} while the device still runs it, then acked again, then completed by the device itself. The
 * second ack and the device's own completion are refused with a result code; the engine keeps serving, never
 * fail-stops, journals the copy's completion once, and its journal replays to the live state.
 */
class EmbeddingEarlyAckTest
{
    private static final long BIG = 1 << 20;
    private static final long COPY_NS = 200_000_000L;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "journal thread {0}")
    @ValueSource(booleans = {false, true})
    void shouldRefuseTheDevicesAckOfACopyAckedEarlyAndKeepServing(final boolean journalThread)
    {
        final KvLedgerOptions options = EmbeddingFixture.options(dir, "early-" + journalThread, journalThread,
            Integer.MAX_VALUE);
        options.copyDelayMinNs = COPY_NS;
        options.copyDelayMaxNs = COPY_NS;
        final KvLedger ledger = KvLedger.open(options);
        final long[] cow = new long[1];
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final Session s = ledger.session();
            final int[] t = EmbeddingFixture.tokens(26, 11);
            assertEquals(ResultCode.OK, s.arrive(1, 0, t, 26, 4));
            assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
            assertEquals(ResultCode.OK, s.admit(1));
            assertEquals(ResultCode.OK, s.endPass());
            assertEquals(ResultCode.OK, s.finish(1, 6, 6, 0, 0, 0));
            assertTrue(ledger.loop().awaitQuiescent(TimeUnit.SECONDS.toNanos(30)));
            // the same prompt again: a copy-on-write from the cached checkpoint, launched at the pass's end
            assertEquals(ResultCode.OK, s.arrive(2, 0, t, 26, 4));
            assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
            assertEquals(ResultCode.OK, s.admit(2));
            cow[0] = s.decision().cowOp;
            assertTrue(cow[0] >= 0, "a copy-on-write");
            assertEquals(ResultCode.OK, s.endPass());
            final long launched = System.nanoTime();

            final Decision d = new Decision(EmbeddingFixture.MAX_PAGES);
            final InputRecord in = new InputRecord(EmbeddingFixture.MAX_PAGES);
            assertEquals(ResultCode.OK, s.submit(Inputs.ack(in.reset(), cow[0], true), d),
                "an ack of a copy still running is applied as its completion");
            assertEquals(ResultCode.OP_ALREADY_DONE, s.submit(Inputs.ack(in.reset(), cow[0], true), d));
            assertEquals(ResultCode.OK, s.finish(2, 6, 6, 0, 0, 0));

            // keep serving past the copy's end, so the device's own completion comes in among these calls
            long request = 3;
            while (System.nanoTime() - launched < 3 * COPY_NS || request < 6)
            {
                final int[] other = EmbeddingFixture.tokens(26, 1000 * (int)request);
                assertEquals(ResultCode.OK, s.arrive(request, 0, other, 26, 4));
                assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
                assertEquals(ResultCode.OK, s.admit(request));
                assertEquals(ResultCode.OK, s.endPass());
                assertTrue(ledger.loop().awaitQuiescent(TimeUnit.SECONDS.toNanos(30)));
                assertEquals(ResultCode.OK, s.finish(request, 6, 6, 0, 0, 0));
                assertNull(ledger.loop().failure(), "the engine keeps serving");
                request++;
            }
        });
        ledger.close();
        assertNull(ledger.loop().failure(), "the engine never stopped");

        final LiveRuntimeTest.Documents docs = LiveRuntimeTest.Documents.read(options.journalDir);
        LiveRuntimeTest.assertReplaysIdentically(docs, ledger.engine().stateHash());
        int acked = 0;
        int refusedAcks = 0;
        for (int doc = 0; doc < docs.inputs.size(); doc++)
        {
            final EffectList effects = docs.effects.get(doc);
            for (int i = 0; i < effects.size(); i++)
            {
                if (effects.type(i) == EffectType.OP_ACKED && effects.id(i) == cow[0])
                {
                    acked++;
                }
            }
            final InputRecord input = docs.inputs.get(doc);
            if (input.type() == InputType.ACK && input.op() == cow[0] && docs.results.get(doc) != ResultCode.OK)
            {
                assertEquals(ResultCode.OP_ALREADY_DONE, (int)docs.results.get(doc));
                refusedAcks++;
            }
        }
        assertEquals(1, acked, "the copy's completion is journaled once");
        assertTrue(refusedAcks >= 1, "the second ack is journaled as refused");
    }
}
