package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Admission rules 5 and 7 (chosen explicitly; the default is 6): a request computes at least its last token, whose
 * logits give its first output token, so a prompt that ends on a page boundary (no tail) reuses at most all its pages
 * but the last, from the device or from L3 (SGLang matches at most {@code input_len - 1} tokens, cut to whole pages).
 * A prompt with a tail reuses every full page, as before. Rules 4, 6 and older reuse a whole-page prompt whole.
 */
class LastPageComputedTest
{
    private static final int PAGE = 4;
    private static final int PAGES = 5;

    private static Driver driver(final int rules, final boolean hybrid)
    {
        return new Driver(EngineConfig.builder().pageSize(PAGE).deviceKvPages(128).hybrid(hybrid)
            .deviceMambaSlots(hybrid ? 12 : 0).hostKvPages(64).hostMambaSlots(4).maxRequests(16).maxRequestPages(16)
            .maxOps(64).prefetchThresholdPages(1).admissionRules(rules).build(), true);
    }

    /** Serve request 1 of {@code PAGES} whole pages to its finish, caching every page on the device. */
    private static void cacheOnDevice(final Driver d, final long seed)
    {
        final long query = d.arrive(1, seed, PAGES, 0, 8, 0);
        d.storageHit(query, 0, 0);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(0, d.admittedPrefix());
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, PAGES, 0, 0, 0));
    }

    /** Admit request 2 (same pages, {@code tail} more tokens) alone and return its reused prefix in pages. */
    private static long admitSecond(final Driver d, final long seed, final long tail)
    {
        final long query = d.arrive(2, seed, PAGES, tail, 8, 0);
        if (query >= 0)
        {
            d.storageHit(query, 0, 0);
        }
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        return d.admittedPrefix();
    }

    @Test
    void shouldBeChosenNotTheDefault()
    {
        assertEquals(7, JournalHeader.LATEST_ADMISSION_RULES);
        assertEquals(6, EngineConfig.builder().build().admissionRules());
        assertEquals(5, EngineConfig.builder().admissionRules(5).build().admissionRules());
        for (int rules = 1; rules <= JournalHeader.LATEST_ADMISSION_RULES; rules++)
        {
            assertEquals(rules == 5 || rules == 7, AdmissionRules.of(rules).computesLastPage(), "rules " + rules);
        }
    }

    @Test
    void shouldComputeTheLastPageOfAWholePagePromptCachedOnTheDevice()
    {
        final Driver d = driver(5, false);
        cacheOnDevice(d, 7);
        assertEquals(PAGES - 1, admitSecond(d, 7, 0), "the last page is computed again for its logits");
    }

    @Test
    void shouldReuseEveryFullPageOfAPromptWithATail()
    {
        final Driver d = driver(5, false);
        cacheOnDevice(d, 7);
        assertEquals(PAGES, admitSecond(d, 7, 2), "the tail's tokens are computed; every full page is reused");
    }

    @Test
    void shouldReuseAWholePagePromptWholeUnderTheDefaultRules()
    {
        final Driver d = driver(EngineConfig.DEFAULT_ADMISSION_RULES, false);
        cacheOnDevice(d, 7);
        assertEquals(PAGES, admitSecond(d, 7, 0));
    }

    @Test
    void shouldDeduplicateTheRecomputedLastPageAtTheFinish()
    {
        final Driver d = driver(5, false);
        cacheOnDevice(d, 7);
        admitSecond(d, 7, 0);
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(2, PAGES, 0, 0, 0));
        assertEquals(0, d.count(EffectType.NODE_INSERTED), "the tree already holds every page");
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 5})
    void shouldQueryL3ForAtMostAllButTheLastPageOfAWholePagePrompt(final int rules)
    {
        final Driver d = driver(rules, true);
        final long query = d.arrive(1, 11, PAGES, 0, 8, 0);
        final int reusable = rules >= 5 ? PAGES - 1 : PAGES;
        assertEquals(reusable, queryPages(d, query), "pages the query looks up");

        final long fetch = d.storageHit(query, PAGES, PAGES);
        assertEquals(reusable, fetchPages(d, fetch), "an answer of every page is cut to the pages that may be reused");
    }

    @Test
    void shouldQueryL3ForEveryFullPageOfAPromptWithATail()
    {
        final Driver d = driver(5, true);
        final long query = d.arrive(1, 11, PAGES, 3, 8, 0);
        assertEquals(PAGES, queryPages(d, query));
    }

    @Test
    void shouldLeaveAOnePagePromptWithoutATailNothingToLookUp()
    {
        final Driver d = driver(5, false);
        assertEquals(-1, d.arrive(1, 11, 1, 0, 8, 0), "no page may be reused, so nothing is queried");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(0, d.admittedPrefix());
    }

    private static long queryPages(final Driver d, final long query)
    {
        return opQueuedPages(d, query, OpKind.QUERY);
    }

    private static long fetchPages(final Driver d, final long fetch)
    {
        return opQueuedPages(d, fetch, OpKind.FETCH);
    }

    private static long opQueuedPages(final Driver d, final long op, final OpKind kind)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.OP_QUEUED && d.last.opKind(i) == kind && d.last.id(i) == op)
            {
                return d.last.value2(i);
            }
        }
        return -1;
    }
}
