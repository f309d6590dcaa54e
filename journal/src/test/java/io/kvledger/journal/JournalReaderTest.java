package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.JournalHeaderDecoder;
import net.openhft.chronicle.core.time.SetTimeProvider;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JournalReaderTest
{
    @TempDir
    Path tempDir;

    private final ExpandableArrayBuffer frame = new ExpandableArrayBuffer(256);

    @Test
    void shouldReportMissingDirectoryWithoutCreatingIt()
    {
        final Path missing = tempDir.resolve("missing");
        final ReadOutcome outcome = JournalReader.open(missing).read(new Recorder());

        assertEquals(ReadStatus.NOT_A_JOURNAL, outcome.status());
        assertTrue(outcome.message().startsWith("no such directory"), outcome.message());
        assertFalse(Files.exists(missing));
    }

    @Test
    void shouldReportFileThatIsNotADirectory() throws IOException
    {
        final Path file = Files.writeString(tempDir.resolve("file"), "x");

        assertEquals(ReadStatus.NOT_A_JOURNAL, JournalReader.open(file).read(new Recorder()).status());
    }

    @Test
    void shouldReportEmptyDirectoryAndQueueWithoutDocuments() throws IOException
    {
        final Path empty = Files.createDirectory(tempDir.resolve("empty"));
        assertEquals(ReadStatus.EMPTY, JournalReader.open(empty).read(new Recorder()).status());

        final Path noDocuments = tempDir.resolve("no-documents");
        new RawJournal(noDocuments).close();
        final ReadOutcome outcome = JournalReader.open(noDocuments).read(new Recorder());
        assertEquals(ReadStatus.EMPTY, outcome.status(), outcome.message());
    }

    @Test
    void shouldReportDirectoryOfOtherFiles() throws IOException
    {
        final Path other = Files.createDirectory(tempDir.resolve("other"));
        Files.writeString(other.resolve("notes.txt"), "hello");

        final ReadOutcome outcome = JournalReader.open(other).read(new Recorder());
        assertEquals(ReadStatus.NOT_A_JOURNAL, outcome.status());
        assertTrue(outcome.message().contains("holds 1 file but no Chronicle queue file"), outcome.message());
        Files.writeString(other.resolve("more.txt"), "hello");
        assertTrue(JournalReader.open(other).read(new Recorder()).message().contains("holds 2 files but"));
    }

    /**
     * An unreadable file or directory is named with the operating system's reason, not an exception class: the
     * commands print the message as their one-line error ("cannot read queue file X:
     * java.nio.file.AccessDeniedException: X" before). As root permissions are not enforced, so the files are
     * made unreadable only where that holds; the reasons themselves are checked everywhere.
     */
    @Test
    void shouldSayPermissionDeniedWithoutAnExceptionName() throws IOException
    {
        assertEquals("permission denied", JournalReader.ioReason(new java.nio.file.AccessDeniedException("/j/x")));
        assertEquals("no such file", JournalReader.ioReason(new java.nio.file.NoSuchFileException("/j/x")));
        assertEquals("Input/output error", JournalReader.ioReason(
            new java.nio.file.FileSystemException("/j/x", null, "Input/output error")));
        assertEquals("I/O error", JournalReader.ioReason(new IOException()));

        final Path dir = tempDir.resolve("unreadable");
        try (RawJournal raw = new RawJournal(dir))
        {
            raw.write(frame, RawJournal.headerFrame(frame));
        }
        final Path queueFile;
        try (var files = Files.list(dir))
        {
            queueFile = files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        final var noAccess = java.nio.file.attribute.PosixFilePermissions.fromString("---------");
        Files.setPosixFilePermissions(queueFile, noAccess);
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(queueFile), "permissions are not enforced");

        final ReadOutcome file = JournalReader.open(dir).read(new Recorder());
        assertEquals("cannot read queue file " + queueFile.getFileName() + ": permission denied", file.message());

        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        final ReadOutcome directory = JournalReader.open(dir).read(new Recorder());
        assertEquals(ReadStatus.NOT_A_JOURNAL, directory.status());
        assertEquals("cannot read " + dir + ": permission denied", directory.message());
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void shouldRefuseNewerSchemaVersion()
    {
        final Path dir = tempDir.resolve("newer");
        try (RawJournal raw = new RawJournal(dir))
        {
            final int length = RawJournal.headerFrame(frame);
            frame.putShort(JournalFrame.HEADER_LENGTH + 6, (short)(JournalHeaderDecoder.SCHEMA_VERSION + 1),
                JournalFrame.BYTE_ORDER);
            RawJournal.reseal(frame, length);
            raw.write(frame, length);
        }

        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);
        assertEquals(ReadStatus.UNSUPPORTED_SCHEMA, outcome.status());
        assertTrue(outcome.message().contains("schema version " + (JournalHeaderDecoder.SCHEMA_VERSION + 1) +
            " is newer than this build's version " + JournalHeaderDecoder.SCHEMA_VERSION), outcome.message());
        assertEquals(0, recorder.headers);
    }

    @Test
    void shouldRefuseUnknownSchemaId()
    {
        final Path dir = tempDir.resolve("unknown");
        try (RawJournal raw = new RawJournal(dir))
        {
            final int length = RawJournal.headerFrame(frame);
            frame.putShort(JournalFrame.HEADER_LENGTH + 4, (short)1234, JournalFrame.BYTE_ORDER);
            RawJournal.reseal(frame, length);
            raw.write(frame, length);
        }

        final ReadOutcome outcome = JournalReader.open(dir).read(new Recorder());
        assertEquals(ReadStatus.UNSUPPORTED_SCHEMA, outcome.status());
        assertTrue(outcome.message().contains("unknown schema id 1234"), outcome.message());
    }

    @Test
    void shouldReportCorruptWhenFirstDocumentIsNotTheHeader()
    {
        final Path dir = tempDir.resolve("no-header");
        try (RawJournal raw = new RawJournal(dir))
        {
            raw.write(frame, RawJournal.documentFrame(frame, 1));
        }

        final ReadOutcome outcome = JournalReader.open(dir).read(new Recorder());
        assertEquals(ReadStatus.CORRUPT, outcome.status());
        assertTrue(outcome.message().startsWith("document 0 at cycle "), outcome.message());
        assertTrue(outcome.message().endsWith("expected the JournalHeader"), outcome.message());
    }

    @Test
    void shouldReportCorruptOnSequenceGapAfterDeliveringThePrefix()
    {
        final Path dir = tempDir.resolve("gap");
        try (RawJournal raw = new RawJournal(dir))
        {
            raw.write(frame, RawJournal.headerFrame(frame));
            raw.write(frame, RawJournal.documentFrame(frame, 1));
            raw.write(frame, RawJournal.documentFrame(frame, 2));
            raw.write(frame, RawJournal.documentFrame(frame, 4));
        }

        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);
        assertEquals(ReadStatus.CORRUPT, outcome.status());
        assertEquals(List.of(1L, 2L), recorder.sequences);
        assertEquals(2, outcome.documents());
        assertEquals(2, outcome.lastSequence());
        assertTrue(outcome.message().startsWith("document 3 at cycle " + outcome.stopCycle() + " index 0x" +
            Long.toHexString(outcome.stopIndex()) + " byte 0x" + Long.toHexString(outcome.stopOffset()) + " of " +
            outcome.stopFile()), outcome.message());
        assertTrue(outcome.message().endsWith("sequence 4 out of order (expected 3)"), outcome.message());
    }

    @Test
    void shouldReportCorruptOnSecondHeaderAndOnBadFrame()
    {
        final Path dir = tempDir.resolve("second-header");
        try (RawJournal raw = new RawJournal(dir))
        {
            raw.write(frame, RawJournal.headerFrame(frame));
            raw.write(frame, RawJournal.headerFrame(frame));
        }
        final ReadOutcome outcome = JournalReader.open(dir).read(new Recorder());
        assertEquals(ReadStatus.CORRUPT, outcome.status());
        assertTrue(outcome.message().endsWith("unexpected second JournalHeader"), outcome.message());

        final Path crc = tempDir.resolve("crc");
        try (RawJournal raw = new RawJournal(crc))
        {
            raw.write(frame, RawJournal.headerFrame(frame));
            final int length = RawJournal.documentFrame(frame, 1);
            frame.putByte(length - 3, (byte)(frame.getByte(length - 3) + 1));
            raw.write(frame, length);
        }
        final ReadOutcome crcOutcome = JournalReader.open(crc).read(new Recorder());
        assertEquals(ReadStatus.CORRUPT, crcOutcome.status());
        assertTrue(crcOutcome.message().startsWith("document 1 at cycle "), crcOutcome.message());
        assertTrue(crcOutcome.message().contains(": crc mismatch (expected 0x"), crcOutcome.message());
    }

    @Test
    void shouldReadFramesLaidEndToEndInOneChronicleDocumentAndStopAtADamagedOne()
    {
        final Path dir = tempDir.resolve("batched");
        final Path damaged = tempDir.resolve("damaged");
        final Path overlong = tempDir.resolve("overlong");
        final org.agrona.ExpandableArrayBuffer one = new org.agrona.ExpandableArrayBuffer(256);
        final int[] ends = new int[4];
        int length = 0;
        for (int s = 1; s <= 3; s++)
        {
            final int frameLength = RawJournal.documentFrame(one, s);
            frame.putBytes(length, one, 0, frameLength);
            length += frameLength;
            ends[s] = length;
        }
        final int batch = length;
        try (RawJournal raw = new RawJournal(dir))
        {
            raw.write(one, RawJournal.headerFrame(one));
            raw.write(frame, batch);
            raw.write(one, RawJournal.documentFrame(one, 4));
        }
        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(List.of(1L, 2L, 3L, 4L), recorder.sequences);

        frame.putByte(ends[2] - 2, (byte)(frame.getByte(ends[2] - 2) ^ 0x40));
        writeHeaderAndBatch(damaged, one, batch);
        final Recorder partial = new Recorder();
        final ReadOutcome crc = JournalReader.open(damaged).read(partial);
        assertEquals(ReadStatus.CORRUPT, crc.status());
        assertEquals(List.of(1L), partial.sequences);
        assertTrue(crc.message().startsWith("document 2 at cycle "), crc.message());
        assertTrue(crc.message().contains(": crc mismatch"), crc.message());

        frame.putByte(ends[2] - 2, (byte)(frame.getByte(ends[2] - 2) ^ 0x40));
        frame.putInt(ends[2] + JournalFrame.LENGTH_OFFSET, batch, JournalFrame.BYTE_ORDER);
        writeHeaderAndBatch(overlong, one, batch);
        final Recorder two = new Recorder();
        final ReadOutcome tooLong = JournalReader.open(overlong).read(two);
        assertEquals(ReadStatus.CORRUPT, tooLong.status());
        assertEquals(List.of(1L, 2L), two.sequences);
        assertTrue(tooLong.message().contains("document 3") && tooLong.message().contains("does not match"),
            tooLong.message());
    }

    private void writeHeaderAndBatch(final Path dir, final org.agrona.ExpandableArrayBuffer scratch, final int batch)
    {
        try (RawJournal raw = new RawJournal(dir))
        {
            raw.write(scratch, RawJournal.headerFrame(scratch));
            raw.write(frame, batch);
        }
    }

    @Test
    void shouldDeliverFromSequenceUpToLimit()
    {
        final Path dir = write(tempDir.resolve("journal"), 20);

        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder, 5, 3);

        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(List.of(5L, 6L, 7L), recorder.sequences);
        assertEquals(1, recorder.headers);
        assertEquals(7, outcome.documents());
        assertEquals(3, outcome.delivered());

        final Recorder all = new Recorder();
        final ReadOutcome rest = JournalReader.open(dir).read(all, 19, Long.MAX_VALUE);
        assertEquals(ReadStatus.CLEAN, rest.status());
        assertEquals(List.of(19L, 20L), all.sequences);
        assertEquals(20, rest.documents());
    }

    @Test
    void shouldReadTheHeaderOnly()
    {
        final Path dir = write(tempDir.resolve("journal"), 5);

        final JournalHeader header = new JournalHeader();
        final ReadOutcome outcome = JournalReader.readHeaderOnly(dir, header);

        assertEquals(ReadStatus.CLEAN, outcome.status());
        assertEquals(0, outcome.documents());
        JournalTestData.assertSameHeader(JournalTestData.header(8), header);
    }

    @Test
    void shouldExposeTheHeaderAfterReadingAndRefuseReadingWhenClosed()
    {
        final Path dir = write(tempDir.resolve("journal"), 1);
        final JournalReader reader = JournalReader.open(dir);
        assertNull(reader.header());

        reader.read(new Recorder());
        JournalTestData.assertSameHeader(JournalTestData.header(8), reader.header());
        reader.close();

        assertThrows(IllegalStateException.class, () -> reader.read(new Recorder()));
    }

    @Test
    void shouldPropagateListenerFailures()
    {
        final Path dir = write(tempDir.resolve("journal"), 3);
        final IllegalStateException failure = new IllegalStateException("listener says no");

        final IllegalStateException thrown = assertThrows(IllegalStateException.class, () ->
            JournalReader.open(dir).read(new Recorder()
            {
                public void onDocument(
                    final InputRecord input, final int resultCode, final EffectList effects,
                    final JournalPosition position)
                {
                    throw failure;
                }
            }));
        assertSame(failure, thrown);
    }

    @Test
    void shouldReportTornTailWhenTheLastDocumentHasNoHeader() throws IOException
    {
        final Path dir = write(tempDir.resolve("journal"), 10);
        final ReadOutcome clean = JournalReader.open(dir).read(new Recorder());
        assertEquals(ReadStatus.CLEAN, clean.status(), clean.message());

        final int length = RawJournal.documentFrame(frame, 11);
        final byte[] bytes = new byte[length];
        frame.getBytes(0, bytes);
        try (RandomAccessFile file = new RandomAccessFile(dir.resolve(clean.stopFile()).toFile(), "rw"))
        {
            file.seek(clean.stopOffset() + 4);
            file.write(bytes, 0, length / 2);
        }

        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);
        assertEquals(ReadStatus.TORN_TAIL, outcome.status(), outcome.message());
        assertEquals(10, outcome.documents());
        assertEquals(10, recorder.sequences.size());
        assertTrue(outcome.message().contains("document 11 at byte 0x" + Long.toHexString(clean.stopOffset()) +
            " was being written when the writer stopped"), outcome.message());
    }

    @Test
    void shouldReportTornTailForAnIncompleteChronicleHeaderAndCorruptWhenDataFollows() throws IOException
    {
        final Path dir = write(tempDir.resolve("journal"), 10);
        final ReadOutcome clean = JournalReader.open(dir).read(new Recorder());
        final Path file = dir.resolve(clean.stopFile());

        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(clean.stopOffset());
            raf.writeInt(Integer.reverseBytes(0x8000_0000));
            raf.writeInt(Integer.reverseBytes(0x1234));
        }
        final ReadOutcome torn = JournalReader.open(dir).read(new Recorder());
        assertEquals(ReadStatus.TORN_TAIL, torn.status(), torn.message());
        assertTrue(torn.message().contains("Chronicle header 0x80000000"), torn.message());

        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(clean.stopOffset() + 8192);
            raf.writeInt(0x0100_0000);
        }
        final ReadOutcome corrupt = JournalReader.open(dir).read(new Recorder());
        assertEquals(ReadStatus.CORRUPT, corrupt.status(), corrupt.message());
    }

    @Test
    void shouldReportCorruptForTruncatedQueueFile() throws IOException
    {
        final Path dir = write(tempDir.resolve("journal"), 200);
        final ReadOutcome clean = JournalReader.open(dir).read(new Recorder());
        try (RandomAccessFile raf = new RandomAccessFile(dir.resolve(clean.stopFile()).toFile(), "rw"))
        {
            raf.setLength(clean.stopOffset() - 1000);
        }

        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);
        assertEquals(ReadStatus.CORRUPT, outcome.status(), outcome.message());
        assertTrue(outcome.message().contains("is truncated"), outcome.message());
        assertTrue(outcome.documents() > 150 && outcome.documents() < 200, outcome.message());
        assertEquals(outcome.documents(), recorder.sequences.size());
    }

    @Test
    void shouldEndPromptlyWhenAQueueFileIsCutToALengthThatIsNotAMultipleOfFour() throws IOException
    {
        final Path dir = write(tempDir.resolve("journal"), 20);
        final ReadOutcome clean = JournalReader.open(dir).read(new Recorder());
        for (final long length : new long[] {32_773, 32_774, 32_775})
        {
            try (RandomAccessFile raf = new RandomAccessFile(dir.resolve(clean.stopFile()).toFile(), "rw"))
            {
                raf.setLength(length);
            }
            // The scan for stray frames once re-read the last one to three bytes of such a file forever.
            final ReadOutcome outcome = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                java.time.Duration.ofSeconds(30), () -> JournalReader.open(dir).read(new Recorder()));
            assertTrue(ReadStatus.CLEAN != outcome.status(), length + " bytes: " + outcome.message());
        }
    }

    @Test
    void shouldReadAcrossRollCyclesAndSyncEachFile()
    {
        final Path dir = writeAcrossDays(tempDir.resolve("days"), 3, 10);
        assertEquals(3, JournalTestData.queueFiles(dir).size());

        final List<Integer> cycles = new ArrayList<>();
        final Recorder recorder = new Recorder()
        {
            public void onDocument(
                final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
            {
                super.onDocument(input, resultCode, effects, position);
                cycles.add(position.cycle());
            }
        };
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);

        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(30, outcome.documents());
        assertEquals(30, recorder.sequences.size());
        assertEquals(3, cycles.stream().distinct().count());
        assertEquals(cycles.get(29), outcome.stopCycle());
    }

    @Test
    void shouldReportCorruptWhenAMiddleCycleFileIsMissing() throws IOException
    {
        final Path dir = writeAcrossDays(tempDir.resolve("days"), 3, 10);
        Files.delete(JournalTestData.queueFiles(dir).get(1));

        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);

        assertEquals(ReadStatus.CORRUPT, outcome.status(), outcome.message());
        assertEquals(10, outcome.documents());
        assertTrue(outcome.message().endsWith("sequence 21 out of order (expected 11)"), outcome.message());
    }

    /**
     * A writer killed while it starts a new cycle leaves that queue file empty (0 bytes) or all zero: the documents of
     * the earlier files all read, as for an all-zero file, and the empty file is left as it is. An empty file used
     * to stop the whole read with "no document could be read", though every earlier document was whole.
     */
    @Test
    void shouldReadEveryEarlierDocumentWhenTheLastCycleFileIsEmptyOrAllZero() throws IOException
    {
        final Path empty = writeAcrossDays(tempDir.resolve("empty"), 2, 10);
        final Path emptyFile = JournalTestData.queueFiles(empty).get(1);
        final Path zero = writeAcrossDays(tempDir.resolve("zero"), 2, 10);
        final Path zeroFile = JournalTestData.queueFiles(zero).get(1);
        final long zeroLength = Files.size(zeroFile);
        try (RandomAccessFile raf = new RandomAccessFile(emptyFile.toFile(), "rw"))
        {
            raf.setLength(0);
        }
        try (RandomAccessFile raf = new RandomAccessFile(zeroFile.toFile(), "rw"))
        {
            raf.setLength(0);
            raf.setLength(zeroLength);
        }

        final Recorder zeroRecorder = new Recorder();
        final ReadOutcome zeroOutcome = JournalReader.open(zero).read(zeroRecorder);
        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(empty).read(recorder);

        assertEquals(10, zeroOutcome.documents(), zeroOutcome.message());
        assertEquals(zeroOutcome.status(), outcome.status(), outcome.message());
        assertEquals(10, outcome.documents(), outcome.message());
        assertEquals(10, recorder.sequences.size());
        assertEquals(0, Files.size(emptyFile), "the reader leaves the empty file as it is");
    }

    @Test
    void shouldRefuseAMissingEmptyOrForeignMetadataFileBeforeOpeningChronicle() throws IOException
    {
        final Path missing = write(tempDir.resolve("missing"), 5);
        Files.delete(missing.resolve("metadata.cq4t"));
        final Path empty = write(tempDir.resolve("empty"), 5);
        Files.write(empty.resolve("metadata.cq4t"), new byte[0]);
        final Path foreign = write(tempDir.resolve("foreign"), 5);
        Files.writeString(foreign.resolve("metadata.cq4t"), "not chronicle metadata, just text");

        assertMetadataRefused(missing, "metadata.cq4t is missing: ");
        assertMetadataRefused(empty, "metadata.cq4t is empty: ");
        assertMetadataRefused(foreign, "metadata.cq4t is not Chronicle queue metadata: it starts with 0x6e6f74");
    }

    /**
     * A metadata file whose header document is damaged but still tagged "header" passes the check before Chronicle
     * and fails in Chronicle's table store, which retries it as if locked (chronicle.table.store.timeoutMS, 10 s by
     * default) before failing: the error names metadata.cq4t. It used to blame the queue file ("the queue file
     * ...cq4 is damaged before the first document").
     */
    @Test
    void shouldNameTheMetadataFileWhenChronicleCannotDecodeIt() throws IOException
    {
        final Path dir = write(tempDir.resolve("damaged-metadata"), 5);
        final Path metadata = dir.resolve("metadata.cq4t");
        final byte[] bytes = Files.readAllBytes(metadata);
        bytes[4] ^= 0x10;
        Files.write(metadata, bytes);

        assertMetadataRefused(dir, "metadata.cq4t is damaged: Chronicle Queue cannot decode its metadata");
    }

    /**
     * One byte set to 0xFF in the Chronicle header word of a document in the middle marks it "not complete" with a
     * length past the end of the file. It was read as a torn tail: the documents before it read as the whole journal
     * (exit 0, "clean", one warning line) and the complete documents after it were dropped. Complete frames after an
     * unfinished document mean damage, not a writer that stopped.
     */
    @Test
    void shouldRefuseAnIncompleteMarkInTheMiddleOfTheJournal() throws IOException
    {
        final Path dir = write(tempDir.resolve("marked-incomplete"), 10);
        final Path queue = JournalTestData.queueFiles(dir).get(0);
        final byte[] bytes = Files.readAllBytes(queue);
        int frames = 0;
        int word = -1;
        for (int i = 8; i + 4 <= bytes.length && word < 0; i += 4)
        {
            if (bytes[i] == 0x47 && bytes[i + 1] == 0x4C && bytes[i + 2] == 0x56 && bytes[i + 3] == 0x4B &&
                frames++ == 5)
            {
                word = i - 8 - 4;
            }
        }
        try (RandomAccessFile file = new RandomAccessFile(queue.toFile(), "rw"))
        {
            file.seek(word + 3);
            file.write(0xFF);
        }

        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);

        assertEquals(ReadStatus.CORRUPT, outcome.status(), outcome.message());
        assertEquals(4, recorder.sequences.size(), outcome.message());
    }

    @Test
    void shouldRefuseAQueueFileWithoutChronicleHeader() throws IOException
    {
        final Path dir = write(tempDir.resolve("journal"), 5);
        final Path queue = JournalTestData.queueFiles(dir).get(0);
        final byte[] bytes = Files.readAllBytes(queue);
        for (int i = 0; i < 64; i++)
        {
            bytes[i] = (byte)(31 * i + 7);
        }
        Files.write(queue, bytes);

        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);

        assertEquals(ReadStatus.CORRUPT, outcome.status(), outcome.message());
        assertTrue(outcome.message().startsWith("queue file " + queue.getFileName() + " is not a Chronicle queue " +
            "file: it starts with 0x07264564"), outcome.message());
        assertEquals(queue.getFileName().toString(), outcome.stopFile());
        assertEquals(0, recorder.sequences.size());
    }

    private static void assertMetadataRefused(final Path dir, final String prefix) throws IOException
    {
        final List<byte[]> before = contents(dir);
        final Recorder recorder = new Recorder();
        final ReadOutcome outcome = JournalReader.open(dir).read(recorder);

        assertEquals(ReadStatus.CORRUPT, outcome.status(), outcome.message());
        assertTrue(outcome.message().startsWith(prefix), outcome.message());
        assertEquals("metadata.cq4t", outcome.stopFile());
        assertEquals(0, recorder.sequences.size());
        final List<byte[]> after = contents(dir);
        assertEquals(before.size(), after.size(), "no file created or removed");
        for (int i = 0; i < before.size(); i++)
        {
            assertTrue(java.util.Arrays.equals(before.get(i), after.get(i)), "file " + i + " unchanged");
        }
    }

    private static List<byte[]> contents(final Path dir) throws IOException
    {
        final List<byte[]> files = new ArrayList<>();
        try (var list = Files.list(dir))
        {
            for (final Path file : list.sorted().toList())
            {
                files.add(Files.readAllBytes(file));
            }
        }
        return files;
    }

    private static Path writeAcrossDays(final Path dir, final int days, final int documentsPerDay)
    {
        final SetTimeProvider clock = new SetTimeProvider(TimeUnit.DAYS.toNanos(20_000) + TimeUnit.HOURS.toNanos(1));
        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(8), true,
            JournalTestData.SMALL_BLOCK_SIZE, clock))
        {
            final InputRecord input = new InputRecord(64);
            final EffectList effects = new EffectList(16);
            long sequence = 0;
            for (int day = 0; day < days; day++)
            {
                for (int i = 0; i < documentsPerDay; i++)
                {
                    JournalTestData.document(8, ++sequence, input, effects, 8);
                    writer.append(input, 0, effects);
                }
                clock.advanceNanos(TimeUnit.DAYS.toNanos(1));
            }
        }
        return dir;
    }

    private static Path write(final Path dir, final int documents)
    {
        return JournalTestData.write(dir, documents);
    }

    static class Recorder implements JournalListener
    {
        final List<Long> sequences = new ArrayList<>();
        int headers;

        public void onHeader(final JournalHeader header, final JournalPosition position)
        {
            headers++;
        }

        public void onDocument(
            final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
        {
            assertEquals(InputType.class, input.type().getClass());
            sequences.add(input.sequence());
        }
    }
}
