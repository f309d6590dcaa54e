package io.kvledger.engine.sim;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SplitMixRandomTest
{
    @Test
    void shouldDrawWhatTheJdkSplittableRandomDraws()
    {
        final int[] bounds = { 1, 2, 7, 16, 151_000, 1_793, (1 << 30) + 1, Integer.MAX_VALUE };
        for (final long seed : new long[] { 0, 1, 2, 3, -1, 0xDEADBEEFL, Long.MIN_VALUE })
        {
            final SplittableRandom jdk = new SplittableRandom(seed);
            final SplitMixRandom ours = new SplitMixRandom(seed);
            for (int i = 0; i < 20_000; i++)
            {
                switch (i % 4)
                {
                    case 0:
                        final int bound = bounds[(i / 4) % bounds.length];
                        assertEquals(jdk.nextInt(bound), ours.nextInt(bound), "nextInt(" + bound + ") seed " + seed);
                        break;
                    case 1:
                        assertEquals(jdk.nextDouble(), ours.nextDouble(), "nextDouble seed " + seed);
                        break;
                    case 2:
                        assertEquals(jdk.nextLong(), ours.nextLong(), "nextLong seed " + seed);
                        break;
                    default:
                        assertEquals(jdk.nextInt(), ours.nextInt(), "nextInt seed " + seed);
                        break;
                }
            }
        }
    }

    @Test
    void shouldDrawTheSameValuesAgainFromASavedState()
    {
        final SplitMixRandom random = new SplitMixRandom(5);
        random.nextInt(100);
        final long state = random.state();
        final int a = random.nextInt((1 << 30) + 1);
        final double b = random.nextDouble();

        random.state(state);

        assertEquals(a, random.nextInt((1 << 30) + 1));
        assertEquals(b, random.nextDouble());
    }

    @Test
    void shouldMatchThePeerTraceTestVectors()
    {
        final SplitMixRandom random = new SplitMixRandom(1);

        assertEquals(Long.parseUnsignedLong("10451216379200822465"), random.nextLong());
        assertEquals(Long.parseUnsignedLong("13757245211066428519"), random.nextLong());
        assertEquals(Long.parseUnsignedLong("17911839290282890590"), random.nextLong());
    }
}
