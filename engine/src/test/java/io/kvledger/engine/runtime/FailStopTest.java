package io.kvledger.engine.runtime;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.ResultCode;
import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.engine.store.MemoryL3Store;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.InputType;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An exception while applying or journaling stops the loop; nothing after it is applied. */
class FailStopTest
{
    @Test
    void shouldStopAtTheFailingInputAndApplyNothingAfterIt()
    {
        final EngineConfig config = EngineConfig.builder().pageSize(4).deviceKvPages(64).deviceMambaSlots(8)
            .hostKvPages(16).hostMambaSlots(4).maxRequests(8).maxRequestPages(8).maxOps(32).build();
        final AtomicInteger journaled = new AtomicInteger();
        final DocumentSink failing = (in, result, effects) ->
        {
            if (in.sequence() == 5)
            {
                throw new IllegalStateException("disk full");
            }
            journaled.incrementAndGet();
        };
        final HostDeviceBackend device = new HostDeviceBackend(new DeviceConfig().deviceKvPages(64)
            .deviceMambaSlots(8).hostKvPages(16).hostMambaSlots(4));
        final MemoryL3Store store = new MemoryL3Store(device);
        final EngineLoop loop = new EngineLoop(new CacheStateMachine(config), failing, null, device, store, 64,
            WaitStrategyKind.BLOCKING, 16);
        device.start(loop);
        store.start(loop);
        loop.start();
        final Reply reply = new Reply(8);
        final InputRecord tick = new InputRecord(1).type(InputType.TICK);
        for (int i = 1; i <= 4; i++)
        {
            final long ticket = reply.next();
            assertTrue(loop.publish(tick, reply, ticket, false));
            reply.await(ticket, new BackoffIdleStrategy(), loop);
            assertEquals(ResultCode.OK, reply.decision.resultCode);
        }
        final long ticket = reply.next();
        assertTrue(loop.publish(tick, reply, ticket, false));
        reply.await(ticket, new BackoffIdleStrategy(), loop);
        assertEquals(ResultCode.ENGINE_STOPPED, reply.decision.resultCode, "the caller of the failing input is told");
        assertThrows(IllegalStateException.class, loop::checkRunning);
        assertNotNull(loop.failure());
        assertTrue(loop.failure().contains("#5") && loop.failure().contains("disk full"), loop.failure());
        assertFalse(loop.publish(tick, reply, reply.next(), false), "a stopped loop accepts nothing");
        assertEquals(4, journaled.get());
        assertEquals(4, loop.appliedSequence(), "the failing input is not counted as applied");
        store.close();
        device.close();
        loop.close();
    }
}
