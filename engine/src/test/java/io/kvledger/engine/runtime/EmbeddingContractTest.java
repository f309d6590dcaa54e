package io.kvledger.engine.runtime;

import io.kvledger.engine.api.Decision;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Black-box contract of the embedding API, as an inference server embedding kvledger relies on it: every bad or
 * out-of-order call through a {@link Session} is answered with a result code and leaves the engine serving and the
 * journal readable and replayable; forged completions are refused; tenants never share pages; every launched load
 * or copy gets exactly one completion, failed copies included.
 */
class EmbeddingContractTest
{
    private static final int MAX_PAGES = 8;
    private static final long BIG = 1 << 20;

    @TempDir
    Path dir;

    private KvLedgerOptions options(final String name, final boolean journalThread, final int queryPages)
    {
        return EmbeddingFixture.options(dir, name, journalThread, queryPages);
    }

    private static int[] tokens(final int count, final int salt)
    {
        return EmbeddingFixture.tokens(count, salt);
    }

    /** Close, then the journal must read CLEAN and replay to the live engine's state. */
    private static LiveRuntimeTest.Documents closeAndReplay(final KvLedger ledger, final Path journalDir)
    {
        ledger.close();
        assertNull(ledger.loop().failure(), "the engine must not have stopped");
        final LiveRuntimeTest.Documents docs = LiveRuntimeTest.Documents.read(journalDir);
        LiveRuntimeTest.assertReplaysIdentically(docs, ledger.engine().stateHash());
        return docs;
    }

