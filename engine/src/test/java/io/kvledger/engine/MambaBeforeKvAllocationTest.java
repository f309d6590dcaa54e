package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Explore seed 12473 (I18, shrunk to 15 inputs): the Mamba gate counts an inner checkpoint as evictable (its state
 * can be dropped, the node keeps its pages), then the same admission's KV allocation evicts that node's only child,
 * which turns it into a leaf its waiting owner still pins; Mamba eviction must skip a locked leaf, so the allocation
 * comes up one slot short of what RESERVED promised and the staged request is deferred. Admission now evicts for
 * the Mamba slots before the KV pages are allocated.
 */
class MambaBeforeKvAllocationTest
{
    private static EngineConfig config()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(8).deviceMambaSlots(4).trackingSlots(2)
            .hostKvPages(64).hostMambaSlots(4).maxRequests(8).maxRequestPages(16).maxOps(64)
            .prefetchThresholdPages(1).build();
    }

    /** The backup the last input queued is acked, then the store that follows it. */
    private static void storeBackup(final Driver d)
    {
        final long backup = d.opId(EffectType.OP_QUEUED, OpKind.BACKUP);
        assertTrue(backup >= 0, "a backup was queued");
        assertEquals(ResultCode.OK, d.ack(backup, true));
        assertEquals(ResultCode.OK, d.ack(d.opId(EffectType.OP_QUEUED, OpKind.STORE), true));
    }

    /**
     * Request 1 (4 pages) leaves a checkpoint at page 2 (node A, by its chunk) and one at page 4 (node B, its only
     * child); request 2, the same first 2 pages and 2 others, pins A while its L3 query for pages 2..4 is out;
     * request 3 (6 other pages) is staged from L3.
     */
    private static Driver pinnedInnerCheckpoint()
    {
        final Driver d = new Driver(config(), true);
        d.cold(1, 5, 4);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        d.passEnd();
        assertEquals(ResultCode.OK, d.chunk(1, 2));
        storeBackup(d);
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        storeBackup(d);
        assertTrue(d.arriveSharing(2, 5, 2, 7, 4) >= 0, "request 2 queries pages 2..4 and pins node A meanwhile");
        d.staged(3, 9, 6);
        assertEquals(RequestState.STAGED, d.engine.requestState(3));
        return d;
    }

    @Test
    void shouldAllocateEveryMambaSlotTheGateCountedForAStagedLoad()
    {
        final Driver d = pinnedInnerCheckpoint();
        assertEquals(2, d.engine.pool(Pool.DEVICE_MAMBA).freeCount(), "A and B hold the other two states");

        d.passBegin();
        final int result = d.admit(3);

        assertFalse(d.has(EffectType.DEFERRED), "deferred for " + d.reasonOf(EffectType.DEFERRED) +
            " after RESERVED promised the slots");
        assertEquals(ResultCode.OK, result);
        assertTrue(d.admittedLoad() >= 0, "the staged hit is loaded");
        int taken = 0;
        for (int s = 0; s < 4; s++)
        {
            taken += d.mambaState(s) == SlotState.FREE ? 0 : 1;
        }
        assertEquals(4, taken, "working, two tracking slots and the node copy");
    }
}
