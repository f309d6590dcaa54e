package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.slot.SlotPool;

import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Black-box audit of the request lifecycle and the admission gates against DESIGN.md's read path (steps 4 to 7)
 * and the domain reference (§3.4, §3.6, §4, §7): which gate answers first when several fail, what an admission
 * reserves and allocates, what retract, abort and a failed or repeated ack do to slots under an in-flight copy, and
 * what caching at finish donates. Written from the documents; every input is followed by {@code verify()}.
 */
class DomainLifecycleAuditTest
{
    private static final long HUGE = 1L << 30;

    private static EngineConfig.Builder base()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(12).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(16).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1);
    }

    private static void pass(final Driver d, final long maxRunning, final long tokens, final long input,
        final long chunk)
    {
        assertEquals(ResultCode.OK, d.apply(Inputs.passBegin(d.in.reset(), maxRunning, tokens, input, chunk)));
    }

    private static List<Integer> moved(final Driver d, final Pool pool, final SlotState from, final SlotState to)
    {
        final List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.SLOT_TRANSITION && d.last.pool(i) == pool
                && (from == null || d.last.fromState(i) == from) && (to == null || d.last.toState(i) == to))
            {
                slots.add((int)d.last.id(i));
            }
        }
        return slots;
    }

    private static List<Integer> targets(final Driver d, final long op, final Pool pool, final Role role)
    {
        final List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.OP_TARGET && d.last.id(i) == op && d.last.pool(i) == pool
                && d.last.role(i) == role)
            {
                slots.add((int)d.last.value1(i));
            }
        }
        return slots;
    }

    private static List<Long> ids(final Driver d, final EffectType type)
    {
        final List<Long> ids = new ArrayList<>();
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == type)
            {
                ids.add(d.last.id(i));
            }
        }
        return ids;
    }

    private static long value1(final Driver d, final EffectType type)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == type)
            {
                return d.last.value1(i);
            }
        }
        return -1;
    }

    private static long cowOfAdmission(final Driver d)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.ADMITTED)
            {
                return d.last.value3(i);
            }
        }
        return -2;
    }

    private static boolean lockReleasedBy(final Driver d, final long holder)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.UNLOCKED && d.last.owner(i) == holder)
            {
                return true;
            }
        }
        return false;
    }

    /** The state the last input's last REQUEST_STATE effect of the request moved it to, or null. */
    private static RequestState endedAs(final Driver d, final long request)
    {
        RequestState to = null;
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.REQUEST_STATE && d.last.owner(i) == request)
            {
                to = d.last.requestTo(i);
            }
        }
        return to;
    }

    private static void assertStagingAllFree(final Driver d)
    {
        for (final Pool p : new Pool[] {Pool.HOST_KV, Pool.HOST_MAMBA})
        {
            final SlotPool pool = d.engine.pool(p);
            assertEquals(pool.capacity(), pool.freeCount(), p + " all free");
        }
    }

    private static void assertNothingAdmittedOrAllocated(final Driver d)
    {
        assertFalse(d.has(EffectType.ADMITTED));
        assertFalse(d.has(EffectType.RESERVED));
        assertFalse(d.has(EffectType.OP_QUEUED));
        assertEquals(List.of(), moved(d, Pool.DEVICE_MAMBA, SlotState.FREE, null));
        assertEquals(List.of(), moved(d, Pool.DEVICE_KV, SlotState.FREE, null));
    }

    /** A cold request of 4 pages admitted (S and its tracking slot), then a staged one of 8 pages. */
    private static Driver oneRunningOneStaged(final int mambaSlots)
    {
        final Driver d = new Driver(base().deviceMambaSlots(mambaSlots).build(), true);
        d.cold(10, 100, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        d.staged(1, 11, 8);
        assertEquals(RequestState.STAGED, d.engine.requestState(1));
        return d;
    }

    /** Request 1 staged with an L3 hit of 8 pages and admitted in a new pass; its load's id. */
    private static long admitStaged(final Driver d)
    {
        d.staged(1, 11, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        return d.admittedLoad();
    }

    // ------------------------------------------------------------------------------------- gates, in their order

    @Test
    void shouldAnswerRunningLimitFirstWhenEveryGateWouldFail()
    {
        final Driver d = oneRunningOneStaged(4);
        pass(d, 1, 1, 1, 1);
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.RUNNING_LIMIT, d.reasonOf(EffectType.WAITED));
        assertFalse(d.has(EffectType.DEFERRED), "a running-limit wait is not a defer");
        assertNothingAdmittedOrAllocated(d);
        assertEquals(0, d.engine.deferCountOf(1));
        assertEquals(RequestState.STAGED, d.engine.requestState(1));
    }

    @Test
    void shouldDeferAtTheMambaGateBeforeLookingAtTokenBudgets()
    {
        final Driver d = oneRunningOneStaged(4);
        final int hold = d.engine.holdPagesOf(1);
        pass(d, 64, 1, 1, 1);
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.MAMBA_SLOTS, d.reasonOf(EffectType.DEFERRED));
        assertEquals(1, value1(d, EffectType.DEFERRED), "defer count in the effect");
        assertFalse(d.has(EffectType.WAITED));
        assertNothingAdmittedOrAllocated(d);
        assertEquals(1, d.engine.deferCountOf(1));
        assertEquals(hold, d.engine.holdPagesOf(1), "the hold is kept");
    }

    @Test
    void shouldMakeAColdRequestWaitAtTheMambaGateWithoutTakingAnything()
    {
        final Driver d = new Driver(base().deviceMambaSlots(3).build(), true);
        d.cold(10, 100, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        d.cold(2, 22, 4);
        d.passBegin();
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(2), "needs S and a tracking slot, one is free");
        assertEquals(Reason.MAMBA_SLOTS, d.reasonOf(EffectType.WAITED));
        assertFalse(d.has(EffectType.DEFERRED));
        assertFalse(d.has(EffectType.HOLD_DROPPED));
        assertNothingAdmittedOrAllocated(d);
        assertEquals(RequestState.WAITING, d.engine.requestState(2));
    }

    @Test
    void shouldWaitOnTheTokenBudgetBeforeInputAndChunkWithoutCountingOrTouchingTheHold()
    {
        final Driver d = oneRunningOneStaged(12);
        final int hold = d.engine.holdPagesOf(1);
        final int freeHost = d.engine.pool(Pool.HOST_KV).freeCount();
        for (int attempt = 0; attempt < 40; attempt++)
        {
            pass(d, 64, 1, 1, 1);
            assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
            assertEquals(Reason.TOKEN_BUDGET, d.reasonOf(EffectType.WAITED));
            assertFalse(d.has(EffectType.DEFERRED));
            assertFalse(d.has(EffectType.HOLD_DROPPED), "more waits than maxStagedDefers never drop the hold");
            assertNothingAdmittedOrAllocated(d);
            d.passEnd();
        }
        assertEquals(0, d.engine.deferCountOf(1));
        assertEquals(hold, d.engine.holdPagesOf(1));
        assertEquals(freeHost, d.engine.pool(Pool.HOST_KV).freeCount());
        assertEquals(RequestState.STAGED, d.engine.requestState(1));

        pass(d, 64, HUGE, HUGE, HUGE);
        assertEquals(ResultCode.OK, d.admit(1));
        assertTrue(d.admittedLoad() >= 0, "the hold is still loaded once the budget allows");
    }

    @Test
    void shouldCheckTheInputBudgetBeforeTheChunkBudgetForALaterRequestOfThePass()
    {
        final Driver d = new Driver(base().build(), true);
        d.cold(1, 11, 4);
        d.cold(2, 22, 4);
        pass(d, 64, HUGE, 16, 16);
        assertEquals(ResultCode.OK, d.admit(1), "the pass's first request fits both budgets exactly");
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(2));
        assertEquals(Reason.INPUT_BUDGET, d.reasonOf(EffectType.WAITED));
        assertNothingAdmittedOrAllocated(d);
    }

    @Test
    void shouldWaitOnTheChunkBudgetWhenOnlyItIsExhausted()
    {
        final Driver d = new Driver(base().build(), true);
        d.cold(1, 11, 4);
        d.cold(2, 22, 4);
        pass(d, 64, HUGE, HUGE, 16);
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(2));
        assertEquals(Reason.CHUNK_BUDGET, d.reasonOf(EffectType.WAITED));
        assertNothingAdmittedOrAllocated(d);
        assertEquals(RequestState.WAITING, d.engine.requestState(2));
    }

    // ------------------------------------------------------------------ bug 1: reserve every slot the load takes

    @Test
    void shouldReserveWorkingTrackingAndNodeSlotsForAStagedLoadAndAllocateNoMore()
    {
        for (int tracking = 1; tracking <= 2; tracking++)
        {
            final Driver d = new Driver(base().trackingSlots(tracking).build(), true);
            d.staged(1, 11, 8);
            d.passBegin();
            assertEquals(ResultCode.OK, d.admit(1));
            final long reserved = value1(d, EffectType.RESERVED);
            assertEquals(1 + tracking + 1, reserved, "S, tracking slot(s) and the node slot N");
            final List<Integer> taken = moved(d, Pool.DEVICE_MAMBA, SlotState.FREE, null);
            assertEquals(reserved, taken.size(), "every reserved slot is allocated here, no more");
            final long load = d.admittedLoad();
            assertEquals(2, targets(d, load, Pool.DEVICE_MAMBA, Role.WRITE).size(), "the load writes S and N");
        }
    }

    @Test
    void shouldReserveWorkingAndTrackingSlotsForAColdRequest()
    {
        final Driver d = new Driver(base().build(), true);
        d.cold(1, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(2, value1(d, EffectType.RESERVED));
        assertEquals(2, moved(d, Pool.DEVICE_MAMBA, SlotState.FREE, null).size());
    }

    @Test
    void shouldAdmitAStagedLoadWithExactlyThreeFreeSlots()
    {
        final Driver d = oneRunningOneStaged(5);
        assertEquals(3, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertTrue(d.admittedLoad() >= 0);
        assertEquals(0, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
    }

    @Test
    void shouldCountAnEvictableCheckpointAtTheMambaGateAndEvictItForTheLoad()
    {
        final Driver d = new Driver(base().deviceMambaSlots(5).build(), true);
        d.cold(10, 100, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(10, 4, 0, 0, 0));
        d.drainWrites();
        d.cold(11, 101, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(11));
        d.passEnd();
        assertEquals(2, d.engine.pool(Pool.DEVICE_MAMBA).freeCount(), "two free, one checkpoint evictable");
        d.staged(1, 11, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertTrue(d.has(EffectType.EVICTED), "the checkpoint is evicted to make room");
        assertEquals(3, value1(d, EffectType.RESERVED));
    }

    // ----------------------------------------- bug 2: a slot under a queued or launched copy is never handed out

    @Test
    void shouldUndoAQueuedLoadWholeOnRetract()
    {
        final Driver d = new Driver(base().build(), true);
        final long load = admitStaged(d);
        final List<Integer> mamba = targets(d, load, Pool.DEVICE_MAMBA, Role.WRITE);
        final List<Integer> kv = targets(d, load, Pool.DEVICE_KV, Role.WRITE);
        final List<Long> inserted = ids(d, EffectType.NODE_INSERTED);
        assertFalse(inserted.isEmpty());

        assertEquals(ResultCode.OK, d.retract(1));
        assertEquals(List.of(load), ids(d, EffectType.OP_CANCELLED));
        assertTrue(ids(d, EffectType.NODE_DELETED).containsAll(inserted), "the nodes the load inserted go");
        for (final int s : mamba)
        {
            assertEquals(SlotState.FREE, d.mambaState(s));
        }
        for (final int p : kv)
        {
            assertEquals(SlotState.FREE, d.engine.pool(Pool.DEVICE_KV).state(p));
        }
        assertEquals(0, d.engine.pool(Pool.DEVICE_MAMBA).pendingFreeCount());
        assertStagingAllFree(d);
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
        d.passEnd();
        assertFalse(d.has(EffectType.OP_LAUNCHED), "a cancelled load never launches");
    }

    @Test
    void shouldNeverHandOutSlotsOfARetractedLaunchedLoadUntilItsAck()
    {
        final Driver d = new Driver(base().deviceMambaSlots(7).build(), true);
        final long load = admitStaged(d);
        final List<Integer> mamba = targets(d, load, Pool.DEVICE_MAMBA, Role.WRITE);
        final List<Integer> kv = targets(d, load, Pool.DEVICE_KV, Role.WRITE);
        final List<Integer> staging = targets(d, load, Pool.HOST_KV, Role.READ);
        assertFalse(staging.isEmpty());
        final List<Long> inserted = ids(d, EffectType.NODE_INSERTED);
        d.passEnd();
        assertEquals(List.of(load), ids(d, EffectType.OP_LAUNCHED));

        assertEquals(ResultCode.OK, d.retract(1));
        assertFalse(d.has(EffectType.OP_CANCELLED), "a launched load cannot be cancelled");
        assertFalse(d.has(EffectType.NODE_DELETED), "the load's nodes stay until its ack");
        assertFalse(lockReleasedBy(d, load), "the load keeps its own lock");
        final int s = mamba.stream().filter(x -> d.mambaState(x) == SlotState.PENDING_FREE).findFirst().orElse(-1);
        assertTrue(s >= 0, "the request's slot under the copy is PENDING_FREE");
        assertEquals(load, d.mambaOwner(s));
        for (final int x : mamba)
        {
            assertNotEquals(SlotState.FREE, d.mambaState(x));
        }
        for (final int p : kv)
        {
            assertNotEquals(SlotState.FREE, d.engine.pool(Pool.DEVICE_KV).state(p));
        }
        for (final int h : staging)
        {
            assertNotEquals(SlotState.FREE, d.engine.pool(Pool.HOST_KV).state(h), "the launched copy reads it");
        }

        // under pressure: every free Mamba slot taken by other requests, none of the load's
        d.cold(2, 22, 4);
        d.cold(3, 33, 4);
        d.passBegin();
        final List<Integer> handedOut = new ArrayList<>();
        for (final long r : new long[] {2, 3})
        {
            d.admit(r);
            handedOut.addAll(moved(d, Pool.DEVICE_MAMBA, null, SlotState.REQUEST));
        }
        for (final int x : mamba)
        {
            assertFalse(handedOut.contains(x), "slot " + x + " still written by load " + load + " was handed out");
        }
        d.passEnd();

        assertEquals(ResultCode.OK, d.ack(load, true));
        assertEquals(SlotState.FREE, d.mambaState(s), "freed at the ack");
        assertTrue(lockReleasedBy(d, load));
        assertEquals(0, d.engine.pool(Pool.DEVICE_MAMBA).pendingFreeCount());
        assertStagingAllFree(d);
        assertTrue(inserted.stream().noneMatch(n -> ids(d, EffectType.NODE_DELETED).contains(n)),
            "an ok load publishes its nodes");
    }

    @Test
    void shouldRollBackALaunchedLoadOfAnAbortedRequestThatFails()
    {
        final Driver d = new Driver(base().build(), true);
        final long load = admitStaged(d);
        final List<Integer> mamba = targets(d, load, Pool.DEVICE_MAMBA, Role.WRITE);
        final List<Integer> kv = targets(d, load, Pool.DEVICE_KV, Role.WRITE);
        final List<Long> inserted = ids(d, EffectType.NODE_INSERTED);
        d.passEnd();
        assertEquals(ResultCode.OK, d.abort(1));
        assertEquals(RequestState.ABORTED, endedAs(d, 1));
        assertTrue(mamba.stream().noneMatch(x -> d.mambaState(x) == SlotState.FREE));

        assertEquals(ResultCode.OK, d.ack(load, false));
        assertEquals(List.of(load), ids(d, EffectType.OP_FAILED));
        assertTrue(ids(d, EffectType.NODE_DELETED).containsAll(inserted));
        for (final int x : mamba)
        {
            assertEquals(SlotState.FREE, d.mambaState(x));
        }
        for (final int p : kv)
        {
            assertEquals(SlotState.FREE, d.engine.pool(Pool.DEVICE_KV).state(p));
        }
        assertStagingAllFree(d);
        final SlotPool pool = d.engine.pool(Pool.DEVICE_MAMBA);
        assertEquals(pool.capacity(), pool.freeCount(), "nothing left of the aborted request");
    }

    @Test
    void shouldRollBackAFailedLoadAndFreeItsDestinations()
    {
        final Driver d = new Driver(base().build(), true);
        d.staged(1, 11, 8);
        final int nodesBefore = d.engine.tree().nodeCount();
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        final List<Long> inserted = ids(d, EffectType.NODE_INSERTED);
        final List<Integer> kv = targets(d, load, Pool.DEVICE_KV, Role.WRITE);
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(load, false));
        assertEquals(List.of(load), ids(d, EffectType.OP_FAILED));
        assertTrue(ids(d, EffectType.NODE_DELETED).containsAll(inserted), "nodes the load inserted are deleted");
        for (final int p : kv)
        {
            assertNotEquals(SlotState.NODE, d.engine.pool(Pool.DEVICE_KV).state(p), "no node keeps a failed page");
        }
        assertStagingAllFree(d);
        assertEquals(-1, d.engine.loadOpOf(1));
        assertEquals(RequestState.WAITING, d.engine.requestState(1), "the request recomputes");
        assertEquals(nodesBefore, d.engine.tree().nodeCount(), "nothing of the failed load stays in the tree");
    }

    @Test
    void shouldLetARetractedRequestRunAgainWhileItsOldLoadIsStillInFlight()
    {
        final Driver d = new Driver(base().build(), true);
        final long load = admitStaged(d);
        final List<Integer> old = targets(d, load, Pool.DEVICE_MAMBA, Role.WRITE);
        d.passEnd();
        assertEquals(ResultCode.OK, d.retract(1));
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(-1, d.admittedLoad(), "its hold went with the retract: it recomputes");
        assertFalse(old.contains(d.engine.requestStateSlot(1)), "not a slot the old load still writes");
        assertFalse(old.contains(d.engine.requestTrackingSlot(1)));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 8, 0, 0, 0), "the old load is no longer this request's own");
        for (final int x : old)
        {
            assertNotEquals(SlotState.FREE, d.mambaState(x), "still under the launched copy");
        }
        assertEquals(ResultCode.OK, d.ack(load, true));
        for (final int x : old)
        {
            assertNotEquals(SlotState.PENDING_FREE, d.mambaState(x));
        }
        assertEquals(0, d.engine.pool(Pool.DEVICE_MAMBA).pendingFreeCount());
    }

    // ----------------------------------------------------------------------------------------- ack edge cases

    @Test
    void shouldRefuseASecondAckAndAnAckBeforeLaunchChangingNothing()
    {
        final Driver d = new Driver(base().build(), true);
        final long load = admitStaged(d);
        long before = d.engine.stateHash();
        assertEquals(ResultCode.OP_NOT_LAUNCHED, d.ack(load, true));
        assertEquals(0, d.last.size());
        assertEquals(before, d.engine.stateHash());
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(load, true));
        before = d.engine.stateHash();
        final int ownedNodes = d.engine.pool(Pool.DEVICE_MAMBA).count(SlotState.NODE);
        for (final boolean ok : new boolean[] {true, false})
        {
            final int second = d.ack(load, ok);
            assertEquals(ResultCode.name(ResultCode.OP_ALREADY_DONE), ResultCode.name(second));
            assertEquals(0, d.last.size(), "a repeated ack records nothing");
            assertEquals(before, d.engine.stateHash(), "and changes nothing");
        }
        assertEquals(ownedNodes, d.engine.pool(Pool.DEVICE_MAMBA).count(SlotState.NODE));
    }

    // ----------------------------------------------------------- bug 3: cursors reset on every slot handed out

    @Test
    void shouldResetTheCursorsOfEverySlotAStagedLoadSupersedingACopyHandsOut()
    {
        final Driver d = new Driver(base().deviceMambaSlots(6).build(), true);
        // a shallower checkpoint P on the device, donated by a request with dirty cursors
        d.cold(10, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(10, 4, 5, 7, 1));
        // a second tenant leaves dirty cursors on the slots it frees
        d.cold(20, 200, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(20));
        d.passEnd();
        assertEquals(ResultCode.OK, d.abort(20));
        // R1 matches P (4 pages) on the device and has a deeper staged state at 8 pages
        final long load = admitStaged(d);
        assertTrue(load >= 0, "the staged load is taken");
        assertEquals(-1, cowOfAdmission(d), "the deeper staged state supersedes the copy from P");
        final List<Integer> handed = moved(d, Pool.DEVICE_MAMBA, SlotState.FREE, null);
        final List<Long> reset = ids(d, EffectType.CURSORS_RESET);
        for (final int s : handed)
        {
            assertTrue(reset.contains((long)s), "slot " + s + " handed out without CURSORS_RESET");
            assertTrue(d.engine.cursors().clean(s));
        }
        for (final int s : targets(d, load, Pool.DEVICE_MAMBA, Role.WRITE))
        {
            assertTrue(d.engine.cursors().clean(s), "loaded slot " + s + " is clean");
        }
    }

    // ------------------------------------------------------------------------ caching and donation at FINISH

    @Test
    void shouldDonateTheTrackingSlotFreeTheWorkingSlotAndCacheUpToTheCheckpoint()
    {
        final Driver d = new Driver(base().build(), true);
        d.cold(1, 11, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        d.passEnd();
        final int s = d.engine.requestStateSlot(1);
        final int t = d.engine.requestTrackingSlot(1);
        final int beyond = d.engine.requestPage(1, 7);
        assertEquals(ResultCode.OK, d.apply(Inputs.finish(d.in.reset(), 1, 8, 6, 3, 2, 1)));
        assertEquals(RequestState.FINISHED, endedAs(d, 1));
        assertEquals(SlotState.FREE, d.mambaState(s), "the working slot is freed");
        assertEquals(SlotState.NODE, d.mambaState(t), "the tracking slot becomes the checkpoint");
        assertTrue(d.engine.cursors().clean(t), "a checkpoint has zero cursors");
        assertEquals(SlotState.FREE, d.engine.pool(Pool.DEVICE_KV).state(beyond), "past the checkpoint: freed");
        long deepest = 0;
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.NODE_INSERTED)
            {
                deepest = Math.max(deepest, d.last.value2(i));
            }
        }
        assertEquals(6, deepest, "cached up to the tracked depth only");
        assertTrue(d.has(EffectType.UNLOCKED), "its locks are released");
        assertEquals(1, d.engine.pool(Pool.DEVICE_MAMBA).count(SlotState.NODE));
        assertTrue(d.queuedOwner(OpKind.BACKUP) >= 0, "new pages are backed up");
    }

    @Test
    void shouldDedupePagesAndFreeTheTrackingSlotWhenTheNodeAlreadyHasACheckpoint()
    {
        final Driver d = new Driver(base().build(), true);
        d.cold(1, 11, 8);
        d.cold(2, 11, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(ResultCode.OK, d.admit(2));
        d.passEnd();
        final int t2 = d.engine.requestTrackingSlot(2);
        final int page0 = d.engine.requestPage(2, 0);
        assertEquals(ResultCode.OK, d.finish(1, 8, 0, 0, 0));
        assertEquals(ResultCode.OK, d.finish(2, 8, 0, 0, 0));
        assertFalse(d.has(EffectType.NODE_INSERTED), "every page was already cached");
        assertEquals(SlotState.FREE, d.mambaState(t2), "the node already has its checkpoint");
        assertEquals(SlotState.FREE, d.engine.pool(Pool.DEVICE_KV).state(page0), "duplicate pages are freed");
        assertEquals(-1, d.queuedOwner(OpKind.BACKUP), "nothing new to back up");
        assertEquals(1, d.engine.pool(Pool.DEVICE_MAMBA).count(SlotState.NODE));
    }

    // --------------------------------------------------------------------------------- deferral and re-offer

    @Test
    void shouldReofferADeferredHoldAndResetItsCountWhenAdmitted()
    {
        final Driver d = oneRunningOneStaged(4);
        d.passBegin();
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(1, d.engine.deferCountOf(1));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(10, 4, 0, 0, 0));
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertTrue(d.admittedLoad() >= 0, "the hold is loaded at the re-offer");
        assertEquals(0, d.engine.deferCountOf(1));
    }

    @Test
    void shouldDropTheHoldAtTheDeferLimitAndLetTheRequestRecompute()
    {
        final Driver d = new Driver(base().deviceMambaSlots(4).maxStagedDefers(2).build(), true);
        d.cold(10, 100, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        d.staged(1, 11, 8);
        for (int attempt = 1; attempt <= 2; attempt++)
        {
            d.passBegin();
            assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
            assertEquals(attempt, value1(d, EffectType.DEFERRED));
            assertEquals(attempt == 2, d.has(EffectType.HOLD_DROPPED));
            d.passEnd();
        }
        assertStagingAllFree(d);
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
        assertEquals(ResultCode.OK, d.finish(10, 4, 0, 0, 0));
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(-1, d.admittedLoad(), "no hold left: the request recomputes");
    }

    // ------------------------------------------------------------- L3 answers for a request already aborted

    @Test
    void shouldAnswerAStorageHitOfAnAbortedRequestWithoutStagingAnything()
    {
        final Driver d = new Driver(base().build(), true);
        final long query = d.arrive(1, 11, 8);
        assertTrue(query >= 0);
        assertEquals(ResultCode.OK, d.abort(1));
        final int result = d.apply(Inputs.storageHit(d.in.reset(), query, 8, 8));
        assertEquals(ResultCode.name(ResultCode.OK), ResultCode.name(result));
        assertEquals(List.of(query), ids(d, EffectType.OP_ACKED));
        assertEquals(-1, d.opId(EffectType.OP_QUEUED, OpKind.FETCH), "no fetch for a dead request");
        assertFalse(d.has(EffectType.HOLD_STAGED));
        assertFalse(d.has(EffectType.HIT_PARKED));
        assertStagingAllFree(d);
        assertEquals(0, d.engine.inFlightOps());
    }

    @Test
    void shouldKeepAnAbortedFetchsStagingUntilTheReadCompletes()
    {
        final Driver d = new Driver(base().build(), true);
        final long query = d.arrive(1, 11, 8);
        final long fetch = d.storageHit(query, 8, 8);
        assertTrue(fetch >= 0);
        final List<Integer> staging = targets(d, fetch, Pool.HOST_KV, Role.WRITE);
        assertFalse(staging.isEmpty());
        assertEquals(ResultCode.OK, d.abort(1));
        for (final int h : staging)
        {
            assertNotEquals(SlotState.FREE, d.engine.pool(Pool.HOST_KV).state(h), "the read may still write it");
        }
        assertEquals(ResultCode.OK, d.apply(Inputs.fetchDone(d.in.reset(), fetch, true, 8, true)));
        assertFalse(d.has(EffectType.HOLD_STAGED), "a dead request gets no hold");
        assertStagingAllFree(d);
        assertEquals(0, d.engine.inFlightOps());
    }

    @Test
    void shouldKeepAnAbandonedFetchsStagingUnderBestEffortUntilItCompletes()
    {
        final Driver d = new Driver(base().prefetchPolicy(PrefetchPolicy.BEST_EFFORT).build(), true);
        final long query = d.arrive(1, 11, 8);
        final long fetch = d.storageHit(query, 8, 8);
        final List<Integer> staging = targets(d, fetch, Pool.HOST_KV, Role.WRITE);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(-1, d.admittedLoad(), "goes ahead with the device hit only");
        for (final int h : staging)
        {
            assertNotEquals(SlotState.FREE, d.engine.pool(Pool.HOST_KV).state(h));
        }
        d.passEnd();
        assertEquals(ResultCode.OK, d.apply(Inputs.fetchDone(d.in.reset(), fetch, true, 8, true)));
        assertFalse(d.has(EffectType.HOLD_STAGED));
        assertStagingAllFree(d);
    }

    // ------------------------------------------------------------ abort with a launched copy-on-write in flight

    @Test
    void shouldParkTheWorkingSlotOfAnAbortedRequestUntilItsLaunchedCopyIsAcked()
    {
        final Driver d = new Driver(base().build(), true);
        d.cold(10, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(10, 4, 0, 0, 0));
        d.cold(1, 11, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long cow = cowOfAdmission(d);
        assertTrue(cow >= 0, "S is filled by a copy from the checkpoint");
        final List<Integer> dst = targets(d, cow, Pool.DEVICE_MAMBA, Role.WRITE);
        assertEquals(1, dst.size());
        final int s = dst.get(0);
        d.passEnd();
        assertEquals(ResultCode.OK, d.abort(1));
        assertNotEquals(SlotState.FREE, d.mambaState(s), "the launched copy still writes S");
        d.cold(2, 22, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertFalse(moved(d, Pool.DEVICE_MAMBA, null, SlotState.REQUEST).contains(s));
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(cow, true));
        assertEquals(SlotState.FREE, d.mambaState(s));
    }
}
