package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Parked L3 hits (issue 9, bug 1): the staging FIFO holds every parked hit, drops those whose request gave up, and
 * never loses a live one. With four request slots, one request holds all host staging, a second parks, four more
 * park and abort; when the staging frees, the second request's fetch must start, and under wait_complete it must
 * then be admitted with its hit.
 */
class ParkedHitFifoTest
{
    private static EngineConfig config(final PrefetchPolicy policy)
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(16).hostKvPages(8)
            .hostMambaSlots(2).maxRequests(4).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1)
            .prefetchPolicy(policy).build();
    }

    @ParameterizedTest
    @EnumSource(value = PrefetchPolicy.class, names = {"BEST_EFFORT", "WAIT_COMPLETE"})
    void shouldServeTheLiveParkedHitAfterDeadOnesLeft(final PrefetchPolicy policy)
    {
        final Driver d = new Driver(config(policy), true);
        final long fetch1 = d.storageHit(d.arrive(1, 11, 8), 8, 8);
        assertEquals(1, d.queuedOwner(OpKind.FETCH), "request 1 takes all host KV staging");

        d.storageHit(d.arrive(2, 22, 4), 4, 4);
        assertEquals(-1, d.queuedOwner(OpKind.FETCH), "request 2 parks: no staging");
        for (long r = 3; r <= 6; r++)
        {
            d.storageHit(d.arrive(r, 10 * r, 4), 4, 4);
            assertEquals(-1, d.queuedOwner(OpKind.FETCH), "request " + r + " parks behind 2");
            assertEquals(ResultCode.OK, d.abort(r));
        }

        d.fetchFailed(fetch1);
        assertEquals(2, d.queuedOwner(OpKind.FETCH), "the staging freed: the live parked hit is fetched");
        final long fetch2 = d.opId(io.kvledger.journal.codec.EffectType.OP_QUEUED, OpKind.FETCH);
        d.fetchDone(fetch2, 4);
        assertEquals(RequestState.STAGED, d.engine.requestState(2));
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(4, d.admittedPrefix(), "admitted with its L3 hit");
    }

    @ParameterizedTest
    @EnumSource(value = PrefetchPolicy.class, names = {"BEST_EFFORT", "WAIT_COMPLETE"})
    void shouldStartTheParkedFetchOnATickOnceStagingIsFree(final PrefetchPolicy policy)
    {
        final Driver d = new Driver(config(policy), true);
        final long fetch1 = d.storageHit(d.arrive(1, 11, 8), 8, 8);
        d.storageHit(d.arrive(2, 22, 4), 4, 4);
        for (long r = 3; r <= 6; r++)
        {
            d.storageHit(d.arrive(r, 10 * r, 4), 4, 4);
            d.abort(r);
        }
        d.fetchDone(fetch1, 8);
        assertEquals(ResultCode.OK, d.abort(1), "the hold is dropped, its staging freed");
        if (d.queuedOwner(OpKind.FETCH) != 2)
        {
            d.tick(0);
            assertEquals(2, d.queuedOwner(OpKind.FETCH), "a tick retries the FIFO head");
        }
    }

    @ParameterizedTest
    @EnumSource(value = PrefetchPolicy.class, names = {"WAIT_COMPLETE"})
    void shouldLoseTheParkedHitWithTheFaultSwitchOn(final PrefetchPolicy policy)
    {
        final EngineConfig faulty = EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(16)
            .hostKvPages(8).hostMambaSlots(2).maxRequests(4).maxRequestPages(16).maxOps(64)
            .prefetchThresholdPages(1).prefetchPolicy(policy).fault(FaultSwitch.PARKED_HIT_NEVER_SERVED).build();
        final Driver d = new Driver(faulty, false);
        final long fetch1 = d.storageHit(d.arrive(1, 11, 8), 8, 8);
        d.storageHit(d.arrive(3, 33, 4), 4, 4);
        d.storageHit(d.arrive(2, 22, 4), 4, 4);
        d.abort(3);
        d.fetchFailed(fetch1);
        d.tick(0);
        assertEquals(-1, d.queuedOwner(OpKind.FETCH), "the bug: request 2's hit is never fetched");
        d.passBegin();
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(2), "under wait_complete it waits for ever");
    }

    @ParameterizedTest
    @EnumSource(value = PrefetchPolicy.class, names = {"BEST_EFFORT"})
    void shouldJournalAParkedHitGivenUpAtAdmission(final PrefetchPolicy policy)
    {
        final Driver d = new Driver(config(policy), true);
        d.storageHit(d.arrive(1, 11, 8), 8, 8);
        d.storageHit(d.arrive(2, 22, 4), 4, 4);
        assertEquals(-1, d.queuedOwner(OpKind.FETCH), "request 2 parks: request 1 holds all staging");
        d.passBegin();
        d.admit(2);
        assertEquals(io.kvledger.journal.codec.Reason.FETCH_ABANDONED,
            d.reasonOf(io.kvledger.journal.codec.EffectType.HOLD_DROPPED), "best_effort goes on without the hit");
        assertEquals(0, d.engine.parkedHits(), "and the hit leaves the FIFO");
    }

    @ParameterizedTest
    @EnumSource(value = PrefetchPolicy.class, names = {"BEST_EFFORT", "WAIT_COMPLETE"})
    void shouldDropAHitThatCanNeverFitTheStagingInsteadOfBlockingTheFifo(final PrefetchPolicy policy)
    {
        final Driver d = new Driver(config(policy), true);
        d.storageHit(d.arrive(1, 11, 12), 12, 12);
        assertEquals(io.kvledger.journal.codec.Reason.STAGING_TOO_SMALL,
            d.reasonOf(io.kvledger.journal.codec.EffectType.HOLD_DROPPED), "12 pages never fit 8 host pages");
        assertEquals(-1, d.queuedOwner(OpKind.FETCH));
        d.storageHit(d.arrive(2, 22, 4), 4, 4);
        assertEquals(2, d.queuedOwner(OpKind.FETCH), "a later hit is not stuck behind it");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1), "the dropped request recomputes");
    }
}
