package io.kvledger.engine.sim;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulationTest
{
    static EngineConfig smallConfig()
    {
        return EngineConfig.builder().pageSize(16).deviceKvPages(512).deviceMambaSlots(64).hostKvPages(2048)
            .hostMambaSlots(128).prefetchPolicy(io.kvledger.journal.codec.PrefetchPolicy.WAIT_COMPLETE)
            .maxRequests(256).maxRequestPages(64).maxOps(512).build();
    }

    @Test
    void shouldServePrBenchFromL3InSecondRound()
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.requests = 24;
        o.promptTokens = 512;
        o.extendTokens = 64;
        final CacheStateMachine engine = new CacheStateMachine(smallConfig());
        final DebugSink debug = new DebugSink(8);
        final SimulatedPort port = new SimulatedPort(engine, debug, 1, 0, null).verifyEachInput(true);
        final ServingLoop loop = new ServingLoop(port, engine.config(), Workload.build(o));
        final RunSummary summary;
        try
        {
            summary = loop.run();
        }
        catch (final IllegalStateException ex)
        {
            throw new AssertionError(ex.getMessage() + "\n" + debug.dump(), ex);
        }
        assertEquals(48, summary.finished, "finished");
        assertEquals(0, loop.mismatches().size(), () -> "mismatches " + loop.mismatches());
        final io.kvledger.engine.EngineCounters c = engine.counters();
        final String counters = "queries=" + c.queries + " hitPages=" + c.hitPagesReported + " fetches=" + c.fetches +
            " staged=" + c.holdsStaged + " drops=" + c.drops + " defers=" + c.defers + " waits=" + c.waits +
            " backups=" + c.backups + " skipped=" + c.backupsSkipped + " stored=" + c.storedPages + " loads=" + c.loads;
        assertTrue(engine.counters().loads > 0, "round two must load prefixes back from L3: " + counters);
        assertEquals(0, c.backupsSkipped, counters);
        assertEquals(24, c.loads, counters);
        assertEquals(24L * 32, c.loadedPages, counters);
    }
}
