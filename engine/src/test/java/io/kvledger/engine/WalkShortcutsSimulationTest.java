package io.kvledger.engine;

import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.SimulatedPort;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.codec.PrefetchPolicy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The apply path's walk shortcuts (the match memo from ARRIVE to ADMIT, the insert that starts at the request's
 * locked node, the admitted prefix page ids taken from an earlier walk) checked against the full walks they replace
 * at every use, over seeded simulations: random serving under pressure (hybrid and attention only, every prefetch
 * policy), the other workloads, and every fault switch. A difference throws from inside the apply; the counts show
 * each shortcut was taken many times.
 */
class WalkShortcutsSimulationTest
{
    private long memoChecks;
    private long lockedPathChecks;
    private long pathIdChecks;

    private static EngineConfig.Builder pressured(final long seed, final boolean hybrid)
    {
        return EngineConfig.builder().pageSize(8).hybrid(hybrid).deviceKvPages(384).deviceMambaSlots(20)
            .hostKvPages(192).hostMambaSlots(6).maxRequests(512).maxRequestPages(48).maxOps(512)
            .prefetchThresholdPages(2).maxStagedDefers(8).prefetchPolicy(PrefetchPolicy.values()[(int)(seed % 3)])
            .seed(seed);
    }

    private static WorkloadOptions workload(final WorkloadKind kind, final long seed, final int requests)
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.kind = kind;
        o.requests = requests;
        o.promptTokens = 256;
        o.extendTokens = 96;
        o.seed = seed;
        o.retractRate = 0.3;
        o.abortRate = 0.05;
        o.failureRate = 0.03;
        o.admitsPerPass = 12;
        o.chunkPages = 8;
        return o;
    }

    private void run(final EngineConfig config, final WorkloadOptions o, final boolean faulty)
    {
        final CacheStateMachine engine = new CacheStateMachine(config);
        engine.crossCheckWalks(true);
        final SimulatedPort port = new SimulatedPort(engine, DocumentSink.NONE, o.seed, o.failureRate, null)
            .verifyEachInput(!faulty);
        try
        {
            new ServingLoop(port, config, Workload.build(o)).run();
        }
        catch (final RuntimeException ex)
        {
            // A fault switch breaks the engine on purpose (an engine bug, a stalled loop) at the same input with or
            // without the shortcuts; only a cross-check failure is this test's failure.
            if (!faulty || String.valueOf(ex.getMessage()).contains(ApplyState.CROSS_CHECK))
            {
                throw ex;
            }
        }
        memoChecks += engine.walkChecks(0);
        lockedPathChecks += engine.walkChecks(1);
        pathIdChecks += engine.walkChecks(2);
    }

    /** Each shortcut must have been compared with its full walk at least so many times. */
    private void assertChecked(final long memo, final long lockedPath, final long pathIds)
    {
        assertTrue(memoChecks > memo, "memo hits checked: " + memoChecks);
        assertTrue(lockedPathChecks > lockedPath, "inserts from a locked node checked: " + lockedPathChecks);
        assertTrue(pathIdChecks > pathIds, "admissions filled from the match's page ids: " + pathIdChecks);
    }

    @Test
    void shouldMatchTheFullWalksUnderRandomServing()
    {
        for (final long seed : new long[]{1, 2, 3, 7, 42, 1825793762L})
        {
            for (final boolean hybrid : new boolean[]{true, false})
            {
                run(pressured(seed, hybrid).build(), workload(WorkloadKind.RANDOM, seed, 400), false);
            }
        }
        assertChecked(1_000, 1_000, 1_000);
    }

    @Test
    void shouldMatchTheFullWalksOnEveryWorkload()
    {
        for (final WorkloadKind kind : WorkloadKind.values())
        {
            for (final boolean hybrid : new boolean[]{true, false})
            {
                final EngineConfig config = EngineConfig.builder().pageSize(16).hybrid(hybrid).deviceKvPages(512)
                    .deviceMambaSlots(48).hostKvPages(96).hostMambaSlots(6).maxRequests(256).maxRequestPages(32)
                    .maxOps(256).prefetchThresholdPages(1).seed(3).build();
                final WorkloadOptions o = workload(kind, 3, 200);
                o.promptTokens = 192;
                o.extendTokens = 64;
                run(config, o, false);
            }
        }
        assertChecked(500, 500, 200);
    }

    @Test
    void shouldMatchTheFullWalksWithEveryFaultSwitch()
    {
        for (final FaultSwitch fault : FaultSwitch.values())
        {
            for (final long seed : new long[]{5, 11})
            {
                // The faults break invariants on purpose: no verification after each input, only the cross-checks.
                run(pressured(seed, true).fault(fault).build(), workload(WorkloadKind.RANDOM, seed, 300), true);
            }
        }
        assertChecked(1_000, 1_000, 1_000);
    }
}
