package io.kvledger.engine.counters;

import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a reader judges the writer of a counters file: alive, stopped, or ended without closing, and the uptime of
 * each.
 */
class CountersSnapshotTest
{
    @TempDir
    Path dir;

    @Test
    void shouldTakeAProcessThatStartedAfterTheControllerOpenedForAnotherOne()
    {
        final long now = System.currentTimeMillis();
        // This JVM is alive and started long after a controller that "opened" at the epoch's first second.
        final CountersSnapshot reused = snapshot(ProcessHandle.current().pid(), 1_000, 0, 0);
        assertFalse(reused.writerAlive());
        assertEquals("stopped (process " + ProcessHandle.current().pid() + " ended without closing)",
            reused.stateText());

        final CountersSnapshot live = snapshot(ProcessHandle.current().pid(), now, 0, 0);
        assertTrue(live.writerAlive());
        assertEquals("running", live.stateText());
    }

    @Test
    void shouldEndTheUptimeOfAControllerThatEndedWithoutClosingAtItsLastUpdate()
    {
        final long start = System.currentTimeMillis() - 60_000;
        final CountersSnapshot crashed = snapshot(ProcessHandle.current().pid(), 1_000, 0, 1_000 + 12_500);
        assertEquals(12.5, crashed.uptimeSeconds());

        final CountersSnapshot stopped = snapshot(ProcessHandle.current().pid(), start, start + 3_000, start + 3_000);
        assertEquals(3.0, stopped.uptimeSeconds());
    }

    private CountersSnapshot snapshot(final long pid, final long startMs, final long stopMs, final long updateMs)
    {
        final CountersFile file = CountersFile.create(dir.resolve(startMs + "-" + stopMs + "-" + updateMs + ".dat"));
        final CountersManager manager = file.manager();
        for (final KvCounter c : KvCounter.values())
        {
            assertEquals(c.ordinal(), manager.allocate(c.label(), c.typeId()));
        }
        put(file, KvCounter.ENGINE_STATE, stopMs > 0 ? EngineState.STOPPED.code() : EngineState.RUNNING.code());
        put(file, KvCounter.PID, pid);
        put(file, KvCounter.START_TIME_MS, startMs);
        put(file, KvCounter.STOP_TIME_MS, stopMs);
        put(file, KvCounter.UPDATE_TIME_MS, updateMs);
        file.markReady();
        return CountersSnapshot.read(CountersFile.openReadOnly(file.path()).reader());
    }

    private static void put(final CountersFile file, final KvCounter counter, final long value)
    {
        file.values().putLongRelease(org.agrona.concurrent.status.CountersReader.counterOffset(counter.ordinal()),
            value);
    }
}
