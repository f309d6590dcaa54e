package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.slot.SlotPool;

import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Black-box audit of the engine's decisions against DESIGN.md and the domain reference (with corrections.md), on
 * the paths the earlier audits did not drive: inconsistent L3 answers, short fetches, the running count after every
 * way a request stops running, the gate with two tracking slots, a retract after the load's ack, parked hits ahead
 * of new ones, and Mamba evictions of leaves. {@code verify()} runs after every input.
 */
class EngineDecisionAuditTest
{
    private static final long HUGE = 1L << 30;

    private static EngineConfig.Builder base()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(12).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(16).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1);
    }

    private static void pass(final Driver d, final long maxRunning)
    {
        assertEquals(ResultCode.OK, d.apply(Inputs.passBegin(d.in.reset(), maxRunning, HUGE, HUGE, HUGE)));
    }

    private static void assertStagingAllFree(final Driver d)
    {
        for (final Pool p : new Pool[] {Pool.HOST_KV, Pool.HOST_MAMBA})
        {
            final SlotPool pool = d.engine.pool(p);
            assertEquals(pool.capacity(), pool.freeCount(), p + " all free");
        }
    }

    /** Pages of the first op of a kind the last input queued, or -1. */
    private static long queuedPages(final Driver d, final OpKind kind)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.OP_QUEUED && d.last.opKind(i) == kind)
            {
                return d.last.value2(i);
            }
        }
        return -1;
    }

    // ------------------------------------------------------------------------------ L3 answers and fetch results

    @Test
    void shouldNotStageMorePagesThanTheL3AnswerSaysArePresent()
    {
        // A STORAGE_HIT whose deepest Mamba state lies past the consecutive pages present names no usable
        // checkpoint inside the hit (DESIGN read path 2: the hit is cut back to the deepest page whose state is
        // stored, and the KV pages must be present): nothing may be fetched past the pages present.
        final Driver d = new Driver(base().build(), true);
        final long query = d.arrive(1, 11, 8);
        final int result = d.apply(Inputs.storageHit(d.in.reset(), query, 3, 5));
        assertTrue(result == ResultCode.OK || result < 0, ResultCode.name(result));
        final long fetch = d.opId(EffectType.OP_QUEUED, OpKind.FETCH);
        if (fetch >= 0)
        {
            assertTrue(d.engine.holdPagesOf(1) <= 3, "staging taken for " + d.engine.holdPagesOf(1) +
                " pages of a 3-page hit");
            final SlotPool host = d.engine.pool(Pool.HOST_KV);
            assertTrue(host.capacity() - host.freeCount() <= 3, "host staging for more pages than present");
        }
    }

    @Test
    void shouldNotStagePagesPastTheRequestsOwn()
    {
        final Driver d = new Driver(base().build(), true);
        final long query = d.arrive(1, 11, 4);
        final int result = d.apply(Inputs.storageHit(d.in.reset(), query, 9, 9));
        assertTrue(result == ResultCode.OK || result < 0, ResultCode.name(result));
        final SlotPool host = d.engine.pool(Pool.HOST_KV);
        assertTrue(host.capacity() - host.freeCount() <= 4, "host staging for more pages than the request has");
    }

    @Test
    void shouldDiscardAFetchThatCameBackShortAndLetTheRequestRecompute()
    {
        // DESIGN read path 2: only a fetch that comes back short for some component discards the whole hit.
        for (int variant = 0; variant < 2; variant++)
        {
            final Driver d = new Driver(base().build(), true);
            final long query = d.arrive(1, 11, 8);
            final long fetch = d.storageHit(query, 8, 8);
            assertTrue(fetch >= 0);
            final boolean kvShort = variant == 0;
            assertEquals(ResultCode.OK, d.apply(Inputs.fetchDone(d.in.reset(), fetch, true, kvShort ? 5 : 8,
                kvShort)));
            assertFalse(d.has(EffectType.HOLD_STAGED), "a short fetch is no hold (" + variant + ")");
            assertEquals(0, d.engine.holdPagesOf(1));
            assertStagingAllFree(d);
            assertEquals(RequestState.WAITING, d.engine.requestState(1));
            pass(d, 64);
            assertEquals(ResultCode.OK, d.admit(1));
            assertEquals(-1, d.admittedLoad(), "recomputes: no load");
        }
    }

    // ------------------------------------------------------------------------------------------- running count

    /** Request 1 admitted (cold) under a running limit of 1; returns the driver. */
    private static Driver oneAdmitted(final boolean staged)
    {
        final Driver d = new Driver(base().build(), true);
        if (staged)
        {
            d.staged(1, 11, 8);
        }
        else
        {
            d.cold(1, 11, 4);
        }
        d.cold(2, 22, 4);
        pass(d, 1);
        assertEquals(ResultCode.OK, d.admit(1));
        d.passEnd();
        pass(d, 1);
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(2), "request 1 still counts as running");
        assertEquals(Reason.RUNNING_LIMIT, d.reasonOf(EffectType.WAITED));
        d.passEnd();
        return d;
    }

    private static void assertSecondAdmitted(final Driver d, final String how)
    {
        pass(d, 1);
        assertEquals(ResultCode.OK, d.admit(2), "after " + how + " request 1 no longer counts as running");
        d.passEnd();
    }

    @Test
    void shouldStopCountingARequestAsRunningHoweverItStops()
    {
        Driver d = oneAdmitted(false);
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        assertSecondAdmitted(d, "finish");

        d = oneAdmitted(false);
        assertEquals(ResultCode.OK, d.abort(1));
        assertSecondAdmitted(d, "abort when admitted");

        d = oneAdmitted(false);
        assertEquals(ResultCode.OK, d.chunk(1, 2));
        assertEquals(RequestState.RUNNING, d.engine.requestState(1));
        assertEquals(ResultCode.OK, d.abort(1));
        assertSecondAdmitted(d, "abort when running");

        d = oneAdmitted(false);
        assertEquals(ResultCode.OK, d.retract(1));
        assertSecondAdmitted(d, "retract");

        d = oneAdmitted(true);
        final long load = d.engine.loadOpOf(1);
        assertTrue(load >= 0);
        assertEquals(ResultCode.OK, d.ack(load, false));
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
        assertSecondAdmitted(d, "a failed load");

        d = oneAdmitted(true);
        assertEquals(ResultCode.OK, d.abort(1));
        assertSecondAdmitted(d, "abort under a launched load");
    }

    @Test
    void shouldNotCountARetractedRequestTwiceWhenReadmitted()
    {
        final Driver d = oneAdmitted(false);
        assertEquals(ResultCode.OK, d.retract(1));
        pass(d, 1);
        assertEquals(ResultCode.OK, d.admit(1), "readmitted alone");
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(2));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        assertSecondAdmitted(d, "the readmitted request's finish");
    }

    // ------------------------------------------------------- the running limit comes before giving up an L3 hit

    /** Request 10 admitted (cold) and running under a limit of 1, so the next Admit meets the running limit. */
    private static Driver oneRunning()
    {
        return oneRunning(EngineConfig.DEFAULT_ADMISSION_RULES);
    }

    private static Driver oneRunning(final int rules)
    {
        final Driver d = new Driver(base().hostKvPages(12).admissionRules(rules).build(), true);
        d.cold(10, 100, 4);
        pass(d, 1);
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        return d;
    }

    private static void assertRefusedAtTheRunningLimitKeepingTheHit(final Driver d, final long request)
    {
        pass(d, 1);
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(request));
        assertEquals(Reason.RUNNING_LIMIT, d.reasonOf(EffectType.WAITED));
        assertFalse(d.has(EffectType.HOLD_DROPPED), "an Admit refused at the running limit (DESIGN's first gate) " +
            "never went ahead, so it gives nothing up");
        d.passEnd();
    }

    @Test
    void shouldKeepAnUnfinishedFetchWhenTheAdmitMeetsTheRunningLimit()
    {
        // DESIGN read path 3-4: best_effort lets an Admit that finds its fetch unfinished GO AHEAD with the device
        // hit only; the running count is the first gate. An Admit that does not go ahead keeps the fetch.
        final Driver d = oneRunning();
        final long query = d.arrive(1, 11, 8);
        final long fetch = d.storageHit(query, 8, 8);
        assertTrue(fetch >= 0);
        assertRefusedAtTheRunningLimitKeepingTheHit(d, 1);
        d.fetchDone(fetch, 8);
        assertTrue(d.has(EffectType.HOLD_STAGED), "the fetch still lands as the request's hold");
        assertEquals(RequestState.STAGED, d.engine.requestState(1));
        assertEquals(ResultCode.OK, d.finish(10, 4, 0, 0, 0));
        pass(d, 1);
        assertEquals(ResultCode.OK, d.admit(1));
        assertTrue(d.admittedLoad() >= 0, "the L3 hit is loaded");
    }

    /** Journals written under rules 3 replay as written: there the refused Admit had abandoned the fetch. */
    @Test
    void shouldAbandonTheUnfinishedFetchAtTheRunningLimitUnderRulesThree()
    {
        final Driver d = oneRunning(3);
        final long query = d.arrive(1, 11, 8);
        assertTrue(d.storageHit(query, 8, 8) >= 0);
        pass(d, 1);
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.RUNNING_LIMIT, d.reasonOf(EffectType.WAITED));
        assertEquals(Reason.FETCH_ABANDONED, d.reasonOf(EffectType.HOLD_DROPPED));
    }

    @Test
    void shouldKeepAParkedHitWhenTheAdmitMeetsTheRunningLimit()
    {
        // DESIGN read path 2: a hit short of staging waits in the FIFO; it is not discarded.
        final Driver d = oneRunning();
        final long q1 = d.arrive(1, 11, 8);
        final long f1 = d.storageHit(q1, 8, 8);
        final long q2 = d.arrive(2, 22, 8);
        assertEquals(-1, d.storageHit(q2, 8, 8));
        assertEquals(1, d.engine.parkedHits());
        assertRefusedAtTheRunningLimitKeepingTheHit(d, 2);
        assertEquals(1, d.engine.parkedHits(), "still parked");
        d.fetchDone(f1, 8);
        assertEquals(ResultCode.OK, d.abort(1));
        assertTrue(d.opId(EffectType.OP_QUEUED, OpKind.FETCH) >= 0, "the parked hit is fetched once staging frees");
    }

    @Test
    void shouldKeepAnUnansweredQueryWhenTheAdmitMeetsTheRunningLimit()
    {
        final Driver d = oneRunning();
        final long query = d.arrive(1, 11, 8);
        assertTrue(query >= 0);
        for (int i = 0; i < 8; i++)
        {
            d.tick(0);
        }
        assertRefusedAtTheRunningLimitKeepingTheHit(d, 1);
        final long fetch = d.storageHit(query, 8, 8);
        assertTrue(fetch >= 0, "the L3 answer still starts the fetch");
    }

    // --------------------------------------------------------- abort and retract at every state, then quiesce

    /** The states request 1 is put in before it is aborted or retracted. */
    private enum At
    {
        QUERY_UNANSWERED, HIT_PARKED, FETCH_IN_FLIGHT, STAGED, ADMITTED_COLD, LOAD_QUEUED, LOAD_LAUNCHED, LOAD_ACKED,
        COPY_QUEUED, COPY_LAUNCHED, RUNNING_COLD, RUNNING_LOADED
    }

    private static Driver put(final At at)
    {
        final Driver d = new Driver(base().hostKvPages(12).build(), true);
        switch (at)
        {
            case QUERY_UNANSWERED:
                assertTrue(d.arrive(1, 11, 8) >= 0);
                break;
            case HIT_PARKED:
                d.storageHit(d.arrive(9, 99, 8), 8, 8);
                assertEquals(-1, d.storageHit(d.arrive(1, 11, 8), 8, 8));
                assertEquals(1, d.engine.parkedHits());
                break;
            case FETCH_IN_FLIGHT:
                assertTrue(d.storageHit(d.arrive(1, 11, 8), 8, 8) >= 0);
                break;
            case STAGED:
                d.staged(1, 11, 8);
                break;
            case ADMITTED_COLD:
            case RUNNING_COLD:
                d.cold(1, 11, 8);
                pass(d, 64);
                assertEquals(ResultCode.OK, d.admit(1));
                d.passEnd();
                if (at == At.RUNNING_COLD)
                {
                    assertEquals(ResultCode.OK, d.chunk(1, 4));
                }
                break;
            case LOAD_QUEUED:
            case LOAD_LAUNCHED:
            case LOAD_ACKED:
            case RUNNING_LOADED:
                d.staged(1, 11, 8);
                pass(d, 64);
                assertEquals(ResultCode.OK, d.admit(1));
                final long load = d.admittedLoad();
                assertTrue(load >= 0);
                if (at != At.LOAD_QUEUED)
                {
                    d.passEnd();
                }
                if (at == At.LOAD_ACKED || at == At.RUNNING_LOADED)
                {
                    assertEquals(ResultCode.OK, d.ack(load, true));
                }
                if (at == At.RUNNING_LOADED)
                {
                    assertEquals(ResultCode.OK, d.chunk(1, 8));
                }
                break;
            case COPY_QUEUED:
            case COPY_LAUNCHED:
                d.cold(5, 11, 8);
                pass(d, 64);
                assertEquals(ResultCode.OK, d.admit(5));
                d.passEnd();
                assertEquals(ResultCode.OK, d.finish(5, 8, 0, 0, 0));
                d.drainWrites();
                final long query = d.arriveSharing(1, 11, 8, 12, 12);
                if (query >= 0)
                {
                    d.storageHit(query, 0, 0);
                }
                pass(d, 64);
                assertEquals(ResultCode.OK, d.admit(1));
                assertTrue(d.engine.cowOpOf(1) >= 0, "a copy-on-write from the checkpoint");
                if (at == At.COPY_LAUNCHED)
                {
                    d.passEnd();
                }
                break;
            default:
                throw new AssertionError(at);
        }
        return d;
    }

    /** Close the pass, answer every op in flight, abort every live request, flush the tree: all must be free. */
    private static void quiesceAndAssertEverythingFree(final Driver d, final boolean acksOk, final String where)
    {
        d.apply(Inputs.passEnd(d.in.reset()));
        final OpTable ops = d.engine.ops();
        for (int guard = 0; guard < 256; guard++)
        {
            int o = -1;
            for (int i = 0; i < d.engine.config().maxOps() && o < 0; i++)
            {
                if (ops.kind(i) != null && ops.state(i) == OpTable.LAUNCHED)
                {
                    o = i;
                }
            }
            if (o < 0)
            {
                break;
            }
            final long op = ops.id(o);
            final int result;
            switch (ops.kind(o))
            {
                case QUERY:
                    result = d.apply(Inputs.storageHit(d.in.reset(), op, 0, 0));
                    break;
                case FETCH:
                    result = d.apply(Inputs.fetchDone(d.in.reset(), op, acksOk, acksOk ? ops.moveCount(o) : 0,
                        acksOk));
                    break;
                default:
                    result = d.ack(op, acksOk);
                    break;
            }
            assertEquals(ResultCode.OK, result, where + ": answer of op " + op + " " + ops.kind(o));
        }
        assertEquals(0, d.engine.inFlightOps(), where + ": ops left in flight");
        for (long r = 0; r < 16; r++)
        {
            if (d.engine.requestState(r) != null)
            {
                assertEquals(ResultCode.OK, d.abort(r), where + ": abort of " + r);
            }
        }
        assertEquals(0, d.engine.liveRequests(), where);
        d.tick(Long.MAX_VALUE);
        assertEquals(1, d.engine.tree().nodeCount(), where + ": nodes left after a flush (a lock leaked)");
        for (final Pool p : new Pool[] {Pool.DEVICE_KV, Pool.DEVICE_MAMBA, Pool.HOST_KV, Pool.HOST_MAMBA})
        {
            final SlotPool pool = d.engine.pool(p);
            assertEquals(pool.capacity(), pool.freeCount(), where + ": " + p + " not all free");
        }
        assertEquals(0, d.engine.parkedHits(), where);
    }

    @Test
    void shouldLeaveNothingBehindWhenAbortedAtAnyState()
    {
        for (final At at : At.values())
        {
            for (final boolean acksOk : new boolean[] {true, false})
            {
                final Driver d = put(at);
                assertEquals(ResultCode.OK, d.abort(1), at.name());
                assertEquals(null, d.engine.requestState(1), at + ": the request is gone");
                quiesceAndAssertEverythingFree(d, acksOk, "abort at " + at + (acksOk ? "" : ", acks failed"));
            }
        }
    }

    @Test
    void shouldRetractOnlyAnAdmittedRequestAndLeaveNothingBehind()
    {
        for (final At at : At.values())
        {
            for (final boolean acksOk : new boolean[] {true, false})
            {
                final Driver d = put(at);
                final RequestState before = d.engine.requestState(1);
                final long hash = d.engine.stateHash();
                final int result = d.retract(1);
                if (before == RequestState.ADMITTED)
                {
                    assertEquals(ResultCode.OK, result, at.name());
                    assertEquals(RequestState.WAITING, d.engine.requestState(1), at.name());
                }
                else
                {
                    assertEquals(ResultCode.REQUEST_STATE, result, at.name());
                    assertEquals(0, d.last.size(), at + ": a refused retract records nothing");
                    assertEquals(hash, d.engine.stateHash(), at + ": a refused retract changes nothing");
                }
                quiesceAndAssertEverythingFree(d, acksOk, "retract at " + at + (acksOk ? "" : ", acks failed"));
            }
        }
    }

    // ------------------------------------------------------------------ a fully cached prompt still computes

    /** Request 10 computes and caches 4 full pages with the checkpoint at their end (no tail). */
    private static Driver fourPagesCached()
    {
        return fourPagesCached(EngineConfig.DEFAULT_ADMISSION_RULES);
    }

    private static Driver fourPagesCached(final int rules)
    {
        final Driver d = new Driver(base().admissionRules(rules).build(), true);
        d.cold(10, 11, 4);
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(10, 4, 0, 0, 0));
        d.drainWrites();
        return d;
    }

    /** Admission rules 5 (opt-in): the last page of a prompt without a tail is computed. */
    @Test
    void shouldComputeTheLastPageOfAPromptTheDeviceHoldsWhole()
    {
        // The server samples the first output token from the last prompt token's logits, so it must run that token,
        // and a recurrent state that already holds it cannot take it again: SGLang matches at most input_len - 1
        // tokens ("need at least one token to compute logits"); DESIGN: where silent, what a user of SGLang
        // expects. The state at the end of the prompt is no resume point for the same prompt.
        final Driver d = fourPagesCached(5);
        final long query = d.arrive(1, 11, 4);
        if (query >= 0)
        {
            d.storageHit(query, 0, 0);
        }
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(1));
        assertTrue(d.admittedPrefix() < 4, "prefix " + d.admittedPrefix() + " of a 4-page prompt: nothing computed");
        assertEquals(-1, d.engine.cowOpOf(1), "no copy of the state past the last token");
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
    }

    @Test
    void shouldReuseEveryFullPageOfAPromptEndingInAPartialPage()
    {
        final Driver d = fourPagesCached();
        assertEquals(-1, d.arrive(1, 11, 4, 3, 8, 0), "the device holds every full page: nothing to ask L3");
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(4, d.admittedPrefix(), "the tail is computed on top of the checkpoint at the fourth page");
        assertTrue(d.engine.cowOpOf(1) >= 0);
    }

    /** Admission rules 5 (opt-in): nor is it asked of L3. */
    @Test
    void shouldNeitherAskNorStageL3ForTheLastPageOfAPromptWithoutATail()
    {
        final Driver d = new Driver(base().admissionRules(5).build(), true);
        final long query = d.arrive(1, 11, 4);
        assertTrue(query >= 0);
        assertEquals(3, queuedPages(d, OpKind.QUERY), "the query asks for the first 3 pages only");
        final long fetch = d.storageHit(query, 3, 3);
        d.fetchDone(fetch, 3);
        assertEquals(3, d.engine.holdPagesOf(1));
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(3, d.admittedPrefix(), "the hold up to the third page; the fourth is computed");
        assertTrue(d.admittedLoad() >= 0);
    }

    // ------------------------------------------------------------------ a request id reused after an abort

    @Test
    void shouldNotHandTheOldRequestsCompletionsToANewRequestWithTheSameId()
    {
        // I9/I19: an op ends for the request that queued it; a new request that reuses the id after an abort gets
        // nothing from the old one's query, fetch or load.
        final Driver d = new Driver(base().build(), true);
        final long oldQuery = d.arrive(1, 11, 8);
        assertEquals(ResultCode.OK, d.abort(1));
        final long newQuery = d.arrive(1, 22, 8);
        assertEquals(ResultCode.OK, d.apply(Inputs.storageHit(d.in.reset(), oldQuery, 8, 8)));
        assertEquals(-1, d.opId(EffectType.OP_QUEUED, OpKind.FETCH), "the old query's hit is not the new request's");
        final long newFetch = d.storageHit(newQuery, 8, 8);
        assertTrue(newFetch >= 0);
        assertEquals(ResultCode.OK, d.abort(1));
        d.cold(1, 33, 4);
        d.fetchDone(newFetch, 8);
        assertFalse(d.has(EffectType.HOLD_STAGED), "the aborted request's fetch is no hold of the new one");
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
        assertStagingAllFree(d);

        assertEquals(ResultCode.OK, d.abort(1));
        d.staged(1, 44, 8);
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(1));
        final long oldLoad = d.admittedLoad();
        d.passEnd();
        assertEquals(ResultCode.OK, d.abort(1));
        d.cold(1, 55, 4);
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(1));
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(oldLoad, false));
        assertFalse(d.has(EffectType.REJECTED), "the old load's failure is not the new request's");
        assertEquals(RequestState.ADMITTED, d.engine.requestState(1));
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
    }

    // ------------------------------------------------------------------------------------------------ Mamba gate

    @Test
    void shouldReserveFourSlotsForAStagedLoadWithTwoTrackingSlotsAndDeferWithThree()
    {
        // DESIGN read path 4: S, the tracking slots (trackingSlots = 2) and N.
        final EngineConfig config = base().trackingSlots(2).deviceMambaSlots(6).build();
        final Driver d = new Driver(config, true);
        d.cold(10, 100, 4);
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        assertEquals(3, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
        d.staged(1, 11, 8);
        pass(d, 64);
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.MAMBA_SLOTS, d.reasonOf(EffectType.DEFERRED));
        assertEquals(3, d.engine.pool(Pool.DEVICE_MAMBA).freeCount(), "nothing taken");
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(10, 1, 0, 0, 0));
        d.drainWrites();
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(1));
        assertTrue(d.admittedLoad() >= 0);
        assertEquals(4, EffectLookup.firstValue1(d.last, EffectType.RESERVED));
    }

    @Test
    void shouldDeferAStagedLoadShortOfDevicePagesAndDropItsHoldAtTheLimit()
    {
        // DESIGN read path 4: a staged request whose destinations cannot be allocated is deferred (count + 1);
        // after maxStagedDefers the hold is dropped, its staging freed, and the request recomputes (then it only
        // waits: no hold, no count).
        final Driver d = new Driver(base().deviceKvPages(12).maxStagedDefers(3).build(), true);
        d.cold(10, 100, 8);
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        d.staged(1, 11, 8);
        for (int count = 1; count <= 3; count++)
        {
            pass(d, 64);
            assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
            assertEquals(Reason.ALLOCATION, d.reasonOf(EffectType.DEFERRED));
            assertEquals(count, EffectLookup.firstValue1(d.last, EffectType.DEFERRED), "the defer count");
            assertFalse(d.has(EffectType.RESERVED), "nothing taken");
            assertEquals(count == 3 ? Reason.DEFER_LIMIT : null, d.reasonOf(EffectType.HOLD_DROPPED));
            d.passEnd();
        }
        assertStagingAllFree(d);
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
        assertEquals(0, d.engine.deferCountOf(1));
        pass(d, 64);
        assertEquals(ResultCode.NOT_ADMITTED, d.admit(1));
        assertEquals(Reason.ALLOCATION, d.reasonOf(EffectType.WAITED), "without a hold it waits");
        assertFalse(d.has(EffectType.DEFERRED));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(10, 8, 0, 0, 0));
        d.drainWrites();
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(-1, d.admittedLoad(), "recomputes");
    }

    // ------------------------------------------------------------------------------------ retract after the ack

    @Test
    void shouldKeepWhatAnAckedLoadBroughtWhenTheRequestIsThenRetracted()
    {
        // The load was acked: its pages and state are in the tree (DESIGN 7). A retract only undoes the request's
        // own admission; readmitted, the request matches the loaded prefix on the device and loads nothing.
        final Driver d = new Driver(base().build(), true);
        d.staged(1, 11, 8);
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(1));
        final long load = d.admittedLoad();
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(load, true));
        assertEquals(RequestState.ADMITTED, d.engine.requestState(1));
        assertEquals(ResultCode.OK, d.retract(1));
        assertFalse(d.has(EffectType.NODE_DELETED), "the loaded nodes stay");
        assertEquals(RequestState.WAITING, d.engine.requestState(1));
        assertEquals(0, d.engine.pool(Pool.DEVICE_MAMBA).capacity() - d.engine.pool(Pool.DEVICE_MAMBA).freeCount()
            - 1, "only the loaded node's state is held");
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(-1, d.admittedLoad(), "nothing to load");
        assertEquals(8, d.admittedPrefix(), "the whole loaded prefix matches");
    }

    // --------------------------------------------------------------------------------------- parked-hit FIFO

    @Test
    void shouldKeepAParkedHitAheadOfANewHitThatWouldFit()
    {
        // DESIGN read path 2 (a FIFO, retried as staging frees) and corrections.md row 30 (parked hits keep FIFO
        // priority over new hits): a new hit that would fit must not overtake the parked head.
        final Driver d = new Driver(base().hostKvPages(12).build(), true);
        final long q1 = d.arrive(1, 11, 8);
        final long f1 = d.storageHit(q1, 8, 8);
        assertTrue(f1 >= 0);
        final long q2 = d.arrive(2, 22, 8);
        assertEquals(-1, d.storageHit(q2, 8, 8), "no room for a second 8-page hit");
        assertTrue(d.has(EffectType.HIT_PARKED));
        final long q3 = d.arrive(3, 33, 3);
        final int before = d.engine.parkedHits();
        final long f3 = d.storageHit(q3, 3, 3);
        assertEquals(-1, f3, "a 3-page hit that fits the 4 free pages waits behind the parked 8-page hit");
        assertEquals(before + 1, d.engine.parkedHits());
    }

    // ----------------------------------------------------------------------------------------- Mamba eviction

    @Test
    void shouldDeleteALeafWhoseStateIsEvictedForMambaSlots()
    {
        // corrections.md row 9: a Mamba-slot eviction whose LRU victim is a leaf deletes the whole leaf (its KV
        // pages too); only internal checkpoints are tombstoned (domain §2.2).
        final Driver d = new Driver(base().deviceMambaSlots(4).build(), true);
        d.cold(10, 100, 4);
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(10));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(10, 4, 0, 0, 0));
        d.drainWrites();
        d.cold(11, 101, 4);
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(11));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(11, 4, 0, 0, 0));
        d.drainWrites();
        assertEquals(2, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
        final int usedKv = d.engine.pool(Pool.DEVICE_KV).capacity() - d.engine.pool(Pool.DEVICE_KV).freeCount();
        assertEquals(8, usedKv);
        d.cold(12, 102, 4);
        d.cold(13, 103, 4);
        pass(d, 64);
        assertEquals(ResultCode.OK, d.admit(12));
        assertEquals(ResultCode.OK, d.admit(13), "the two leaves' states are evictable");
        int mambaEvicted = 0;
        int fullEvicted = 0;
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == EffectType.EVICTED)
            {
                if (d.last.component(i) == Component.MAMBA)
                {
                    mambaEvicted++;
                }
                else
                {
                    fullEvicted++;
                }
            }
        }
        assertTrue(mambaEvicted + fullEvicted >= 1, "something was evicted");
        assertTrue(d.has(EffectType.NODE_DELETED), "the leaf whose state went is deleted, not left stateless");
    }
}
