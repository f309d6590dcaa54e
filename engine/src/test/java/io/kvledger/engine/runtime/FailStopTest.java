package io.kvledger.engine.runtime;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.engine.store.MemoryL3Store;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.InputType;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An exception while applying or journaling stops the loop; nothing after it is applied. */
class FailStopTest
{
    private static final EngineConfig CONFIG = EngineConfig.builder().pageSize(4).deviceKvPages(64)
        .deviceMambaSlots(8).hostKvPages(16).hostMambaSlots(4).maxRequests(8).maxRequestPages(8).maxOps(32).build();

    /** An engine loop on host memory and a memory store, started; closing stops all three. */
    private static final class Running
    {
        final HostDeviceBackend device = new HostDeviceBackend(new DeviceConfig().deviceKvPages(64)
            .deviceMambaSlots(8).hostKvPages(16).hostMambaSlots(4));
        final MemoryL3Store store = new MemoryL3Store(device);
        final EngineLoop loop;

        Running(final CacheStateMachine engine, final DocumentSink sink)
        {
            loop = new EngineLoop(engine, sink, null, device, store, 64, WaitStrategyKind.BLOCKING, 16);
            device.start(loop);
            store.start(loop);
            loop.start();
        }

        void close()
        {
            store.close();
            device.close();
            loop.close();
        }
    }

    @Test
    void shouldStopAtTheFailingInputAndApplyNothingAfterIt()
    {
        final AtomicInteger journaled = new AtomicInteger();
        final DocumentSink failing = (in, result, effects) ->
        {
            if (in.sequence() == 5)
            {
                throw new IllegalStateException("disk full");
            }
            journaled.incrementAndGet();
        };
        final Running running = new Running(new CacheStateMachine(CONFIG), failing);
        final EngineLoop loop = running.loop;
        final Reply reply = new Reply(8);
        final InputRecord tick = Inputs.tick(new InputRecord(1), 0);
        for (int i = 1; i <= 4; i++)
        {
            final long ticket = reply.next();
            assertEquals(EngineLoop.PUBLISHED, loop.publish(tick, reply, ticket, false));
            reply.await(ticket, new BackoffIdleStrategy(), loop);
            assertEquals(ResultCode.OK, reply.decision.resultCode);
        }
        final long ticket = reply.next();
        assertEquals(EngineLoop.PUBLISHED, loop.publish(tick, reply, ticket, false));
        reply.await(ticket, new BackoffIdleStrategy(), loop);
        assertEquals(ResultCode.ENGINE_STOPPED, reply.decision.resultCode, "the caller of the failing input is told");
        assertThrows(IllegalStateException.class, loop::checkRunning);
        assertNotNull(loop.failure());
        assertTrue(loop.failure().contains("#5") && loop.failure().contains("disk full"), loop.failure());
        assertEquals(ResultCode.ENGINE_STOPPED, loop.publish(tick, reply, reply.next(), false),
            "a stopped loop accepts nothing");
        assertEquals(4, journaled.get());
        assertEquals(4, loop.appliedSequence(), "the failing input is not counted as applied");
        running.close();
    }

