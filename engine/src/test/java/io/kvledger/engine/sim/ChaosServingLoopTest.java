package io.kvledger.engine.sim;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The serving loop's chaos hook (issue 9, section 5): with seeded abort and retract rates it aborts and retracts
 * requests at every point of their life (waiting or staged, admitted with a queued load or copy, with a launched
 * one, ready, running), the engine verifies after every input, nothing is corrupted, and a run without chaos is
 * the same run as before.
 */
class ChaosServingLoopTest
{
    private static EngineConfig config()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(96).deviceMambaSlots(24).hostKvPages(128)
            .hostMambaSlots(16).maxRequests(16).maxRequestPages(16).maxOps(256)
            .prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE).build();
    }

    private static WorkloadOptions workload(final boolean chaos)
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.kind = WorkloadKind.RANDOM;
        o.requests = 120;
        o.promptTokens = 40;
        o.extendTokens = 8;
        o.prefixes = 2;
        o.seed = 11;
        o.chunkPages = 2;
        o.arrivalsPerStep = 0;
        if (chaos)
        {
            o.abortWaitingRate = 0.02;
            o.abortQueuedRate = 0.15;
            o.abortLaunchedRate = 0.3;
            o.abortRunningRate = 0.05;
            o.retractQueuedRate = 0.15;
            o.retractLaunchedRate = 0.3;
            o.retractReadyRate = 0.1;
            o.tickRate = 0.2;
            o.tickPages = 4;
        }
        return o;
    }

    @Test
    void shouldAbortAndRetractAtEveryPointOfARequestsLife()
    {
        final Set<String> seen = new HashSet<>();
        final EngineConfig config = config();
        final CacheStateMachine engine = new CacheStateMachine(config);
        final SimulatedPort port = new SimulatedPort(engine, (in, result, effects) ->
        {
            if (in.type() != InputType.ABORT && in.type() != InputType.RETRACT)
            {
                return;
            }
            for (int i = 0; i < effects.size(); i++)
            {
                final EffectType type = effects.type(i);
                if (type == EffectType.REQUEST_STATE)
                {
                    seen.add(in.type() + " " + effects.requestFrom(i));
                }
                else if (type == EffectType.OP_CANCELLED)
                {
                    seen.add(in.type() + " queued op");
                }
                else if (type == EffectType.SLOT_TRANSITION && effects.toState(i) == SlotState.PENDING_FREE)
                {
                    seen.add(in.type() + " launched op");
                }
            }
        }, 11, 0.02, null).verifyEachInput(true).burstNs(1_000_000L);
        final ServingLoop loop = new ServingLoop(port, config, Workload.build(workload(true)));

        final RunSummary summary = loop.run();

        assertEquals(0, loop.mismatches().size(), () -> loop.mismatches().toString());
        assertEquals(0, engine.liveRequests());
        assertTrue(summary.aborted > 0 && summary.retracts > 0, summary.aborted + " / " + summary.retracts);
        for (final String point : new String[]{
            "ABORT " + RequestState.WAITING, "ABORT " + RequestState.ADMITTED, "ABORT " + RequestState.RUNNING,
            "ABORT queued op", "ABORT launched op", "RETRACT " + RequestState.ADMITTED, "RETRACT queued op",
            "RETRACT launched op"})
        {
            assertTrue(seen.contains(point), point + " never happened: " + seen);
        }
    }

    @Test
    void shouldDrawNothingWithoutChaos()
    {
        final long[] hashes = new long[2];
        for (int run = 0; run < 2; run++)
        {
            final EngineConfig config = config();
            final CacheStateMachine engine = new CacheStateMachine(config);
            final WorkloadOptions o = workload(false);
            if (run == 1)
            {
                o.maxIdleSteps = 19_999;
            }
            final SimulatedPort port = new SimulatedPort(engine, (in, result, effects) -> { }, 11, 0, null);
            new ServingLoop(port, config, Workload.build(o)).run();
            hashes[run] = engine.stateHash() ^ engine.sequence();
        }
        assertEquals(hashes[0], hashes[1]);
    }
}
