package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalFrame;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One journal document records at most {@link JournalFrame#MAX_GROUP_COUNT} effects, and an accepted input whose
 * effects do not fit throws inside apply and stops the engine. A request's own work (a staged admission: five
 * effects a page; a chunk or finish with its backup: four) must fit at the largest request the configuration
 * accepts, and the work an input adds on top that can grow with the pools (evicting leaves to make room, starting
 * the backups and fetches that waited for staging) stops at what the document can still hold and goes on at a
 * later input.
 */
class DocumentEffectLimitTest
{
    @Test
    void shouldRefuseRequestsLargerThanOneDocumentCanRecordTheEffectsOf()
    {
        // accepted up to 65,534 before: a staged admission of 13,200 pages made 66,000 effects and stopped the engine
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> EngineConfig.builder().pageSize(1).maxRequestPages(EngineConfig.MAX_REQUEST_PAGES + 1).build());
        assertEquals("maxRequestPages must be <= " + EngineConfig.MAX_REQUEST_PAGES + " (a staged admission " +
            "records 5 effects a page and one journal document holds " + JournalFrame.MAX_GROUP_COUNT + ")",
            refused.getMessage());
    }

    @Test
    void shouldRecordTheLargestRequestsStagedAdmissionChunkAndFinishInOneDocumentEach()
    {
        final int pages = EngineConfig.MAX_REQUEST_PAGES;
        final EngineConfig config = EngineConfig.builder().pageSize(1).deviceKvPages(2 * pages + 8)
            .hostKvPages(2 * pages + 8).maxRequests(4).maxRequestPages(pages).maxOps(16).prefetchThresholdPages(1)
            .build();
        final Driver d = new Driver(config, false);
        d.staged(1, 11, pages);
        d.passBegin();
        assertFits(d, d.admit(1), "staged admission");
        final long load = d.admittedLoad();
        d.passEnd();
        assertFits(d, d.ack(load, true), "load ack");
        assertFits(d, d.chunk(1, pages - 1), "chunk");
        assertFits(d, d.finish(1, pages, 0, 0, 0), "finish");
        d.engine.verify();
    }

    @Test
    void shouldStartTheBackupsThatWaitedForStagingOverSeveralInputs()
    {
        // Backups A and B fill all but P - 1 writable staging pages; C (P pages) and D (P - 1) wait. The store write
        // of A frees P pages (P effects), after which C and D fit (3 effects a page each): 7P in one input.
        final int p = 10_000;
        final EngineConfig config = EngineConfig.builder().pageSize(1).hybrid(false).deviceKvPages(4 * p + 8)
            .hostKvPages(3 * p).maxRequests(4).maxRequestPages(p).maxOps(16).prefetchThresholdPages(p + 1).build();
        final Driver d = new Driver(config, false);
        final long backupA = served(d, 1, p);
        served(d, 2, p);
        served(d, 3, p);
        served(d, 4, p - 1);
        assertEquals(2, d.engine.backupBacklog(), "C and D wait for staging");
        assertFits(d, d.ack(backupA, true), "backup ack");
        final long storeA = d.opId(EffectType.OP_QUEUED, OpKind.STORE);
        assertFits(d, d.ack(storeA, true), "store ack");
        d.engine.verify();
        int inputs = 0;
        while (d.engine.backupBacklog() > 0)
        {
            assertFits(d, d.apply(Inputs.tick(d.in.reset(), 0)), "tick");
            d.engine.verify();
            assertTrue(++inputs <= 2, "each input starts what its document can record");
        }
        assertEquals(0, d.engine.pool(Pool.HOST_KV).freeCount() - 1, "C and D took every writable staging page");
    }

    @Test
    void shouldEvictForAStagedAdmissionOnlyWhatItsDocumentCanRecord()
    {
        // P one-page leaves fill the device; a staged admission of P pages evicts them all (3 effects a page) and
        // records its own 5 a page: 8P in one input.
        final int p = 8_400;
        final EngineConfig config = EngineConfig.builder().pageSize(1).hybrid(false).deviceKvPages(p)
            .hostKvPages(p + 8).maxNodes(p + 16).maxRequests(4).maxRequestPages(p).maxOps(16).prefetchThresholdPages(1)
            .build();
        final Driver d = new Driver(config, false);
        for (int r = 0; r < p; r++)
        {
            d.cold(100 + r, 1_000 + r, 1);
            d.passBegin();
            assertEquals(ResultCode.OK, d.admit(100 + r));
            d.passEnd();
            assertEquals(ResultCode.OK, d.finish(100 + r, 1, 0, 0, 0));
            assertEquals(ResultCode.OK, d.ack(d.opId(EffectType.OP_QUEUED, OpKind.BACKUP), true));
            assertEquals(ResultCode.OK, d.ack(d.opId(EffectType.OP_QUEUED, OpKind.STORE), true));
        }
        assertEquals(0, d.engine.pool(Pool.DEVICE_KV).freeCount());
        d.staged(1, 11, p);
        d.passBegin();
        int attempts = 0;
        int result;
        do
        {
            result = d.admit(1);
            assertFits(d, result, "staged admission");
            d.engine.verify();
            assertTrue(++attempts <= 3, "each attempt evicts what its document can record");
        }
        while (result != ResultCode.OK);
        assertTrue(attempts > 1, "the first attempt waits");
        assertTrue(d.admittedLoad() >= 0, "the hold was loaded, not dropped");
    }

    /** Serve a cold request of {@code pages} pages to its finish; returns its backup op. */
    private static long served(final Driver d, final long request, final int pages)
    {
        d.arrive(request, request * 7_919L, pages);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(request));
        d.passEnd();
        assertFits(d, d.finish(request, pages, 0, 0, 0), "finish");
        return d.opId(EffectType.OP_QUEUED, OpKind.BACKUP);
    }

    private static void assertFits(final Driver d, final int result, final String what)
    {
        assertTrue(result >= 0, what + ": " + ResultCode.name(result));
        assertTrue(d.engine.effects().size() <= JournalFrame.MAX_GROUP_COUNT,
            what + ": " + d.engine.effects().size() + " effects do not fit one journal document");
    }
}
