package io.kvledger.journal;

import io.kvledger.journal.codec.DocumentDecoder;
import io.kvledger.journal.codec.JournalHeaderDecoder;
import io.kvledger.journal.codec.MessageHeaderDecoder;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JournalAdapterTest
{
    private static final int PAYLOAD = JournalFrame.HEADER_LENGTH;
    private static final int TEMPLATE_ID_OFFSET = PAYLOAD + 2;
    private static final int SCHEMA_ID_OFFSET = PAYLOAD + 4;
    private static final int VERSION_OFFSET = PAYLOAD + 6;
    private static final int BODY = PAYLOAD + MessageHeaderDecoder.ENCODED_LENGTH;
    private static final int FINGERPRINTS = BODY + DocumentDecoder.BLOCK_LENGTH;

    private final JournalAdapter adapter = new JournalAdapter();
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);

    @Test
    void shouldDecodeHeaderAndDocument()
    {
        final int headerLength = RawJournal.headerFrame(buffer);
        assertEquals(FrameStatus.HEADER, adapter.decode(buffer, 0, headerLength));
        JournalTestData.assertSameHeader(JournalTestData.header(1), adapter.header());

        final int documentLength = RawJournal.documentFrame(buffer, 5);
        assertEquals(FrameStatus.DOCUMENT, adapter.decode(buffer, 0, documentLength));
        assertEquals(5, adapter.input().sequence());
        assertEquals(7, adapter.resultCode());
        assertEquals(1, adapter.effects().size());
        assertEquals("", adapter.errorMessage());
    }

    @Test
    void shouldDecodeFromBufferNotBackedByArray()
    {
        final int length = RawJournal.documentFrame(buffer, 9);
        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        direct.putBytes(0, buffer, 0, length);

        assertEquals(FrameStatus.DOCUMENT, adapter.decode(direct, 0, length));
        assertEquals(9, adapter.input().sequence());
    }

    @Test
    void shouldRefuseShortFrame()
    {
        assertEquals(FrameStatus.TOO_SHORT, adapter.decode(buffer, 0, 19));
        assertTrue(adapter.errorMessage().contains("shorter than a frame"), adapter.errorMessage());
    }

    @Test
    void shouldRefuseBadMagic()
    {
        final int length = RawJournal.documentFrame(buffer, 1);
        buffer.putInt(JournalFrame.MAGIC_OFFSET, 0x12345678, JournalFrame.BYTE_ORDER);

        assertEquals(FrameStatus.BAD_MAGIC, adapter.decode(buffer, 0, length));
        assertEquals("bad magic (expected 0x4b564c47, found 0x12345678)", adapter.errorMessage());
    }

    @Test
    void shouldRefuseLengthThatDisagreesWithDocument()
    {
        final int length = RawJournal.documentFrame(buffer, 1);

        assertEquals(FrameStatus.BAD_LENGTH, adapter.decode(buffer, 0, length + 4));
        buffer.putInt(JournalFrame.LENGTH_OFFSET, -1, JournalFrame.BYTE_ORDER);
        assertEquals(FrameStatus.BAD_LENGTH, adapter.decode(buffer, 0, length));
        assertTrue(adapter.errorMessage().contains("4294967295"), adapter.errorMessage());
    }

    @Test
    void shouldRefuseCrcMismatch()
    {
        final int length = RawJournal.documentFrame(buffer, 1);
        final int storedCrc = buffer.getInt(JournalFrame.CRC_OFFSET, JournalFrame.BYTE_ORDER);
        buffer.putByte(length - 1, (byte)(buffer.getByte(length - 1) ^ 0x10));

        assertEquals(FrameStatus.CRC_MISMATCH, adapter.decode(buffer, 0, length));
        assertTrue(adapter.errorMessage().startsWith("crc mismatch (expected 0x" + Integer.toHexString(storedCrc) +
            ", found 0x"), adapter.errorMessage());
    }

    @Test
    void shouldRefuseUnknownSchemaAndNewerVersion()
    {
        int length = RawJournal.documentFrame(buffer, 1);
        buffer.putShort(SCHEMA_ID_OFFSET, (short)42, JournalFrame.BYTE_ORDER);
        RawJournal.reseal(buffer, length);
        assertEquals(FrameStatus.UNKNOWN_SCHEMA, adapter.decode(buffer, 0, length));
        assertEquals("unknown schema id 42 (expected " + JournalHeaderDecoder.SCHEMA_ID + ")", adapter.errorMessage());

        length = RawJournal.headerFrame(buffer);
        buffer.putShort(VERSION_OFFSET, (short)(JournalHeaderDecoder.SCHEMA_VERSION + 1), JournalFrame.BYTE_ORDER);
        RawJournal.reseal(buffer, length);
        assertEquals(FrameStatus.NEWER_SCHEMA_VERSION, adapter.decode(buffer, 0, length));
        assertTrue(adapter.lastStatus().isUnsupportedSchema());
    }

    @Test
    void shouldRefuseUnknownTemplate()
    {
        final int length = RawJournal.documentFrame(buffer, 1);
        buffer.putShort(TEMPLATE_ID_OFFSET, (short)77, JournalFrame.BYTE_ORDER);
        RawJournal.reseal(buffer, length);

        assertEquals(FrameStatus.UNKNOWN_TEMPLATE, adapter.decode(buffer, 0, length));
        assertEquals("unknown template id 77", adapter.errorMessage());
    }

    @Test
    void shouldRefuseGroupCountsBeyondTheFrame()
    {
        int length = RawJournal.documentFrameV1(buffer, 1);
        buffer.putShort(FINGERPRINTS + 2, (short)60_000, JournalFrame.BYTE_ORDER);
        RawJournal.reseal(buffer, length);
        assertEquals(FrameStatus.BAD_STRUCTURE, adapter.decode(buffer, 0, length));
        assertTrue(adapter.errorMessage().startsWith("fingerprints group of 60000"), adapter.errorMessage());

        length = RawJournal.documentFrameV1(buffer, 1);
        final int effects = FINGERPRINTS + 4 + DocumentDecoder.FingerprintsDecoder.sbeBlockLength();
        buffer.putShort(effects + 2, (short)2, JournalFrame.BYTE_ORDER);
        RawJournal.reseal(buffer, length);
        assertEquals(FrameStatus.BAD_STRUCTURE, adapter.decode(buffer, 0, length));
        assertTrue(adapter.errorMessage().startsWith("effects group of 2"), adapter.errorMessage());

        length = RawJournal.documentFrameV1(buffer, 1);
        buffer.putShort(FINGERPRINTS, (short)3, JournalFrame.BYTE_ORDER);
        RawJournal.reseal(buffer, length);
        assertEquals(FrameStatus.BAD_STRUCTURE, adapter.decode(buffer, 0, length));
    }

    @Test
    void shouldRefuseBlockShorterThanTheSchemaBlock()
    {
        final int length = RawJournal.documentFrameV1(buffer, 1);
        buffer.putShort(PAYLOAD, (short)10, JournalFrame.BYTE_ORDER);
        RawJournal.reseal(buffer, length);

        assertEquals(FrameStatus.BAD_STRUCTURE, adapter.decode(buffer, 0, length));
        assertTrue(adapter.errorMessage().contains("block length 10"), adapter.errorMessage());
    }

    @Test
    void shouldRefuseTrailingBytes()
    {
        final int length = RawJournal.documentFrameV1(buffer, 1);
        buffer.putInt(length, 0);
        RawJournal.reseal(buffer, length + 4);

        assertEquals(FrameStatus.BAD_STRUCTURE, adapter.decode(buffer, 0, length + 4));
        assertTrue(adapter.errorMessage().contains("4 more bytes"), adapter.errorMessage());
    }

    @Test
    void shouldRefuseCodesOutsideTheirEnums()
    {
        int length = RawJournal.documentFrameV1(buffer, 1);
        buffer.putByte(BODY + DocumentDecoder.inputTypeEncodingOffset(), (byte)99);
        RawJournal.reseal(buffer, length);
        assertEquals(FrameStatus.BAD_VALUE, adapter.decode(buffer, 0, length));

        length = RawJournal.documentFrameV1(buffer, 1);
        final int effect = FINGERPRINTS + 4 + DocumentDecoder.FingerprintsDecoder.sbeBlockLength() + 4;
        buffer.putByte(effect + DocumentDecoder.EffectsDecoder.poolEncodingOffset(), (byte)9);
        RawJournal.reseal(buffer, length);
        assertEquals(FrameStatus.BAD_VALUE, adapter.decode(buffer, 0, length));
        assertTrue(adapter.errorMessage().startsWith("effect 0"), adapter.errorMessage());

        length = RawJournal.documentFrameV1(buffer, 1);
        buffer.putByte(effect + DocumentDecoder.EffectsDecoder.effectTypeEncodingOffset(), (byte)255);
        RawJournal.reseal(buffer, length);
        assertEquals(FrameStatus.BAD_VALUE, adapter.decode(buffer, 0, length));
    }

    @Test
    void shouldRefuseHeaderStringLongerThanTheFrame()
    {
        final int length = RawJournal.headerFrame(buffer);
        buffer.putInt(BODY + JournalHeaderDecoder.BLOCK_LENGTH, 1_000_000, JournalFrame.BYTE_ORDER);
        RawJournal.reseal(buffer, length);

        assertEquals(FrameStatus.BAD_STRUCTURE, adapter.decode(buffer, 0, length));
        assertTrue(adapter.errorMessage().contains("kvledgerVersion length 1000000"), adapter.errorMessage());
    }

    @Test
    void shouldDecodeVersion1AndCompactDocumentsAlike()
    {
        final int v1 = RawJournal.documentFrameV1(buffer, 5);
        assertEquals(FrameStatus.DOCUMENT, adapter.decode(buffer, 0, v1));
        assertEquals(1, adapter.schemaVersion());
        final EffectList fromV1 = new EffectList(4);
        fromV1.addCopy(adapter.effects(), 0);
        final InputRecord inputV1 = new InputRecord(8).copyFrom(adapter.input());

        final int v2 = RawJournal.documentFrame(buffer, 5);
        assertEquals(FrameStatus.DOCUMENT, adapter.decode(buffer, 0, v2));
        assertEquals(4, adapter.schemaVersion());
        assertTrue(v2 < v1, "compact " + v2 + " bytes, fixed " + v1);
        assertEquals(-1, fromV1.firstDifference(adapter.effects()));
        assertTrue(inputV1.sameAs(adapter.input()));
        assertEquals(7, adapter.resultCode());
    }

    @Test
    void shouldRefuseCompactBodyThatDisagreesWithTheFrame()
    {
        final int length = RawJournal.documentFrame(buffer, 1);
        buffer.putInt(length, 0);
        RawJournal.reseal(buffer, length + 4);
        assertEquals(FrameStatus.BAD_STRUCTURE, adapter.decode(buffer, 0, length + 4));
        assertTrue(adapter.errorMessage().contains("does not match the frame"), adapter.errorMessage());
    }

    @Test
    void shouldDecodeWithoutAllocatingAfterWarmUp()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final Random random = new Random(3);
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        JournalTestData.randomInput(random, input, 1, JournalTestData.INPUT_TYPES[0]);
        for (int i = 0; i < 50; i++)
        {
            JournalTestData.randomEffect(random, effects, JournalTestData.EFFECT_TYPES[i % 25]);
        }
        final int v1Length = new JournalEncoder().encodeDocumentV1(buffer, 0, input, 1, effects);
        final int length = new JournalEncoder().encodeDocument(buffer, v1Length, input, 1, effects);
        final int decodes = 100_000;
        for (int i = 0; i < decodes; i++)
        {
            adapter.decode(buffer, 0, v1Length);
        }
        for (int i = 0; i < decodes; i++)
        {
            adapter.decode(buffer, v1Length, length);
        }

        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < decodes; i++)
        {
            adapter.decode(buffer, 0, v1Length);
            adapter.decode(buffer, v1Length, length);
        }
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertTrue(allocated < decodes, decodes + " decodes allocated " + allocated + " bytes; one object per " +
            "decode would be at least " + 16 * decodes);
    }
}
