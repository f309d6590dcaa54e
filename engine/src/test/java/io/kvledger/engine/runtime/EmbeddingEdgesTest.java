package io.kvledger.engine.runtime;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.api.Decision;
import io.kvledger.engine.device.CopyBatch;
import io.kvledger.engine.device.CopyListener;
import io.kvledger.engine.device.DeviceBackend;
import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.store.MemoryL3Store;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * More of the embedding contract: a copy is handed to the device only once the document that launched it is
 * journaled; a refused open can be retried on the same directories; null and undersized arguments get a result
 * code; callers blocked on a full ring are answered when the ledger closes.
 */
class EmbeddingEdgesTest
{
    private static final int MAX_PAGES = 8;
    private static final long BIG = 1 << 20;

    @TempDir
    Path dir;

    private KvLedgerOptions options(final String name)
    {
        return EmbeddingFixture.options(dir, name, Integer.MAX_VALUE);
    }

    private static int[] tokens(final int count, final int salt)
    {
        return EmbeddingFixture.tokens(count, salt);
    }

    @Test
    void shouldHandACopyToTheDeviceOnlyOnceItsDocumentIsJournaled()
    {
        final EngineConfig config = EngineConfig.builder().pageSize(4).deviceKvPages(64).deviceMambaSlots(16)
            .hostKvPages(32).hostMambaSlots(4).maxRequests(8).maxRequestPages(MAX_PAGES).maxOps(32)
            .prefetchThresholdPages(Integer.MAX_VALUE).build();
        final GatedSink journal = new GatedSink(Long.MAX_VALUE);
        final CountingDevice device = new CountingDevice(new HostDeviceBackend(new DeviceConfig().deviceKvPages(64)
            .deviceMambaSlots(16).hostKvPages(32).hostMambaSlots(4)));
        final MemoryL3Store store = new MemoryL3Store(device);
        final EngineLoop loop = new EngineLoop(new CacheStateMachine(config), journal, null, device, store, 64,
            WaitStrategyKind.BLOCKING, MAX_PAGES + 4);
        device.start(loop);
        store.start(loop);
        loop.start();
        try
        {
            final Reply reply = new Reply(MAX_PAGES);
            final InputRecord in = new InputRecord(MAX_PAGES);
            final int[] t = tokens(26, 1);
            final io.kvledger.engine.ingress.Fingerprinter fp = new io.kvledger.engine.ingress.Fingerprinter(4);
            fp.fingerprint(0, t, 26, Inputs.arrive(in.reset(), 1, 2, 4, 0));
            assertEquals(ResultCode.OK, call(loop, reply, in));
            assertEquals(ResultCode.OK, call(loop, reply, Inputs.passBegin(in.reset(), 8, BIG, BIG, BIG)));
            assertEquals(ResultCode.OK, call(loop, reply, Inputs.admit(in.reset(), 1)));
            assertEquals(ResultCode.OK, call(loop, reply, Inputs.passEnd(in.reset())));
            assertEquals(ResultCode.OK, call(loop, reply, Inputs.finish(in.reset(), 1, 6, 6, 0, 0, 0)));
            assertTrue(loop.awaitQuiescent(TimeUnit.SECONDS.toNanos(20)));
            fp.fingerprint(0, t, 26, Inputs.arrive(in.reset(), 2, 2, 4, 0));
            assertEquals(ResultCode.OK, call(loop, reply, in));
            assertEquals(ResultCode.OK, call(loop, reply, Inputs.passBegin(in.reset(), 8, BIG, BIG, BIG)));
            assertEquals(ResultCode.OK, call(loop, reply, Inputs.admit(in.reset(), 2)));
            assertTrue(reply.decision.cowOp >= 0, "a copy-on-write is queued");
            final long submitted = device.submits.get();

            journal.gate = loop.appliedSequence();
            final long ticket = reply.next();
            assertEquals(EngineLoop.PUBLISHED, loop.publish(Inputs.passEnd(in.reset()), reply, ticket, false));
            awaitTrue(() -> journal.types.get(journal.types.size() - 1) == InputType.PASS_END, "PASS_END applied");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            assertEquals(submitted, device.submits.get(), "no copy before the journal has the PASS_END");
            assertFalse(reply.answered(ticket));

            journal.gate = Long.MAX_VALUE;
            reply.await(ticket, new BackoffIdleStrategy(), loop);
            assertEquals(ResultCode.OK, reply.decision.resultCode);
            awaitTrue(() -> device.submits.get() > submitted, "the copy launches once journaled");
            assertTrue(loop.awaitQuiescent(TimeUnit.SECONDS.toNanos(20)));
        }
        finally
        {
            journal.gate = Long.MAX_VALUE;
            store.close();
            device.close();
            loop.close();
        }
        assertNull(loop.failure());
    }

    private static int call(final EngineLoop loop, final Reply reply, final InputRecord in)
    {
        final long ticket = reply.next();
        assertEquals(EngineLoop.PUBLISHED, loop.publish(in, reply, ticket, false));
        reply.await(ticket, new BackoffIdleStrategy(), loop);
        return reply.decision.resultCode;
    }

