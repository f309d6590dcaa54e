package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.tree.RadixTree;

import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mamba checkpoints as DESIGN.md's write path and the domain reference (§2.2, §3.1, §3.6) place them, black-box
 * through the engine's inputs with {@code verify()} after every input.
 */
class MambaCheckpointScenarioTest
{
    private static final int PAGE = 4;

    private static EngineConfig.Builder base()
    {
        return EngineConfig.builder().pageSize(PAGE).deviceKvPages(64).deviceMambaSlots(4).hostKvPages(32)
            .hostMambaSlots(4).maxRequests(8).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1);
    }

    /** Admit cold requests in one pass. */
    private static void admit(final Driver d, final long... requests)
    {
        d.passBegin();
        for (final long r : requests)
        {
            final int result = d.admit(r);
            assertEquals(ResultCode.OK, result, "admit " + r);
        }
        d.passEnd();
    }

    /** Arrive with the same prompt as request 1 (seed 11) and admit cold; returns the admitted prefix. */
    private static long prefixOfAnotherRequest(final Driver d, final long request, final int pages)
    {
        d.cold(request, 11, pages);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(request));
        final long prefix = d.admittedPrefix();
        d.passEnd();
        return prefix;
    }

    /**
     * A chunk that cannot get a fresh tracking slot keeps its own and places no checkpoint (rules 2 on); the request's
     * Finish at that same tracked depth needs no fresh slot, so DESIGN's Finish applies: "the tracking slot is
     * donated as the checkpoint (or freed when that node already has one)". The node has none, so it gets it.
     */
    @Test
    void shouldDonateAtFinishTheCheckpointAChunkCouldNotPlace()
    {
        final Driver d = new Driver(base().build(), true);
        d.cold(1, 11, 4);
        d.cold(2, 12, 4);
        admit(d, 1, 2);
        assertEquals(0, d.engine.pool(Pool.DEVICE_MAMBA).freeCount(), "four slots, two requests of two");

        final int tracking = d.engine.requestTrackingSlot(1);
        assertEquals(ResultCode.OK, d.chunk(1, 4));
        assertEquals(tracking, d.engine.requestTrackingSlot(1), "no fresh slot: the chunk keeps the tracking slot");
        final int node = d.engine.lockedNodeOf(1);
        assertEquals(4, d.engine.tree().depth(node));
        assertEquals(RadixTree.NO_SLOT, d.engine.tree().mambaSlot(node), "and places no checkpoint");

        assertEquals(ResultCode.OK, d.abort(2));
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        assertEquals(tracking, d.engine.tree().mambaSlot(node), "the tracking slot holds the state at page 4");
        assertEquals(SlotState.NODE, d.mambaState(tracking));

        assertEquals(4, prefixOfAnotherRequest(d, 3, 4), "the next request resumes from the checkpoint");
        assertTrue(d.engine.cowOpOf(3) >= 0, "by a copy of it");
    }

    /** Journals written under rules 2 replay as written: there the finish freed the kept-back state. */
    @Test
    void shouldLoseTheKeptBackCheckpointUnderRulesTwo()
    {
        final Driver d = new Driver(base().admissionRules(2).build(), true);
        d.cold(1, 11, 4);
        d.cold(2, 12, 4);
        admit(d, 1, 2);
        final int tracking = d.engine.requestTrackingSlot(1);
        assertEquals(ResultCode.OK, d.chunk(1, 4));
        final int node = d.engine.lockedNodeOf(1);
        assertEquals(ResultCode.OK, d.abort(2));
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        assertEquals(RadixTree.NO_SLOT, d.engine.tree().mambaSlot(node));
        assertEquals(SlotState.FREE, d.mambaState(tracking));
        assertEquals(0, prefixOfAnotherRequest(d, 3, 4));
    }

    /**
     * A chunk that donated its tracking slot at depth 4 gets a fresh one that holds no state at 4: when the
     * checkpoint at 4 is evicted and the request finishes still tracked at 4, the fresh slot must not become the
     * checkpoint there (it never held that state).
     */
    @Test
    void shouldNotDonateAFreshTrackingSlotAtADepthAlreadyDonated()
    {
        final Driver d = new Driver(base().deviceMambaSlots(6).build(), true);
        d.cold(1, 11, 8);
        admit(d, 1);
        final int first = d.engine.requestTrackingSlot(1);
        assertEquals(ResultCode.OK, d.chunk(1, 4));
        final int node = d.engine.lockedNodeOf(1);
        assertEquals(first, d.engine.tree().mambaSlot(node), "the chunk's checkpoint at page 4");
        final int fresh = d.engine.requestTrackingSlot(1);
        assertNotEquals(first, fresh);

        // Request 5 shares the 4 pages, copies the checkpoint, caches 4 more under it and finishes: page 4 is inner.
        d.storageHit(d.arriveSharing(5, 11, 4, 15, 8), 0, 0);
        admit(d, 5);
        final long copy = d.engine.cowOpOf(5);
        assertEquals(ResultCode.OK, d.ack(copy, true));
        assertEquals(ResultCode.OK, d.chunk(5, 8));
        assertEquals(ResultCode.OK, d.finish(5, 8, 0, 0, 0));
        d.drainWrites();

        // Two more requests need four slots: both checkpoints go (page 4 dropped, page 8 deleted).
        d.cold(2, 12, 4);
        d.cold(4, 13, 4);
        admit(d, 2, 4);
        assertEquals(RadixTree.NO_SLOT, d.engine.tree().mambaSlot(node), "the checkpoint at page 4 was evicted");

        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        assertEquals(RadixTree.NO_SLOT, d.engine.tree().mambaSlot(node),
            "the fresh tracking slot never held the state at page 4");
        assertEquals(SlotState.FREE, d.mambaState(fresh));
    }
}
