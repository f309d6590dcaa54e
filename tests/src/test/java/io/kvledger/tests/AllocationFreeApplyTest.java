package io.kvledger.tests;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.sim.RecordedRun;
import io.kvledger.engine.sim.WorkloadKind;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The apply path allocates nothing in steady state: a recorded serving run replayed on an engine that has seen
 * the same run once (warm: its effect list has grown to size) allocates (almost) no bytes on the applying thread.
 */
class AllocationFreeApplyTest
{
    @Test
    void shouldApplyRecordedRunWithoutAllocating()
    {
        final RecordedRun run = RecordedRun.record(WorkloadKind.PR_BENCH, 64, 11);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        for (int warm = 0; warm < 3; warm++)
        {
            run.applyAll(new CacheStateMachine(run.config));
        }
        final CacheStateMachine engine = new CacheStateMachine(run.config);
        final CacheStateMachine warmLists = new CacheStateMachine(run.config);
        run.applyAll(warmLists);
        // Grow the fresh engine's effect list to the largest document first (the only growth the engine does).
        int largest = 0;
        for (int i = 0; i < run.effects.size(); i++)
        {
            largest = Math.max(largest, run.effects.get(i).size());
        }
        for (int i = 0; i < largest; i++)
        {
            engine.effects().add(io.kvledger.journal.codec.EffectType.NODE_DELETED);
        }
        engine.effects().clear();

        final long before = threads.getThreadAllocatedBytes(thread);
        final long checksum = run.applyAll(engine);
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;

        assertEquals(warmLists.stateHash(), engine.stateHash(), "same inputs, same state");
        assertTrue(checksum != 0);
        assertTrue(allocated < 64 * 1024,
            "apply of " + run.inputs.size() + " inputs allocated " + allocated + " bytes");
    }
}
