package io.kvledger.engine.ingress;

import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * XXH3-128 (XXH128, seed 0, default secret) of one page's hash input as the {@link Fingerprinter} lays it out: an
 * {@code int[]} read as little-endian bytes, for inputs of 241 to 1,024 bytes (pages of 55 to 250 tokens behind the
 * six-int header), computed straight from the ints. It is the xxHash specification's long-input path with no full
 * block (no scramble): the accumulators take {@code (len - 1) / 64} stripes from the start, then the last 64 bytes,
 * and the two halves are merged with the secret at offsets 11 and 117. OpenHFT's generic implementation reads every
 * lane through an {@code Access} object; this one combines two ints per lane in place, about twice as fast for a
 * 64-token page. {@code Xxh3PageTest} compares it with OpenHFT's {@code LongTupleHashFunction.xx128()} on random
 * inputs of every length it takes. Allocation-free; thread-safe (no state).
 */
final class Xxh3Page
{
    /** Fewest input ints this path takes (241 bytes and more is the long path; ints make it 244). */
    static final int MIN_INTS = 61;

    /** Most input ints: 1,024 bytes, one block, so no accumulator scramble is ever needed. */
    static final int MAX_INTS = 256;

    private static final boolean LITTLE_ENDIAN = ByteOrder.LITTLE_ENDIAN == ByteOrder.nativeOrder();
    private static final long INT_ARRAY_BASE = UnsafeApi.arrayBaseOffset(int[].class);

    private static final long PRIME32_1 = 0x9E3779B1L;
    private static final long PRIME32_2 = 0x85EBCA77L;
    private static final long PRIME32_3 = 0xC2B2AE3DL;
    private static final long PRIME64_1 = 0x9E3779B185EBCA87L;
    private static final long PRIME64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long PRIME64_3 = 0x165667B19E3779F9L;
    private static final long PRIME64_4 = 0x85EBCA77C2B2AE63L;
    private static final long PRIME64_5 = 0x27D4EB2F165667C5L;

    /** The specification's 192-byte default secret ({@code kSecret}). */
    private static final String SECRET_HEX =
        "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f" +
        "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c" +
        "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8" +
        "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364" +
        "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e" +
        "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e";

    /** Secret words at byte offsets 0, 8, .. 184: stripe {@code s}, lane {@code i} reads word {@code s + i}. */
    private static final long[] STRIPE_KEYS = new long[24];
    /** The last stripe's words, at byte offset 192 - 64 - 7 = 121. */
    private static final long[] LAST_KEYS = new long[8];
    /** The low half's merge words, at byte offset 11. */
    private static final long[] LOW_KEYS = new long[8];
    /** The high half's merge words, at byte offset 192 - 64 - 11 = 117. */
    private static final long[] HIGH_KEYS = new long[8];

    static
    {
        final byte[] secret = new byte[SECRET_HEX.length() / 2];
        for (int i = 0; i < secret.length; i++)
        {
            secret[i] = (byte)Integer.parseInt(SECRET_HEX.substring(2 * i, 2 * i + 2), 16);
        }
        for (int w = 0; w < STRIPE_KEYS.length; w++)
        {
            STRIPE_KEYS[w] = readLong(secret, 8 * w);
        }
        for (int w = 0; w < 8; w++)
        {
            LAST_KEYS[w] = readLong(secret, 121 + 8 * w);
            LOW_KEYS[w] = readLong(secret, 11 + 8 * w);
            HIGH_KEYS[w] = readLong(secret, 117 + 8 * w);
        }
    }

    private Xxh3Page()
    {
    }

    /**
     * @param ints input length in ints.
     * @return whether {@link #hash} takes an input of that length.
     */
    static boolean fits(final int ints)
    {
        return ints >= MIN_INTS && ints <= MAX_INTS;
    }

    /**
     * XXH128 of {@code in[0 .. ints)} read as little-endian bytes (the JVM's own byte order does not matter: the
     * ints are combined by value).
     *
     * @param in   the input.
     * @param ints its length in ints, {@link #fits}.
     * @param out  receives the low 64 bits at index 0 and the high 64 bits at index 1.
     */
    static void hash(final int[] in, final int ints, final long[] out)
    {
        hash(lane(in, 0), lane(in, 2), lane(in, 4), in, 6, ints - 6, out);
    }

