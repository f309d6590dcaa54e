package io.kvledger.engine.device;

import io.kvledger.engine.util.Hashing;
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
            state += Hashing.GOLDEN_GAMMA;
            buffer.putLong(index, Hashing.splitMix(state), ByteOrder.LITTLE_ENDIAN);
            index += 8;
        }

        if (index < end)
        {
            state += Hashing.GOLDEN_GAMMA;
            long value = Hashing.splitMix(state);
            while (index < end)
            {
                buffer.putByte(index, (byte)value);
                value >>>= 8;
                index++;
            }
        }
    }
}
