package io.kvledger.engine.device;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class ContentDigestTest
{
    @Test
    void shouldMatchXxHash64ReferenceValues()
    {
        assertEquals(0xEF46DB3751D8E999L, digestOf(new byte[0]));
        assertEquals(0xD24EC4F1A98C6E5BL, digestOf("a".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(0x44BC2CF5AD770999L, digestOf("abc".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(0x13D17C4C779723A8L, digestOf(counting(13)));
        assertEquals(0x10FDD84D6409ABDFL, digestOf(counting(45)));

        final byte[] repeated = new byte[1027];
        for (int i = 0; i < 1024; i++)
        {
            repeated[i] = (byte)i;
        }
        repeated[1024] = 'x';
        repeated[1025] = 'y';
        repeated[1026] = 'z';
        assertEquals(0xE146CB31B65BC21AL, digestOf(repeated));
    }

    @Test
    void shouldGiveTheSameBytesTheSameDigestAtAnyOffset()
    {
        final UnsafeBuffer a = new UnsafeBuffer(ByteBuffer.allocateDirect(4096 + 64));
        final UnsafeBuffer b = new UnsafeBuffer(new byte[4096 + 64]);
        ContentPattern.fill(a, 3, 4096, 99);
        ContentPattern.fill(b, 17, 4096, 99);

        assertEquals(ContentDigest.digest(a, 3, 4096), ContentDigest.digest(b, 17, 4096));
    }

    @Test
    void shouldFillDifferentSeedsWithDifferentContent()
    {
        final UnsafeBuffer a = new UnsafeBuffer(new byte[4096]);
        final UnsafeBuffer b = new UnsafeBuffer(new byte[4096]);
        ContentPattern.fill(a, 0, 4096, 1);
        ContentPattern.fill(b, 0, 4096, 2);

        assertNotEquals(ContentDigest.digest(a), ContentDigest.digest(b));
        ContentPattern.fill(b, 0, 4096, 1);
        assertEquals(ContentDigest.digest(a), ContentDigest.digest(b));
    }

    @Test
    void shouldFillATrailOfFewerThanEightBytes()
    {
        final UnsafeBuffer whole = new UnsafeBuffer(new byte[16]);
        final UnsafeBuffer partial = new UnsafeBuffer(new byte[16]);
        ContentPattern.fill(whole, 0, 16, 5);
        ContentPattern.fill(partial, 0, 13, 5);

        for (int i = 0; i < 13; i++)
        {
            assertEquals(whole.getByte(i), partial.getByte(i));
        }
        assertEquals(0, partial.getByte(13));
    }

    private static long digestOf(final byte[] bytes)
    {
        return ContentDigest.digest(new UnsafeBuffer(bytes), 0, bytes.length);
    }

    private static byte[] counting(final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)i;
        }
        return bytes;
    }
}