    @ParameterizedTest(name = "journal thread {0}")
    @ValueSource(booleans = {false, true})
    void shouldAnswerBadIdsAndOutOfOrderCallsWithResultCodes(final boolean journalThread)
    {
        final KvLedgerOptions options = options("bad-" + journalThread, journalThread, Integer.MAX_VALUE);
        final KvLedger ledger = KvLedger.open(options);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final Session s = ledger.session();
            final int[] t = tokens(26, 1);
            // unknown ids, before any pass
            assertEquals(ResultCode.NOT_IN_PASS, s.admit(7));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.retract(7));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.abort(7, 0, 0, 0));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.chunk(7, 1, 1, 0, 0, 0));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.finish(7, 1, 1, 0, 0, 0));
            assertEquals(ResultCode.NOT_IN_PASS, s.endPass());
            // negative and extreme ids
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.arrive(-1, 0, t, 26, 4));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.arrive(Long.MIN_VALUE, 0, t, 26, 4));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.finish(-1, 0, 0, 0, 0, 0));
            assertEquals(ResultCode.OK, s.arrive(Long.MAX_VALUE, 0, t, 26, 4));
            assertEquals(ResultCode.DUPLICATE_REQUEST, s.arrive(Long.MAX_VALUE, 0, t, 26, 4));
            // bad sizes and budgets
            assertEquals(ResultCode.BAD_REQUEST_SIZE, s.arrive(8, 0, t, 27, 4), "count past the array");
            assertEquals(ResultCode.BAD_REQUEST_SIZE, s.arrive(8, 0, t, 26, -1), "negative decode budget");
            assertEquals(ResultCode.OK, s.arrive(9, Long.MIN_VALUE, t, 26, Long.MAX_VALUE), "extreme namespace");
            // finish before admit, admit twice, pass twice
            assertEquals(ResultCode.REQUEST_STATE, s.finish(Long.MAX_VALUE, 1, 1, 0, 0, 0));
            assertEquals(ResultCode.REQUEST_STATE, s.chunk(Long.MAX_VALUE, 1, 1, 0, 0, 0));
            assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
            assertEquals(ResultCode.PASS_OPEN, s.beginPass(8, BIG, BIG, BIG));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.admit(7));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.admit(-5));
            assertEquals(ResultCode.OK, s.admit(Long.MAX_VALUE));
            assertTrue(s.decision().live);
            assertNotEquals(ResultCode.OK, s.admit(Long.MAX_VALUE), "admit twice");
            assertTrue(s.admit(9) >= 0, "a request with the largest decode budget gets an admission answer");
            assertEquals(ResultCode.OK, s.endPass());
            // chunk and finish with page counts out of range
            assertEquals(ResultCode.BAD_REQUEST_SIZE, s.chunk(Long.MAX_VALUE, -1, 0, 0, 0, 0));
            assertEquals(ResultCode.BAD_REQUEST_SIZE, s.chunk(Long.MAX_VALUE, 2, 3, 0, 0, 0));
            assertEquals(ResultCode.BAD_REQUEST_SIZE, s.finish(Long.MAX_VALUE, Integer.MAX_VALUE, 1, 0, 0, 0));
            assertEquals(ResultCode.OK, s.chunk(Long.MAX_VALUE, 2, 2, -1, Long.MIN_VALUE, Long.MAX_VALUE));
            assertEquals(ResultCode.OK, s.finish(Long.MAX_VALUE, 6, 6, 0, 0, 0));
            // after finish: the id is gone
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.chunk(Long.MAX_VALUE, 6, 6, 0, 0, 0));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.finish(Long.MAX_VALUE, 6, 6, 0, 0, 0));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.abort(Long.MAX_VALUE, 0, 0, 0));
            assertEquals(ResultCode.UNKNOWN_REQUEST, s.retract(Long.MAX_VALUE));
            // time with extreme values, budgets out of range
            assertEquals(ResultCode.OK, s.tick(-1));
            assertEquals(ResultCode.OK, s.tick(Long.MAX_VALUE));
            final int negativeBudgets = s.beginPass(-1, -1, -1, -1);
            assertTrue(negativeBudgets == ResultCode.OK || negativeBudgets < 0, "answered: " + negativeBudgets);
            if (negativeBudgets == ResultCode.OK)
            {
                assertTrue(s.admit(9) >= 0 || s.decision().resultCode < 0);
                assertEquals(ResultCode.OK, s.endPass());
            }
            assertEquals(ResultCode.OK, s.abort(9, 0, 0, 0));
            // the id can be used again once its request is gone
            assertEquals(ResultCode.OK, s.arrive(Long.MAX_VALUE, 0, t, 26, 4));
            assertEquals(ResultCode.OK, s.abort(Long.MAX_VALUE, 0, 0, 0));
        });
        closeAndReplay(ledger, options.journalDir);
    }

    /**
     * Completions forged through {@link Session#submit}: an ack of an unknown op, of an op only queued, a second ack
     * of a finished op, an ack of a query, a storage answer or fetch for an unknown op. Each gets its result code;
     * nothing fails.
     */
    @ParameterizedTest(name = "journal thread {0}")
    @ValueSource(booleans = {false, true})
    void shouldRefuseForgedCompletionsWithResultCodes(final boolean journalThread)
    {
        final KvLedgerOptions options = options("forged-" + journalThread, journalThread, Integer.MAX_VALUE);
        final KvLedger ledger = KvLedger.open(options);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final Session s = ledger.session();
            final Decision d = new Decision(MAX_PAGES);
            final InputRecord in = new InputRecord(MAX_PAGES);
            assertEquals(ResultCode.UNKNOWN_OP, s.submit(Inputs.ack(in.reset(), 12345, true), d));
            assertEquals(ResultCode.UNKNOWN_OP, s.submit(Inputs.ack(in.reset(), -1, false), d));
            assertEquals(ResultCode.UNKNOWN_OP, s.submit(Inputs.ack(in.reset(), Long.MAX_VALUE, true), d));
            assertEquals(ResultCode.UNKNOWN_OP, s.submit(Inputs.storageHit(in.reset(), 999, 3, 1), d));
            assertEquals(ResultCode.UNKNOWN_OP, s.submit(Inputs.fetchDone(in.reset(), 999, true, 3, true), d));

            final int[] t = tokens(26, 7);
            assertEquals(ResultCode.OK, s.arrive(1, 0, t, 26, 4));
            assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
            assertEquals(ResultCode.OK, s.admit(1));
            assertEquals(ResultCode.OK, s.endPass());
            assertEquals(ResultCode.OK, s.finish(1, 6, 6, 0, 0, 0));
            assertTrue(ledger.loop().awaitQuiescent(30_000_000_000L));
            // the same prefix: a copy-on-write is queued, not launched
            assertEquals(ResultCode.OK, s.arrive(2, 0, t, 26, 4));
            assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
            assertEquals(ResultCode.OK, s.admit(2));
            final long cow = s.decision().cowOp;
            assertTrue(cow >= 0, "a copy-on-write");
            assertEquals(ResultCode.OP_NOT_LAUNCHED, s.submit(Inputs.ack(in.reset(), cow, true), d));
            assertEquals(ResultCode.OP_NOT_LAUNCHED, s.submit(Inputs.ack(in.reset(), cow, false), d));
            assertEquals(ResultCode.OP_KIND_MISMATCH, s.submit(Inputs.storageHit(in.reset(), cow, 1, 1), d));
            assertEquals(ResultCode.OK, s.endPass());
            assertTrue(ledger.loop().awaitQuiescent(30_000_000_000L));
            assertEquals(ResultCode.OP_ALREADY_DONE, s.submit(Inputs.ack(in.reset(), cow, true), d), "double ack");
            assertEquals(ResultCode.OP_ALREADY_DONE, s.submit(Inputs.ack(in.reset(), cow, false), d));
            assertEquals(ResultCode.OK, s.finish(2, 6, 6, 0, 0, 0));
        });
        closeAndReplay(ledger, options.journalDir);
    }

    /**
     * Two tenants with byte-identical fingerprints (forged through {@link Session#submit}) and identical tokens
     * (through {@link Session#arrive}) never share a device page: the second tenant's request matches nothing of the
     * first's cached prefix.
     */
    @Test
    void shouldNeverSharePagesBetweenNamespaces()
    {
        final KvLedgerOptions options = options("tenants", false, Integer.MAX_VALUE);
        final KvLedger ledger = KvLedger.open(options);
        final Session s = ledger.session();
        final Decision d = new Decision(MAX_PAGES);
        final InputRecord in = new InputRecord(MAX_PAGES);
        final Set<Integer> tenantOnePages = new HashSet<>();
        // tenant 1 computes and caches 6 pages of raw fingerprints
        Inputs.arrive(in.reset(), 1, 2, 4, 1);
        for (int i = 0; i < 6; i++)
        {
            in.addFingerprint(1000 + i, 2000 + i);
        }
        assertEquals(ResultCode.OK, s.submit(in, d));
        admitAlone(s, 1, d);
        for (int i = 0; i < d.validPages; i++)
        {
            tenantOnePages.add(d.pageIds[i]);
        }
        assertEquals(ResultCode.OK, s.finish(1, 6, 6, 0, 0, 0));
        // tenant 1 again: it reuses its prefix (sanity: the cache does share within a tenant)
        in.request(3);
        assertEquals(ResultCode.OK, s.submit(in, d));
        admitAlone(s, 3, d);
        assertTrue(d.prefixPages > 0, "same tenant shares its prefix");
        assertTrue(ledger.loop().awaitQuiescent(30_000_000_000L));
        assertEquals(ResultCode.OK, s.finish(3, 6, 6, 0, 0, 0));
        // tenant 2, the same fingerprints
        for (final long namespace : new long[]{ 2, 0, -1 })
        {
            final long request = 10 + namespace;
            Inputs.arrive(in.reset(), request, 2, 4, namespace);
            for (int i = 0; i < 6; i++)
            {
                in.addFingerprint(1000 + i, 2000 + i);
            }
            assertEquals(ResultCode.OK, s.submit(in, d));
            admitAlone(s, request, d);
            assertEquals(0, d.prefixPages, "namespace " + namespace + " matched tenant 1's pages");
            assertTrue(d.cowOp < 0 && d.loadOp < 0);
            for (int i = 0; i < d.validPages; i++)
            {
                assertTrue(!tenantOnePages.contains(d.pageIds[i]), "page " + d.pageIds[i] + " shared");
            }
            assertEquals(ResultCode.OK, s.finish(request, 6, 6, 0, 0, 0));
        }
        // identical tokens through the session's own fingerprinting
        final int[] t = tokens(26, 50);
        assertEquals(ResultCode.OK, s.arrive(20, 5, t, 26, 4));
        admitAlone(s, 20, d);
        assertEquals(ResultCode.OK, s.finish(20, 6, 6, 0, 0, 0));
        assertEquals(ResultCode.OK, s.arrive(21, 6, t, 26, 4));
        admitAlone(s, 21, d);
        assertEquals(0, d.prefixPages, "tenant 6 matched tenant 5's pages");
        assertEquals(ResultCode.OK, s.finish(21, 6, 6, 0, 0, 0));
        closeAndReplay(ledger, options.journalDir);
    }

    private static void admitAlone(final Session s, final long request, final Decision into)
    {
        assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
        assertEquals(ResultCode.OK, s.admit(request));
        into.copyFrom(s.decision());
        assertEquals(ResultCode.OK, s.endPass());
    }

    /**
     * Copies fail at random: every load or copy-on-write launched is announced exactly once on the completion queue,
     * with the outcome the journal recorded; a failed copy sends its request back to waiting and it can be admitted
     * again; the journal replays.
     */
    @ParameterizedTest(name = "journal thread {0}")
    @ValueSource(booleans = {false, true})
    void shouldAnnounceEveryLaunchedCopyExactlyOnceWhenCopiesFail(final boolean journalThread)
    {
        final KvLedgerOptions options = options("fail-" + journalThread, journalThread, Integer.MAX_VALUE);
        options.copyFailureProbability = 0.4;
        final KvLedger ledger = KvLedger.open(options);
        final Map<Long, Integer> polled = new HashMap<>();
        final Map<Long, Boolean> outcome = new HashMap<>();
        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            final Session s = ledger.session();
            final int[] t = tokens(26, 3);
            assertEquals(ResultCode.OK, s.arrive(1, 0, t, 26, 4));
            assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
            assertEquals(ResultCode.OK, s.admit(1));
            assertEquals(ResultCode.OK, s.endPass());
            assertEquals(ResultCode.OK, s.finish(1, 6, 6, 0, 0, 0));
            int failed = 0;
            for (long request = 2; request < 80; request++)
            {
                assertEquals(ResultCode.OK, s.arrive(request, 0, t, 26, 4));
                for (int attempt = 0; ; attempt++)
                {
                    assertTrue(attempt < 200, "request " + request + " never ran");
                    assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
                    final int admitted = s.admit(request);
                    final long cow = s.decision().cowOp;
                    assertEquals(ResultCode.OK, s.endPass());
                    if (admitted != ResultCode.OK)
                    {
                        continue;
                    }
                    if (cow < 0)
                    {
                        break;
                    }
                    assertTrue(ledger.loop().awaitQuiescent(30_000_000_000L));
                    long packed;
                    while ((packed = s.pollCompletion()) < 0)
                    {
                        Thread.onSpinWait();
                    }
                    assertEquals(cow, CompletionQueue.op(packed), "the completion of the copy just launched");
                    polled.merge(cow, 1, Integer::sum);
                    outcome.put(cow, CompletionQueue.ok(packed));
                    if (CompletionQueue.ok(packed))
                    {
                        break;
                    }
                    failed++;
                    assertEquals(ResultCode.REQUEST_STATE, s.finish(request, 6, 6, 0, 0, 0),
                        "a request whose copy failed waits to be admitted again");
                }
                assertEquals(ResultCode.OK, s.finish(request, 6, 6, 0, 0, 0));
            }
            assertTrue(failed > 0, "some copies failed");
            assertEquals(-1, s.pollCompletion(), "no completion announced twice");
        });
        final LiveRuntimeTest.Documents docs = closeAndReplay(ledger, options.journalDir);
        final Map<Long, Boolean> journaled = new HashMap<>();
        for (final EffectList effects : docs.effects)
        {
            for (int i = 0; i < effects.size(); i++)
            {
                final EffectType type = effects.type(i);
                if ((type == EffectType.OP_ACKED || type == EffectType.OP_FAILED) &&
                    (effects.opKind(i) == OpKind.LOAD || effects.opKind(i) == OpKind.COW))
                {
                    assertNull(journaled.put(effects.id(i), type == EffectType.OP_ACKED), "op " + effects.id(i));
                }
            }
        }
        assertEquals(journaled, outcome, "announced outcomes are the journaled ones");
        for (final int count : polled.values())
        {
            assertEquals(1, count);
        }
    }
    /** Cache a 6-page prompt with a checkpoint, then admit the same prompt again: a copy-on-write launches. */
    private static long launchCopy(final Session s, final long first, final int[] t)
    {
        assertEquals(ResultCode.OK, s.arrive(first, 0, t, 26, 4));
        assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
        assertEquals(ResultCode.OK, s.admit(first));
        assertEquals(ResultCode.OK, s.endPass());
        assertEquals(ResultCode.OK, s.finish(first, 6, 6, 0, 0, 0));
        assertEquals(ResultCode.OK, s.arrive(first + 1, 0, t, 26, 4));
        assertEquals(ResultCode.OK, s.beginPass(8, BIG, BIG, BIG));
        assertEquals(ResultCode.OK, s.admit(first + 1));
        final long cow = s.decision().cowOp;
        assertTrue(cow >= 0, "a copy-on-write");
        assertEquals(ResultCode.OK, s.endPass());
        return cow;
    }

    /**
     * Completions of launched copies arrive while the ledger closes: close waits for them, so the journal holds
     * their acks; a copy still running is not lost; callers racing close are answered.
     */
    @ParameterizedTest(name = "journal thread {0}")
    @ValueSource(booleans = {false, true})
    void shouldJournalTheAckOfACopyRunningAtClose(final boolean journalThread)
    {
        final KvLedgerOptions options = options("ack-at-close-" + journalThread, journalThread, Integer.MAX_VALUE);
        options.copyDelayMinNs = 200_000_000L;
        options.copyDelayMaxNs = 200_000_000L;
        final KvLedger ledger = KvLedger.open(options);
        final Session s = ledger.session();
        final long cow = launchCopy(s, 1, tokens(26, 1));
        final LiveRuntimeTest.Documents docs = closeAndReplay(ledger, options.journalDir);
        assertEquals(ResultCode.ENGINE_STOPPED, s.finish(2, 6, 6, 0, 0, 0));
        int acks = 0;
        for (final EffectList effects : docs.effects)
        {
            for (int i = 0; i < effects.size(); i++)
            {
                if (effects.type(i) == EffectType.OP_ACKED && effects.id(i) == cow)
                {
                    acks++;
                }
            }
        }
        assertEquals(1, acks, "the copy's ack is journaled once");
        final long packed = s.pollCompletion();
        assertEquals(cow, CompletionQueue.op(packed), "its completion is announced");
    }

    /**
     * Two threads close the ledger at once (a shutdown hook and the server's own shutdown): neither returns before
     * the controller is closed, so each may read {@link KvLedger#engine()} and the journal when close returns.
     */
    @Test
    void shouldNotReturnFromASecondCloseBeforeTheLedgerIsClosed() throws Exception
    {
        final KvLedgerOptions options = options("double-close", false, Integer.MAX_VALUE);
        // the first close waits for the launched copy: it is still closing when the second close is called
        options.copyDelayMinNs = 1_000_000_000L;
        options.copyDelayMaxNs = 1_000_000_000L;
        final KvLedger ledger = KvLedger.open(options);
        final Session s = ledger.session();
        final long cow = launchCopy(s, 1, tokens(26, 1));
        assertTrue(ledger.loop().inFlightOps() > 0 && cow >= 0);
        final Thread first = new Thread(ledger::close, "first-close");
        first.start();
        while (!ledger.isClosed())
        {
            Thread.onSpinWait();
        }
        ledger.close();
        final boolean terminatedAtReturn = ledger.loop().terminated();
        final boolean firstStillClosing = first.isAlive();
        first.join(60_000);
        assertTrue(terminatedAtReturn, "the second close returned while the first was still closing (first alive: " +
            firstStillClosing + ")");
        final LiveRuntimeTest.Documents docs = LiveRuntimeTest.Documents.read(options.journalDir);
        LiveRuntimeTest.assertReplaysIdentically(docs, ledger.engine().stateHash());
    }

    /**
     * {@link EngineLoop#awaitQuiescent} says the launched ops' completions are applied: a server that waited for it
     * finds the completion of the copy it launched on the queue at once.
     */
    @Test
    void shouldFindTheCompletionOnTheQueueOnceQuiescent()
    {
        final KvLedgerOptions options = options("quiescent", true, Integer.MAX_VALUE);
        final KvLedger ledger = KvLedger.open(options);
        final Session s = ledger.session();
        int missed = 0;
        for (int round = 0; round < 200; round++)
        {
            final long first = 10L * round;
            final long cow = launchCopy(s, first, tokens(26, 100 * round));
            assertTrue(ledger.loop().awaitQuiescent(30_000_000_000L));
            final long packed = s.pollCompletion();
            if (packed < 0)
            {
                missed++;
                long late;
                while ((late = s.pollCompletion()) < 0)
                {
                    Thread.onSpinWait();
                }
                assertEquals(cow, CompletionQueue.op(late));
            }
            else
            {
                assertEquals(cow, CompletionQueue.op(packed));
            }
            assertEquals(ResultCode.OK, s.finish(first + 1, 6, 6, 0, 0, 0));
            assertEquals(ResultCode.OK, s.tick(Long.MAX_VALUE));
        }
        closeAndReplay(ledger, options.journalDir);
        assertEquals(0, missed, "rounds where the completion came after awaitQuiescent returned");
    }

    /** A prompt of no tokens at all: the Session's Javadoc promises BAD_REQUEST_SIZE ("none"). */
    @Test
    void shouldRefuseAnEmptyPrompt()
    {
        final KvLedgerOptions options = options("empty", false, Integer.MAX_VALUE);
        final KvLedger ledger = KvLedger.open(options);
        final Session s = ledger.session();
        assertEquals(ResultCode.BAD_REQUEST_SIZE, s.arrive(1, 0, new int[0], 0, 4));
        assertEquals(ResultCode.BAD_REQUEST_SIZE, s.arrive(2, 0, tokens(8, 0), 0, 4));
        closeAndReplay(ledger, options.journalDir);
    }
}