    /** Callers blocked on a full ring when the ledger closes are answered; none waits for ever. */
    @Test
    void shouldAnswerCallersBlockedOnAFullRingAtClose() throws InterruptedException
    {
        for (int round = 0; round < 6; round++)
        {
            final KvLedgerOptions options = options("full-" + round);
            options.ringSize = 4;
            options.journalThread = round % 2 == 0;
            final KvLedger ledger = KvLedger.open(options);
            final int callers = 6;
            final List<String> outcomes = Collections.synchronizedList(new ArrayList<>());
            final CountDownLatch started = new CountDownLatch(callers);
            final Thread[] threads = new Thread[callers];
            for (int c = 0; c < callers; c++)
            {
                final int caller = c;
                threads[c] = new Thread(() ->
                {
                    final Session session = ledger.session();
                    final int[] t = tokens(26, caller);
                    started.countDown();
                    for (long k = 0; ; k++)
                    {
                        final int result = k % 2 == 0 ? session.arrive(caller * 1_000_000L + k, caller, t, 26, 4) :
                            session.tick(1);
                        if (result == ResultCode.ENGINE_STOPPED)
                        {
                            outcomes.add("stopped");
                            return;
                        }
                        if (k % 2 == 0 && result != ResultCode.OK && result != ResultCode.TOO_MANY_REQUESTS)
                        {
                            outcomes.add("result " + result);
                            return;
                        }
                    }
                });
                threads[c].setDaemon(true);
                threads[c].start();
            }
            started.await();
            Thread.sleep(20);
            assertTimeoutPreemptively(Duration.ofSeconds(60), ledger::close);
            for (final Thread thread : threads)
            {
                thread.join(30_000);
                assertFalse(thread.isAlive(), "a caller still waits after close");
            }
            assertEquals(Collections.nCopies(callers, "stopped"), outcomes, "round " + round);
            final LiveRuntimeTest.Documents docs = LiveRuntimeTest.Documents.read(options.journalDir);
            LiveRuntimeTest.assertReplaysIdentically(docs, ledger.engine().stateHash());
        }
    }

    private static void awaitTrue(final java.util.function.BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what);
            LockSupport.parkNanos(100_000);
        }
    }


    /** Counts the copies handed to a real device. */
    private static final class CountingDevice implements DeviceBackend
    {
        final DeviceBackend delegate;
        final AtomicLong submits = new AtomicLong();

        CountingDevice(final DeviceBackend delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public DeviceKind kind()
        {
            return delegate.kind();
        }

        @Override
        public void start(final CopyListener listener)
        {
            delegate.start(listener);
        }

        @Override
        public CopyBatch claimBatch()
        {
            return delegate.claimBatch();
        }

        @Override
        public CopyBatch tryClaimBatch()
        {
            return delegate.tryClaimBatch();
        }

        @Override
        public void submit(final long op, final CopyBatch batch)
        {
            submits.incrementAndGet();
            delegate.submit(op, batch);
        }

        @Override
        public void fill(final Pool pool, final int slot, final long contentSeed)
        {
            delegate.fill(pool, slot, contentSeed);
        }

        @Override
        public long digest(final Pool pool, final int slot)
        {
            return delegate.digest(pool, slot);
        }

        @Override
        public MutableDirectBuffer slot(final Pool pool, final int slot)
        {
            return delegate.slot(pool, slot);
        }

        @Override
        public int slotBytes(final Pool pool)
        {
            return delegate.slotBytes(pool);
        }

        @Override
        public int slotCount(final Pool pool)
        {
            return delegate.slotCount(pool);
        }

        @Override
        public long completedBatches()
        {
            return delegate.completedBatches();
        }

        @Override
        public long failedBatches()
        {
            return delegate.failedBatches();
        }

        @Override
        public long copiedBytes()
        {
            return delegate.copiedBytes();
        }

        @Override
        public String describe()
        {
            return delegate.describe();
        }

        @Override
        public void close()
        {
            delegate.close();
        }
    }

    /** A configuration refused by open leaves nothing that stops the corrected configuration from opening there. */
    @Test
    void shouldOpenOnTheSameDirectoriesAfterARefusedOpen()
    {
        final KvLedgerOptions bad = options("retry");
        bad.ringSize = 1000;
        assertThrows(IllegalArgumentException.class, () -> KvLedger.open(bad));
        final KvLedgerOptions noCounters = options("retry");
        noCounters.metricsPort = 0;
        assertThrows(IllegalArgumentException.class, () -> KvLedger.open(noCounters));

        final KvLedgerOptions good = options("retry");
        try (KvLedger ledger = KvLedger.open(good))
        {
            assertEquals(ResultCode.OK, ledger.session().tick(0));
        }
        final LiveRuntimeTest.Documents docs = LiveRuntimeTest.Documents.read(good.journalDir);
        assertEquals(1, docs.inputs.size());
    }

    /** Null or undersized arguments get a result code, and the engine goes on serving. */
    @Test
    void shouldAnswerNullAndUndersizedArgumentsWithAResultCode()
    {
        final KvLedgerOptions options = options("nulls");
        final KvLedger ledger = KvLedger.open(options);
        try
        {
            final Session s = ledger.session();
            final Decision d = new Decision(MAX_PAGES);
            final InputRecord arrive = new InputRecord(MAX_PAGES);
            new io.kvledger.engine.ingress.Fingerprinter(4).fingerprint(0, tokens(26, 1), 26,
                Inputs.arrive(arrive, 1, 2, 4, 0));
            assertEquals(ResultCode.BAD_INPUT, s.submit(null, d));
            assertEquals(ResultCode.BAD_INPUT, s.submit(arrive, new Decision(2)), "a decision too small");
            assertEquals(ResultCode.BAD_INPUT, s.submit(arrive, null));
            assertEquals(ResultCode.OK, s.submit(arrive, d), "none of the refused calls reached the engine");
            assertTrue(d.live, "the request arrived");
        }
        finally
        {
            ledger.close();
        }
        assertNull(ledger.loop().failure());
    }
}
