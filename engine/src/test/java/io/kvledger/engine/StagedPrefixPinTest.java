package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A staged hold keeps its device prefix (issue 9, part 3): the prefix an L3 hit will be spliced onto is locked from
 * the hit's query until admission or drop, so a TICK that evicts everything it can does not shrink it.
 */
class StagedPrefixPinTest
{
    private static EngineConfig config()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(16).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(8).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).build();
    }

    /** Request 1 caches 4 pages with a checkpoint; request 2 extends them by 4 pages that L3 holds. */
    private static Driver cachedPrefix()
    {
        final Driver d = new Driver(config(), true);
        d.cold(1, 5, 4);
        d.passBegin();
        d.admit(1);
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        final long backup = d.opId(EffectType.OP_QUEUED, io.kvledger.journal.codec.OpKind.BACKUP);
        d.ack(backup, true);
        d.ack(d.opId(EffectType.OP_QUEUED, io.kvledger.journal.codec.OpKind.STORE), true);
        return d;
    }

    @Test
    void shouldKeepThePrefixOfAStagedHoldThroughEviction()
    {
        final Driver d = cachedPrefix();
        final long query = d.arrive(2, 5, 8);
        assertTrue(query > 0, "pages 4..8 are queried");
        d.tick(Long.MAX_VALUE);
        assertFalse(d.has(EffectType.EVICTED), "the prefix is pinned while the query is out");
        final long fetch = d.storageHit(query, 4, 4);
        d.fetchDone(fetch, 4);
        assertEquals(RequestState.STAGED, d.engine.requestState(2));
        d.tick(Long.MAX_VALUE);
        assertFalse(d.has(EffectType.EVICTED), "the prefix is pinned while the hold is staged");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertFalse(d.has(EffectType.HOLD_DROPPED), "no PREFIX_SHRUNK drop");
        assertEquals(8, d.admittedPrefix(), "4 device pages + 4 loaded pages");
    }

    @Test
    void shouldUnpinThePrefixWhenTheHitIsGivenUp()
    {
        final Driver d = cachedPrefix();
        final long query = d.arrive(2, 5, 8);
        d.storageHit(query, 0, 0);
        d.tick(Long.MAX_VALUE);
        assertTrue(d.has(EffectType.EVICTED), "no hit: nothing pins the prefix any more");
    }

    @Test
    void shouldUnpinThePrefixWhenTheStagedRequestAborts()
    {
        final Driver d = cachedPrefix();
        final long query = d.arrive(2, 5, 8);
        d.fetchDone(d.storageHit(query, 4, 4), 4);
        assertEquals(ResultCode.OK, d.abort(2));
        d.tick(Long.MAX_VALUE);
        assertTrue(d.has(EffectType.EVICTED));
    }

    @Test
    void shouldJournalAFailedQueryAsAFailedOpAndRecompute()
    {
        final Driver d = cachedPrefix();
        final long query = d.arrive(2, 5, 8);
        assertEquals(ResultCode.OK, d.apply(io.kvledger.journal.Inputs.storageQueryFailed(d.in, query)));
        assertTrue(d.has(EffectType.OP_FAILED), "the store could not answer: a failed op, not an empty answer");
        assertFalse(d.has(EffectType.OP_ACKED));
        assertEquals(1, d.engine.counters().queriesFailed);
        d.tick(Long.MAX_VALUE);
        assertTrue(d.has(EffectType.EVICTED), "the prefix is unpinned with the query's failure");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2), "the request recomputes");
    }
}
