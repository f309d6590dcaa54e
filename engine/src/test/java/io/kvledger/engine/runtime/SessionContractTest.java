package io.kvledger.engine.runtime;

import io.kvledger.engine.api.Decision;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an embedding server may rely on: bad input gets a result code and leaves the engine running, a call made
 * while the ledger closes is answered {@link ResultCode#ENGINE_STOPPED} (never an exception, never a failed engine),
 * close does not wait for operations a pass left queued, and sessions polling completions together each take a
 * completion exactly once.
 */
class SessionContractTest
{
    private static final int MAX_PAGES = 8;

    @TempDir
    Path dir;

    private KvLedgerOptions options(final String name, final boolean journalThread)
    {
        return options(name, journalThread, 1);
    }

    /** Options with the L3 store queried for prompts of at least {@code queryPages} pages. */
    private KvLedgerOptions options(final String name, final boolean journalThread, final int queryPages)
    {
        return EmbeddingFixture.options(dir, name, journalThread, queryPages);
    }

    private static int[] tokens(final int count, final int salt)
    {
        return EmbeddingFixture.tokens(count, salt);
    }

    @Test
    void shouldRefuseAnInputTheRingCannotHoldAndKeepServing()
    {
        try (KvLedger ledger = KvLedger.open(options("oversized", true)))
        {
            final Session session = ledger.session();
            final InputRecord big = new InputRecord(4 * MAX_PAGES);
            Inputs.arrive(big.reset(), 1, 0, 4, 0);
            for (int i = 0; i < 2 * MAX_PAGES; i++)
            {
                big.addFingerprint(i + 1, i + 1);
            }
            final Decision decision = new Decision(MAX_PAGES);
            // A slot claimed and never published stalls the engine for every caller: guard against a hang.
            assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
            {
                assertEquals(ResultCode.BAD_REQUEST_SIZE, session.submit(big, decision));
                assertEquals(ResultCode.BAD_REQUEST_SIZE, decision.resultCode);

                final InputRecord untyped = new InputRecord(1).reset();
                untyped.type(null);
                assertEquals(ResultCode.BAD_INPUT, session.submit(untyped, decision));

                assertEquals(ResultCode.OK, session.tick(0), "the engine still serves every session");
                assertEquals(ResultCode.OK, ledger.session().arrive(2, 0, tokens(9, 0), 9, 4));
            });
            assertNull(ledger.loop().failure());
        }
    }

    @Test
    void shouldAnswerBadArrivalTokensWithAResultCode()
    {
        try (KvLedger ledger = KvLedger.open(options("arrive", false)))
        {
            final Session session = ledger.session();
            final int[] tokens = tokens(4 * (MAX_PAGES + 2), 0);
            assertEquals(ResultCode.BAD_REQUEST_SIZE, session.arrive(1, 0, tokens, tokens.length, 4),
                "more full pages than maxRequestPages");
            assertEquals(ResultCode.BAD_REQUEST_SIZE, session.arrive(2, 0, tokens, -1, 4));
            assertEquals(ResultCode.BAD_REQUEST_SIZE, session.arrive(3, 0, tokens(6, 0), 7, 4));
            assertEquals(ResultCode.BAD_REQUEST_SIZE, session.arrive(4, 0, null, 0, 4));
            assertEquals(ResultCode.BAD_REQUEST_SIZE, session.decision().resultCode);
            assertEquals(ResultCode.OK, session.arrive(5, 0, tokens, 4 * MAX_PAGES, 4), "the largest request fits");
            assertNull(ledger.loop().failure());
        }
    }

    @Test
    void shouldAnswerCallsRacingCloseWithEngineStopped() throws InterruptedException
    {
        for (int round = 0; round < 12; round++)
        {
            final KvLedger ledger = KvLedger.open(options("race-" + round, round % 2 == 1));
            final int callers = 3;
            final List<String> outcomes = Collections.synchronizedList(new ArrayList<>());
            final CountDownLatch started = new CountDownLatch(callers);
            final Thread[] threads = new Thread[callers];
            for (int c = 0; c < callers; c++)
            {
                final int caller = c;
                threads[c] = new Thread(() ->
                {
                    final Session session = ledger.session();
                    final int[] tokens = tokens(26, 100 * caller);
                    started.countDown();
                    for (long k = 0; ; k++)
                    {
                        try
                        {
                            final long request = caller * 1_000_000L + k / 2;
                            final int result = k % 2 == 0 ? session.arrive(request, 0, tokens, 26, 4) :
                                session.abort(request, 0, 0, 0);
                            if (result == ResultCode.ENGINE_STOPPED)
                            {
                                outcomes.add("stopped");
                                return;
                            }
                        }
                        catch (final RuntimeException ex)
                        {
                            outcomes.add("exception " + ex);
                            return;
                        }
                    }
                });
                threads[c].setDaemon(true);
                threads[c].start();
            }
            started.await();
            Thread.sleep(5 + round % 7);
            ledger.close();
            for (final Thread thread : threads)
            {
                thread.join(30_000);
                assertFalse(thread.isAlive(), "a caller still waits after close");
            }
            assertEquals(Collections.nCopies(callers, "stopped"), outcomes, "round " + round);
            assertNull(ledger.loop().failure(), "round " + round + ": closing must not fail the engine");
        }
    }

    @Test
    void shouldNotWaitAtCloseForACopyAPassLeftQueued()
    {
        // No L3 query (threshold past any prompt): admission never waits for one.
        final KvLedger ledger = KvLedger.open(options("open-pass", true, Integer.MAX_VALUE));
        try
        {
            final Session session = ledger.session();
            final int[] tokens = tokens(26, 7);
            assertEquals(ResultCode.OK, session.arrive(1, 0, tokens, 26, 4));
            assertEquals(ResultCode.OK, session.beginPass(8, 1 << 20, 1 << 20, 1 << 20));
            assertEquals(ResultCode.OK, session.admit(1));
            assertEquals(ResultCode.OK, session.endPass());
            assertEquals(ResultCode.OK, session.finish(1, 6, 6, 0, 0, 0));
            assertTrue(ledger.loop().awaitQuiescent(30_000_000_000L));

            // The same prefix again: admission queues a copy-on-write that only the pass's end would launch.
            assertEquals(ResultCode.OK, session.arrive(2, 0, tokens, 26, 4));
            assertEquals(ResultCode.OK, session.beginPass(8, 1 << 20, 1 << 20, 1 << 20));
            assertEquals(ResultCode.OK, session.admit(2));
            assertTrue(ledger.loop().inFlightOps() > 0, "a copy is queued");
            assertTrue(ledger.loop().awaitQuiescent(0), "nothing launched is in flight: close has nothing to await");
        }
        finally
        {
            ledger.close();
        }
        assertNull(ledger.loop().failure());
    }

    @Test
    void shouldGiveEachCompletionToExactlyOnePoller() throws InterruptedException
    {
        final CompletionQueue queue = new CompletionQueue(1 << 10);
        final int total = 200_000;
        final AtomicLong taken = new AtomicLong();
        final long[] seen = new long[total];
        final Thread[] pollers = new Thread[2];
        for (int p = 0; p < pollers.length; p++)
        {
            pollers[p] = new Thread(() ->
            {
                while (taken.get() < total)
                {
                    final long packed = queue.poll();
                    if (packed >= 0)
                    {
                        synchronized (seen)
                        {
                            seen[(int)CompletionQueue.op(packed)]++;
                        }
                        taken.incrementAndGet();
                    }
                }
            });
            pollers[p].start();
        }
        for (int op = 0; op < total; op++)
        {
            while (!queue.offer(op, true))
            {
                Thread.onSpinWait();
            }
        }
        for (final Thread poller : pollers)
        {
            poller.join(60_000);
        }
        assertEquals(total, taken.get());
        for (int op = 0; op < total; op++)
        {
            assertEquals(1, seen[op], "op " + op);
        }
        assertEquals(-1, queue.poll());
    }
}
