package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.file.Path;
import java.util.zip.CRC32;

/**
 * Writes arbitrary frames into a Chronicle queue laid out like a journal, to build journals a correct writer
 * never produces.
 */
final class RawJournal implements AutoCloseable
{
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;

    RawJournal(final Path directory)
    {
        queue = SingleChronicleQueueBuilder.binary(directory)
            .rollCycle(JournalWriter.ROLL_CYCLE)
            .blockSize(JournalTestData.SMALL_BLOCK_SIZE)
            .build();
        appender = queue.createAppender();
    }

    void write(final MutableDirectBuffer frame, final int length)
    {
        final byte[] bytes = new byte[length];
        frame.getBytes(0, bytes);
        try (DocumentContext dc = appender.writingDocument())
        {
            dc.wire().bytes().write(bytes, 0, length);
        }
    }

    public void close()
    {
        appender.close();
        queue.close();
    }

    static int headerFrame(final ExpandableArrayBuffer buffer)
    {
        return new JournalEncoder().encodeHeader(buffer, 0, JournalTestData.header(1));
    }

    static int documentFrame(final ExpandableArrayBuffer buffer, final long sequence)
    {
        final InputRecord input = new InputRecord(8).type(InputType.ADMIT).sequence(sequence).request(sequence * 10)
            .addFingerprint(1, 2);
        final EffectList effects = new EffectList(4);
        JournalTestData.randomEffect(new java.util.Random(sequence), effects, JournalTestData.EFFECT_TYPES[0]);
        return new JournalEncoder().encodeDocument(buffer, 0, input, 7, effects);
    }

    /** The same document in the schema-version-1 fixed layout. */
    static int documentFrameV1(final ExpandableArrayBuffer buffer, final long sequence)
    {
        final InputRecord input = new InputRecord(8).type(InputType.ADMIT).sequence(sequence).request(sequence * 10)
            .addFingerprint(1, 2);
        final EffectList effects = new EffectList(4);
        JournalTestData.randomEffect(new java.util.Random(sequence), effects, JournalTestData.EFFECT_TYPES[0]);
        return new JournalEncoder().encodeDocumentV1(buffer, 0, input, 7, effects);
    }

    /**
     * Recompute the payload length and CRC of a frame after its payload was edited.
     */
    static void reseal(final MutableDirectBuffer frame, final int frameLength)
    {
        final int payloadLength = frameLength - JournalFrame.HEADER_LENGTH;
        frame.putInt(JournalFrame.LENGTH_OFFSET, payloadLength, JournalFrame.BYTE_ORDER);
        frame.putInt(JournalFrame.CRC_OFFSET, JournalFrame.crc32(
            new CRC32(), new byte[64], frame, JournalFrame.HEADER_LENGTH, payloadLength), JournalFrame.BYTE_ORDER);
    }
}
