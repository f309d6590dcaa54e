package io.kvledger.engine.sim;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Reason;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WakeGateTest
{
    @Test
    void shouldHoldEveryoneBackAfterARunningLimitUntilARelease()
    {
        final WakeGate gate = new WakeGate();
        gate.waited(1, Reason.RUNNING_LIMIT, 100, 5);

        assertFalse(gate.mayOffer(1, 200, 9), "the running limit holds whatever completes");
        assertFalse(gate.mayOffer(2, 200, 9), "nobody can pass the running limit");
        gate.progressed();
        assertFalse(gate.mayOffer(2, 300, 9));
        gate.released();
        assertTrue(gate.mayOffer(1, 300, 9));
        assertTrue(gate.mayOffer(2, 300, 9));
        assertEquals(3, gate.skipped());
    }

    @Test
    void shouldOfferAPrefetchWaitAgainOnlyAfterACompletion()
    {
        final WakeGate gate = new WakeGate();
        gate.waited(7, Reason.PREFETCH_PENDING, 1_000, 40);

        assertFalse(gate.mayOffer(7, 2_000, 40));
        gate.released();
        assertFalse(gate.mayOffer(7, 2_000, 40), "a release does not answer a fetch");
        assertTrue(gate.mayOffer(7, 2_000, 41));
    }

    @Test
    void shouldOfferAnAllocationWaitAgainAfterProgressOrACompletion()
    {
        final WakeGate gate = new WakeGate();
        gate.waited(3, Reason.ALLOCATION, 0, 10);

        assertFalse(gate.mayOffer(3, 10, 10));
        gate.progressed();
        assertTrue(gate.mayOffer(3, 10, 10));
        gate.waited(3, Reason.ALLOCATION, 20, 10);
        assertTrue(gate.mayOffer(3, 20, 11));
    }

    @Test
    void shouldOfferBudgetWaitsUnknownReasonsAndUnknownCompletionsEveryPass()
    {
        final WakeGate gate = new WakeGate();
        gate.waited(1, Reason.TOKEN_BUDGET, 0, 0);
        gate.waited(2, null, 0, 0);
        gate.waited(3, Reason.PREFETCH_PENDING, 0, -1);

        assertTrue(gate.mayOffer(1, 0, 0));
        assertTrue(gate.mayOffer(2, 0, 0));
        assertTrue(gate.mayOffer(3, 0, -1), "a port that does not count completions gives no reason to hold back");
        assertTrue(gate.mayOffer(4, 0, 0), "a request that never waited");
    }

    @Test
    void shouldOfferEveryWaitAgainAfterTheRecheckDelay()
    {
        final WakeGate gate = new WakeGate();
        gate.waited(1, Reason.RUNNING_LIMIT, 0, 0);
        gate.waited(2, Reason.PREFETCH_PENDING, 0, 0);

        assertFalse(gate.mayOffer(2, WakeGate.RECHECK_NS - 1, 0));
        assertTrue(gate.mayOffer(2, WakeGate.RECHECK_NS, 0), "time alone ends the query grace and prefetch timeout");
        assertTrue(gate.mayOffer(1, WakeGate.RECHECK_NS, 0));
        gate.forget(2);
        gate.waited(1, Reason.RUNNING_LIMIT, WakeGate.RECHECK_NS, 0);
        assertFalse(gate.mayOffer(2, WakeGate.RECHECK_NS + 1, 0), "a fresh running-limit answer holds again");
    }

    @Test
    void shouldServeTheSameRequestsWithFewWaitedDocuments()
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.requests = 48;
        o.promptTokens = 512;
        o.extendTokens = 64;
        o.maxRunning = 4;
        final CacheStateMachine engine = new CacheStateMachine(SimulationTest.smallConfig());
        final long[] counts = new long[2];
        final SimulatedPort port = new SimulatedPort(engine, (in, result, effects) ->
        {
            counts[0]++;
            for (int i = 0; i < effects.size(); i++)
            {
                if (EffectType.WAITED == effects.type(i) && InputType.ADMIT == in.type())
                {
                    counts[1]++;
                }
            }
        }, 1, 0, null);
        final RunSummary summary = new ServingLoop(port, engine.config(), Workload.build(o)).run();

        assertEquals(96, summary.finished);
        assertEquals(48, engine.counters().loads, "round two loads every prefix back from L3");
        // Offering every waiting request on every pass gave 9,960 WAITED documents of 11,721 here.
        assertTrue(counts[1] * 4 < counts[0] && counts[1] < 1_000,
            "WAITED documents " + counts[1] + " of " + counts[0] + ": waiting requests are offered only on a change");
    }

    @Test
    void shouldStopOfferingMemoryWaitersInAPassOnceOneOfThemWaitsAgain()
    {
        final WakeGate gate = new WakeGate();
        gate.waited(1, Reason.MAMBA_SLOTS, 0, 10);
        gate.waited(2, Reason.MAMBA_SLOTS, 0, 10);
        gate.waited(3, Reason.ALLOCATION, 0, 10);
        gate.waited(5, Reason.PREFETCH_PENDING, 0, 10);
        gate.released();

        gate.passBegun();
        assertTrue(gate.mayOffer(1, 10, 11), "the first waiter is offered after a change");
        gate.waited(1, Reason.MAMBA_SLOTS, 10, 11);
        assertFalse(gate.mayOffer(2, 10, 11), "behind a Mamba wait in the same pass, the next waiter is not offered");
        assertFalse(gate.mayOffer(3, 10, 11), "nor one waiting for device pages: memory refused the pass");
        assertTrue(gate.mayOffer(5, 10, 11), "other reasons are not held back");
        assertTrue(gate.mayOffer(4, 10, 11), "nor a request that never waited");
        gate.passEnded();

        assertTrue(gate.wouldOffer(2, 10, 10), "between passes the change still counts for the one not offered");
        gate.passBegun();
        assertTrue(gate.mayOffer(2, 10, 10));
    }

    @Test
    void shouldOfferEveryMemoryWaiterAtEveryChangeWhenAskedTo()
    {
        final WakeGate gate = new WakeGate(false);
        gate.waited(1, Reason.MAMBA_SLOTS, 0, 10);
        gate.waited(2, Reason.MAMBA_SLOTS, 0, 10);

        gate.passBegun();
        assertTrue(gate.mayOffer(1, 10, 11));
        gate.waited(1, Reason.MAMBA_SLOTS, 10, 11);
        assertTrue(gate.mayOffer(2, 10, 11), "the old behaviour offers each waiter after a change");
    }
}
