package io.kvledger.engine.ingress;

import net.openhft.hashing.LongTupleHashFunction;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The page hash computed straight from the ints equals OpenHFT's XXH3-128 of the same bytes, for every input length
 * it takes and random contents (token ids, and arbitrary ints with their high bits set).
 */
class Xxh3PageTest
{
    private static final LongTupleHashFunction XXH128 = LongTupleHashFunction.xx128();

    @Test
    void shouldEqualTheLibrarysXxh128ForEveryLengthItTakes()
    {
        final Random random = new Random(42);
        final int[] in = new int[Xxh3Page.MAX_INTS];
        final long[] expected = new long[2];
        final long[] actual = new long[2];
        for (int ints = Xxh3Page.MIN_INTS; ints <= Xxh3Page.MAX_INTS; ints++)
        {
            for (int round = 0; round < 40; round++)
            {
                for (int i = 0; i < ints; i++)
                {
                    in[i] = round % 2 == 0 ? random.nextInt(150_000) : random.nextInt();
                }
                XXH128.hashInts(in, 0, ints, expected);
                Xxh3Page.hash(in, ints, actual);
                assertArrayEquals(expected, actual, ints + " ints, round " + round);
            }
        }
    }

    @Test
    void shouldTakeOnlyTheLongInputPathWithoutAFullBlock()
    {
        assertFalse(Xxh3Page.fits(60), "240 bytes is the mid-size path");
        assertTrue(Xxh3Page.fits(61));
        assertTrue(Xxh3Page.fits(6 + 64), "a 64-token page");
        assertTrue(Xxh3Page.fits(256));
        assertFalse(Xxh3Page.fits(257), "more than one block scrambles the accumulators");
    }
}
