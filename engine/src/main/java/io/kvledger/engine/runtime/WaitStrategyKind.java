package io.kvledger.engine.runtime;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;

import java.util.Locale;

/**
 * How the engine thread waits for input. BLOCKING is the default: on a machine with few cores (2 in CI) a
 * spinning engine thread would starve the copy and storage threads that produce its acks. BUSY_SPIN and
 * YIELDING give the lowest latency when the engine thread has a core of its own.
 */
public enum WaitStrategyKind
{
    BLOCKING,
    SLEEPING,
    YIELDING,
    BUSY_SPIN;

    WaitStrategy create()
    {
        switch (this)
        {
            case SLEEPING: return new SleepingWaitStrategy();
            case YIELDING: return new YieldingWaitStrategy();
            case BUSY_SPIN: return new BusySpinWaitStrategy();
            default: return new BlockingWaitStrategy();
        }
    }

    /**
     * @param name e.g. "busy-spin".
     * @return the kind, or null.
     */
    public static WaitStrategyKind parse(final String name)
    {
        final String n = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (final WaitStrategyKind k : values())
        {
            if (k.name().equals(n))
            {
                return k;
            }
        }
        return null;
    }
}
