package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The three upstream races of the seed pull request, each driven by its event sequence (domain reference §7):
 * with the fault switch off the state stays correct, with it on the bad effect really happens.
 */
class UpstreamBugScenarioTest
{
    private static EngineConfig.Builder base()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(12).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(16).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1);
    }

    // ---------------------------------------------------------------- bug 2: slot freed while its load is queued

    @Test
    void shouldParkSlotAsPendingFreeWhenRetractedAfterLaunch()
    {
        final Driver d = new Driver(base().build(), true);
        d.staged(1, 11, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        final int s = d.engine.requestStateSlot(1);
        d.passEnd();
        assertEquals(ResultCode.OK, d.retract(1));
        assertEquals(SlotState.PENDING_FREE, d.mambaState(s));
        assertEquals(load, d.mambaOwner(s));

        d.cold(2, 22, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertNotEquals(s, d.engine.requestStateSlot(2), "a slot under a launched load must not be handed out");
        d.passEnd();

        assertEquals(ResultCode.OK, d.ack(load, true));
        assertEquals(SlotState.FREE, d.mambaState(s));
    }

    @Test
    void shouldCancelQueuedLoadOnRetract()
    {
        final Driver d = new Driver(base().build(), true);
        d.staged(1, 11, 8);
        d.passBegin();
        d.admit(1);
        final long load = d.admittedLoad();
        final int s = d.engine.requestStateSlot(1);
        assertEquals(ResultCode.OK, d.retract(1));
        assertTrue(d.has(EffectType.OP_CANCELLED));
        assertEquals(-1, d.engine.ops().slotOf(load));
        assertEquals(SlotState.FREE, d.mambaState(s));

        d.cold(2, 22, 8);
        d.admit(2);
        d.passEnd();
        assertFalse(d.opWrites(load, Pool.DEVICE_MAMBA, d.engine.requestStateSlot(2)));
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
    }

    @Test
    void shouldHandRetractedSlotToAnotherRequestUnderQueuedLoadWhenSwitchOn()
    {
        final Driver d = new Driver(base().fault(FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD).build(), false);
        d.staged(1, 11, 8);
        d.passBegin();
        d.admit(1);
        final long load = d.admittedLoad();
        final int s = d.engine.requestStateSlot(1);
        assertEquals(ResultCode.OK, d.retract(1));
        assertFalse(d.has(EffectType.OP_CANCELLED));
        assertEquals(SlotState.FREE, d.mambaState(s), "the bug: freed while the queued load targets it");

        d.cold(2, 22, 8);
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(s, d.engine.requestStateSlot(2), "another request gets the slot");
        d.passEnd();
        assertTrue(d.opWrites(load, Pool.DEVICE_MAMBA, s), "the launched load still writes the slot");
        assertEquals(SlotState.REQUEST, d.mambaState(s));
        assertEquals(2, d.mambaOwner(s));
    }

    // ------------------------------------------------------------- bug 1: admission reserves one slot, load needs two

    private static Driver underMambaPressure(final EngineConfig config)
    {
        final Driver d = new Driver(config, false);
        d.cold(10, 100, 4);
        d.cold(11, 101, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(10));
        assertEquals(ResultCode.OK, d.admit(11));
        d.passEnd();
        d.staged(1, 11, 8);
        return d;
    }

    @Test
    void shouldDeferAtMambaGateWhenNodeSlotCannotBeCovered()
    {
        final Driver d = underMambaPressure(base().deviceMambaSlots(6).build());
        d.engine.verify();
        d.passBegin();
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.MAMBA_SLOTS, d.reasonOf(EffectType.DEFERRED));
        assertFalse(d.has(EffectType.RESERVED));
        assertEquals(RequestState.STAGED, d.engine.requestState(1), "the hold is kept");
        d.passEnd();
        d.engine.verify();
    }

    @Test
    void shouldFailToAllocateAndLoseHitWhenSwitchOn()
    {
        final Driver d = underMambaPressure(base().deviceMambaSlots(6).maxStagedDefers(3)
            .fault(FaultSwitch.RESERVE_REQUEST_SLOT_ONLY).build());
        for (int attempt = 1; attempt <= 3; attempt++)
        {
            d.passBegin();
            assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
            assertTrue(d.has(EffectType.RESERVED), "the gate passed");
            assertEquals(Reason.ALLOCATION, d.reasonOf(EffectType.DEFERRED), "then the load could not allocate");
            assertEquals(attempt == 3, d.has(EffectType.HOLD_DROPPED));
            if (attempt == 3)
            {
                assertEquals(Reason.DEFER_LIMIT, d.reasonOf(EffectType.HOLD_DROPPED));
            }
            d.passEnd();
        }
        assertEquals(RequestState.WAITING, d.engine.requestState(1), "the valid L3 hit is lost; it recomputes");
    }

    // ---------------------------------------------------------------- bug 3: cursors not reset on a staged load

    private static int dirtySlotThenStage(final Driver d)
    {
        d.cold(10, 100, 4);
        d.passBegin();
        d.admit(10);
        d.passEnd();
        final int dirty = d.engine.requestStateSlot(10);
        assertEquals(ResultCode.OK, d.finish(10, 4, 5, 7, 1));
        assertFalse(d.engine.cursors().clean(dirty), "freeing does not clean the cursors");
        d.staged(1, 11, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        return dirty;
    }

    @Test
    void shouldResetCursorsOfLoadedSlots()
    {
        final Driver d = new Driver(base().build(), true);
        final int dirty = dirtySlotThenStage(d);
        assertEquals(dirty, d.engine.requestStateSlot(1), "the freed slot is reused");
        assertTrue(d.engine.cursors().clean(dirty));
        assertEquals(0, d.engine.cursors().writePos(dirty));
    }

    @Test
    void shouldKeepStaleCursorsWhenSwitchOn()
    {
        final Driver d = new Driver(base().fault(FaultSwitch.SKIP_CURSOR_RESET_ON_STAGED_LOAD).build(), false);
        final int dirty = dirtySlotThenStage(d);
        assertEquals(dirty, d.engine.requestStateSlot(1));
        assertEquals(5, d.engine.cursors().writePos(dirty), "the previous tenant's ring position survives");
        assertEquals(7, d.engine.cursors().cacheBase(dirty));
        assertEquals(1, d.engine.cursors().isFlush(dirty));
    }
}