    @Test
    void shouldStopAndAnswerEvenWhenTheFailureCannotBeDescribed()
    {
        // a failure whose description itself fails, as building any message does when the heap is exhausted
        final class Undescribable extends Error
        {
            private static final long serialVersionUID = 1L;

            @Override
            public String toString()
            {
                throw new OutOfMemoryError("simulated: no heap left for the message");
            }
        }
        final DocumentSink failing = (in, result, effects) ->
        {
            if (in.sequence() == 3)
            {
                throw new Undescribable();
            }
        };
        final Running running = new Running(new CacheStateMachine(CONFIG), failing);
        final EngineLoop loop = running.loop;
        final Reply reply = new Reply(8);
        final InputRecord tick = Inputs.tick(new InputRecord(1), 0);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            for (int i = 1; i <= 3; i++)
            {
                final long ticket = reply.next();
                assertEquals(EngineLoop.PUBLISHED, loop.publish(tick, reply, ticket, false));
                reply.await(ticket, new BackoffIdleStrategy(), loop);
            }
        }, "the caller of the failing input is answered, not left waiting");
        assertEquals(ResultCode.ENGINE_STOPPED, reply.decision.resultCode);
        assertEquals(EngineLoop.FAILED_WITHOUT_DETAIL, loop.failure());
        assertThrows(IllegalStateException.class, loop::checkRunning);
        assertEquals(ResultCode.ENGINE_STOPPED, loop.publish(tick, reply, reply.next(), false),
            "a stopped loop accepts nothing");
        running.close();
    }

    @Test
    void shouldStopWhenApplyFindsAnInternalFailure()
    {
        final CacheStateMachine engine = new CacheStateMachine(CONFIG);
        final AtomicInteger journaled = new AtomicInteger();
        final long[] receipt = {-1};
        final java.util.Set<InputType> journaledTypes = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final DocumentSink sink = (in, result, effects) ->
        {
            journaled.incrementAndGet();
            journaledTypes.add(in.type());
            for (int i = 0; i < effects.size(); i++)
            {
                if (effects.type(i) == io.kvledger.journal.codec.EffectType.LOCKED && effects.owner(i) == 1)
                {
                    receipt[0] = effects.value1(i);
                }
            }
            if (in.type() == InputType.CHUNK)
            {
                // A bug elsewhere releases the request's lock behind the engine's back (on the engine thread).
                engine.tree().unlock(receipt[0]);
            }
        };
        final Running running = new Running(engine, sink);
        final EngineLoop loop = running.loop;
        final Reply reply = new Reply(8);
        final InputRecord in = new InputRecord(8);
        Inputs.arrive(in.reset(), 1, 0, 4, 0);
        for (int i = 0; i < 4; i++)
        {
            in.addFingerprint(100 + i, 200 + i);
        }
        assertEquals(ResultCode.OK, call(loop, reply, in));
        assertEquals(ResultCode.OK, call(loop, reply, Inputs.passBegin(in.reset(), 8, 1 << 20, 1 << 20, 1 << 20)));
        int admitted = ResultCode.NOT_ADMITTED;
        for (int i = 0; i < 5_000 && admitted == ResultCode.NOT_ADMITTED; i++)
        {
            // The admit waits (within this pass) until the store has answered the request's L3 query.
            admitted = call(loop, reply, Inputs.admit(in.reset(), 1));
            java.util.concurrent.locks.LockSupport.parkNanos(200_000);
        }
        assertEquals(ResultCode.OK, admitted);
        assertEquals(ResultCode.OK, call(loop, reply, Inputs.passEnd(in.reset())));
        assertEquals(ResultCode.OK, call(loop, reply, Inputs.chunk(in.reset(), 1, 4, 4, 0, 0, 0)));
        assertEquals(ResultCode.ENGINE_STOPPED, call(loop, reply, Inputs.finish(in.reset(), 1, 4, 4, 0, 0, 0)),
            "the failing input's caller is told");
        assertTrue(!journaledTypes.contains(InputType.FINISH), "nothing is journaled for the failing input");
        // (an ACK of the chunk's backup may have been journaled before the FINISH: the device completes on its own)
        final int before = journaled.get();
        assertTrue(loop.failure().contains("FINISH") && loop.failure().contains("release of lock receipt"),
            loop.failure());
        assertEquals(ResultCode.ENGINE_STOPPED, call(loop, reply, Inputs.tick(in.reset(), 0)),
            "every later call is refused");
        assertEquals(before, journaled.get());
        running.close();
    }

    private static int call(final EngineLoop loop, final Reply reply, final InputRecord in)
    {
        final long ticket = reply.next();
        final int refused = loop.publish(in, reply, ticket, false);
        if (refused != EngineLoop.PUBLISHED)
        {
            return refused;
        }
        reply.await(ticket, new BackoffIdleStrategy(), loop);
        return reply.decision.resultCode;
    }
}
