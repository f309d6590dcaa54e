package io.kvledger.engine.device;

import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Deterministic pseudo-random slot content derived from a seed: what a forward pass would have computed into a
 * KV page or a Mamba state, so tests and demos move real, checkable bytes.
 * <p>
 * Stateless and allocation-free; any thread.
 */
public final class ContentPattern
{
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private ContentPattern()
    {
    }

    /**
     * Fill a range of a buffer with the seed's bytes (a SplitMix64 stream written as little-endian longs).
     *
     * @param buffer to write.
     * @param offset first byte.
     * @param length number of bytes; a trailing part of fewer than 8 bytes gets the low bytes of the next value.
     * @param seed   content seed; the same seed always gives the same bytes.
     */
    public static void fill(final MutableDirectBuffer buffer, final int offset, final int length, final long seed)
    {
        long state = seed;
        final int end = offset + length;
        int index = offset;
        while (index + 8 <= end)
        {
            state += GOLDEN_GAMMA;
            buffer.putLong(index, mix(state), ByteOrder.LITTLE_ENDIAN);
            index += 8;
        }

        if (index < end)
        {
            state += GOLDEN_GAMMA;
            long value = mix(state);
            while (index < end)
            {
                buffer.putByte(index, (byte)value);
                value >>>= 8;
                index++;
            }
        }
    }

    private static long mix(final long input)
    {
        long z = input;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;

        return z ^ (z >>> 31);
    }
}
