package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.slot.SlotPool;

import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Acceptance scenarios written from the domain reference and the issues, not from the code: result codes of bad
 * inputs, page-size edges, host staging accounting, LRU eviction and its locks, the prefetch policies, retract and
 * abort. Every input is followed by {@code verify()}.
 */
class DomainAcceptanceTest
{
    private static final int PAGE = 4;

    private static EngineConfig.Builder base()
    {
        return EngineConfig.builder().pageSize(PAGE).deviceKvPages(64).deviceMambaSlots(12).hostKvPages(32)
            .hostMambaSlots(4).maxRequests(16).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1);
    }

    private static Driver driver()
    {
        return new Driver(base().build(), true);
    }

    private static void assertRefused(final Driver d, final InputRecord in, final int expected)
    {
        final long before = d.engine.stateHash();
        assertEquals(ResultCode.name(expected), ResultCode.name(d.apply(in)));
        assertEquals(0, d.engine.effects().size(), "a refused input records no effect");
        assertEquals(before, d.engine.stateHash(), "a refused input changes nothing");
    }

    private static void assertAllFree(final Driver d)
    {
        for (final Pool p : new Pool[] {Pool.HOST_KV, Pool.HOST_MAMBA})
        {
            final SlotPool pool = d.engine.pool(p);
            assertEquals(pool.capacity(), pool.freeCount(), p + " all free");
        }
    }

    /** Admit a cold request (no L3 hit) in its own pass and end the pass. */
    private static void admitCold(final Driver d, final long request)
    {
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(request));
        d.passEnd();
    }

    // ------------------------------------------------------------------------------------------------ bad inputs

    @Test
    void shouldRefuseASecondAdmitOfAnAdmittedRequest()
    {
        final Driver d = driver();
        d.cold(1, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertRefused(d, Inputs.admit(new InputRecord(1), 1), ResultCode.REQUEST_STATE);
        d.passEnd();
        d.passBegin();
        assertRefused(d, Inputs.admit(new InputRecord(1), 1), ResultCode.REQUEST_STATE);
    }

    @Test
    void shouldRefuseEveryInputForAFinishedRequest()
    {
        final Driver d = driver();
        d.cold(1, 11, 4);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        assertNull(d.engine.requestState(1));
        assertRefused(d, Inputs.chunk(new InputRecord(1), 1, 4, 4, 0, 0, 0), ResultCode.UNKNOWN_REQUEST);
        assertRefused(d, Inputs.finish(new InputRecord(1), 1, 4, 4, 0, 0, 0), ResultCode.UNKNOWN_REQUEST);
        assertRefused(d, Inputs.abort(new InputRecord(1), 1, 0, 0, 0), ResultCode.UNKNOWN_REQUEST);
        assertRefused(d, Inputs.retract(new InputRecord(1), 1), ResultCode.UNKNOWN_REQUEST);
        d.passBegin();
        assertRefused(d, Inputs.admit(new InputRecord(1), 1), ResultCode.UNKNOWN_REQUEST);
    }

    @Test
    void shouldRefuseChunkAndFinishBeforeAdmissionAndRetractOfARunningRequest()
    {
        final Driver d = driver();
        d.cold(1, 11, 4);
        assertRefused(d, Inputs.chunk(new InputRecord(1), 1, 2, 2, 0, 0, 0), ResultCode.REQUEST_STATE);
        assertRefused(d, Inputs.finish(new InputRecord(1), 1, 4, 4, 0, 0, 0), ResultCode.REQUEST_STATE);
        assertRefused(d, Inputs.retract(new InputRecord(1), 1), ResultCode.REQUEST_STATE);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.chunk(1, 2));
        assertEquals(RequestState.RUNNING, d.engine.requestState(1));
        assertRefused(d, Inputs.retract(new InputRecord(1), 1), ResultCode.REQUEST_STATE);
    }

    @Test
    void shouldRefuseProgressOutOfRange()
    {
        final Driver d = driver();
        d.cold(1, 11, 4);
        admitCold(d, 1);
        assertRefused(d, Inputs.chunk(new InputRecord(1), 1, 5, 4, 0, 0, 0), ResultCode.BAD_REQUEST_SIZE);
        assertRefused(d, Inputs.chunk(new InputRecord(1), 1, 2, 3, 0, 0, 0), ResultCode.BAD_REQUEST_SIZE);
        assertRefused(d, Inputs.chunk(new InputRecord(1), 1, -1, 0, 0, 0, 0), ResultCode.BAD_REQUEST_SIZE);
        assertRefused(d, Inputs.finish(new InputRecord(1), 1, 4, -1, 0, 0, 0), ResultCode.BAD_REQUEST_SIZE);
    }

    @Test
    void shouldRefuseBadArrivals()
    {
        final Driver d = new Driver(base().maxRequests(2).build(), true);
        assertRefused(d, Inputs.arrive(new InputRecord(4), 1, PAGE, 8, 0), ResultCode.BAD_REQUEST_SIZE);
        assertRefused(d, Inputs.arrive(new InputRecord(4), 1, -1, 8, 0), ResultCode.BAD_REQUEST_SIZE);
        assertRefused(d, Inputs.arrive(new InputRecord(4), 1, 0, -8, 0), ResultCode.BAD_REQUEST_SIZE);
        // an empty prompt: no full page and no tail token
        assertRefused(d, Inputs.arrive(new InputRecord(4), 1, 0, 8, 0), ResultCode.BAD_REQUEST_SIZE);
        final InputRecord tooLong = Inputs.arrive(new InputRecord(32), 1, 0, 8, 0);
        for (int i = 0; i < 17; i++)
        {
            tooLong.addFingerprint(i + 1, i + 7);
        }
        assertRefused(d, tooLong, ResultCode.BAD_REQUEST_SIZE);
        d.cold(1, 11, 1);
        d.cold(2, 12, 1);
        assertRefused(d, Inputs.arrive(new InputRecord(4), 3, 0, 8, 0).addFingerprint(5, 5),
            ResultCode.TOO_MANY_REQUESTS);
        assertRefused(d, Inputs.arrive(new InputRecord(4), 1, 0, 8, 0).addFingerprint(5, 5),
            ResultCode.DUPLICATE_REQUEST);
    }

    @Test
    void shouldRefuseOpAnswersOfTheWrongKindOrTwice()
    {
        final Driver d = driver();
        final long query = d.arrive(1, 11, 4);
        assertRefused(d, Inputs.ack(new InputRecord(1), query, true), ResultCode.OP_KIND_MISMATCH);
        assertRefused(d, Inputs.fetchDone(new InputRecord(1), query, true, 4, true), ResultCode.OP_KIND_MISMATCH);
        final long fetch = d.storageHit(query, 4, 4);
        assertRefused(d, Inputs.storageHit(new InputRecord(1), query, 4, 4), ResultCode.OP_ALREADY_DONE);
        assertRefused(d, Inputs.ack(new InputRecord(1), fetch, true), ResultCode.OP_KIND_MISMATCH);
        d.fetchDone(fetch, 4);
        assertRefused(d, Inputs.fetchDone(new InputRecord(1), fetch, true, 4, true), ResultCode.OP_ALREADY_DONE);
        assertRefused(d, Inputs.passEnd(new InputRecord(1)), ResultCode.NOT_IN_PASS);
    }

    @Test
    void shouldRefuseAnAckOfACancelledLoadAndProgressWhileTheLoadIsUnacked()
    {
        final Driver d = driver();
        d.staged(1, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        assertTrue(load >= 0);
        assertRefused(d, Inputs.chunk(new InputRecord(1), 1, 4, 4, 0, 0, 0), ResultCode.REQUEST_STATE);
        assertEquals(ResultCode.OK, d.retract(1));
        assertTrue(d.has(EffectType.OP_CANCELLED));
        d.passEnd();
        assertRefused(d, Inputs.ack(new InputRecord(1), load, true), ResultCode.OP_ALREADY_DONE);
    }

    // ------------------------------------------------------------------------------------------------ page size

    @Test
    void shouldServeAPromptShorterThanAPageAndCacheNothing()
    {
        final Driver d = driver();
        final long query = d.arrive(1, 11, 0, 3, 8, 0);
        assertEquals(-1, query, "nothing to look up in L3 for a prompt without a full page");
        admitCold(d, 1);
        assertTrue(d.engine.requestTailPage(1) >= 0, "the partial page gets a device page");
        final int kvFree = d.engine.pool(Pool.DEVICE_KV).freeCount();
        assertEquals(63, kvFree);
        assertEquals(ResultCode.OK, d.finish(1, 0, 0, 0, 0));
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount(), "the tail page is freed, nothing cached");
        assertEquals(12, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
        assertEquals(0, d.engine.tree().evictablePages());
        assertFalse(d.has(EffectType.OP_QUEUED), "nothing to back up");
    }

    @Test
    void shouldCacheExactlyOnePageWithItsCheckpoint()
    {
        final Driver d = driver();
        d.cold(1, 11, 1);
        admitCold(d, 1);
        assertEquals(-1, d.engine.requestTailPage(1));
        assertEquals(ResultCode.OK, d.finish(1, 1, 0, 0, 0));
        assertEquals(63, d.engine.pool(Pool.DEVICE_KV).freeCount());
        assertEquals(11, d.engine.pool(Pool.DEVICE_MAMBA).freeCount(), "the tracking slot is the checkpoint");
        assertEquals(OpKind.BACKUP, d.last.opKind(indexOf(d, EffectType.OP_QUEUED)));
        d.drainWrites();
        assertAllFree(d);

        // The same one-page prompt matches it: a copy-on-write from the checkpoint, nothing to compute but the tail.
        final long query = d.arrive(2, 11, 1);
        assertEquals(-1, query, "the device covers the whole prompt");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(1, d.admittedPrefix());
        assertTrue(d.engine.cowOpOf(2) >= 0, "the request's state comes from the checkpoint");
    }

    @Test
    void shouldCacheFullPagesUpToTheCheckpointAndFreeThePartialTail()
    {
        final Driver d = driver();
        d.storageHit(d.arrive(1, 11, 3, 2, 8, 0), 0, 0);
        admitCold(d, 1);
        final int tail = d.engine.requestTailPage(1);
        assertTrue(tail >= 0);
        assertEquals(64 - 4, d.engine.pool(Pool.DEVICE_KV).freeCount());
        assertEquals(ResultCode.OK, d.apply(Inputs.finish(d.in.reset(), 1, 3, 2, 0, 0, 0)));
        assertEquals(SlotState.FREE, d.engine.pool(Pool.DEVICE_KV).state(tail));
        assertEquals(64 - 2, d.engine.pool(Pool.DEVICE_KV).freeCount(), "pages past the checkpoint are freed");
    }

    private static int indexOf(final Driver d, final EffectType type)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == type)
            {
                return i;
            }
        }
        return -1;
    }

    // ------------------------------------------------------------------------------------------------ staging

    @Test
    void shouldAccountHostStagingFromHitToAck()
    {
        final Driver d = driver();
        final long query = d.arrive(1, 11, 6);
        final long fetch = d.storageHit(query, 6, 4);
        assertEquals(32 - 4, d.engine.pool(Pool.HOST_KV).freeCount(), "the hit is cut back to its checkpoint");
        assertEquals(4 - 1, d.engine.pool(Pool.HOST_MAMBA).freeCount(), "one host Mamba slot per hit");
        d.fetchDone(fetch, 4);
        assertEquals(RequestState.STAGED, d.engine.requestState(1));
        assertEquals(4, d.engine.holdPagesOf(1));
        final SlotPool host = d.engine.pool(Pool.HOST_KV);
        int held = 0;
        for (int s = 0; s < host.capacity(); s++)
        {
            if (host.state(s) == SlotState.REQUEST)
            {
                assertEquals(1, host.owner(s));
                held++;
            }
        }
        assertEquals(4, held, "the hold is the request's");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        for (int s = 0; s < host.capacity(); s++)
        {
            if (host.state(s) != SlotState.FREE)
            {
                assertEquals(SlotState.OP, host.state(s));
                assertEquals(load, host.owner(s));
            }
        }
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(load, true));
        assertAllFree(d);
    }

    @Test
    void shouldAccountBackupStagingUntilTheStoreAck()
    {
        final Driver d = driver();
        d.cold(1, 11, 5);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.finish(1, 5, 0, 0, 0));
        final long backup = d.opId(EffectType.OP_QUEUED, OpKind.BACKUP);
        assertTrue(backup >= 0);
        assertEquals(32 - 5, d.engine.pool(Pool.HOST_KV).freeCount());
        assertEquals(4 - 1, d.engine.pool(Pool.HOST_MAMBA).freeCount());
        assertEquals(ResultCode.OK, d.ack(backup, true));
        final long store = d.opId(EffectType.OP_QUEUED, OpKind.STORE);
        assertTrue(store >= 0);
        assertEquals(32 - 5, d.engine.pool(Pool.HOST_KV).freeCount(), "the staging feeds the storage write");
        assertEquals(ResultCode.OK, d.ack(store, true));
        assertTrue(d.has(EffectType.PAGES_STORED));
        assertAllFree(d);
    }

    @Test
    void shouldKeepTheLoadsMarginOutOfReachOfWrites()
    {
        final Driver d = new Driver(base().hostKvPages(8).build(), true);
        d.cold(1, 11, 8);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.finish(1, 8, 0, 0, 0));
        assertTrue(d.has(EffectType.BACKUP_DROPPED), "8 pages never fit in 8 less the loads margin");
        d.cold(2, 12, 7);
        admitCold(d, 2);
        assertEquals(ResultCode.OK, d.finish(2, 7, 0, 0, 0));
        assertTrue(d.opId(EffectType.OP_QUEUED, OpKind.BACKUP) >= 0, "7 pages fit");
    }

    // ------------------------------------------------------------------------------------------------ eviction

    @Test
    void shouldEvictLeastRecentlyUsedUnlockedNodesFirst()
    {
        final Driver d = driver();
        final long[] node = new long[4];
        for (int r = 1; r <= 3; r++)
        {
            d.cold(r, 10 + r, 2);
            admitCold(d, r);
            assertEquals(ResultCode.OK, d.finish(r, 2, 0, 0, 0));
            node[r] = d.opId(EffectType.NODE_INSERTED, null);
            d.drainWrites();
        }
        assertEquals(6, d.engine.tree().evictablePages());
        // Request 4 reuses request 1's prompt: request 1's node becomes the most recently used.
        assertEquals(-1, d.arrive(4, 11, 2));
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(4));
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(d.engine.cowOpOf(4), true));
        assertEquals(ResultCode.OK, d.finish(4, 2, 0, 0, 0));

        d.tick(2);
        assertEquals(node[2], evictedNode(d));
        d.tick(2);
        assertEquals(node[3], evictedNode(d));
        d.tick(2);
        assertEquals(node[1], evictedNode(d));
        assertEquals(0, d.engine.tree().evictablePages());
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount());
    }

    private static long evictedNode(final Driver d)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.EVICTED)
            {
                return d.last.id(i);
            }
        }
        return -1;
    }

    @Test
    void shouldNeverEvictANodeARunningRequestOrAnOpHolds()
    {
        final Driver d = driver();
        d.cold(1, 11, 3);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.chunk(1, 3));
        // Request 1 runs on its cached 3 pages, and the chunk's backup holds them too.
        d.tick(Long.MAX_VALUE);
        assertFalse(d.has(EffectType.EVICTED));
        d.drainWrites();
        d.tick(Long.MAX_VALUE);
        assertFalse(d.has(EffectType.EVICTED), "the running request's lock protects its prefix");
        assertEquals(ResultCode.OK, d.finish(1, 3, 0, 0, 0));
        d.drainWrites();
        d.tick(Long.MAX_VALUE);
        assertTrue(d.has(EffectType.EVICTED));
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount());
        assertEquals(12, d.engine.pool(Pool.DEVICE_MAMBA).freeCount(), "the checkpoint goes with its node");
    }

    // ------------------------------------------------------------------------------------------------ prefetch

    @Test
    void shouldGoAheadWithoutAnUnfinishedFetchUnderBestEffortAndFreeItsStagingAtItsCompletion()
    {
        final Driver d = driver();
        final long query = d.arrive(1, 11, 4);
        final long fetch = d.storageHit(query, 4, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(Reason.FETCH_ABANDONED, d.reasonOf(EffectType.HOLD_DROPPED));
        assertEquals(-1, d.admittedLoad());
        assertEquals(32 - 4, d.engine.pool(Pool.HOST_KV).freeCount(), "the abandoned read may still write");
        d.passEnd();
        d.fetchDone(fetch, 4);
        assertAllFree(d);
        assertEquals(RequestState.ADMITTED, d.engine.requestState(1));
    }

    @Test
    void shouldWaitForTheFetchUnderWaitCompleteHoweverLong()
    {
        final Driver d = new Driver(base().prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE).build(), true);
        final long query = d.arrive(1, 11, 4);
        final long fetch = d.storageHit(query, 4, 4);
        d.nowNs = 3_600_000_000_000L;
        d.passBegin();
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.PREFETCH_PENDING, d.reasonOf(EffectType.WAITED));
        d.passEnd();
        d.fetchDone(fetch, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertTrue(d.admittedLoad() >= 0);
        assertEquals(4, d.last.value2(indexOf(d, EffectType.ADMITTED)), "all four pages are loaded");
    }

    @Test
    void shouldWaitUntilTheDeadlineUnderTimeout()
    {
        final Driver d = new Driver(base().prefetchPolicy(PrefetchPolicy.TIMEOUT).build(), true);
        d.nowNs = 0;
        final long query = d.arrive(1, 11, 4);
        d.storageHit(query, 4, 4);
        // 1 s plus 0.25 s per 1,024 fetched tokens (16 tokens here).
        final long deadline = 1_000_000_000L + 250_000_000L * 16 / 1024;
        d.nowNs = deadline - 1;
        d.passBegin();
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.PREFETCH_PENDING, d.reasonOf(EffectType.WAITED));
        d.passEnd();
        d.nowNs = deadline;
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(Reason.FETCH_ABANDONED, d.reasonOf(EffectType.HOLD_DROPPED));
    }

    // ------------------------------------------------------------------------------------------------ checkpoints

    @Test
    void shouldDropAnL3HitWithoutAMambaState()
    {
        final Driver d = driver();
        final long query = d.arrive(1, 11, 4);
        assertEquals(-1, d.storageHit(query, 4, 0));
        assertEquals(Reason.NO_CHECKPOINT, d.reasonOf(EffectType.HOLD_DROPPED));
        assertAllFree(d);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
    }

    @Test
    void shouldMatchTheDeviceOnlyUpToTheDeepestCheckpoint()
    {
        final Driver d = driver();
        d.cold(1, 11, 6);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.chunk(1, 2));
        assertEquals(ResultCode.OK, d.apply(Inputs.chunk(d.in.reset(), 1, 5, 2, 0, 0, 0)));
        assertEquals(ResultCode.OK, d.apply(Inputs.finish(d.in.reset(), 1, 6, 4, 0, 0, 0)));
        d.drainWrites();
        // Request 2 shares all six pages: the device holds four, with checkpoints at 2 and 4.
        final long query = d.arrive(2, 11, 6);
        assertTrue(query >= 0, "two pages past the deepest checkpoint are looked up");
        assertEquals(2, d.last.value2(indexOf(d, EffectType.OP_QUEUED)));
        d.storageHit(query, 0, 0);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(4, d.admittedPrefix());
    }

    // ------------------------------------------------------------------------------------------------ retract, abort

    @Test
    void shouldUndoEverythingWhenAbortedWithItsLoadQueued()
    {
        final Driver d = driver();
        final long hashBefore = hashOfEmpty();
        d.staged(1, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(ResultCode.OK, d.abort(1));
        assertTrue(d.has(EffectType.OP_CANCELLED));
        assertTrue(d.has(EffectType.NODE_DELETED));
        d.passEnd();
        assertAllFree(d);
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount());
        assertEquals(12, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
        assertEquals(0, d.engine.inFlightOps());
        assertEquals(0, d.engine.liveRequests());
        assertTrue(hashBefore != 0);
    }

    private static long hashOfEmpty()
    {
        return driver().engine.stateHash();
    }

    @Test
    void shouldParkTheSlotsOfAnAbortedRequestUntilItsLaunchedLoadIsAcked()
    {
        final Driver d = driver();
        d.staged(1, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        final int s = d.engine.requestStateSlot(1);
        d.passEnd();
        assertEquals(ResultCode.OK, d.abort(1));
        assertEquals(SlotState.PENDING_FREE, d.mambaState(s));
        assertEquals(load, d.mambaOwner(s));
        d.tick(Long.MAX_VALUE);
        assertFalse(d.has(EffectType.EVICTED), "the load's nodes stay locked until its ack");
        assertEquals(ResultCode.OK, d.ack(load, true));
        assertEquals(SlotState.FREE, d.mambaState(s));
        assertAllFree(d);
        d.tick(Long.MAX_VALUE);
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount());
        assertEquals(12, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
    }

    @Test
    void shouldRollBackAFailedLoadAndLetTheRequestRecompute()
    {
        final Driver d = driver();
        d.staged(1, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(load, false));
        assertEquals(Reason.LOAD_FAILED, d.reasonOf(EffectType.REJECTED));
        assertTrue(d.has(EffectType.NODE_DELETED));
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
        assertAllFree(d);
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount());
        assertEquals(12, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(0, d.admittedPrefix(), "it recomputes");
    }

    @Test
    void shouldReleaseAnAbortedFetchsStagingAtItsCompletion()
    {
        final Driver d = driver();
        final long query = d.arrive(1, 11, 4);
        final long fetch = d.storageHit(query, 4, 4);
        assertEquals(ResultCode.OK, d.abort(1));
        assertNull(d.engine.requestState(1));
        d.fetchDone(fetch, 4);
        assertAllFree(d);
        assertEquals(0, d.engine.inFlightOps());
    }

    // ------------------------------------------------------------------------------------------------ write path

    @Test
    void shouldStoreABackupAckedWhileTheOpTableIsFull()
    {
        final Driver d = new Driver(base().maxOps(16).build(), true);
        d.cold(1, 11, 3);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.finish(1, 3, 0, 0, 0));
        final long backup = d.opId(EffectType.OP_QUEUED, OpKind.BACKUP);
        assertTrue(backup >= 0);
        // Fifteen unanswered L3 queries fill the op table around the backup.
        for (int r = 2; d.engine.inFlightOps() < 16; r++)
        {
            assertTrue(d.arrive(r, 20 + r, 2) >= 0);
        }
        assertEquals(ResultCode.OK, d.ack(backup, true));
        assertTrue(d.opId(EffectType.OP_QUEUED, OpKind.STORE) >= 0,
            "the backup's ack frees its own op slot: the storage write must still be issued");
        assertEquals(ResultCode.OK, d.ack(d.opId(EffectType.OP_QUEUED, OpKind.STORE), true));
        assertTrue(d.has(EffectType.PAGES_STORED));
    }

    @Test
    void shouldCountAnL3QueryNotAskedBecauseTheOpTableIsFull()
    {
        final Driver d = new Driver(base().maxOps(16).maxRequests(32).build(), true);
        int r = 1;
        for (; d.engine.inFlightOps() < 16; r++)
        {
            assertTrue(d.arrive(r, 20 + r, 2) >= 0);
        }
        assertEquals(16, d.engine.counters().queries);
        assertEquals(0, d.engine.counters().queriesSkipped);
        assertEquals(-1, d.arrive(r, 20 + r, 2), "accepted (the driver checks OK), but no room for its query");
        assertFalse(d.has(EffectType.OP_QUEUED));
        assertEquals(16, d.engine.counters().queries);
        assertEquals(1, d.engine.counters().queriesSkipped);
    }

    @Test
    void shouldFreeTheStagingOfAFailedBackupOrStore()
    {
        final Driver d = driver();
        d.cold(1, 11, 3);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.finish(1, 3, 0, 0, 0));
        assertEquals(ResultCode.OK, d.ack(d.opId(EffectType.OP_QUEUED, OpKind.BACKUP), false));
        assertFalse(d.has(EffectType.OP_QUEUED), "a failed D2H writes nothing to L3");
        assertAllFree(d);
        d.cold(2, 12, 3);
        admitCold(d, 2);
        assertEquals(ResultCode.OK, d.finish(2, 3, 0, 0, 0));
        assertEquals(ResultCode.OK, d.ack(d.opId(EffectType.OP_QUEUED, OpKind.BACKUP), true));
        assertEquals(ResultCode.OK, d.ack(d.opId(EffectType.OP_QUEUED, OpKind.STORE), false));
        assertFalse(d.has(EffectType.PAGES_STORED));
        assertAllFree(d);
        d.tick(Long.MAX_VALUE);
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount(), "no lock left behind by the failed ops");
    }

    // ------------------------------------------------------------------------------------------------ admission

    /** Requests 100.. admitted and launched until the Mamba pool is all held by running requests. */
    private static void exhaustMamba(final Driver d, final int requests)
    {
        d.passBegin();
        for (int r = 0; r < requests; r++)
        {
            d.cold(100 + r, 500 + r, 1);
            assertEquals(ResultCode.OK, d.admit(100 + r));
        }
        d.passEnd();
    }

    @Test
    void shouldDeferAStagedRequestAtTheMambaGateAndDropItsHoldAfter32()
    {
        final Driver d = driver();
        d.staged(1, 11, 4);
        exhaustMamba(d, 5);
        assertEquals(2, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
        for (int i = 1; i < 32; i++)
        {
            d.passBegin();
            assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
            assertEquals(Reason.MAMBA_SLOTS, d.reasonOf(EffectType.DEFERRED));
            assertEquals(i, d.engine.deferCountOf(1));
            d.passEnd();
        }
        assertEquals(RequestState.STAGED, d.engine.requestState(1));
        d.passBegin();
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.DEFER_LIMIT, d.reasonOf(EffectType.HOLD_DROPPED));
        d.passEnd();
        assertAllFree(d);
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
    }

    /**
     * bb-mamba2 finding 1: the defer count belongs to the staged hold (SGLang's {@code release_staged_hold} pops
     * {@code _staged_admission_defers} with the hold; the domain resets it at the load and drops the hold at the
     * limit). A hold dropped for another reason (here the device came to cover it) took the count along only under
     * rules 3; under rules 2 the request kept reporting the old count after a compute-only admission.
     */
    @Test
    void shouldResetTheDeferCountWhenTheHoldIsDroppedForAnotherReason()
    {
        for (final int rules : new int[]{2, 3})
        {
            final Driver d = new Driver(base().admissionRules(rules).build(), true);
            d.staged(1, 11, 4);
            exhaustMamba(d, 5);
            for (int i = 1; i <= 3; i++)
            {
                d.passBegin();
                assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
                assertEquals(Reason.MAMBA_SLOTS, d.reasonOf(EffectType.DEFERRED));
                d.passEnd();
            }
            assertEquals(3, d.engine.deferCountOf(1));
            for (int r = 100; r < 105; r++)
            {
                assertEquals(ResultCode.OK, d.abort(r));
            }
            // Another request computes the same four pages and leaves their checkpoint on the device.
            d.cold(2, 11, 4);
            admitCold(d, 2);
            assertEquals(ResultCode.OK, d.finish(2, 4, 0, 0, 0));
            d.passBegin();
            assertEquals(ResultCode.OK, d.admit(1));
            assertEquals(Reason.DEVICE_COVERED, d.reasonOf(EffectType.HOLD_DROPPED));
            d.passEnd();
            assertEquals(RequestState.ADMITTED, d.engine.requestState(1));
            assertEquals(rules >= 3 ? 0 : 3, d.engine.deferCountOf(1), "rules " + rules);
        }
    }

    @Test
    void shouldNotCountTokenBudgetWaitsAsDefers()
    {
        final Driver d = driver();
        d.staged(1, 11, 4);
        for (int i = 0; i < 40; i++)
        {
            d.passBegin(8, 1 << 30, 1 << 30);
            assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
            assertEquals(Reason.TOKEN_BUDGET, d.reasonOf(EffectType.WAITED));
            assertFalse(d.has(EffectType.DEFERRED));
            d.passEnd();
        }
        assertEquals(0, d.engine.deferCountOf(1));
        assertEquals(4, d.engine.holdPagesOf(1));
    }

    @Test
    void shouldCheckTheRunningLimitBeforeTheMambaGate()
    {
        final Driver d = driver();
        d.staged(1, 11, 4);
        exhaustMamba(d, 5);
        d.apply(Inputs.passBegin(d.in.reset(), 5, 1 << 30, 1 << 30, 1 << 30));
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.RUNNING_LIMIT, d.reasonOf(EffectType.WAITED));
        assertFalse(d.has(EffectType.DEFERRED));
        assertEquals(0, d.engine.deferCountOf(1));
    }

    @Test
    void shouldExemptThePasssFirstRequestFromTheInputBudget()
    {
        final Driver d = driver();
        d.cold(1, 11, 8);
        d.cold(2, 12, 8);
        d.passBegin(1 << 30, 8, 1 << 30);
        assertEquals(ResultCode.OK, d.admit(1), "the first request of a pass is never capped by the input budget");
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(2));
        assertEquals(Reason.INPUT_BUDGET, d.reasonOf(EffectType.WAITED));
    }

    @Test
    void shouldDropAStagedHoldTheDeviceNowCovers()
    {
        final Driver d = driver();
        d.staged(2, 11, 4);
        d.cold(1, 11, 4);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        d.drainWrites();
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(Reason.DEVICE_COVERED, d.reasonOf(EffectType.HOLD_DROPPED));
        assertEquals(4, d.admittedPrefix());
        assertEquals(-1, d.admittedLoad());
        assertAllFree(d);
    }

    @Test
    void shouldLoadOnlyThePartOfAHoldTheDeviceDoesNotHold()
    {
        final Driver d = driver();
        d.staged(2, 11, 4);
        d.cold(1, 11, 2);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.finish(1, 2, 0, 0, 0));
        d.drainWrites();
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(4, d.admittedPrefix());
        assertEquals(2, d.last.value2(indexOf(d, EffectType.ADMITTED)), "two pages loaded, two trimmed");
        assertEquals(32 - 2, d.engine.pool(Pool.HOST_KV).freeCount(), "the trimmed head's staging is freed");
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(d.engine.loadOpOf(2), true));
        assertAllFree(d);
    }

    @Test
    void shouldNotCopyFromOrMatchACheckpointWhoseLoadIsInFlight()
    {
        final Driver d = driver();
        d.staged(1, 11, 4);
        d.staged(2, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(2));
        assertEquals(Reason.LOAD_IN_FLIGHT, d.reasonOf(EffectType.WAITED));
        d.storageHit(d.arrive(3, 11, 4), 0, 0);
        assertEquals(ResultCode.OK, d.admit(3));
        assertEquals(0, d.admittedPrefix(), "a loading node is invisible to matching");
        assertEquals(-1, d.engine.cowOpOf(3));
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(load, true));
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(Reason.DEVICE_COVERED, d.reasonOf(EffectType.HOLD_DROPPED));
        assertTrue(d.engine.cowOpOf(2) >= 0, "after the ack the checkpoint is a copy source");
    }

    @Test
    void shouldNotFailStopWhenARequestCachesUnderANodeWhoseLoadThenFails()
    {
        final Driver d = driver();
        d.staged(1, 11, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        d.passEnd();
        // Request 2 computes the same four pages and two more while the load is in flight.
        d.storageHit(d.arrive(2, 11, 6), 0, 0);
        admitCold(d, 2);
        assertEquals(ResultCode.OK, d.finish(2, 6, 0, 0, 0));
        d.drainWrites();
        assertEquals(ResultCode.OK, d.ack(load, false));
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
        d.tick(Long.MAX_VALUE);
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount());
        assertEquals(12, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
    }

    /** Request 1 caches two pages with their checkpoint; request 2 (same prompt and two more) is admitted on it. */
    private static long admittedOnCheckpoint(final Driver d)
    {
        d.cold(1, 11, 2);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.finish(1, 2, 0, 0, 0));
        d.drainWrites();
        d.storageHit(d.arrive(2, 11, 4), 0, 0);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(2, d.admittedPrefix());
        final long cow = d.engine.cowOpOf(2);
        assertTrue(cow >= 0);
        return cow;
    }

    @Test
    void shouldCancelAQueuedCopyOnRetractAndReleaseTheCheckpoint()
    {
        final Driver d = driver();
        final long cow = admittedOnCheckpoint(d);
        assertEquals(ResultCode.OK, d.retract(2));
        assertTrue(d.has(EffectType.OP_CANCELLED));
        d.passEnd();
        assertRefused(d, Inputs.ack(new InputRecord(1), cow, true), ResultCode.OP_ALREADY_DONE);
        assertEquals(RequestState.WAITING, d.engine.requestState(2));
        assertEquals(ResultCode.OK, d.abort(2));
        d.tick(Long.MAX_VALUE);
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount(), "no lock left on the checkpoint");
        assertEquals(12, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
    }

    @Test
    void shouldLetARequestRecomputeWhenItsCopyFails()
    {
        final Driver d = driver();
        final long cow = admittedOnCheckpoint(d);
        final int s = d.engine.requestStateSlot(2);
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(cow, false));
        assertEquals(Reason.COW_FAILED, d.reasonOf(EffectType.REJECTED));
        assertEquals(RequestState.WAITING, d.engine.requestState(2));
        assertEquals(SlotState.FREE, d.mambaState(s));
        assertEquals(12 - 1, d.engine.pool(Pool.DEVICE_MAMBA).freeCount(), "only the checkpoint is held");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertTrue(d.engine.cowOpOf(2) >= 0, "the checkpoint is still a copy source");
    }

    @Test
    void shouldKeepWhatAChunkCachedWhenTheRequestIsAborted()
    {
        final Driver d = driver();
        d.arrive(1, 11, 6, 3, 8, 0);
        d.storageHit(d.opId(EffectType.OP_QUEUED, OpKind.QUERY), 0, 0);
        admitCold(d, 1);
        assertEquals(ResultCode.OK, d.chunk(1, 3));
        d.drainWrites();
        assertEquals(ResultCode.OK, d.apply(Inputs.abort(d.in.reset(), 1, 4, 0, 1)));
        assertEquals(64 - 3, d.engine.pool(Pool.DEVICE_KV).freeCount(), "the three cached pages stay, the rest go");
        assertEquals(12 - 1, d.engine.pool(Pool.DEVICE_MAMBA).freeCount(), "the chunk's checkpoint stays");
        assertEquals(3, d.engine.tree().evictablePages());
        d.storageHit(d.arrive(2, 11, 6), 0, 0);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(3, d.admittedPrefix());
    }

    @Test
    void shouldFreeTheTailPageOfAStagedRequestRetractedBeforeOrAfterLaunch()
    {
        final Driver d = driver();
        final long query = d.arrive(1, 11, 4, 2, 8, 0);
        d.fetchDone(d.storageHit(query, 4, 4), 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final int tail = d.engine.requestTailPage(1);
        assertTrue(tail >= 0);
        assertEquals(ResultCode.OK, d.retract(1));
        assertEquals(SlotState.FREE, d.engine.pool(Pool.DEVICE_KV).state(tail), "freed with the cancelled load");
        d.passEnd();
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount());

        final long query2 = d.arrive(2, 12, 4, 2, 8, 0);
        d.fetchDone(d.storageHit(query2, 4, 4), 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        final long load = d.admittedLoad();
        final int tail2 = d.engine.requestTailPage(2);
        d.passEnd();
        assertEquals(ResultCode.OK, d.retract(2));
        assertEquals(SlotState.FREE, d.engine.pool(Pool.DEVICE_KV).state(tail2),
            "the load never writes the tail: it is freed at the retract");
        assertEquals(ResultCode.OK, d.ack(load, true));
        assertAllFree(d);
        assertEquals(ResultCode.OK, d.abort(1));
        assertEquals(ResultCode.OK, d.abort(2));
        d.tick(Long.MAX_VALUE);
        assertEquals(64, d.engine.pool(Pool.DEVICE_KV).freeCount());
        assertEquals(12, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
    }

    @Test
    void shouldParkTheLoadsNodeButNotItsPagesInAPureAttentionRetract()
    {
        final Driver d = new Driver(base().hybrid(false).build(), true);
        final long query = d.arrive(1, 11, 4);
        d.fetchDone(d.storageHit(query, 4, 0), 4);
        assertEquals(RequestState.STAGED, d.engine.requestState(1), "without Mamba a hit needs no checkpoint");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        d.passEnd();
        assertEquals(ResultCode.OK, d.retract(1));
        d.tick(Long.MAX_VALUE);
        assertFalse(d.has(EffectType.EVICTED), "the load's own lock keeps its node until the ack");
        assertEquals(ResultCode.OK, d.ack(load, true));
        assertAllFreeHost(d);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(4, d.admittedPrefix(), "the acked load's pages now serve the re-admitted request");
    }

    private static void assertAllFreeHost(final Driver d)
    {
        final SlotPool pool = d.engine.pool(Pool.HOST_KV);
        assertEquals(pool.capacity(), pool.freeCount());
    }

    // ------------------------------------------------------------------------------------------------ determinism

    @Test
    void shouldGiveTheSameEffectsAndHashForTheSameInputs()
    {
        final long[] a = script();
        final long[] b = script();
        assertEquals(a.length, b.length);
        for (int i = 0; i < a.length; i++)
        {
            assertEquals(a[i], b[i], "step " + i);
        }
    }

    /** A scripted run; per step the state hash and a digest of the effects. */
    private static long[] script()
    {
        final Driver d = driver();
        final long[] out = new long[64];
        int n = 0;
        d.staged(1, 11, 4);
        out[n++] = digest(d);
        d.cold(2, 11, 6);
        out[n++] = digest(d);
        d.passBegin();
        d.admit(1);
        out[n++] = digest(d);
        d.admit(2);
        out[n++] = digest(d);
        d.passEnd();
        out[n++] = digest(d);
        d.ack(d.engine.loadOpOf(1), true);
        out[n++] = digest(d);
        d.finish(1, 4, 3, 1, 1);
        out[n++] = digest(d);
        d.abort(2);
        out[n++] = digest(d);
        d.drainWrites();
        d.tick(Long.MAX_VALUE);
        out[n++] = digest(d);
        return java.util.Arrays.copyOf(out, n);
    }

    private static long digest(final Driver d)
    {
        long h = d.engine.stateHash();
        for (int i = 0; i < d.last.size(); i++)
        {
            h = h * 31 + d.last.type(i).ordinal();
            h = h * 31 + d.last.id(i);
            h = h * 31 + d.last.owner(i);
            h = h * 31 + d.last.value1(i);
        }
        return h;
    }
}
