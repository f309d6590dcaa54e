package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.codec.EffectType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The match a request's ARRIVE computed is remembered for its ADMIT ({@code ApplyState.usableDevicePrefix}); a
 * change of the tree in between that alters the match must be seen by the ADMIT: pages cached by another request,
 * an eviction, a split of the node the match ended in, a loading mark cleared.
 */
class MatchMemoTest
{
    private static Driver driver()
    {
        // Two host pages: backups are dropped, so nothing but the requests holds the cached pages.
        final EngineConfig config = EngineConfig.builder().pageSize(4).hybrid(false).deviceKvPages(128)
            .hostKvPages(2).maxRequests(8).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).build();
        final Driver d = new Driver(config, true);
        return d;
    }


    private static long admit(final Driver d, final long request)
    {
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(request));
        final long prefix = d.admittedPrefix();
        d.passEnd();
        return prefix;
    }

    @Test
    void shouldSeePagesCachedBetweenArriveAndAdmit()
    {
        final Driver d = driver();
        d.cold(2, 5, 8);
        d.cached(1, 5, 8);
        assertEquals(8, admit(d, 2));
    }

    @Test
    void shouldSeeAnEvictionBetweenArriveAndAdmit()
    {
        final Driver d = driver();
        d.cached(1, 5, 8);
        d.cold(2, 5, 8);
        d.tick(Long.MAX_VALUE);
        assertTrue(d.has(EffectType.EVICTED));
        assertEquals(0, admit(d, 2));
    }

    @Test
    void shouldSeeASplitOfTheNodeTheMatchEndedIn()
    {
        final Driver d = driver();
        d.cached(1, 5, 8);
        d.storageHit(d.arriveSharing(2, 5, 4, 9, 8), 0, 0);
        d.storageHit(d.arriveSharing(3, 5, 6, 11, 8), 0, 0);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(3));
        assertEquals(6, d.admittedPrefix());
        assertTrue(d.has(EffectType.NODE_SPLIT), "request 1's node split at 6 pages");
        // Request 2's match ended 4 pages into request 1's node; that node now starts 6 pages in.
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(4, d.admittedPrefix());
        assertTrue(d.has(EffectType.NODE_SPLIT), "the new upper half split at 4 pages");
        d.passEnd();
    }

    @Test
    void shouldSeeALoadingMarkClearedBetweenArriveAndAdmit()
    {
        final EngineConfig config = EngineConfig.builder().pageSize(4).hybrid(false).deviceKvPages(128)
            .hostKvPages(64).maxRequests(8).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).build();
        final Driver d = new Driver(config, true);
        d.staged(1, 5, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        d.passEnd();
        assertTrue(load > 0, "request 1 loads its 8 pages");
        d.cold(2, 5, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(0, d.admittedPrefix(), "the loading node is invisible");
        d.passEnd();
        d.cold(3, 5, 8);
        assertEquals(ResultCode.OK, d.ack(load, true));
        assertEquals(8, admit(d, 3), "the load's ack cleared the mark: the pages are usable");
    }
}
