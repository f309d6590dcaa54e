package io.kvledger.engine.util;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The mixing functions are baked into recorded state hashes and slot contents, so their values are pinned: the
 * SplitMix64 ones against the JDK's {@link SplittableRandom}, the murmur3 finaliser against fixed values.
 */
class HashingTest
{
    @Test
    void mixGammaIsTheFirstSplittableRandomOutput()
    {
        final long[] seeds = { 0L, 1L, 42L, -1L, Long.MIN_VALUE, 0x123456789ABCDEFL };
        for (final long seed : seeds)
        {
            assertEquals(new SplittableRandom(seed).nextLong(), Hashing.mixGamma(seed), "seed " + seed);
        }
    }

    @Test
    void splitMixFollowsSplittableRandomStream()
    {
        final SplittableRandom random = new SplittableRandom(7L);
        long state = 7L;
        for (int i = 0; i < 16; i++)
        {
            state += Hashing.GOLDEN_GAMMA;
            assertEquals(random.nextLong(), Hashing.splitMix(state), "draw " + i);
        }
    }

    @Test
    void mixIsTheMurmur3Finaliser()
    {
        assertEquals(0L, Hashing.mix(0L));
        assertEquals(-5451962507482445012L, Hashing.mix(1L));
        assertEquals(-9148929187392628276L, Hashing.mix(42L));
        assertEquals(7256831767414464289L, Hashing.mix(-1L));
        assertEquals(-7160610219483255062L, Hashing.mix(0x9E3779B97F4A7C15L));
    }
}
