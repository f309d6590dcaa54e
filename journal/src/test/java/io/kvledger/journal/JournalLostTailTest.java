package io.kvledger.journal;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A power loss, or a page-cache writeback that never reached the disk, can leave the last data pages of a queue file
 * zero from a document boundary on, while Chronicle's store header (the file's first page) still records where the
 * last document was written. The read stops at the zeros exactly as at a clean end: it used to report
 * {@link ReadStatus#CLEAN} with no hint of the loss. It is a {@link ReadStatus#TORN_TAIL} now, naming both ends.
 */
class JournalLostTailTest
{
    private static final int CHRONICLE_META_DATA = 0x4000_0000;
    private static final int CHRONICLE_LENGTH_MASK = 0x3FFF_FFFF;

    @TempDir
    Path tempDir;

    @Test
    void shouldReportAJournalWhoseLastPagesAreZeroFromADocumentBoundary() throws IOException
    {
        final Path dir = write(tempDir.resolve("journal"), 200);
        final ReadOutcome clean = JournalReader.open(dir).read(new Counter());
        assertEquals(ReadStatus.CLEAN, clean.status(), clean.message());
        final Path queue = dir.resolve(clean.stopFile());
        final List<Long> starts = dataDocumentStarts(dir, queue);
        assertEquals(201, starts.size(), "the header and one Chronicle document per input");

        zero(queue, starts.get(150), clean.stopOffset());
        final byte[] damaged = Files.readAllBytes(queue);
        final Counter counter = new Counter();
        final ReadOutcome outcome = JournalReader.open(dir).read(counter);

        assertEquals(ReadStatus.TORN_TAIL, outcome.status(), outcome.message());
        assertEquals(149, outcome.documents());
        assertEquals(149, counter.documents);
        assertEquals(149, outcome.lastSequence());
        assertEquals(starts.get(150), outcome.stopOffset());
        assertEquals(queue.getFileName().toString(), outcome.stopFile());
        assertEquals("read the header and 149 documents; the journal ends early: " + queue.getFileName() +
            " ends at byte 0x" + Long.toHexString(starts.get(150)) + " after 150 Chronicle documents, but " +
            "Chronicle's store header records 201 Chronicle documents written to it, the last at byte 0x" +
            Long.toHexString(starts.get(200)) + " (index 0x" + Long.toHexString(outcome.lastIndex() + 51) + "): " +
            "what followed sequence 149 is lost (zeroed pages: a power loss or a lost writeback)", outcome.message());
        assertArrayEquals(damaged, Files.readAllBytes(queue), "the reader never writes the journal");
    }

    @Test
    void shouldReportALostLastDocumentAndLostBatchesOfFrames() throws IOException
    {
        final Path single = write(tempDir.resolve("single"), 20);
        final ReadOutcome clean = JournalReader.open(single).read(new Counter());
        final Path queue = single.resolve(clean.stopFile());
        final List<Long> starts = dataDocumentStarts(single, queue);
        zero(queue, starts.get(starts.size() - 1), clean.stopOffset());

        final ReadOutcome lastLost = JournalReader.open(single).read(new Counter());
        assertEquals(ReadStatus.TORN_TAIL, lastLost.status(), lastLost.message());
        assertEquals(19, lastLost.documents());
        assertTrue(lastLost.message().contains("records 21 Chronicle documents written to it"), lastLost.message());

        final Path batches = writeThroughTheJournaller(tempDir.resolve("batches"), 3_000);
        final ReadOutcome batchesClean = JournalReader.open(batches).read(new Counter());
        assertEquals(ReadStatus.CLEAN, batchesClean.status(), batchesClean.message());
        final Path batchQueue = batches.resolve(batchesClean.stopFile());
        final List<Long> batchStarts = dataDocumentStarts(batches, batchQueue);
        assertTrue(batchStarts.size() < 3_000, batchStarts.size() + " Chronicle documents: no batch of frames");
        final int kept = batchStarts.size() / 2;
        final Counter before = new Counter(kept);
        JournalReader.open(batches).read(before);
        zero(batchQueue, batchStarts.get(kept), batchesClean.stopOffset());

        final ReadOutcome outcome = JournalReader.open(batches).read(new Counter());
        assertEquals(ReadStatus.TORN_TAIL, outcome.status(), outcome.message());
        assertEquals(before.inFirstChronicleDocuments, outcome.documents(), outcome.message());
        assertTrue(outcome.message().contains(" after " + kept + " Chronicle documents, but Chronicle's store " +
            "header records " + batchStarts.size() + " Chronicle documents written to it, the last at byte 0x" +
            Long.toHexString(batchStarts.get(batchStarts.size() - 1)) + " "), outcome.message());
    }

    @Test
    void shouldReadAHealthyJournalCleanWhetherClosedStillOpenOrWrittenInBatches()
    {
        final ReadOutcome closed = JournalReader.open(write(tempDir.resolve("closed"), 50)).read(new Counter());
        assertClean(closed, 50);

        final Path open = tempDir.resolve("open");
        try (JournalWriter writer = JournalWriter.open(open, JournalTestData.header(8), false,
            JournalTestData.SMALL_BLOCK_SIZE))
        {
            final InputRecord input = new InputRecord(64);
            final EffectList effects = new EffectList(16);
            for (int i = 1; i <= 30; i++)
            {
                JournalTestData.document(8, i, input, effects, 8);
                writer.append(input, i, effects);
                if (10 == i || 30 == i)
                {
                    assertClean(JournalReader.open(open).read(new Counter()), i);
                }
            }
        }

        assertClean(JournalReader.open(writeThroughTheJournaller(tempDir.resolve("batches"), 3_000))
            .read(new Counter()), 3_000);
    }

    private static void assertClean(final ReadOutcome outcome, final long documents)
    {
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(documents, outcome.documents(), outcome.message());
        assertFalse(outcome.message().contains("ends early"), outcome.message());
    }

    /** Where each Chronicle data document of a queue file starts, the journal header's first (metadata skipped). */
    private static List<Long> dataDocumentStarts(final Path dir, final Path queue) throws IOException
    {
        final ReadOutcome atHeader = JournalReader.open(dir).read(new Counter(), 1, 0);
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(queue)).order(ByteOrder.LITTLE_ENDIAN);
        final List<Long> starts = new ArrayList<>();
        long at = atHeader.stopOffset();
        while (at + Integer.BYTES <= bytes.capacity() && 0 != bytes.getInt((int)at))
        {
            final int word = bytes.getInt((int)at);
            if (0 == (word & CHRONICLE_META_DATA))
            {
                starts.add(at);
            }
            at = (at + Integer.BYTES + (word & CHRONICLE_LENGTH_MASK) + 3) & ~3L;
        }
        return starts;
    }

    private static void zero(final Path file, final long from, final long to) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(from);
            raf.write(new byte[(int)(to - from)]);
        }
    }

    /**
     * A journal read while its writer appends: the tailer finds nothing at some position, the writer then completes
     * a document there, and the end inspection used to see a complete document Chronicle had not returned and call
     * the journal corrupt (most checks of a live run failed so). A document begun after the read started ends the
     * read cleanly now; every read delivers an unbroken prefix and is never CORRUPT.
     */
    @Test
    void shouldReadAJournalWhileItsWriterAppendsWithoutCallingItCorrupt() throws Exception
    {
        final Path dir = tempDir.resolve("live");
        final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        final java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.CountDownLatch opened = new java.util.concurrent.CountDownLatch(1);
        final Thread writerThread = new Thread(() ->
        {
            try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(8), false,
                JournalTestData.SMALL_BLOCK_SIZE))
            {
                final InputRecord input = new InputRecord(64);
                final EffectList effects = new EffectList(16);
                for (int i = 1; i <= 5 && !stop.get(); i++)
                {
                    JournalTestData.document(8, i, input, effects, 8);
                    writer.append(input, i, effects);
                }
                written.set(5);
                opened.countDown();
                for (int i = 6; i <= 400_000 && !stop.get(); i++)
                {
                    JournalTestData.document(8, i, input, effects, 8);
                    writer.append(input, i, effects);
                    written.set(i);
                }
            }
        }, "live-writer");
        writerThread.start();
        try
        {
            assertTrue(opened.await(30, java.util.concurrent.TimeUnit.SECONDS), "the writer did not start");
            long previous = 0;
            for (int read = 0; read < 60 && writerThread.isAlive(); read++)
            {
                final long before = written.get();
                final Counter counter = new Counter();
                final ReadOutcome outcome = JournalReader.open(dir).read(counter);
                assertTrue(outcome.status() == ReadStatus.CLEAN || outcome.status() == ReadStatus.TORN_TAIL,
                    "read " + read + " of a live journal: " + outcome.status() + " " + outcome.message());
                assertEquals(outcome.documents(), counter.documents);
                assertTrue(outcome.documents() >= before, "a read missed documents written before it started");
                assertTrue(outcome.documents() >= previous, "a later read delivered fewer documents");
                previous = outcome.documents();
            }
        }
        finally
        {
            stop.set(true);
            writerThread.join(30_000);
        }
        final ReadOutcome closed = JournalReader.open(dir).read(new Counter());
        assertEquals(ReadStatus.CLEAN, closed.status(), closed.message());
        assertEquals(written.get(), closed.documents());
    }

    private static Path write(final Path dir, final int documents)
    {
        return JournalTestData.write(dir, documents);
    }

    private static Path writeThroughTheJournaller(final Path dir, final int documents)
    {
        try (Journaller journaller = Journaller.start(
            JournalWriter.open(dir, JournalTestData.header(9), false, JournalTestData.SMALL_BLOCK_SIZE), 1 << 16,
            new BackoffIdleStrategy()))
        {
            final InputRecord input = new InputRecord(64);
            final EffectList effects = new EffectList(16);
            for (int i = 1; i <= documents; i++)
            {
                JournalTestData.document(9, i, input, effects, 8);
                journaller.append(input, i, effects);
            }
        }
        return dir;
    }

    /** Counts documents, and those held in the first Chronicle documents of their cycle. */
    private static final class Counter implements JournalListener
    {
        private final long chronicleDocuments;
        private long documents;
        private long inFirstChronicleDocuments;

        Counter()
        {
            this(0);
        }

        Counter(final long chronicleDocuments)
        {
            this.chronicleDocuments = chronicleDocuments;
        }

        public void onDocument(
            final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
        {
            documents++;
            if (JournalWriter.ROLL_CYCLE.toSequenceNumber(position.index()) < chronicleDocuments)
            {
                inFirstChronicleDocuments++;
            }
        }
    }
}