    /**
     * XXH128 of the {@link Fingerprinter}'s page input without building it: the three header longs (namespace and
     * parent fingerprint, each as 8 little-endian bytes) followed by {@code tokens[start .. start + pageTokens)} as
     * 4-byte little-endian ints.
     *
     * @param first      the namespace.
     * @param second     the parent fingerprint's high half.
     * @param third      the parent fingerprint's low half.
     * @param tokens     the token ids.
     * @param start      the page's first token.
     * @param pageTokens tokens in the page; {@code 6 + pageTokens} must {@link #fits}.
     * @param out        receives the low 64 bits at index 0 and the high 64 bits at index 1.
     */
    static void hash(final long first, final long second, final long third, final int[] tokens, final int start,
        final int pageTokens, final long[] out)
    {
        final int ints = 6 + pageTokens;
        final long length = 4L * ints;
        final int stripes = (int)((length - 1) / 64);
        // Int i of the whole input (i >= 6) is tokens[i - 6 + start], so a stripe at int 16 s starts at tokens[base].
        final int shift = start - 6;

        long a0 = PRIME32_3;
        long a1 = PRIME64_1;
        long a2 = PRIME64_2;
        long a3 = PRIME64_3;
        long a4 = PRIME64_4;
        long a5 = PRIME32_2;
        long a6 = PRIME64_5;
        long a7 = PRIME32_1;

        // Stripe 0: the three header lanes, then five token lanes.
        long v = first;
        long key = v ^ STRIPE_KEYS[0];
        a1 += v;
        a0 += (key & 0xFFFF_FFFFL) * (key >>> 32);
        v = second;
        key = v ^ STRIPE_KEYS[1];
        a0 += v;
        a1 += (key & 0xFFFF_FFFFL) * (key >>> 32);
        v = third;
        key = v ^ STRIPE_KEYS[2];
        a3 += v;
        a2 += (key & 0xFFFF_FFFFL) * (key >>> 32);
        v = lane(tokens, start);
        key = v ^ STRIPE_KEYS[3];
        a2 += v;
        a3 += (key & 0xFFFF_FFFFL) * (key >>> 32);
        v = lane(tokens, start + 2);
        key = v ^ STRIPE_KEYS[4];
        a5 += v;
        a4 += (key & 0xFFFF_FFFFL) * (key >>> 32);
        v = lane(tokens, start + 4);
        key = v ^ STRIPE_KEYS[5];
        a4 += v;
        a5 += (key & 0xFFFF_FFFFL) * (key >>> 32);
        v = lane(tokens, start + 6);
        key = v ^ STRIPE_KEYS[6];
        a7 += v;
        a6 += (key & 0xFFFF_FFFFL) * (key >>> 32);
        v = lane(tokens, start + 8);
        key = v ^ STRIPE_KEYS[7];
        a6 += v;
        a7 += (key & 0xFFFF_FFFFL) * (key >>> 32);

        // Stripes 1 .. stripes - 1 read tokens only; the last stripe is the input's final 64 bytes, with its own keys.
        for (int s = 1; s <= stripes; s++)
        {
            final long[] keys;
            final int k;
            final int base;
            if (s < stripes)
            {
                keys = STRIPE_KEYS;
                k = s;
                base = shift + 16 * s;
            }
            else
            {
                keys = LAST_KEYS;
                k = 0;
                base = shift + ints - 16;
            }
            v = lane(tokens, base);
            key = v ^ keys[k];
            a1 += v;
            a0 += (key & 0xFFFF_FFFFL) * (key >>> 32);
            v = lane(tokens, base + 2);
            key = v ^ keys[k + 1];
            a0 += v;
            a1 += (key & 0xFFFF_FFFFL) * (key >>> 32);
            v = lane(tokens, base + 4);
            key = v ^ keys[k + 2];
            a3 += v;
            a2 += (key & 0xFFFF_FFFFL) * (key >>> 32);
            v = lane(tokens, base + 6);
            key = v ^ keys[k + 3];
            a2 += v;
            a3 += (key & 0xFFFF_FFFFL) * (key >>> 32);
            v = lane(tokens, base + 8);
            key = v ^ keys[k + 4];
            a5 += v;
            a4 += (key & 0xFFFF_FFFFL) * (key >>> 32);
            v = lane(tokens, base + 10);
            key = v ^ keys[k + 5];
            a4 += v;
            a5 += (key & 0xFFFF_FFFFL) * (key >>> 32);
            v = lane(tokens, base + 12);
            key = v ^ keys[k + 6];
            a7 += v;
            a6 += (key & 0xFFFF_FFFFL) * (key >>> 32);
            v = lane(tokens, base + 14);
            key = v ^ keys[k + 7];
            a6 += v;
            a7 += (key & 0xFFFF_FFFFL) * (key >>> 32);
        }

        out[0] = merge(a0, a1, a2, a3, a4, a5, a6, a7, LOW_KEYS, length * PRIME64_1);
        out[1] = merge(a0, a1, a2, a3, a4, a5, a6, a7, HIGH_KEYS, ~(length * PRIME64_2));
    }

    /** Ints {@code at} and {@code at + 1} as one little-endian lane (callers keep {@code at + 1} in bounds). */
    private static long lane(final int[] in, final int at)
    {
        if (LITTLE_ENDIAN)
        {
            return UnsafeApi.getLong(in, INT_ARRAY_BASE + 4L * at);
        }
        return (in[at] & 0xFFFF_FFFFL) | ((long)in[at + 1] << 32);
    }

    private static long merge(final long a0, final long a1, final long a2, final long a3, final long a4,
        final long a5, final long a6, final long a7, final long[] keys, final long start)
    {
        long result = start;
        result += fold(a0 ^ keys[0], a1 ^ keys[1]);
        result += fold(a2 ^ keys[2], a3 ^ keys[3]);
        result += fold(a4 ^ keys[4], a5 ^ keys[5]);
        result += fold(a6 ^ keys[6], a7 ^ keys[7]);
        result ^= result >>> 37;
        result *= 0x165667919E3779F9L;
        return result ^ (result >>> 32);
    }

    /** The 128-bit product of two unsigned 64-bit values, its halves XORed. */
    private static long fold(final long x, final long y)
    {
        final long high = Math.multiplyHigh(x, y) + ((x >> 63) & y) + ((y >> 63) & x);
        return (x * y) ^ high;
    }

    private static long readLong(final byte[] bytes, final int at)
    {
        long value = 0;
        for (int i = 7; i >= 0; i--)
        {
            value = (value << 8) | (bytes[at + i] & 0xFF);
        }
        return value;
    }
}
