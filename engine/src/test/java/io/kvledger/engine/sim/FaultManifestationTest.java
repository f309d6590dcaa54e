package io.kvledger.engine.sim;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The retract race corrupts a live request's state in the deterministic simulation, and only with the switch on. */
class FaultManifestationTest
{
    private static ServingLoop run(final EngineConfig config)
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.requests = 64;
        o.promptTokens = 512;
        o.extendTokens = 64;
        o.retractRate = 0.3;
        final SimulatedPort port = new SimulatedPort(new CacheStateMachine(config), DocumentSink.NONE, 3, 0, null);
        final ServingLoop loop = new ServingLoop(port, config, Workload.build(o));
        loop.run();
        return loop;
    }

    private static EngineConfig.Builder config()
    {
        return EngineConfig.builder().pageSize(16).deviceKvPages(1024).deviceMambaSlots(64).hostKvPages(2048)
            .hostMambaSlots(128).maxRequests(256).maxRequestPages(64).maxOps(512)
            .prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE);
    }

    @Test
    void shouldCorruptAnotherRequestsStateOnlyWithTheSwitchOn()
    {
        assertEquals(0, run(config().build()).mismatches().size());
        final ServingLoop buggy = run(config().fault(FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD).build());
        assertFalse(buggy.mismatches().isEmpty());
        for (final ServingLoop.Mismatch m : buggy.mismatches())
        {
            assertEquals(Pool.DEVICE_MAMBA, m.pool, m.toString());
        }
    }
}
