package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An embedder or a test reads a request's hold, load op, locked node and defer count from the engine, without
 * reading effects.
 */
class RequestAccessorsTest
{
    private static EngineConfig config()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(16).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(8).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).build();
    }

    @Test
    void shouldReadTheHoldThenTheLoadAndLockOfAStagedRequest()
    {
        final Driver d = new Driver(config(), true);
        d.cold(1, 5, 4);
        d.passBegin();
        d.admit(1);
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));

        final long query = d.arrive(2, 5, 8);
        d.fetchDone(d.storageHit(query, 4, 4), 4);
        assertEquals(RequestState.STAGED, d.engine.requestState(2));
        assertEquals(4, d.engine.holdPagesOf(2), "pages 4..8 staged");
        assertEquals(4, d.engine.holdStartOf(2), "after the 4 device pages");
        assertEquals(-1, d.engine.loadOpOf(2));
        assertEquals(-1, d.engine.lockedNodeOf(2), "not admitted: only its prefix is pinned");
        assertEquals(0, d.engine.deferCountOf(2));

        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(d.opId(EffectType.OP_QUEUED, OpKind.LOAD), d.engine.loadOpOf(2));
        assertEquals(0, d.engine.holdPagesOf(2), "the hold's staging now belongs to the load");
        final int node = d.engine.lockedNodeOf(2);
        assertTrue(node >= 0, "locked on the node that ends its prefix");
        assertEquals(8, d.engine.tree().depth(node));
        assertEquals(0, d.engine.deferCountOf(2));
    }

    @Test
    void shouldAnswerNothingForAnUnknownRequest()
    {
        final Driver d = new Driver(config(), false);
        assertEquals(-1, d.engine.lockedNodeOf(99));
        assertEquals(0, d.engine.holdPagesOf(99));
        assertEquals(-1, d.engine.holdStartOf(99));
        assertEquals(0, d.engine.deferCountOf(99));
        assertEquals(-1, d.engine.loadOpOf(99));
        assertEquals(-1, d.engine.cowOpOf(99));
    }
}
