package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hit-commit gates on the device (hicache-domain.md 3.2 step 3 (c) and (d); admission rules 6, the default):
 * between a request's L3 query and the hit that answers it, another request may compute and cache the same pages.
 * A hit whose whole span the device now holds is declined (HOLD_DROPPED DEVICE_COVERED) and nothing is fetched; a
 * hit whose head the device now holds is fetched from the device's end on. The same holds for a parked hit when it
 * is retried. Rules 1 to 5 fetched the whole hit and sorted it out at admission.
 */
class HitCommitDeviceGateTest
{
    private static final int PAGES = 8;

    private static Driver driver(final int rules, final int hostPages)
    {
        return new Driver(EngineConfig.builder().pageSize(4).deviceKvPages(128).hybrid(false).hostKvPages(hostPages)
            .maxRequests(8).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).admissionRules(rules).build(),
            true);
    }


    @Test
    void shouldBeTheDefault()
    {
        assertEquals(6, EngineConfig.DEFAULT_ADMISSION_RULES);
        assertTrue(AdmissionRules.of(6).hitCommitChecksDevice());
        assertTrue(AdmissionRules.of(7).hitCommitChecksDevice());
        assertFalse(AdmissionRules.of(5).hitCommitChecksDevice());
        assertFalse(AdmissionRules.of(6).computesLastPage(), "rules 6 reuse a whole-page prompt whole, as 4");
        assertTrue(AdmissionRules.of(7).computesLastPage());
    }

    @Test
    void shouldDeclineAHitWhoseSpanTheDeviceNowHolds()
    {
        final Driver d = driver(EngineConfig.DEFAULT_ADMISSION_RULES, 64);
        final long query = d.arrive(1, 5, PAGES);
        assertTrue(query > 0);
        d.cached(2, 5, PAGES);

        final long fetch = d.storageHit(query, PAGES, PAGES);
        assertEquals(-1, fetch, "nothing is fetched");
        assertEquals(Reason.DEVICE_COVERED, d.reasonOf(EffectType.HOLD_DROPPED));
        assertEquals(RequestState.WAITING, d.engine.requestState(1));

        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(PAGES, d.admittedPrefix(), "every page comes from the device");
        assertEquals(-1, d.opId(EffectType.OP_QUEUED, OpKind.LOAD), "no load");
    }

    @Test
    void shouldFetchOnlyThePagesPastTheDevicesHead()
    {
        final Driver d = driver(EngineConfig.DEFAULT_ADMISSION_RULES, 64);
        final long query = d.arrive(1, 5, PAGES);
        d.cached(2, 5, 3);

        final long fetch = d.storageHit(query, PAGES, PAGES);
        assertTrue(fetch > 0);
        assertEquals(PAGES - 3, queuedPages(d, fetch), "pages 3..8 only: the device holds 0..3");
        assertFalse(d.has(EffectType.HOLD_DROPPED));

        d.fetchDone(fetch, PAGES - 3);
        assertEquals(RequestState.STAGED, d.engine.requestState(1));
        d.tick(Long.MAX_VALUE);
        assertFalse(d.has(EffectType.EVICTED), "the prefix pin moved to the device's end with the hit");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertFalse(d.has(EffectType.HOLD_DROPPED), "no PREFIX_SHRUNK or DEVICE_COVERED drop");
        assertEquals(PAGES, d.admittedPrefix(), "3 device pages and 5 loaded ones");
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 5})
    void shouldFetchTheWholeHitUnderEarlierRules(final int rules)
    {
        final Driver d = driver(rules, 64);
        final long query = d.arrive(1, 5, PAGES, 2, 8, 0);
        d.cached(2, 5, 3);

        final long fetch = d.storageHit(query, PAGES, PAGES);
        assertEquals(PAGES, queuedPages(d, fetch), "journals of rules 1 to 5 replay as written");
    }

    @Test
    void shouldDeclineAParkedHitWhenTheDeviceHoldsItsSpanByItsRetry()
    {
        // Host staging of 8 pages: request 3's staged hold takes all of it, so request 1's hit parks.
        final Driver d = driver(EngineConfig.DEFAULT_ADMISSION_RULES, PAGES);
        final long query = d.arrive(1, 5, PAGES);
        d.staged(3, 9, PAGES);
        d.storageHit(query, PAGES, PAGES);
        assertTrue(d.has(EffectType.HIT_PARKED));

        d.cached(2, 5, PAGES);
        assertTrue(d.engine.parkedHits() > 0, "still parked: request 3 holds the staging");
        d.passBegin();
        assertEquals(Reason.DEVICE_COVERED, d.reasonOf(EffectType.HOLD_DROPPED), "retried at the pass, declined");
        assertEquals(-1, d.opId(EffectType.OP_QUEUED, OpKind.FETCH), "nothing is fetched");
        assertEquals(0, d.engine.parkedHits(), "the FIFO head moved on");
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(PAGES, d.admittedPrefix());
    }

    private static long queuedPages(final Driver d, final long op)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.OP_QUEUED && d.last.id(i) == op)
            {
                return d.last.value2(i);
            }
        }
        return -1;
    }
}
