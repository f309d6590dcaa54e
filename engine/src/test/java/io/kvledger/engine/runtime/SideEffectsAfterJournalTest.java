package io.kvledger.engine.runtime;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.store.MemoryL3Store;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.InputType;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With a pipelined journal, a document's side effects wait for the journal: while the journal has not appended
 * the ARRIVE that launched an L3 query, the store is not asked and the caller is not answered; once it has, both
 * happen.
 */
class SideEffectsAfterJournalTest
{
    @Test
    void shouldLaunchAndAnswerOnlyAfterTheJournalAppendedTheDocument()
    {
        final EngineConfig config = EngineConfig.builder().pageSize(4).deviceKvPages(64).deviceMambaSlots(8)
            .hostKvPages(16).hostMambaSlots(4).maxRequests(8).maxRequestPages(8).maxOps(32).build();
        final GatedSink journal = new GatedSink(0);
        final HostDeviceBackend device = new HostDeviceBackend(new DeviceConfig().deviceKvPages(64)
            .deviceMambaSlots(8).hostKvPages(16).hostMambaSlots(4));
        final MemoryL3Store store = new MemoryL3Store(device);
        final EngineLoop loop = new EngineLoop(new CacheStateMachine(config), journal, null, device, store, 64,
            WaitStrategyKind.BLOCKING, 16);
        device.start(loop);
        store.start(loop);
        loop.start();
        try
        {
            final Reply reply = new Reply(8);
            final InputRecord in = Inputs.arrive(new InputRecord(8), 1, 0, 4, 0);
            for (int i = 0; i < 4; i++)
            {
                in.addFingerprint(100 + i, 200 + i);
            }
            final long ticket = reply.next();
            assertEquals(EngineLoop.PUBLISHED, loop.publish(in, reply, ticket, false));
            awaitTrue(() -> journal.types.size() == 1, "the ARRIVE is applied and offered to the journal");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));

            assertFalse(reply.answered(ticket), "no answer before the journal has the decision");
            assertEquals(0, store.stats().queries(), "no L3 query before the journal has the ARRIVE that launched it");
            assertEquals(List.of(InputType.ARRIVE), journal.types);

            journal.gate = 1;
            reply.await(ticket, new BackoffIdleStrategy(), loop);
            assertEquals(ResultCode.OK, reply.decision.resultCode);
            awaitTrue(() -> journal.types.size() == 2, "the store answers the query once launched");
            assertEquals(InputType.STORAGE_HIT, journal.types.get(1));
            assertEquals(1, store.stats().queries());
            journal.gate = Long.MAX_VALUE;
        }
        finally
        {
            journal.gate = Long.MAX_VALUE;
            store.close();
            device.close();
            loop.close();
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

}
