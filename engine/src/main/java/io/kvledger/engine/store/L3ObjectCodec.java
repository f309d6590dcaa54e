package io.kvledger.engine.store;

import io.kvledger.engine.device.ContentDigest;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The layout of one stored L3 object, the same in every store (a file of {@link FileL3Store}, a Redis value of the
 * shared store): a 40-byte little-endian header (magic "KVL3", version, kind, content length, reserved, the page's
 * 128-bit fingerprint, a digest of the content), then the content. Writing seals the header; reading accepts an
 * object only when every header field and the digest match what the caller asked for.
 */
public final class L3ObjectCodec
{
    /** Bytes of the header before the content. */
    public static final int HEADER_LENGTH = 40;
    /** "KVL3" read as a little-endian int. */
    public static final int MAGIC = 0x334C564B;
    /** Object format version. */
    public static final short VERSION = 1;

    private static final int MAGIC_OFFSET = 0;
    private static final int VERSION_OFFSET = 4;
    private static final int KIND_OFFSET = 6;
    private static final int LENGTH_OFFSET = 8;
    private static final int RESERVED_OFFSET = 12;
    private static final int HI_OFFSET = 16;
    private static final int LO_OFFSET = 24;
    private static final int DIGEST_OFFSET = 32;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private L3ObjectCodec()
    {
    }

    /**
     * Write a whole object (header and content) at the start of {@code buffer}.
     *
     * @param buffer receives {@link #HEADER_LENGTH} + {@code length} bytes.
     * @param kind   the object's kind (page or Mamba state).
     * @param hi     high 64 bits of the fingerprint.
     * @param lo     low 64 bits of the fingerprint.
     * @param src    the content.
     * @param length bytes of content.
     */
    public static void encode(
        final MutableDirectBuffer buffer, final int kind, final long hi, final long lo, final DirectBuffer src,
        final int length)
    {
        buffer.putInt(MAGIC_OFFSET, MAGIC, LE);
        buffer.putShort(VERSION_OFFSET, VERSION, LE);
        buffer.putShort(KIND_OFFSET, (short)kind, LE);
        buffer.putInt(LENGTH_OFFSET, length, LE);
        buffer.putInt(RESERVED_OFFSET, 0, LE);
        buffer.putLong(HI_OFFSET, hi, LE);
        buffer.putLong(LO_OFFSET, lo, LE);
        buffer.putBytes(HEADER_LENGTH, src, 0, length);
        buffer.putLong(DIGEST_OFFSET, ContentDigest.digest(buffer, HEADER_LENGTH, length), LE);
    }

    /**
     * Whether the object at the start of {@code buffer} is the one asked for, whole.
     *
     * @param buffer holds {@link #HEADER_LENGTH} + {@code length} bytes.
     * @param kind   the kind asked for.
     * @param hi     high 64 bits of the fingerprint asked for.
     * @param lo     low 64 bits of the fingerprint asked for.
     * @param length bytes of content expected.
     * @return true when magic, version, kind, length, fingerprint and digest all match.
     */
    public static boolean verify(
        final DirectBuffer buffer, final int kind, final long hi, final long lo, final int length)
    {
        return buffer.getInt(MAGIC_OFFSET, LE) == MAGIC &&
            buffer.getShort(VERSION_OFFSET, LE) == VERSION &&
            buffer.getShort(KIND_OFFSET, LE) == kind &&
            buffer.getInt(LENGTH_OFFSET, LE) == length &&
            buffer.getLong(HI_OFFSET, LE) == hi &&
            buffer.getLong(LO_OFFSET, LE) == lo &&
            buffer.getLong(DIGEST_OFFSET, LE) == ContentDigest.digest(buffer, HEADER_LENGTH, length);
    }
}
