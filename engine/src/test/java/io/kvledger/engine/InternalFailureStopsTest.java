package io.kvledger.engine;

import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.ResultCode;

import io.kvledger.engine.slot.SlotPool;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An internal mutator that fails after the input was validated is an engine bug: apply throws, naming the input's
 * sequence, type and ids, instead of going on with a state its journal does not describe. Each kind of internal
 * failure is provoked by corrupting a pool or the tree behind the engine's back (issue 9, part 1).
 */
class InternalFailureStopsTest
{
    private static EngineConfig config()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(16).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(8).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).build();
    }

    private static EngineBugException expectStop(final Driver d, final Runnable input, final String what)
    {
        final EngineBugException ex = assertThrows(EngineBugException.class, input::run);
        assertTrue(ex.getMessage().startsWith("engine bug at input #"), ex.getMessage());
        assertTrue(ex.getMessage().contains(what), ex.getMessage());
        return ex;
    }

    @Test
    void shouldStopWhenALockItHoldsIsGoneAtRelease()
    {
        final Driver d = new Driver(config(), false);
        d.cold(1, 3, 8);
        d.passBegin();
        d.admit(1);
        d.passEnd();
        assertEquals(ResultCode.OK, d.apply(Inputs.chunk(d.in.reset(), 1, 4, 4, 0, 0, 0)));
        long receipt = -1;
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.LOCKED && d.last.owner(i) == 1)
            {
                receipt = d.last.value1(i);
            }
        }
        assertEquals(ResultCode.OK, d.engine.tree().unlock(receipt), "the lock vanishes behind the engine's back");
        final EngineBugException ex = expectStop(d, () -> d.finish(1, 8, 0, 0, 0), "FINISH");
        assertTrue(ex.getMessage().contains("receipt " + receipt), ex.getMessage());
        assertEquals(d.engine.sequence(), ex.sequence());
    }

    /**
     * A failure inside a collaborator that throws its own exception (here the tree refusing to collect the pages of
     * a node deleted behind the engine's back) is an engine bug too: named with the input, never a bare
     * IllegalArgumentException a caller would take for bad input.
     */
    @Test
    void shouldNameTheInputWhenACollaboratorThrowsItsOwnException()
    {
        final Driver d = new Driver(EngineConfig.builder().pageSize(4).hybrid(false).deviceKvPages(8).hostKvPages(64)
            .maxRequests(8).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).build(), false);
        d.cold(1, 3, 2);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 2, 0, 0, 0));
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.OP_QUEUED)
            {
                assertEquals(ResultCode.OK, d.ack(d.last.id(i), true));
            }
        }
        final int node = 1;
        assertTrue(d.engine.tree().live(node) && d.engine.tree().pageCount(node) == 2, "request 1's pages cached");
        assertEquals(2, d.engine.tree().evictablePages(), "nothing holds the node");
        final SlotPool kv = d.engine.pool(Pool.DEVICE_KV);
        // one of the node's pages changes hands behind the engine's back: the tree's own page move will be refused
        kv.forceTransition(d.engine.tree().firstPage(node), SlotState.FREE, SlotPool.NO_OWNER);
        // Request 2 needs all 8 pages: admitting it evicts the node, whose page the pool no longer lets go.
        d.cold(2, 4, 8);
        final EngineBugException ex = expectStop(d, () ->
        {
            d.passBegin();
            d.admit(2);
            d.passEnd();
            d.tick(Long.MAX_VALUE);
        }, "");
        assertEquals(d.engine.sequence(), ex.sequence());
        assertTrue(ex.getMessage().contains("IllegalStateException: I2 page"), ex.getMessage());
    }

    @Test
    void shouldStopWhenAPoolRefusesAnInternalTransition()
    {
        final Driver d = new Driver(config(), false);
        d.staged(1, 11, 8);
        final SlotPool host = d.engine.pool(Pool.HOST_KV);
        int held = -1;
        for (int s = 0; s < host.capacity(); s++)
        {
            if (host.state(s) == SlotState.REQUEST && host.owner(s) == 1)
            {
                held = s;
            }
        }
        host.forceTransition(held, SlotState.PENDING_FREE, 999);
        d.passBegin();
        final EngineBugException ex = expectStop(d, () -> d.admit(1), "ADMIT");
        assertTrue(ex.getMessage().contains("HOST_KV slot " + held), ex.getMessage());
    }

    @Test
    void shouldStopWhenTheNodeOfAFailedLoadCannotBeDeleted()
    {
        final Driver d = new Driver(config(), false);
        d.staged(1, 11, 8);
        d.passBegin();
        d.admit(1);
        final long load = d.admittedLoad();
        d.passEnd();
        final int node = d.engine.ops().node[d.engine.ops().slotOf(load)];
        assertTrue(d.engine.tree().lock(node, Component.FULL, SlotState.REQUEST, 999) > 0);
        final EngineBugException ex = expectStop(d, () -> d.ack(load, false), "ACK");
        assertTrue(ex.getMessage().contains("NODE_LOCKED"), ex.getMessage());
    }

    @Test
    void shouldRefuseAnIllegalOpTransition()
    {
        final OpTable ops = new OpTable(4, 4, new Effects(new io.kvledger.journal.EffectList(8)));
        final int o = ops.add(OpKind.LOAD, 1);
        assertThrows(EngineBugException.class, () -> ops.advance(o, OpTable.ACKED), "QUEUED -> ACKED");
        ops.advance(o, OpTable.LAUNCHED);
        assertThrows(EngineBugException.class, () -> ops.advance(o, OpTable.CANCELLED), "LAUNCHED -> CANCELLED");
        assertThrows(EngineBugException.class, () -> ops.advance(o, OpTable.LAUNCHED), "LAUNCHED twice");
        ops.complete(o, true);
        assertThrows(EngineBugException.class, () -> ops.complete(o, true), "acked twice");
    }

    @Test
    void shouldRecordEachOpTransitionInTheSameCall()
    {
        final io.kvledger.journal.EffectList list = new io.kvledger.journal.EffectList(8);
        final OpTable ops = new OpTable(4, 4, new Effects(list));
        final int o = ops.add(OpKind.BACKUP, 1);
        ops.advance(o, OpTable.LAUNCHED);
        ops.complete(o, false);
        assertEquals(2, list.size());
        assertEquals(EffectType.OP_LAUNCHED, list.type(0));
        assertEquals(EffectType.OP_FAILED, list.type(1));
    }
}
