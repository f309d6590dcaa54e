package io.kvledger.journal;

import io.kvledger.journal.codec.DocumentEncoder;
import io.kvledger.journal.codec.MessageHeaderEncoder;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * Layout of the frame that wraps every SBE message inside one Chronicle Queue document.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  payloadLength (int32, LE)                    |  bytes of the payload that follows
 *  +---------------------------------------------------------------+
 *  |                     crc32 (int32, LE)                         |  CRC-32 of the payload
 *  +---------------------------------------------------------------+
 *  |                magic 0x4B564C47 "KVLG" (int32, LE)            |
 *  +---------------------------------------------------------------+
 *  |        payload: SBE messageHeader + JournalHeader | Document  ...
 *  +---------------------------------------------------------------+
 * </pre>
 * The Chronicle document length is always exactly {@code HEADER_LENGTH + payloadLength}.
 */
public final class JournalFrame
{
    /** Offset of the payload length field. */
    public static final int LENGTH_OFFSET = 0;

    /** Offset of the CRC-32 field. */
    public static final int CRC_OFFSET = 4;

    /** Offset of the magic field. */
    public static final int MAGIC_OFFSET = 8;

    /** Bytes before the SBE payload. */
    public static final int HEADER_LENGTH = 12;

    /** "KVLG" read as a little-endian int32. */
    public static final int MAGIC = 0x4B564C47;

    /** Byte order of the frame fields, the same as the SBE schema's. */
    public static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;

    /** Largest count of a repeating group (uint16 with 65,535 reserved as the SBE null value). */
    public static final int MAX_GROUP_COUNT = 65_534;

    /**
     * Largest frame any writer can produce: a Document with full fingerprint and effect groups, rounded up.
     * Readers refuse longer documents before copying them.
     */
    public static final int MAX_FRAME_LENGTH = 8 * 1024 * 1024;

    static
    {
        final long largest = HEADER_LENGTH + MessageHeaderEncoder.ENCODED_LENGTH + DocumentEncoder.BLOCK_LENGTH +
            2L * DocumentEncoder.FingerprintsEncoder.sbeHeaderSize() +
            (long)MAX_GROUP_COUNT * DocumentEncoder.FingerprintsEncoder.sbeBlockLength() +
            (long)MAX_GROUP_COUNT * DocumentEncoder.EffectsEncoder.sbeBlockLength();
        if (largest > MAX_FRAME_LENGTH)
        {
            throw new IllegalStateException("MAX_FRAME_LENGTH " + MAX_FRAME_LENGTH + " < largest document " + largest);
        }
    }

    private JournalFrame()
    {
    }

    /**
     * CRC-32 of a region of a buffer, computed without allocating.
     *
     * @param crc     reusable checksum, reset here.
     * @param scratch reusable copy area for buffers not backed by a byte array (any length above zero).
     * @param buffer  holding the region.
     * @param offset  of the region in the buffer.
     * @param length  of the region.
     * @return the CRC-32 as an int, as stored in the frame.
     */
    public static int crc32(
        final CRC32 crc, final byte[] scratch, final DirectBuffer buffer, final int offset, final int length)
    {
        crc.reset();
        final byte[] array = buffer.byteArray();
        if (null != array)
        {
            crc.update(array, buffer.wrapAdjustment() + offset, length);
        }
        else
        {
            int done = 0;
            while (done < length)
            {
                final int chunk = Math.min(scratch.length, length - done);
                buffer.getBytes(offset + done, scratch, 0, chunk);
                crc.update(scratch, 0, chunk);
                done += chunk;
            }
        }
        return (int)crc.getValue();
    }
}
