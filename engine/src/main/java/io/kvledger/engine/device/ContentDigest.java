package io.kvledger.engine.device;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * A fast 64-bit content digest of slot bytes (xxHash64, seed 0), so a staged block or a loaded slot can be checked
 * against the digest recorded when it was written: same bytes, same digest, on every platform.
 * <p>
 * Stateless and allocation-free; any thread.
 */
public final class ContentDigest
{
    private static final long PRIME64_1 = 0x9E3779B185EBCA87L;
    private static final long PRIME64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long PRIME64_3 = 0x165667B19E3779F9L;
    private static final long PRIME64_4 = 0x85EBCA77C2B2AE63L;
    private static final long PRIME64_5 = 0x27D4EB2F165667C5L;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private ContentDigest()
    {
    }

    /**
     * Digest a range of a buffer.
     *
     * @param buffer to read.
     * @param offset first byte.
     * @param length number of bytes.
     * @return the xxHash64 (seed 0) of the bytes.
     */
    public static long digest(final DirectBuffer buffer, final int offset, final int length)
    {
        final int end = offset + length;
        int index = offset;
        long hash;

        if (length >= 32)
        {
            long v1 = PRIME64_1 + PRIME64_2;
            long v2 = PRIME64_2;
            long v3 = 0;
            long v4 = -PRIME64_1;
            final int limit = end - 32;
            do
            {
                v1 = round(v1, buffer.getLong(index, LE));
                v2 = round(v2, buffer.getLong(index + 8, LE));
                v3 = round(v3, buffer.getLong(index + 16, LE));
                v4 = round(v4, buffer.getLong(index + 24, LE));
                index += 32;
            }
            while (index <= limit);

            hash = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) +
                Long.rotateLeft(v4, 18);
            hash = mergeRound(hash, v1);
            hash = mergeRound(hash, v2);
            hash = mergeRound(hash, v3);
            hash = mergeRound(hash, v4);
        }
        else
        {
            hash = PRIME64_5;
        }

        hash += length;

        while (index + 8 <= end)
        {
            hash ^= round(0, buffer.getLong(index, LE));
            hash = Long.rotateLeft(hash, 27) * PRIME64_1 + PRIME64_4;
            index += 8;
        }

        if (index + 4 <= end)
        {
            hash ^= (buffer.getInt(index, LE) & 0xFFFF_FFFFL) * PRIME64_1;
            hash = Long.rotateLeft(hash, 23) * PRIME64_2 + PRIME64_3;
            index += 4;
        }

        while (index < end)
        {
            hash ^= (buffer.getByte(index) & 0xFFL) * PRIME64_5;
            hash = Long.rotateLeft(hash, 11) * PRIME64_1;
            index++;
        }

        hash ^= hash >>> 33;
        hash *= PRIME64_2;
        hash ^= hash >>> 29;
        hash *= PRIME64_3;
        hash ^= hash >>> 32;

        return hash;
    }

    /**
     * Digest a whole buffer.
     *
     * @param buffer to read from index 0 to its capacity.
     * @return the xxHash64 (seed 0) of the bytes.
     */
    public static long digest(final DirectBuffer buffer)
    {
        return digest(buffer, 0, buffer.capacity());
    }

    private static long round(final long acc, final long input)
    {
        return Long.rotateLeft(acc + input * PRIME64_2, 31) * PRIME64_1;
    }

    private static long mergeRound(final long acc, final long value)
    {
        return (acc ^ round(0, value)) * PRIME64_1 + PRIME64_4;
    }
}
