package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admission rules of the domain reference (SGLang's {@code PrefillAdder.add_one_req}, {@code hicache-domain.md}
 * §4 and §8.1) under rules 2, the default, and the rules every journal before them was written under (rules 1),
 * which replay keeps applying to those journals. Page size 4 throughout except for the timeout.
 */
class AdmissionRulesTest
{
    private static final int PAGE = 4;

    private static EngineConfig.Builder base(final int rules)
    {
        return EngineConfig.builder().pageSize(PAGE).deviceKvPages(128).deviceMambaSlots(12).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(16).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1)
            .admissionRules(rules);
    }

    /** A request that missed L3: {@code pages} full pages, a tail and a max of new tokens. */
    private static void cold(final Driver d, final long request, final int pages, final long tail,
        final long maxNewTokens)
    {
        final long query = d.arrive(request, request * 31, pages, tail, maxNewTokens, 0);
        if (query >= 0)
        {
            d.storageHit(query, 0, 0);
        }
    }

    private static void assertWaited(final Driver d, final int result, final Reason reason)
    {
        assertEquals(ResultCode.NOT_ADMITTED, result);
        assertEquals(reason, d.reasonOf(EffectType.WAITED));
    }

    /** An engine under {@code rules} and its answer to admitting one cold request of 2 pages alone in a pass. */
    private record Alone(Driver driver, int result)
    {
    }

    private static Alone admitAlone(final int rules, final long maxNewTokens, final long tokenBudget)
    {
        final Driver d = new Driver(base(rules).build(), true);
        cold(d, 1, 2, 0, maxNewTokens);
        d.passBegin(tokenBudget, 1 << 30, 1 << 30);
        return new Alone(d, d.admit(1));
    }

    @Test
    void shouldCountAPageInTheTotalAndWaitAtTheTokenBudget()
    {
        // 2 pages and 8 new tokens: rules 2 total 8 + 8 + 4 = 20, waiting at a budget of 20; rules 1 total 16.
        for (final long budget : new long[]{16, 20, 21})
        {
            final Alone two = admitAlone(2, 8, budget);
            if (budget <= 20)
            {
                assertWaited(two.driver(), two.result(), Reason.TOKEN_BUDGET);
            }
            else
            {
                assertEquals(ResultCode.OK, two.result(), "rules 2 at budget " + budget);
            }
            assertEquals(ResultCode.OK, admitAlone(1, 8, budget).result(), "rules 1 admit at budget " + budget);
        }
        final Alone one = admitAlone(1, 8, 15);
        assertWaited(one.driver(), one.result(), Reason.TOKEN_BUDGET);
    }

    @Test
    void shouldClipMaxNewTokensAt4096InTheTokenGate()
    {
        assertEquals(ResultCode.OK, admitAlone(2, 100_000, 65_536).result(), "8 + min(100,000, 4,096) + 4 fits");

        final Alone clipEdge = admitAlone(2, 100_000, 8 + EngineConfig.CLIP_MAX_NEW_TOKENS + PAGE);
        assertWaited(clipEdge.driver(), clipEdge.result(), Reason.TOKEN_BUDGET);

        final Alone one = admitAlone(1, 100_000, 65_536);
        assertWaited(one.driver(), one.result(), Reason.TOKEN_BUDGET);
    }

    @Test
    void shouldCapANonFirstRequestsInputInWholePagesAtTheBudget()
    {
        for (final int rules : new int[]{1, 2})
        {
            final Driver d = new Driver(base(rules).build(), true);
            cold(d, 1, 2, 0, 8);
            cold(d, 2, 1, 2, 8);
            d.passBegin(1 << 30, 16, 1 << 30);
            assertEquals(ResultCode.OK, d.admit(1), "the first request is always under the input cap");
            // 8 input tokens left. Request 2 has 6 uncached tokens, 8 in whole pages.
            final int second = d.admit(2);
            if (rules == 2)
            {
                assertWaited(d, second, Reason.INPUT_BUDGET);
            }
            else
            {
                assertEquals(ResultCode.OK, second, "rules 1 compare raw tokens, past the budget only");
            }
        }

        final Driver first = new Driver(base(2).build(), true);
        cold(first, 1, 4, 0, 8);
        first.passBegin(1 << 30, 4, 1 << 30);
        assertEquals(ResultCode.OK, first.admit(1), "the first request of a pass passes whatever its input");
    }

    @Test
    void shouldDebitTheBudgetsByWholePages()
    {
        final Driver d = new Driver(base(2).build(), true);
        cold(d, 1, 1, 1, 8);
        cold(d, 2, 1, 0, 0);
        // Request 1 debits 8 (its 5 tokens in whole pages) + 8 + 4 = 20 of 29; request 2 then needs 4 + 0 + 4 = 8.
        d.passBegin(29, 1 << 30, 1 << 30);
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(ResultCode.OK, d.admit(2));

        final Driver tight = new Driver(base(2).build(), true);
        cold(tight, 1, 1, 1, 8);
        cold(tight, 2, 1, 0, 0);
        tight.passBegin(28, 1 << 30, 1 << 30);
        assertEquals(ResultCode.OK, tight.admit(1));
        assertWaited(tight, tight.admit(2), Reason.TOKEN_BUDGET);
    }

    @Test
    void shouldGiveTheTimeoutPolicyAQuarterSecondPer1024FetchedTokens()
    {
        // A 32-page hit of 64-token pages is 2,048 tokens: the limit is 1 s + 2 * 0.25 s under rules 2.
        for (final int rules : new int[]{1, 2})
        {
            final EngineConfig.Builder config = base(rules).pageSize(64).maxRequestPages(32)
                .prefetchPolicy(PrefetchPolicy.TIMEOUT);
            if (rules == 1)
            {
                config.prefetchTimeoutPerKiNs(0);
            }
            final Driver d = new Driver(config.build(), true);
            d.nowNs = 0;
            final long query = d.arrive(1, 11, 32);
            d.nowNs = 1_000_000;
            assertTrue(d.storageHit(query, 32, 32) >= 0, "the hit is fetched");

            d.nowNs = 1_100_000_000L;
            d.passBegin();
            final int early = d.admit(1);
            if (rules == 2)
            {
                assertWaited(d, early, Reason.PREFETCH_PENDING);
                d.passEnd();
                d.nowNs = 1_499_000_000L;
                d.passBegin();
                assertWaited(d, d.admit(1), Reason.PREFETCH_PENDING);
                d.passEnd();
                d.nowNs = 1_500_000_000L;
                d.passBegin();
                assertEquals(ResultCode.OK, d.admit(1), "abandoned at 1.5 s, admitted without the hit");
            }
            else
            {
                assertEquals(ResultCode.OK, early, "rules 1: abandoned at the 1 s base");
            }
            assertEquals(Reason.FETCH_ABANDONED, d.reasonOf(EffectType.HOLD_DROPPED));
            assertEquals(rules == 2 ? 32 : 0, d.engine.counters().drops == 1 ? droppedPages(d) : -1,
                "one drop, counted, naming the pages the fetch was bringing (rules 1 wrote 0)");
        }
    }

    private static long droppedPages(final Driver d)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.HOLD_DROPPED)
            {
                return d.last.value1(i);
            }
        }
        return -1;
    }

    /**
     * Two cold requests of {@code pages} pages admitted in one pass that has ended; request 1 has a tail of
     * {@code tail} tokens, request 2 none.
     */
    private static Driver twoAdmitted(final EngineConfig.Builder config, final int pages, final long tail)
    {
        final Driver d = new Driver(config.build(), true);
        cold(d, 1, pages, tail, 8);
        cold(d, 2, pages, 0, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(ResultCode.OK, d.admit(2));
        d.passEnd();
        return d;
    }

    @Test
    void shouldGiveAPartialLastPageItsOwnKvPageUntilTheRequestEnds()
    {
        for (final int rules : new int[]{1, 2})
        {
            for (int ending = 0; ending < 3; ending++)
            {
                final Driver d = twoAdmitted(base(rules), 3, 2);
                final int tail = d.engine.requestTailPage(1);
                final long requestPages = d.engine.pool(Pool.DEVICE_KV).count(SlotState.REQUEST);
                if (rules == 2)
                {
                    assertTrue(tail >= 0, "3 pages and 2 tokens: a fourth page for the tail");
                    assertEquals(SlotState.REQUEST, d.engine.pool(Pool.DEVICE_KV).state(tail));
                    assertEquals(7, requestPages, "3 + 1 for request 1, 3 for request 2 (no tail)");
                }
                else
                {
                    assertEquals(-1, tail, "rules 1 give the tail no page");
                    assertEquals(6, requestPages);
                }
                assertEquals(-1, d.engine.requestTailPage(2));

                final int result = ending == 0 ? d.finish(1, 3, 0, 0, 0) : ending == 1 ? d.abort(1) : d.retract(1);
                assertEquals(ResultCode.OK, result);
                if (rules == 2)
                {
                    assertEquals(SlotState.FREE, d.engine.pool(Pool.DEVICE_KV).state(tail), "ending " + ending);
                }
                assertEquals(-1, d.engine.requestTailPage(1));
                assertEquals(3, d.engine.pool(Pool.DEVICE_KV).count(SlotState.REQUEST), "request 2's pages only");
            }
        }
    }

    @Test
    void shouldKeepTheTrackingSlotWhenAChunkCannotGetAFreshOne()
    {
        for (final int rules : new int[]{1, 2})
        {
            // Five Mamba slots: two requests take a working and a tracking slot each; A's chunk takes the last.
            final Driver d = twoAdmitted(base(rules).deviceMambaSlots(5), 8, 0);
            assertEquals(ResultCode.OK, d.chunk(1, 4));
            assertNotEquals(-1, d.engine.requestTrackingSlot(1));

            final int tracking = d.engine.requestTrackingSlot(2);
            assertEquals(ResultCode.OK, d.chunk(2, 4));
            if (rules == 2)
            {
                assertEquals(tracking, d.engine.requestTrackingSlot(2), "B keeps its tracking slot");
                assertFalse(d.has(EffectType.EVICTED), "nothing was evictable");
            }
            else
            {
                assertEquals(-1, d.engine.requestTrackingSlot(2), "rules 1 (pinned): the replacement is missing");
            }
            assertEquals(ResultCode.OK, d.finish(2, 8, 0, 0, 0));
            assertEquals(ResultCode.OK, d.finish(1, 8, 0, 0, 0));
        }
    }
}
