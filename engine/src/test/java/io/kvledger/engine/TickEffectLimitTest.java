package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.JournalFrame;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.Pool;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A TICK's eviction count is any value a caller sends ({@code Long.MAX_VALUE}: flush), and an accepted input must
 * not throw: over a tree holding more pages than one journal document can record effects for, a flush evicts what
 * one document can say and leaves the rest for the next tick, instead of failing inside apply (more effects than
 * the effect list holds) and stopping the engine.
 */
class TickEffectLimitTest
{
    private static final int PAGES = 8_000;
    private static final int REQUESTS = 10;

    @Test
    void shouldFlushATreeLargerThanOneDocumentOverSeveralTicks()
    {
        final EngineConfig config = EngineConfig.builder().pageSize(1).hybrid(false).deviceKvPages(PAGES * 11)
            .hostKvPages(16).maxRequests(4).maxRequestPages(PAGES).maxOps(16).prefetchThresholdPages(PAGES + 1)
            .build();
        final Driver d = new Driver(config, false);
        for (int r = 1; r <= REQUESTS; r++)
        {
            d.arrive(r, r * 7919L, PAGES);
            d.passBegin();
            assertEquals(ResultCode.OK, d.admit(r));
            d.passEnd();
            assertEquals(ResultCode.OK, d.finish(r, PAGES, 0, 0, 0));
        }
        final int capacity = config.deviceKvPages();
        assertEquals(capacity - REQUESTS * PAGES, d.engine.pool(Pool.DEVICE_KV).freeCount());
        int ticks = 0;
        while (d.engine.pool(Pool.DEVICE_KV).freeCount() < capacity)
        {
            assertEquals(ResultCode.OK, d.apply(Inputs.tick(d.in.reset(), Long.MAX_VALUE)), "flush " + ticks);
            assertTrue(d.engine.effects().size() <= JournalFrame.MAX_GROUP_COUNT,
                d.engine.effects().size() + " effects do not fit one journal document");
            d.engine.verify();
            ticks++;
            assertTrue(ticks <= 3, "each flush evicts as much as one document can record");
        }
        assertEquals(2, ticks);
    }
}
