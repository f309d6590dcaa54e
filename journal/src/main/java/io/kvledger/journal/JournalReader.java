package io.kvledger.journal;

import io.kvledger.journal.codec.DocumentDecoder;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.MappedBytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueStore;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a journal written by {@link JournalWriter}: opens the queue read-only, decodes the header and then every
 * document in order through a {@link JournalAdapter}, checks that sequences run 1, 2, 3 ... and calls a
 * {@link JournalListener}. Bad data never throws: every problem, including any failure inside Chronicle Queue,
 * ends the read with a {@link ReadOutcome} that names the first bad document and where it sits. Only exceptions
 * thrown by the listener propagate. Not thread-safe: one reading thread.
 * <p>
 * A journal is read after its writer has stopped (closed or crashed); a queue still being appended is read up
 * to the documents that existed when the read started.
 * <p>
 * A full read ends by comparing where it stopped with the write position Chronicle's store header records for the
 * last cycle read: a journal whose last pages are zero (lost in a power loss) from a document boundary on looks
 * like a clean end, and is reported {@link ReadStatus#TORN_TAIL} with both positions instead.
 */
public final class JournalReader implements AutoCloseable
{
    /** How long Chronicle may wait for a queue structure that looks unfinished, in milliseconds. */
    public static final long CHRONICLE_TIMEOUT_MS = 500;

    private static final int PAGE_SIZE = 4096;
    private static final int CHRONICLE_HEADER_LENGTH = 4;
    private static final int NOT_COMPLETE = 0x8000_0000;
    private static final int META_DATA = 0x4000_0000;
    private static final int LENGTH_MASK = 0x3FFF_FFFF;
    private static final int END_OF_DATA = NOT_COMPLETE | META_DATA;
    private static final long TAIL_SCAN_BYTES = 2L * JournalFrame.MAX_FRAME_LENGTH;
    private static final int MAX_SKIPPED_METADATA = 4096;
    /** Chronicle's store header (write position, sequence, indexing) lies within the first bytes of a queue file. */
    private static final int STORE_HEADER_SCAN = 512;
    private static final String QUEUE_SUFFIX = ".cq4";
    private static final String TABLE_SUFFIX = ".cq4t";
    /** Chronicle's table store, the file every journal directory holds. */
    public static final String METADATA_FILE = "metadata" + TABLE_SUFFIX;
    /** Chronicle files start with a metadata document whose first field is named "header". */
    private static final byte[] HEADER_TAG = "header".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final Path directory;
    private final JournalAdapter adapter = new JournalAdapter();
    private final JournalPosition position = new JournalPosition();
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[4096]);
    private final Map<String, Long> fileLengths = new HashMap<>();
    private boolean headerRead;
    private boolean closed;

    private String truncatedFile;
    private String firstQueueFile;
    private long truncatedLength;
    private long ordinal;
    private long documents;
    private long delivered;
    private long lastSequence;
    private long lastIndex;
    private int lastCycle;
    /** The queue's last cycle when the read started, and where its last document then began (-1: unknown). */
    private int startCycle;
    private long startWritePosition;
    private long lastEnd;
    private String lastFileName;
    private File lastFile;
    private long lastFileLength;
    private int stopCycle;
    private long stopIndex;
    private long stopOffset;
    private String stopFile;

    private JournalReader(final Path directory)
    {
        this.directory = directory;
    }

    /**
     * Prepare to read the journal in a directory; nothing is opened until {@link #read}, so this never fails.
     *
     * @param directory holding the queue files.
     * @return a reader for that directory.
     */
    public static JournalReader open(final Path directory)
    {
        return new JournalReader(directory);
    }

    /**
     * Read only the header of a journal.
     *
     * @param directory holding the queue files.
     * @param into      header to copy the journal's header into when it is read.
     * @return {@link ReadStatus#CLEAN} when the header was read, otherwise why not.
     */
    public static ReadOutcome readHeaderOnly(final Path directory, final JournalHeader into)
    {
        try (JournalReader reader = open(directory))
        {
            final ReadOutcome outcome = reader.read(NoOpListener.INSTANCE, 1, 0);
            if (null != reader.header())
            {
                into.copyFrom(reader.header());
            }
            return outcome;
        }
    }

    /**
     * Read the header and every document.
     *
     * @param listener told about the header and each document, in order.
     * @return how the read ended.
     */
    public ReadOutcome read(final JournalListener listener)
    {
        return read(listener, 1, Long.MAX_VALUE);
    }

    /**
     * Read the header and the documents from a sequence on; earlier documents are still checked but not delivered.
     *
     * @param listener     told about the header and each delivered document, in order.
     * @param fromSequence first sequence to deliver (1 for all).
     * @param limit        most documents to deliver; reading stops, {@link ReadStatus#CLEAN}, once reached.
     * @return how the read ended.
     */
    public ReadOutcome read(final JournalListener listener, final long fromSequence, final long limit)
    {
        if (closed)
        {
            throw new IllegalStateException("journal reader for " + directory + " is closed");
        }
        try
        {
            return readOnce(listener, fromSequence, limit);
        }
        catch (final InternalError ex)
        {
            // A SIGBUS on a mapped queue file that was truncated or damaged is delivered by the JVM as an
            // InternalError at the next safepoint, which may lie past the inner catch (in Chronicle's own close).
            return chronicleFailure(ex);
        }
    }

    private ReadOutcome readOnce(final JournalListener listener, final long fromSequence, final long limit)
    {
        resetProgress();

        final ReadOutcome refused = scanDirectory();
        if (null != refused)
        {
            return refused;
        }

        SingleChronicleQueue queue = null;
        ExcerptTailer tailer = null;
        try
        {
            try
            {
                queue = SingleChronicleQueueBuilder.binary(directory)
                    .readOnly(true)
                    .rollCycle(JournalWriter.ROLL_CYCLE)
                    .timeoutMS(CHRONICLE_TIMEOUT_MS)
                    .build();
            }
            catch (final RuntimeException | InternalError ex)
            {
                // Building the queue reads only metadata.cq4t (its table store); the queue files are opened by the
                // tailer. Chronicle retries a table store it cannot decode as if another process held its lock,
                // for chronicle.table.store.timeoutMS, then fails.
                return refusedAt(METADATA_FILE, METADATA_FILE + " is damaged: Chronicle Queue cannot decode its " +
                    "metadata (" + (isMappedPageFault(ex) ? "the file ends early" : "overwritten or cut short") +
                    ")");
            }
            tailer = queue.createTailer();
            startCycle = queue.lastCycle();
            startWritePosition = writePosition(queue, startCycle);

            return readDocuments(queue, tailer, listener, fromSequence, limit);
        }
        catch (final ListenerException ex)
        {
            throw ex.rethrow();
        }
        catch (final Throwable ex)
        {
            return chronicleFailure(ex);
        }
        finally
        {
            takePendingFault();
            closeQuietly(tailer);
            closeQuietly(queue);
        }
    }

    /**
     * Take here a SIGBUS that Chronicle's last read of a truncated or damaged file left pending. HotSpot raises a fault
     * of a compiled unsafe read as an asynchronous InternalError at the thread's next return from native code; left
     * pending, that is inside Chronicle's close of the queue, in the file channel's bookkeeping of the threads using
     * it, where it can leave the channel waiting forever for a thread that left long ago (seen once in
     * JournalCorruptionIT: a read of a file truncated inside a document hung in {@code FileChannel.close}). A native
     * call inside a catch takes it where nothing is half done; the outcome already says what the read found.
     */
    private static void takePendingFault()
    {
        try
        {
            Thread.yield();
        }
        catch (final InternalError pendingFault)
        {
            // the fault of a read past the end: the read's outcome reports the damage
        }
    }

    /**
     * The header decoded by the last read.
     *
     * @return the header, or null when no header has been read.
     */
    public JournalHeader header()
    {
        return headerRead ? adapter.header() : null;
    }

    /**
     * Directory this reader reads.
     *
     * @return journal directory.
     */
    public Path directory()
    {
        return directory;
    }

    /**
     * Release the reader; Chronicle resources are already released at the end of each read. Idempotent.
     */
    public void close()
    {
        closed = true;
    }

    private ReadOutcome readDocuments(
        final SingleChronicleQueue queue,
        final ExcerptTailer tailer,
        final JournalListener listener,
        final long fromSequence,
        final long limit)
    {
        while (true)
        {
            if (headerRead && delivered >= limit)
            {
                return outcome(ReadStatus.CLEAN, "read the header and " + documents + " documents; stopped at the " +
                    "limit of " + limit + " delivered documents");
            }
            if (null != truncatedFile && truncatedFile.equals(lastFileName) &&
                align(lastEnd) + CHRONICLE_HEADER_LENGTH > truncatedLength)
            {
                stopAt(lastCycle, -1, align(lastEnd), lastFileName);
                return outcome(ReadStatus.CORRUPT, "document " + ordinal + " at byte 0x" +
                    Long.toHexString(align(lastEnd)) + " of " + truncatedFile + ": " + truncation());
            }

            try (DocumentContext dc = tailer.readingDocument())
            {
                if (!dc.isPresent())
                {
                    break;
                }

                final ReadOutcome stop = onChronicleDocument(queue, dc, listener, fromSequence);
                if (null != stop)
                {
                    return stop;
                }
            }
        }

        return classifyEnd(queue);
    }

    private ReadOutcome onChronicleDocument(
        final SingleChronicleQueue queue,
        final DocumentContext dc,
        final JournalListener listener,
        final long fromSequence)
    {
        final Bytes<?> bytes = dc.wire().bytes();
        final long index = dc.index();
        final int cycle = queue.rollCycle().toCycle(index);
        final long contentOffset = bytes.readPosition();
        final long length = bytes.readRemaining();
        trackFile(bytes);
        stopAt(cycle, index, contentOffset - CHRONICLE_HEADER_LENGTH, lastFileName);

        if (lastFileLength >= 0 && contentOffset > lastFileLength && contentOffset > refreshLength())
        {
            // Chronicle's index points past the end of a truncated file. Reading there is a SIGBUS, which the JVM
            // may report only later (an asynchronous InternalError), after garbage was returned: say it from the
            // file's length instead, as a fault would have. Before the length check below: the length read there
            // is that garbage, and judging it first named a truncated file by whatever bytes the page fault left.
            return chronicleFailure(true);
        }
        if (length > JournalFrame.MAX_FRAME_LENGTH)
        {
            return corrupt("document length " + length + " exceeds the largest frame " + JournalFrame.MAX_FRAME_LENGTH);
        }
        if (lastFileLength >= 0 && contentOffset + length > lastFileLength && contentOffset + length > refreshLength())
        {
            return corrupt("document of " + length + " bytes extends past the end of the file (" + lastFileLength +
                " bytes)");
        }

        final int frameLength = (int)length;
        if (frame.capacity() < frameLength)
        {
            frame.wrap(new byte[Math.max(frameLength, 2 * frame.capacity())]);
        }
        final int copied = bytes.read(frame.byteArray(), 0, frameLength);
        if (copied != frameLength)
        {
            return corrupt("only " + copied + " of " + frameLength + " bytes could be read");
        }

        int at = 0;
        do
        {
            final int left = frameLength - at;
            final int payloadLength = left >= JournalFrame.HEADER_LENGTH ?
                frame.getInt(at + JournalFrame.LENGTH_OFFSET, JournalFrame.BYTE_ORDER) : -1;
            // One frame fills a Chronicle document, or several lie end to end (a journaller's batch): a frame's
            // length field that claims more than what is left is checked by the adapter as the document's length.
            final int frameSize = payloadLength >= 0 && payloadLength <= left - JournalFrame.HEADER_LENGTH ?
                JournalFrame.HEADER_LENGTH + payloadLength : left;
            final ReadOutcome stop = onFrame(cycle, index, contentOffset + at, contentOffset + at + frameSize,
                0 == at, listener, fromSequence, at, frameSize);
            if (null != stop)
            {
                return stop;
            }
            at += frameSize;
        }
        while (at < frameLength);
        return null;
    }

    private ReadOutcome onFrame(final int cycle, final long index, final long start, final long end,
        final boolean firstInDocument, final JournalListener listener, final long fromSequence, final int at,
        final int length)
    {
        if (!firstInDocument)
        {
            stopAt(cycle, index, start, lastFileName);
        }
        final FrameStatus status = adapter.decode(frame, at, length);
        if (status.isUnsupportedSchema())
        {
            return outcome(ReadStatus.UNSUPPORTED_SCHEMA, describeStop() + ": " + adapter.errorMessage() +
                "; this build reads schema " + DocumentDecoder.SCHEMA_ID + " up to version " +
                DocumentDecoder.SCHEMA_VERSION);
        }
        if (!status.isDecoded())
        {
            return corrupt(adapter.errorMessage());
        }

        if (0 == ordinal)
        {
            if (FrameStatus.HEADER != status)
            {
                return corrupt("the first document is a Document (sequence " + adapter.input().sequence() +
                    "), expected the JournalHeader");
            }
            headerRead = true;
            accept(cycle, index, end);
            try
            {
                listener.onHeader(adapter.header(), position.set(cycle, index, 0));
            }
            catch (final Throwable ex)
            {
                throw new ListenerException(ex);
            }
            return null;
        }

        if (FrameStatus.HEADER == status)
        {
            return corrupt("unexpected second JournalHeader");
        }
        final InputRecord input = adapter.input();
        if (input.sequence() != ordinal)
        {
            return corrupt("sequence " + input.sequence() + " out of order (expected " + ordinal + ")");
        }

        final long sequence = ordinal;
        accept(cycle, index, end);
        documents++;
        lastSequence = sequence;
        if (sequence >= fromSequence)
        {
            delivered++;
            try
            {
                listener.onDocument(
                    input, adapter.resultCode(), adapter.effects(), position.set(cycle, index, sequence));
            }
            catch (final Throwable ex)
            {
                throw new ListenerException(ex);
            }
        }
        return null;
    }

    private void accept(final int cycle, final long index, final long end)
    {
        ordinal++;
        lastIndex = index;
        lastCycle = cycle;
        lastEnd = end;
    }

    private void trackFile(final Bytes<?> bytes)
    {
        final File file = bytes instanceof MappedBytes ? ((MappedBytes)bytes).mappedFile().file() : null;
        if (file != lastFile)
        {
            lastFile = file;
            lastFileName = null == file ? "" : file.getName();
            final Long length = fileLengths.get(lastFileName);
            lastFileLength = null == length ? -1 : length;
        }
    }

    private long refreshLength()
    {
        lastFileLength = null == lastFile ? -1 : lastFile.length();
        return lastFileLength;
    }

    private ReadOutcome classifyEnd(final SingleChronicleQueue queue)
    {
        if (0 == ordinal)
        {
            return classifyNoDocument();
        }

        final Path file = null == lastFile ? null : lastFile.toPath();
        if (null == file)
        {
            return endOutcome(ReadStatus.CLEAN, "");
        }

        // Read before the tail is inspected: Chronicle records a document's position only once its header is set,
        // so a live writer's later document is either past this position or visible to the inspection below.
        final long recorded = recordedWritePosition(queue);
        final long start = align(lastEnd);
        stopAt(lastCycle, -1, start, lastFileName);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final ReadOutcome outcome = classifyTail(channel, start);
            if (null != outcome)
            {
                if (liveWriterPast(queue, start))
                {
                    stopAt(lastCycle, -1, start, lastFileName);
                    return endOutcome(ReadStatus.CLEAN, "");
                }
                return outcome;
            }
        }
        catch (final IOException ex)
        {
            return corrupt("cannot inspect the end of " + lastFileName + ": " + ioReason(ex));
        }

        for (final String name : queueFileNames())
        {
            if (name.compareTo(lastFileName) > 0 && holdsFrames(name))
            {
                stopAt(-1, -1, -1, name);
                return corrupt("queue file " + name + " holds journal frames that Chronicle did not return");
            }
        }

        if (recorded >= start && !liveWriterPast(queue, start))
        {
            stopAt(lastCycle, -1, start, lastFileName);
            return endOutcome(ReadStatus.TORN_TAIL, lostTail(file, start, recorded, queue));
        }
        return endOutcome(ReadStatus.CLEAN, "");
    }

    /**
     * Where Chronicle's store header of the last document's cycle says its last document starts: the appender sets
     * it after each document's length header. -1 when it cannot be had (the read's outcome then stands as it is).
     */
    private long recordedWritePosition(final SingleChronicleQueue queue)
    {
        return writePosition(queue, lastCycle);
    }

    private static long writePosition(final SingleChronicleQueue queue, final int cycle)
    {
        SingleChronicleQueueStore store = null;
        try
        {
            store = queue.storeForCycle(cycle, queue.epoch(), false, null);
            return null == store ? -1 : store.writePosition();
        }
        catch (final RuntimeException ex)
        {
            return -1;
        }
        finally
        {
            if (null != store)
            {
                queue.closeStore(store);
            }
        }
    }

    /**
     * The detail of a journal that ends before the document Chronicle's store header records as written last: the
     * pages from the end of what could be read are zero (a power loss, or a page-cache writeback that never reached
     * the disk), or the header was damaged. Names both byte positions and, where the header's sequence can be
     * decoded, how many Chronicle documents the cycle's file recorded and how many were read.
     */
    private String lostTail(final Path file, final long start, final long recorded, final SingleChronicleQueue queue)
    {
        final long readInCycle = queue.rollCycle().toSequenceNumber(lastIndex) + 1;
        final long recordedSequence = recordedSequence(file, recorded, queue);
        final String written = recordedSequence < 0 ? "a document written at byte 0x" + Long.toHexString(recorded) :
            (recordedSequence + 1) + " Chronicle documents written to it, the last at byte 0x" +
            Long.toHexString(recorded) + " (index 0x" +
            Long.toHexString(queue.rollCycle().toIndex(lastCycle, recordedSequence)) + ")";
        return "; the journal ends early: " + lastFileName + " ends at byte 0x" + Long.toHexString(start) + " after " +
            readInCycle + " Chronicle documents, but Chronicle's store header records " + written +
            ": what followed sequence " + lastSequence + " is lost (zeroed pages: a power loss or a lost writeback)";
    }

    /**
     * The sequence Chronicle's store header pairs with its write position, or -1: the header holds the position as
     * a 64-bit value followed by {@code position << shift | sequence}, and only such a self-consistent pair is taken.
     */
    private static long recordedSequence(final Path file, final long position, final SingleChronicleQueue queue)
    {
        final int shift = Math.max(32, 2 * log2(queue.indexCount()) + log2(queue.indexSpacing()));
        final ByteBuffer head = ByteBuffer.allocate(STORE_HEADER_SCAN).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            while (head.hasRemaining() && channel.read(head, head.position()) > 0)
            {
                // read the store header
            }
        }
        catch (final IOException ex)
        {
            return -1;
        }
        for (int at = 0; at + 2 * Long.BYTES <= head.position(); at += Integer.BYTES)
        {
            final long pair = head.getLong(at + Long.BYTES);
            if (head.getLong(at) == position && pair >>> shift == position && 0 != pair)
            {
                return pair & ((1L << shift) - 1);
            }
        }
        return -1;
    }

    private static int log2(final int value)
    {
        return 31 - Integer.numberOfLeadingZeros(value);
    }

    /**
     * Whether a writer is appending past everything this read delivered: the read went past where the queue's last
     * document began when it started (every document that existed then was delivered), and the queue moved on since
     * (its store header records a later write position, or a newer cycle was read). What lies past the end of the
     * read is then the writer's work in progress (a document the tailer found absent and the writer completed just
     * after, or one still being written), not damage: the read ends cleanly, covering the documents that existed
     * when it started. A closed or crashed journal's write position does not move, so its tail is judged as before.
     */
    private boolean liveWriterPast(final SingleChronicleQueue queue, final long end)
    {
        if (lastCycle > startCycle)
        {
            return true;
        }
        return lastCycle == startCycle && startWritePosition >= 0 && end > startWritePosition &&
            writePosition(queue, lastCycle) != startWritePosition;
    }

    private ReadOutcome classifyTail(final FileChannel channel, final long start) throws IOException
    {
        final long fileLength = channel.size();
        long at = start;
        for (int skipped = 0; skipped <= MAX_SKIPPED_METADATA; skipped++)
        {
            stopAt(lastCycle, -1, at, lastFileName);
            if (at + CHRONICLE_HEADER_LENGTH > fileLength)
            {
                return null;
            }

            final int word = readInt(channel, at);
            if (0 == word)
            {
                return classifyUnset(channel, at, fileLength, word);
            }
            if (END_OF_DATA == word)
            {
                final long nonZero = firstNonZero(channel, at + CHRONICLE_HEADER_LENGTH, fileLength);
                return nonZero < 0 ? null : corrupt("data at byte 0x" + Long.toHexString(nonZero) +
                    " after the end-of-cycle marker");
            }

            final int length = word & LENGTH_MASK;
            final long next = align(at + CHRONICLE_HEADER_LENGTH + length);
            if (0 != (word & NOT_COMPLETE))
            {
                // A length no journal document has, or one past the end of the file, is not what a writer that
                // stopped leaves (a damaged word): judge by the journal frame itself, as for an unset header, so
                // complete documents after it are not taken for a torn tail.
                if (0 == length || length > JournalFrame.MAX_FRAME_LENGTH || next > fileLength)
                {
                    final ReadOutcome unknownLength = classifyUnset(channel, at, fileLength, word);
                    return null != unknownLength ? unknownLength : endOutcome(ReadStatus.TORN_TAIL, "; document " +
                        ordinal + " at byte 0x" + Long.toHexString(at) + " is incomplete (Chronicle header 0x" +
                        Integer.toHexString(word) + ")");
                }
                final long nonZero = firstNonZero(channel, next, fileLength);
                if (nonZero >= 0)
                {
                    return corrupt("incomplete Chronicle header 0x" + Integer.toHexString(word) +
                        " followed by more data at byte 0x" + Long.toHexString(nonZero));
                }
                return endOutcome(ReadStatus.TORN_TAIL, "; document " + ordinal + " at byte 0x" +
                    Long.toHexString(at) + " is incomplete (Chronicle header 0x" + Integer.toHexString(word) + ")");
            }
            if (0 == (word & META_DATA))
            {
                return corrupt("Chronicle stopped before a complete document (header 0x" +
                    Integer.toHexString(word) + ")");
            }
            if (length >= JournalFrame.HEADER_LENGTH &&
                at + CHRONICLE_HEADER_LENGTH + JournalFrame.MAGIC_OFFSET + 4 <= fileLength &&
                JournalFrame.MAGIC == readInt(channel, at + CHRONICLE_HEADER_LENGTH + JournalFrame.MAGIC_OFFSET))
            {
                return corrupt("a journal frame is marked as Chronicle metadata (header 0x" +
                    Integer.toHexString(word) + ")");
            }
            at = next;
        }

        return corrupt("more than " + MAX_SKIPPED_METADATA + " Chronicle metadata documents after the last document");
    }

    private ReadOutcome classifyUnset(final FileChannel channel, final long at, final long fileLength, final int word)
        throws IOException
    {
        final long dataStart = at + CHRONICLE_HEADER_LENGTH;
        final long nonZero = firstNonZero(channel, dataStart, fileLength);
        if (nonZero < 0)
        {
            return null;
        }

        final long payloadLength = dataStart + 4 <= fileLength ? readInt(channel, dataStart) & 0xFFFF_FFFFL : -1;
        final long frameEnd = dataStart + JournalFrame.HEADER_LENGTH + payloadLength;
        if (payloadLength <= 0 || payloadLength > JournalFrame.MAX_FRAME_LENGTH || nonZero >= frameEnd)
        {
            return corrupt("non-zero data at byte 0x" + Long.toHexString(nonZero) +
                " after the last document Chronicle returned");
        }

        final long after = firstNonZero(channel, align(frameEnd), fileLength);
        if (after >= 0)
        {
            return corrupt("an unfinished document is followed by more data at byte 0x" + Long.toHexString(after));
        }

        final long written = Math.min(frameEnd, fileLength) - dataStart;
        return endOutcome(ReadStatus.TORN_TAIL, "; document " + ordinal + " at byte 0x" + Long.toHexString(at) +
            " was being written when the writer stopped (" + lastNonZeroExtent(channel, dataStart, frameEnd, written) +
            " of " + (JournalFrame.HEADER_LENGTH + payloadLength) + " bytes present, Chronicle header " +
            (0 == word ? "not set" : "0x" + Integer.toHexString(word)) + ")");
    }

    private ReadOutcome classifyNoDocument()
    {
        for (final String name : queueFileNames())
        {
            if (holdsFrames(name))
            {
                stopAt(-1, -1, -1, name);
                return corrupt("queue file " + name + " holds journal frames but Chronicle returned no document");
            }
        }
        if (null != truncatedFile)
        {
            stopAt(-1, -1, -1, truncatedFile);
            return outcome(ReadStatus.CORRUPT, "no document could be read: " + truncation());
        }

        return outcome(ReadStatus.EMPTY, "the queue in " + directory + " holds no document");
    }

    private ReadOutcome endOutcome(final ReadStatus status, final String detail)
    {
        if (null != truncatedFile)
        {
            return outcome(ReadStatus.CORRUPT, "read the header and " + documents + " documents, then " +
                truncation() + detail);
        }
        if (ReadStatus.TORN_TAIL == status)
        {
            return outcome(status, "read the header and " + documents + " documents" + detail);
        }

        return outcome(status, "read the header and " + documents + " documents, last sequence " + lastSequence +
            " at cycle " + lastCycle + " index 0x" + Long.toHexString(lastIndex));
    }

    private ReadOutcome chronicleFailure(final Throwable ex)
    {
        return chronicleFailure(isMappedPageFault(ex));
    }

    /**
     * @param fault whether Chronicle read past the end of a file (a truncated file) rather than failed to decode it.
     */
    private ReadOutcome chronicleFailure(final boolean fault)
    {
        if (ordinal > 0)
        {
            stopAt(lastCycle, -1, align(lastEnd), lastFileName);
        }
        final String file = null != lastFileName && !lastFileName.isEmpty() ? lastFileName : firstQueueFile;
        final Long length = null == file ? null : fileLengths.get(file);
        final String what = (fault ? "truncated" : "damaged") + (0 == ordinal ? " before the first document" : "");
        final String why = fault ? (null == length ? "" : length + " bytes; ") + "Chronicle's index points past its " +
            "end" : "Chronicle Queue cannot decode its header or index";
        final String tail = null == truncatedFile ? "" : "; " + truncation();
        if (0 == ordinal)
        {
            stopAt(-1, -1, -1, file);
            return outcome(ReadStatus.CORRUPT, "the queue file " + file + " is " + what + " (" + why + ")" + tail);
        }
        return outcome(ReadStatus.CORRUPT, "Chronicle Queue failed after document " + (ordinal - 1) + " (cycle " +
            lastCycle + ", index 0x" + Long.toHexString(lastIndex) + ", " + lastFileName + "): the queue file " +
            file + " is " + what + " (" + why + ")" + tail);
    }

    /**
     * A fault on a mapped page, which the JVM reports as an InternalError (SIGBUS): the file ends before what its
     * index points to. Anything else means Chronicle could not decode what it found.
     */
    private static boolean isMappedPageFault(final Throwable ex)
    {
        for (Throwable t = ex; null != t; t = t.getCause())
        {
            if (t instanceof InternalError)
            {
                return true;
            }
        }
        return false;
    }

    private ReadOutcome corrupt(final String problem)
    {
        final boolean truncated = null != truncatedFile && truncatedFile.equals(stopFile);
        return outcome(ReadStatus.CORRUPT, describeStop() + ": " + problem + (truncated ? "; " + truncation() : ""));
    }

    private ReadOutcome outcome(final ReadStatus status, final String message)
    {
        return new ReadOutcome(
            status, documents, delivered, lastSequence, lastIndex, stopCycle, stopIndex, stopOffset,
            null == stopFile ? "" : stopFile, message);
    }

    private String describeStop()
    {
        final StringBuilder text = new StringBuilder().append("document ").append(ordinal);
        final int start = text.length();
        if (stopCycle >= 0)
        {
            text.append(" cycle ").append(stopCycle);
        }
        if (stopIndex >= 0)
        {
            text.append(" index 0x").append(Long.toHexString(stopIndex));
        }
        if (stopOffset >= 0)
        {
            text.append(" byte 0x").append(Long.toHexString(stopOffset));
        }
        final boolean located = text.length() > start;
        if (located)
        {
            text.insert(start, " at");
        }
        if (null != stopFile && !stopFile.isEmpty())
        {
            text.append(located ? " of " : " in ").append(stopFile);
        }
        return text.toString();
    }

    private String truncation()
    {
        return "queue file " + truncatedFile + " is truncated (" + truncatedLength + " bytes, not a whole number of " +
            PAGE_SIZE + "-byte pages)";
    }

    private void stopAt(final int cycle, final long index, final long offset, final String file)
    {
        stopCycle = cycle;
        stopIndex = index;
        stopOffset = offset;
        stopFile = file;
    }

    private void resetProgress()
    {
        headerRead = false;
        fileLengths.clear();
        truncatedFile = null;
        firstQueueFile = null;
        truncatedLength = -1;
        ordinal = 0;
        documents = 0;
        delivered = 0;
        lastSequence = 0;
        lastIndex = -1;
        lastCycle = -1;
        lastEnd = 0;
        lastFileName = null;
        lastFile = null;
        lastFileLength = -1;
        stopAt(-1, -1, -1, "");
    }

    private ReadOutcome scanDirectory()
    {
        if (!Files.exists(directory))
        {
            return ReadOutcome.refused(ReadStatus.NOT_A_JOURNAL, "no such directory: " + directory);
        }
        if (!Files.isDirectory(directory))
        {
            return ReadOutcome.refused(ReadStatus.NOT_A_JOURNAL, "not a directory: " + directory);
        }
        if (!Files.isReadable(directory) || !Files.isExecutable(directory))
        {
            // Listing would fail, or list names whose files cannot be looked at (not counted as queue files).
            return ReadOutcome.refused(ReadStatus.NOT_A_JOURNAL, "cannot read " + directory + ": permission denied");
        }

        int otherFiles = 0;
        final List<String> queueFiles = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory))
        {
            for (final Path file : files)
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(QUEUE_SUFFIX) && Files.isRegularFile(file))
                {
                    queueFiles.add(name);
                    fileLengths.put(name, Files.size(file));
                }
                else if (!name.endsWith(TABLE_SUFFIX))
                {
                    otherFiles++;
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return ReadOutcome.refused(ReadStatus.NOT_A_JOURNAL, "cannot list " + directory + ": " +
                (ex instanceof IOException io ? ioReason(io) : String.valueOf(ex.getMessage())));
        }

        if (queueFiles.isEmpty())
        {
            return 0 == otherFiles ?
                ReadOutcome.refused(ReadStatus.EMPTY, "no queue files (*" + QUEUE_SUFFIX + ") in " + directory) :
                ReadOutcome.refused(ReadStatus.NOT_A_JOURNAL, directory + " holds " + otherFiles +
                    (1 == otherFiles ? " file" : " files") + " but no Chronicle queue file (*" + QUEUE_SUFFIX + ")");
        }

        Collections.sort(queueFiles);
        firstQueueFile = queueFiles.get(0);
        for (final String name : queueFiles)
        {
            final long length = fileLengths.get(name);
            // An empty later file is one a writer killed while starting a new cycle left: read as all zero.
            if ((0 == length && name.equals(firstQueueFile)) || 0 != length % PAGE_SIZE)
            {
                if (null == truncatedFile)
                {
                    truncatedFile = name;
                    truncatedLength = length;
                }
            }
        }
        if (null != truncatedFile && truncatedLength < PAGE_SIZE && truncatedFile.equals(firstQueueFile))
        {
            return new ReadOutcome(ReadStatus.CORRUPT, 0, 0, 0, -1, -1, -1, 0, truncatedFile,
                "no document could be read: " + truncation());
        }

        final ReadOutcome metadata = checkMetadata();
        return null != metadata ? metadata : checkQueueHeaders(queueFiles);
    }

    /**
     * Chronicle's table store ({@code metadata.cq4t}) is created before the first queue file, so queue files
     * without a readable one mean a damaged directory. Chronicle would log a warning (a stack trace for an empty
     * file) and read on without it; the reader refuses it as {@link ReadStatus#CORRUPT} instead, before Chronicle
     * is opened.
     */
    private ReadOutcome checkMetadata()
    {
        final Path file = directory.resolve(METADATA_FILE);
        try
        {
            if (!Files.exists(file))
            {
                return refusedAt(METADATA_FILE, METADATA_FILE + " is missing: the queue files have lost Chronicle's " +
                    "metadata (deleted, or not copied with them)");
            }
            final long length = Files.size(file);
            if (length < CHRONICLE_HEADER_LENGTH + HEADER_TAG.length + 2)
            {
                return refusedAt(METADATA_FILE, METADATA_FILE + " is " + (0 == length ? "empty" : "truncated to " +
                    length + " bytes") + ": Chronicle's metadata of this queue is lost");
            }
            final String problem = headerProblem(file);
            return null == problem ? null : refusedAt(METADATA_FILE, METADATA_FILE + " is not Chronicle queue " +
                "metadata: " + problem);
        }
        catch (final IOException ex)
        {
            return refusedAt(METADATA_FILE, "cannot read " + METADATA_FILE + ": " + ioReason(ex));
        }
    }

    /**
     * Every queue file that has been started must begin with Chronicle's header document; a file overwritten with
     * anything else is {@link ReadStatus#CORRUPT} (Chronicle would fail on it with an exception of its own, or skip a
     * later cycle's file unread). An all-zero start, or an empty file, is a file whose header was never written, left
     * to the reader.
     */
    private ReadOutcome checkQueueHeaders(final List<String> queueFiles)
    {
        for (final String name : queueFiles)
        {
            try
            {
                final String problem = headerProblem(directory.resolve(name));
                if (null != problem)
                {
                    return refusedAt(name, "queue file " + name + " is not a Chronicle queue file: " + problem);
                }
            }
            catch (final IOException ex)
            {
                return refusedAt(name, "cannot read queue file " + name + ": " + ioReason(ex));
            }
        }
        return null;
    }

    /** Why a Chronicle file does not start with a complete header document, or null when it does (or is unset). */
    private static String headerProblem(final Path file) throws IOException
    {
        final ByteBuffer start = ByteBuffer.allocate(CHRONICLE_HEADER_LENGTH + 2 + HEADER_TAG.length)
            .order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            while (start.hasRemaining() && channel.read(start, start.position()) > 0)
            {
                // read the whole start of the file
            }
        }
        if (0 == start.position())
        {
            return null;
        }
        if (start.hasRemaining())
        {
            return "shorter than a Chronicle header";
        }
        final int word = start.getInt(0);
        boolean tagged = 0 != (word & META_DATA);
        boolean unwritten = true;
        for (int i = 0; i < HEADER_TAG.length; i++)
        {
            final byte b = start.get(CHRONICLE_HEADER_LENGTH + 2 + i);
            tagged &= HEADER_TAG[i] == b;
            unwritten &= 0 == b;
        }
        // A header written completely, or one a crash interrupted (still marked not complete, or not yet begun).
        if (tagged || (unwritten && (0 == word || 0 != (word & NOT_COMPLETE))))
        {
            return null;
        }
        final StringBuilder hex = new StringBuilder();
        for (int i = 0; i < start.capacity(); i++)
        {
            hex.append(String.format("%02x", start.get(i) & 0xFF));
        }
        return "it starts with 0x" + hex + ", not Chronicle's header document (overwritten or another format)";
    }

    /**
     * Why a file could not be read, in the operating system's words and without an exception's class name (the
     * commands print it as their one-line error): "permission denied", "no such file", else the exception's message.
     *
     * @param ex the failure.
     * @return one line.
     */
    static String ioReason(final IOException ex)
    {
        if (ex instanceof java.nio.file.AccessDeniedException)
        {
            return "permission denied";
        }
        if (ex instanceof java.nio.file.NoSuchFileException)
        {
            return "no such file";
        }
        if (ex instanceof java.nio.file.FileSystemException fs && null != fs.getReason())
        {
            return fs.getReason();
        }
        return null == ex.getMessage() || ex.getMessage().isBlank() ? "I/O error" : ex.getMessage();
    }

    private static ReadOutcome refusedAt(final String file, final String message)
    {
        return new ReadOutcome(ReadStatus.CORRUPT, 0, 0, 0, -1, -1, -1, 0, file, message);
    }

    private List<String> queueFileNames()
    {
        final List<String> names = new ArrayList<>(fileLengths.keySet());
        Collections.sort(names);
        return names;
    }

    private boolean holdsFrames(final String name)
    {
        final Path file = directory.resolve(name);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            return findMagic(channel);
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static boolean findMagic(final FileChannel channel) throws IOException
    {
        final ByteBuffer chunk = ByteBuffer.allocate(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        final long size = channel.size();
        long base = 0;
        while (base < size)
        {
            chunk.clear();
            final int read = channel.read(chunk, base);
            if (read <= 0)
            {
                return false;
            }
            for (int i = 0; i + 4 <= read; i += 4)
            {
                if (JournalFrame.MAGIC == chunk.getInt(i))
                {
                    return true;
                }
            }
            if (read < 4)
            {
                // The last one to three bytes of a file whose length is not a multiple of four hold no magic
                // (without this the scan re-read them forever).
                return false;
            }
            base += read & ~3;
        }
        return false;
    }

    private static long firstNonZero(final FileChannel channel, final long from, final long fileLength)
        throws IOException
    {
        final long end = Math.min(fileLength, from + TAIL_SCAN_BYTES);
        final ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
        long base = from;
        while (base < end)
        {
            chunk.clear().limit((int)Math.min(chunk.capacity(), end - base));
            final int read = channel.read(chunk, base);
            if (read <= 0)
            {
                return -1;
            }
            // Eight bytes at a time: the tail of a preallocated queue file is megabytes of zeros.
            int i = 0;
            while (i + Long.BYTES <= read && 0 == chunk.getLong(i))
            {
                i += Long.BYTES;
            }
            for (; i < read; i++)
            {
                if (0 != chunk.get(i))
                {
                    return base + i;
                }
            }
            base += read;
        }
        return -1;
    }

    private static long lastNonZeroExtent(
        final FileChannel channel, final long from, final long to, final long fallback) throws IOException
    {
        final long size = channel.size();
        final long end = Math.min(size, to);
        if (end <= from)
        {
            return fallback;
        }
        final ByteBuffer region = ByteBuffer.allocate((int)(end - from));
        channel.read(region, from);
        for (int i = region.position() - 1; i >= 0; i--)
        {
            if (0 != region.get(i))
            {
                return i + 1;
            }
        }
        return 0;
    }

    private static int readInt(final FileChannel channel, final long at) throws IOException
    {
        final ByteBuffer word = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        while (word.hasRemaining())
        {
            if (channel.read(word, at + word.position()) < 0)
            {
                return 0;
            }
        }
        return word.getInt(0);
    }

    private static long align(final long offset)
    {
        return (offset + 3) & ~3L;
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        if (null != closeable)
        {
            try
            {
                closeable.close();
            }
            catch (final Throwable ignore)
            {
                // the outcome of the read is already decided; a failing close must not replace it
            }
        }
    }

    private static final class ListenerException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        ListenerException(final Throwable cause)
        {
            super(cause);
        }

        RuntimeException rethrow()
        {
            final Throwable cause = getCause();
            if (cause instanceof RuntimeException)
            {
                return (RuntimeException)cause;
            }
            if (cause instanceof Error)
            {
                throw (Error)cause;
            }
            return this;
        }
    }

    private static final class NoOpListener implements JournalListener
    {
        static final NoOpListener INSTANCE = new NoOpListener();

        public void onDocument(
            final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
        {
        }
    }
}
