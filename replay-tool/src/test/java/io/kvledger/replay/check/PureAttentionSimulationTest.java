package io.kvledger.replay.check;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.sim.RunSummary;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.SimulatedPort;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.replay.report.CheckReport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The pure-attention configuration (no Mamba pools: DESIGN's "a pure-attention configuration drops the Mamba
 * parts"), which the explorer never picks, served under pressure with retracts, aborts and failed ops: the engine
 * verifies after every input, the checker finds every document clean, and the run ends quiescent.
 */
class PureAttentionSimulationTest
{
    @ParameterizedTest
    @ValueSource(longs = {1, 7, 42, 1825793762L})
    void shouldServeAPureAttentionModelCleanly(final long seed)
    {
        final EngineConfig config = EngineConfig.builder().hybrid(false).pageSize(8).deviceKvPages(384)
            .hostKvPages(192).maxRequests(512).maxRequestPages(48).maxOps(512).prefetchThresholdPages(2)
            .maxStagedDefers(8).prefetchPolicy(PrefetchPolicy.values()[(int)(seed % 3)]).seed(seed).build();
        final CacheStateMachine engine = new CacheStateMachine(config);
        final InvariantChecker checker = new InvariantChecker();
        checker.onHeader(config.toHeader(new JournalHeader()), new JournalPosition());
        final WorkloadOptions o = new WorkloadOptions();
        o.kind = WorkloadKind.RANDOM;
        o.requests = 600;
        o.promptTokens = 256;
        o.extendTokens = 96;
        o.seed = seed;
        o.retractRate = 0.5;
        o.abortRate = 0.05;
        o.failureRate = 0.03;
        o.admitsPerPass = 12;
        o.chunkPages = 8;
        final SimulatedPort port = new SimulatedPort(engine, checker::check, seed, o.failureRate, null)
            .verifyEachInput(true);
        final ServingLoop loop = new ServingLoop(port, engine.config(), Workload.build(o));
        final RunSummary summary = loop.run();
        if (!checker.clean())
        {
            fail("seed " + seed + ":\n" + CheckReport.of(checker).toText());
        }
        assertEquals(0, loop.mismatches().size(), () -> "seed " + seed + " " + loop.mismatches());
        assertEquals(0, engine.liveRequests(), "seed " + seed);
        assertEquals(0, engine.inFlightOps(), "seed " + seed);
        assertTrue(summary.finished > 0, "seed " + seed);
        assertTrue(engine.counters().fetches > 0, "seed " + seed + " must fetch from L3");
    }
}
