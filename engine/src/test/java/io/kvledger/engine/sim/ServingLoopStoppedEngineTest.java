package io.kvledger.engine.sim;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.api.DataPlane;
import io.kvledger.engine.api.Decision;
import io.kvledger.engine.api.EnginePort;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A serving loop whose engine fail-stopped ends with the engine's own failure, which the port gives when pumped, and
 * not with "controller refused ... ENGINE_STOPPED", which hid the reason from the user of {@code kvledger run}.
 */
class ServingLoopStoppedEngineTest
{
    private static final String FAILURE = "kvledger engine stopped: input #7 CHUNK failed: engine bug (the test's)";

    @Test
    void shouldEndWithTheEngineFailureOnceTheEngineStopped()
    {
        final EngineConfig config = EngineConfig.builder().pageSize(16).deviceKvPages(256).deviceMambaSlots(16)
            .hostKvPages(64).hostMambaSlots(8).maxRequests(16).maxRequestPages(64).maxOps(64).build();
        final WorkloadOptions w = new WorkloadOptions();
        w.kind = WorkloadKind.PR_BENCH;
        w.requests = 4;
        w.promptTokens = 256;
        w.extendTokens = 32;
        final SimulatedPort live = new SimulatedPort(new CacheStateMachine(config), DocumentSink.NONE, 3, 0, null);
        final ServingLoop loop = new ServingLoop(new StoppingPort(live), config, Workload.build(w));

        final IllegalStateException ex = assertThrows(IllegalStateException.class, loop::run);
        assertEquals(FAILURE, ex.getMessage());
    }

    /**
     * A simulated engine that fail-stops at the first CHUNK or FINISH: from then on every input is refused
     * ENGINE_STOPPED and pumping says why, as the live runtime's session does.
     */
    private static final class StoppingPort implements EnginePort
    {
        private final SimulatedPort live;
        private boolean stopped;

        StoppingPort(final SimulatedPort live)
        {
            this.live = live;
        }

        @Override
        public int submit(final InputRecord in, final Decision decision)
        {
            stopped |= InputType.CHUNK == in.type() || InputType.FINISH == in.type();
            if (stopped)
            {
                decision.resultCode = ResultCode.ENGINE_STOPPED;
                return ResultCode.ENGINE_STOPPED;
            }
            return live.submit(in, decision);
        }

        @Override
        public void pump(final OpListener listener)
        {
            if (stopped)
            {
                throw new IllegalStateException(FAILURE);
            }
            live.pump(listener);
        }

        @Override
        public long nowNs()
        {
            return live.nowNs();
        }

        @Override
        public DataPlane dataPlane()
        {
            return live.dataPlane();
        }

        @Override
        public boolean busy()
        {
            return live.busy();
        }
    }
}
