package io.kvledger.engine.counters;

import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The values of a counters file at one moment, read through Agrona's {@link CountersReader} (acquire loads), in
 * this process or another one. Counters this version does not know (a newer writer) are kept by label.
 * Each value is current on its own; the set is not a consistent cut of the engine.
 */
public final class CountersSnapshot
{
    /** A counter this version has no {@link KvCounter} for. */
    public record Other(int typeId, String label, long value)
    {
    }

    private static final KvCounter[] COUNTERS = KvCounter.values();
    private static final long PID_REUSE_SLACK_MS = 2_000;

    private final long[] values = new long[COUNTERS.length];
    private final boolean[] present = new boolean[COUNTERS.length];
    private final List<Other> others = new ArrayList<>();
    private final long readAtMs;

    private CountersSnapshot(final long readAtMs)
    {
        this.readAtMs = readAtMs;
    }

    /**
     * @param reader the counters.
     * @return their values now.
     */
    public static CountersSnapshot read(final CountersReader reader)
    {
        final CountersSnapshot snapshot = new CountersSnapshot(System.currentTimeMillis());
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final long value = reader.getCounterValue(counterId);
            final KvCounter counter = KvCounter.byTypeId(typeId);
            if (null == counter)
            {
                snapshot.others.add(new Other(typeId, label, value));
            }
            else
            {
                snapshot.values[counter.ordinal()] = value;
                snapshot.present[counter.ordinal()] = true;
            }
        });
        return snapshot;
    }

    /**
     * @param counter which counter.
     * @return its value, 0 when the file has no such counter.
     */
    public long get(final KvCounter counter)
    {
        return values[counter.ordinal()];
    }

    /**
     * @param counter which counter.
     * @return whether the file has it.
     */
    public boolean has(final KvCounter counter)
    {
        return present[counter.ordinal()];
    }

    /** @return the counters of the file this version does not know. */
    public List<Other> others()
    {
        return Collections.unmodifiableList(others);
    }

    /** @return wall-clock time of the read, epoch milliseconds. */
    public long readAtMs()
    {
        return readAtMs;
    }

    /** @return the engine state as written, or null for an unknown code. */
    public EngineState state()
    {
        return EngineState.of(get(KvCounter.ENGINE_STATE));
    }

    /**
     * Whether the writer is alive: the state says running (or starting) and its process still exists.
     *
     * @return false when it stopped, failed, or its process ended without closing.
     */
    public boolean writerAlive()
    {
        final EngineState state = state();
        if (EngineState.RUNNING != state && EngineState.STARTING != state)
        {
            return false;
        }
        // A process with the same id that started after the controller opened is another one (the id was reused);
        // the slack covers the coarse boot time a process's start instant is computed from.
        final long startMs = get(KvCounter.START_TIME_MS);
        return ProcessHandle.of(get(KvCounter.PID))
            .filter(ProcessHandle::isAlive)
            .map((p) -> p.info().startInstant().map((t) -> t.toEpochMilli() <= startMs + PID_REUSE_SLACK_MS)
                .orElse(true))
            .orElse(false);
    }

    /**
     * What {@code kvledger stat} shows as the state: {@code running}, {@code stopped}, {@code failed}, or
     * {@code stopped (process N ended without closing)} when the file says running but its process is gone.
     *
     * @return the state text.
     */
    public String stateText()
    {
        final EngineState state = state();
        if (null == state)
        {
            return "unknown (" + get(KvCounter.ENGINE_STATE) + ")";
        }
        if ((EngineState.RUNNING == state || EngineState.STARTING == state) && !writerAlive())
        {
            return "stopped (process " + get(KvCounter.PID) + " ended without closing)";
        }
        return state.text();
    }

    /**
     * Seconds the controller has been up: from its start to now while alive, to its stop after; for one that ended
     * without closing (a crash), to its last publication ({@link KvCounter#UPDATE_TIME_MS}), so the figure no longer
     * grows (files written before that counter existed: to now).
     *
     * @return seconds, at least 0.
     */
    public double uptimeSeconds()
    {
        final long start = get(KvCounter.START_TIME_MS);
        final long stop = get(KvCounter.STOP_TIME_MS);
        final long end;
        if (stop > 0)
        {
            end = stop;
        }
        else if (has(KvCounter.UPDATE_TIME_MS) && !writerAlive())
        {
            end = get(KvCounter.UPDATE_TIME_MS);
        }
        else
        {
            end = readAtMs;
        }
        return start <= 0 ? 0 : Math.max(0, end - start) / 1000.0;
    }
}
