package io.kvledger.engine.util;

/**
 * The engine's 64-bit mixing functions, in one place: state hashes, the radix tree's child index, content seeds
 * and content patterns all use these, so a change here changes journals' state hashes and slot contents (the
 * golden runs pin them).
 * <p>
 * Two functions are kept because both are already baked into recorded state hashes and content: the murmur3
 * finaliser {@link #mix(long)} and the SplitMix64 finaliser {@link #splitMix(long)} (with {@link #mixGamma(long)},
 * the SplitMix64 output for a seed). Stateless, allocation-free, any thread.
 */
public final class Hashing
{
    /** The SplitMix64 increment, 2^64 divided by the golden ratio. */
    public static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private Hashing()
    {
    }

    /**
     * The murmur3 64-bit finaliser (fmix64).
     *
     * @param value to mix.
     * @return mixed value.
     */
    public static long mix(final long value)
    {
        long h = value;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }

    /**
     * The SplitMix64 finaliser (Stafford's variant 13): the output function of a SplitMix64 generator applied to
     * its state.
     *
     * @param state generator state (already advanced by {@link #GOLDEN_GAMMA}).
     * @return mixed value.
     */
    public static long splitMix(final long state)
    {
        long z = state;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * The first SplitMix64 output of a generator seeded with {@code value}: {@code splitMix(value + GOLDEN_GAMMA)}.
     *
     * @param value to mix.
     * @return mixed value.
     */
    public static long mixGamma(final long value)
    {
        return splitMix(value + GOLDEN_GAMMA);
    }
}
