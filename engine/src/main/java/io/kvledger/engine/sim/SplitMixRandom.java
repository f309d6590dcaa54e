package io.kvledger.engine.sim;

import io.kvledger.engine.util.Hashing;

/**
 * The draws of {@link java.util.SplittableRandom} made with {@code new SplittableRandom(seed)} ({@code nextInt()},
 * {@code nextInt(bound)}, {@code nextLong()}, {@code nextDouble()}), with its one word of state readable and
 * settable, so a workload can come back to an earlier point of the stream and draw the same values again
 * without keeping them (a conversation's earlier turns). Same algorithm: SplitMix64 with the golden gamma,
 * {@code mix32} / {@code mix64} finalisers, rejection sampling for a bound that is not a power of two;
 * {@code SplitMixRandomTest} checks it against the JDK's class.
 */
final class SplitMixRandom
{
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    private static final double DOUBLE_UNIT = 0x1.0p-53;

    private long seed;

    /**
     * @param seed as given to {@code new SplittableRandom(seed)}.
     */
    SplitMixRandom(final long seed)
    {
        this.seed = seed;
    }

    /** @return the state: set it back with {@link #state(long)} to draw the same values again. */
    long state()
    {
        return seed;
    }

    /**
     * @param state a value {@link #state()} returned.
     * @return this.
     */
    SplitMixRandom state(final long state)
    {
        seed = state;
        return this;
    }

    int nextInt()
    {
        return mix32(nextSeed());
    }

    long nextLong()
    {
        return Hashing.splitMix(nextSeed());
    }

    double nextDouble()
    {
        return (Hashing.splitMix(nextSeed()) >>> 11) * DOUBLE_UNIT;
    }

    int nextInt(final int bound)
    {
        if (bound <= 0)
        {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        int r = mix32(nextSeed());
        final int m = bound - 1;
        if ((bound & m) == 0)
        {
            r &= m;
        }
        else
        {
            int u = r >>> 1;
            while (u + m - (r = u % bound) < 0)
            {
                u = mix32(nextSeed()) >>> 1;
            }
        }
        return r;
    }

    private long nextSeed()
    {
        seed += GOLDEN_GAMMA;
        return seed;
    }

    private static int mix32(final long value)
    {
        long z = value;
        z = (z ^ (z >>> 33)) * 0x62A9D9ED799705F5L;
        return (int)(((z ^ (z >>> 28)) * 0xCB24D0A5C88C35B3L) >>> 32);
    }
}
