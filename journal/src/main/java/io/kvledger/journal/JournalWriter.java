package io.kvledger.journal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.core.time.SystemTimeProvider;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.ExpandableArrayBuffer;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends the journal of one engine run to a new Chronicle Queue: the {@link JournalHeader} first, then one
 * {@link JournalFrame} per input, each inside a single Chronicle document so a crash leaves either the whole
 * document or none of it. Appending allocates nothing after warm-up. Single writer: used by one thread at a time
 * (the engine's journal handler); the thread that calls {@link #open} hands it over on return.
 * <p>
 * A document is visible to readers and survives a crash of the process as soon as {@link #append} returns; it
 * survives a power loss only after {@link #sync()}, which {@code syncEachDocument} calls after every append.
 * <p>
 * With {@code pretouch}, a daemon thread ({@link QueuePretoucher}) touches the pages of the memory-mapped queue file
 * just ahead of the write position, so their first-touch page faults happen there rather than on the appending thread
 * (they cost ~2.6 ns per appended byte otherwise). It only touches pages (a compare-and-swap of zero with zero); it
 * writes no document.
 * <p>
 * The queue file's blocks are reserved ahead of the write position ({@link JournalSpace}), so a full file system
 * fails {@link #append} with a {@link JournalException} before any byte of the document is written, rather than with
 * a {@code SIGBUS} in the mapped file after it returned.
 */
public final class JournalWriter implements AutoCloseable
{
    /** Roll cycle of every journal: one file per UTC day, 4,096 index entries of spacing 256. */
    public static final RollCycle ROLL_CYCLE = RollCycles.FAST_DAILY;

    /** The file in the journal directory whose OS lock a writer holds while it creates and writes the journal. */
    public static final String LOCK_FILE = "kvledger-journal.lock";
    /** Chronicle block size used by {@link #open(Path, JournalHeader, boolean)}; a document may use a quarter. */
    public static final long DEFAULT_BLOCK_SIZE = 16L * 1024 * 1024;

    /** Smallest block size accepted, Chronicle's own minimum. */
    public static final long MIN_BLOCK_SIZE = 64L * 1024;

    /**
     * Appends between two checks that the queue file is still there (a stat, about a microsecond: 0.25 ns a document).
     * A journal directory removed while written takes every document with it; the writer then stops within this many
     * appends, and its {@link #close()} says so.
     */
    static final int PRESENCE_CHECK_INTERVAL = 4096;

    private final Path directory;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final boolean syncEachDocument;
    private final int maxFrameLength;
    private final JournalEncoder encoder = new JournalEncoder();
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64 * 1024);
    private long lastSequence;
    private long lastIndex = -1;
    private long appendedBytes;
    private int syncedCycle = Integer.MIN_VALUE;
    private FileChannel syncChannel;
    private boolean closed;
    private QueuePretoucher pretoucher;
    private final JournalSpace space;
    private int presenceCountdown = PRESENCE_CHECK_INTERVAL;
    private int fileCycle = Integer.MIN_VALUE;
    private File file;
    private BytesStore<?, ?> pretouchStore;
    private FileChannel writerLock;

    private JournalWriter(
        final Path directory,
        final SingleChronicleQueue queue,
        final ExcerptAppender appender,
        final boolean syncEachDocument,
        final long blockSize,
        final JournalSpace space)
    {
        this.space = space;
        this.directory = directory;
        this.queue = queue;
        this.appender = appender;
        this.syncEachDocument = syncEachDocument;
        this.maxFrameLength = (int)Math.min(JournalFrame.MAX_FRAME_LENGTH, blockSize / 4);
    }

    /**
     * Create a journal in a new or empty directory with the default block size and write its header.
     *
     * @param directory        for the queue files; created when missing, refused when it already holds a queue.
     * @param header           first document of the journal.
     * @param syncEachDocument whether every append is forced to the storage device before it returns.
     * @return the writer, owning the queue and its appender.
     * @throws JournalException when the directory holds a journal or the queue cannot be created.
     */
    public static JournalWriter open(final Path directory, final JournalHeader header, final boolean syncEachDocument)
    {
        return open(directory, header, syncEachDocument, DEFAULT_BLOCK_SIZE);
    }

    /**
     * Create a journal in a new or empty directory and write its header.
     *
     * @param directory        for the queue files; created when missing, refused when it already holds a queue.
     * @param header           first document of the journal.
     * @param syncEachDocument whether every append is forced to the storage device before it returns.
     * @param blockSize        Chronicle block size in bytes, a multiple of 4 KiB of at least {@link #MIN_BLOCK_SIZE};
     *                         queue files grow by this much and a document may use a quarter of it.
     * @return the writer, owning the queue and its appender.
     * @throws JournalException when the directory holds a journal or the queue cannot be created.
     */
    public static JournalWriter open(
        final Path directory, final JournalHeader header, final boolean syncEachDocument, final long blockSize)
    {
        return open(directory, header, syncEachDocument, blockSize, SystemTimeProvider.INSTANCE);
    }

    /**
     * Create a journal with the default block size, optionally pre-faulting the queue file from a background thread.
     *
     * @param directory        for the queue files; created when missing, refused when it already holds a queue.
     * @param header           first document of the journal.
     * @param syncEachDocument whether every append is forced to the storage device before it returns.
     * @param pretouch         whether a daemon thread touches the queue file's pages ahead of the writer.
     * @return the writer, owning the queue, its appender and the pretouch thread.
     * @throws JournalException when the directory holds a journal or the queue cannot be created.
     */
    public static JournalWriter open(
        final Path directory, final JournalHeader header, final boolean syncEachDocument, final boolean pretouch)
    {
        final JournalWriter writer = open(directory, header, syncEachDocument, DEFAULT_BLOCK_SIZE);
        if (pretouch)
        {
            writer.startPretouch();
        }
        return writer;
    }

    /** @return whether a pretouch thread runs for this writer. */
    public boolean pretouching()
    {
        return null != pretoucher;
    }

    /**
     * Keep the pretouch thread within {@link QueuePretoucher#AHEAD_BYTES} of the writer (a {@link Journaller} thread
     * writes this journal). Nothing without a pretouch thread.
     */
    void pretouchShortLead()
    {
        if (null != pretoucher)
        {
            pretoucher.shortLead();
        }
    }

    /** @return whether the pretouch thread populates the pages ahead in this writer's own mapping. */
    boolean pretouchPopulating()
    {
        return null != pretoucher && pretoucher.populating();
    }

    /** @return pages the pretouch thread has touched ahead of this writer so far (0 without one). */
    public long pretouchedPages()
    {
        return null == pretoucher ? 0 : pretoucher.touchedPages();
    }

    private void startPretouch()
    {
        pretoucher = new QueuePretoucher();
        pretoucher.start();
    }

    static JournalWriter open(
        final Path directory,
        final JournalHeader header,
        final boolean syncEachDocument,
        final long blockSize,
        final TimeProvider timeProvider)
    {
        return open(directory, header, syncEachDocument, blockSize, timeProvider, new JournalSpace());
    }

    static JournalWriter open(
        final Path directory,
        final JournalHeader header,
        final boolean syncEachDocument,
        final long blockSize,
        final TimeProvider timeProvider,
        final JournalSpace space)
    {
        if (blockSize < MIN_BLOCK_SIZE || 0 != (blockSize & 4095))
        {
            throw new IllegalArgumentException("blockSize " + blockSize + " must be a multiple of 4096 and >= " +
                MIN_BLOCK_SIZE);
        }
        refuseExistingJournal(directory);

        SingleChronicleQueue queue = null;
        ExcerptAppender appender = null;
        FileChannel lock = null;
        boolean owned = false;
        boolean success = false;
        try
        {
            Files.createDirectories(directory);
            // The check above and the queue's creation are one step under the writer lock: writers racing for a
            // new directory (two runs started together) would otherwise all pass the check and append to one queue.
            lock = lockForWriting(directory);
            refuseExistingJournal(directory);
            owned = true;
            queue = SingleChronicleQueueBuilder.binary(directory)
                .rollCycle(ROLL_CYCLE)
                .blockSize(blockSize)
                .syncMode(syncEachDocument ? SyncMode.SYNC : SyncMode.ASYNC)
                .timeProvider(timeProvider)
                .build();
            appender = queue.createAppender();
            try
            {
                space.reserveWhole(directory.resolve(JournalReader.METADATA_FILE).toFile());
            }
            catch (final JournalException ex)
            {
                throw new JournalException("cannot create a journal in " + directory + ": " + ex.getMessage(), ex);
            }

            final JournalWriter writer =
                new JournalWriter(directory, queue, appender, syncEachDocument, blockSize, space);
            writer.writerLock = lock;
            final int length = writer.encoder.encodeHeader(writer.buffer, 0, header);
            writer.write(writer.buffer.byteArray(), 0, length, 0);
            if (syncEachDocument)
            {
                writer.sync();
            }
            appender.singleThreadedCheckReset();
            success = true;

            return writer;
        }
        catch (final IOException ex)
        {
            throw new JournalException("cannot create a journal in " + directory + ": " + ex, ex);
        }
        catch (final JournalException ex)
        {
            throw ex;
        }
        catch (final RuntimeException | AssertionError | InternalError ex)
        {
            throw new JournalException("cannot create a journal in " + directory + ": " + ex, ex);
        }
        finally
        {
            if (!success)
            {
                space.close();
                closeQuietly(appender);
                closeQuietly(queue);
                if (owned)
                {
                    // The directory held no queue file when this open took it: what is there now is this open's
                    // half-made queue (e.g. on a full file system), which would refuse the retry as an existing one.
                    removeQueueFiles(directory);
                }
                closeQuietly(lock);
            }
        }
    }

    /**
     * Append one document; the input's sequence must follow the previous one (the first is 1).
     *
     * @param input      the input, its sequence included.
     * @param resultCode result of applying it.
     * @param effects    the effects it caused, in order.
     * @return Chronicle index of the document.
     * @throws JournalException when the sequence is out of order, the document is too large or the write fails;
     *                          nothing is appended then.
     */
    public long append(final InputRecord input, final int resultCode, final EffectList effects)
    {
        checkOpen();
        final long expectedSequence = lastSequence + 1;
        if (input.sequence() != expectedSequence)
        {
            throw new JournalException("cannot append sequence " + input.sequence() + " to " + directory +
                ": expected " + expectedSequence);
        }

        final int length = encoder.encodeDocument(buffer, 0, input, resultCode, effects);
        write(buffer.byteArray(), 0, length, expectedSequence);
        lastSequence = expectedSequence;
        if (syncEachDocument)
        {
            sync();
        }

        return lastIndex;
    }

    /**
     * Append one document that a {@link JournalEncoder} already encoded elsewhere (the {@link Journaller}'s path).
     * It must be the document of sequence {@link #lastSequence()} + 1, encoded by an encoder sharing this writer's
     * {@link #fingerprintWindow()}; the caller guarantees the order. Never syncs, whatever {@link #syncEachDocument()}
     * says: the caller calls {@link #sync()} (the journaller does, once per batch, before it reports the batch
     * appended).
     *
     * @param frame  the encoded frame.
     * @param offset where it starts in {@code frame}.
     * @param length its length in bytes.
     * @return Chronicle index of the document.
     * @throws JournalException when the document is too large or the write fails; nothing is appended then.
     */
    public long appendFrame(final byte[] frame, final int offset, final int length)
    {
        return appendFrames(frame, offset, length, 1);
    }

    /**
     * Append documents that a {@link JournalEncoder} already encoded, as one Chronicle document: {@code count}
     * complete frames laid end to end (the {@link Journaller} writes each batch it drains from its ring this way, so
     * the fixed cost of a Chronicle document is paid once per batch). Readers take the frames apart by their length
     * fields; a batch is appended whole or not at all. The frames must be the documents of sequences
     * {@link #lastSequence()} + 1 .. + {@code count}, encoded with this writer's {@link #fingerprintWindow()}, in
     * order. Never syncs (see {@link #appendFrame}).
     *
     * @param frames the encoded frames.
     * @param offset where the first starts in {@code frames}.
     * @param length bytes of all of them.
     * @param count  how many frames.
     * @return Chronicle index of the batch.
     * @throws JournalException when the batch is larger than {@link #maxFrameLength()} or the write fails; nothing is
     *                          appended then.
     */
    public long appendFrames(final byte[] frames, final int offset, final int length, final int count)
    {
        checkOpen();
        final long first = lastSequence + 1;
        write(frames, offset, length, first);
        lastSequence = first + count - 1;

        return lastIndex;
    }

    /**
     * The fingerprint window of this journal: whoever encodes documents for {@link #appendFrame} encodes with it
     * ({@link JournalEncoder#JournalEncoder(FingerprintWindow)}), in journal order, and nobody appends through
     * {@link #append} meanwhile.
     *
     * @return the window.
     */
    public FingerprintWindow fingerprintWindow()
    {
        return encoder.fingerprintWindow();
    }

    /**
     * Force every appended document to the storage device: Chronicle's msync of the appended range, then an
     * fdatasync of the current queue file (header and index pages included), and, the first time a queue file is
     * synced, an fdatasync of the queue's metadata.cq4t and an fsync of the directory.
     *
     * @throws JournalException when the operating system reports a failure.
     */
    public void sync()
    {
        checkOpen();
        appender.sync();
        try
        {
            final int cycle = appender.cycle();
            if (cycle != syncedCycle)
            {
                switchSyncedFile(cycle);
            }
            syncChannel.force(false);
        }
        catch (final IOException ex)
        {
            throw new JournalException("cannot sync the journal in " + directory + ": " + ex, ex);
        }
    }

    /**
     * Sequence of the last appended document, 0 before the first.
     *
     * @return last sequence.
     */
    public long lastSequence()
    {
        return lastSequence;
    }

    /**
     * Bytes of the frames this writer appended (the header included), for live counters. Written by the appending
     * thread only; another thread reads a recent value.
     *
     * @return bytes appended since open.
     */
    public long appendedBytes()
    {
        return appendedBytes;
    }

    /**
     * Chronicle index of the last appended document (the header counts).
     *
     * @return last index.
     */
    public long lastIndex()
    {
        return lastIndex;
    }

    /**
     * Directory holding the queue files.
     *
     * @return journal directory.
     */
    public Path directory()
    {
        return directory;
    }

    /**
     * Whether every append is synced before it returns.
     *
     * @return the flag given to {@link #open}.
     */
    public boolean syncEachDocument()
    {
        return syncEachDocument;
    }

    /**
     * Largest frame this writer accepts, a quarter of the block size.
     *
     * @return bytes.
     */
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    /**
     * Release the appender and the queue; documents already appended stay readable. Idempotent.
     *
     * @throws JournalException (once everything is released) when the queue file written last is no longer there:
     *                          the journal directory was removed or emptied while it was written, and the documents
     *                          appended to it are lost with it.
     */
    public void close()
    {
        if (!closed)
        {
            closed = true;
            final boolean gone = null != file && !file.exists();
            if (null != pretoucher)
            {
                pretoucher.close();
            }
            if (null != syncChannel)
            {
                try
                {
                    syncChannel.close();
                }
                catch (final IOException ignore)
                {
                    // a read-only channel used for fdatasync only; nothing buffered to lose
                }
            }
            closeQuietly(appender);
            closeQuietly(queue);
            closeQuietly(writerLock);
            space.close();
            if (gone)
            {
                throw gone();
            }
        }
    }

    private JournalException gone()
    {
        return new JournalException("the journal's queue file " + file + " is gone (its directory removed or emptied " +
            "while the journal was written): the journal, " + lastSequence + " documents so far, is lost with it");
    }

    /** Tell the pretoucher where the writer's mapping of the file is, when Chronicle moved to another one. */
    private void publishMapping(final Bytes<?> bytes)
    {
        final BytesStore<?, ?> store = bytes.bytesStore();
        if (store != pretouchStore && null != store && store.isDirectMemory())
        {
            pretouchStore = store;
            final long start = store.start();
            pretoucher.mapping(store.addressForWrite(start), start, start + store.realCapacity());
        }
    }

    private void write(final byte[] frame, final int offset, final int frameLength, final long sequence)
    {
        if (frameLength > maxFrameLength)
        {
            throw new JournalException("document " + sequence + " of " + frameLength + " bytes is larger than " +
                maxFrameLength + " bytes, a quarter of the journal's block size");
        }

        if (0 == --presenceCountdown)
        {
            presenceCountdown = PRESENCE_CHECK_INTERVAL;
            if (null != file && !file.exists())
            {
                presenceCountdown = 1; // every later append checks again, and is refused while the file is gone
                throw gone();
            }
        }
        long end = 0;
        try (DocumentContext dc = appender.writingDocument())
        {
            try
            {
                final Bytes<?> bytes = dc.wire().bytes();
                final File queueFile = queueFile();
                space.reserve(queueFile, bytes.writePosition() + frameLength);
                bytes.write(frame, offset, frameLength);
                end = bytes.writePosition();
                if (null != pretoucher)
                {
                    publishMapping(bytes);
                    pretoucher.published(queueFile, end, space.limit());
                }
            }
            catch (final RuntimeException | Error ex)
            {
                dc.rollbackOnClose();
                throw ex;
            }
        }
        catch (final JournalException ex)
        {
            throw new JournalException("cannot append document " + sequence + " to " + directory + ": " +
                ex.getMessage(), ex);
        }
        catch (final RuntimeException | InternalError ex)
        {
            // InternalError: HotSpot's report of a SIGBUS on the mapped file (a write to a hole the file system had no
            // block for), where blocks cannot be reserved ahead (JournalSpace).
            throw new JournalException("cannot append document " + sequence + " to " + directory + ": " + ex, ex);
        }
        lastIndex = appender.lastIndexAppended();
        appendedBytes += frameLength;
    }

    /** The queue file the appender writes now (inside a document context: the one the document goes to). */
    private File queueFile()
    {
        final int cycle = appender.cycle();
        if (cycle != fileCycle)
        {
            fileCycle = cycle;
            file = appender.currentFile();
        }
        return file;
    }

    private void switchSyncedFile(final int cycle) throws IOException
    {
        final boolean first = null == syncChannel;
        if (!first)
        {
            syncChannel.force(false);
            syncChannel.close();
            syncChannel = null;
        }

        final File file = appender.currentFile();
        if (null == file)
        {
            throw new IOException("the appender has no current queue file");
        }
        syncChannel = FileChannel.open(file.toPath(), StandardOpenOption.READ);
        syncedCycle = cycle;

        final Path table = directory.resolve(JournalReader.METADATA_FILE);
        if (Files.exists(table))
        {
            try (FileChannel channel = FileChannel.open(table, StandardOpenOption.READ))
            {
                channel.force(false);
            }
        }
        fsyncDirectory(directory);
        if (first)
        {
            final Path parent = directory.toAbsolutePath().getParent();
            if (null != parent)
            {
                fsyncDirectory(parent);
            }
        }
    }

    private static void fsyncDirectory(final Path directory) throws IOException
    {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ))
        {
            channel.force(true);
        }
    }

    /**
     * Take the journal directory's writer lock ({@link #LOCK_FILE}, an OS file lock held while the writer is open
     * and released by the kernel when its process dies; the empty file stays).
     *
     * @return the locked channel; closing it releases the lock.
     */
    private static FileChannel lockForWriting(final Path directory) throws IOException
    {
        final FileChannel channel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
        FileLock lock = null;
        try
        {
            lock = channel.tryLock();
        }
        catch (final OverlappingFileLockException ex)
        {
            // this JVM holds it: another writer of this process is creating or writing the journal
        }
        catch (final IOException ex)
        {
            channel.close();
            throw ex;
        }
        if (null == lock)
        {
            channel.close();
            throw new JournalException("cannot create a journal in " + directory +
                ": another writer is creating or writing a journal there (" + LOCK_FILE + " is locked)");
        }
        return channel;
    }

    private static void refuseExistingJournal(final Path directory)
    {
        if (!Files.exists(directory))
        {
            return;
        }
        if (!Files.isDirectory(directory))
        {
            throw new JournalException("cannot create a journal in " + directory + ": not a directory");
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory))
        {
            for (final Path file : files)
            {
                if (isQueueFile(file))
                {
                    throw new JournalException("cannot create a journal in " + directory +
                        ": it already holds a journal (" + file.getFileName() + ")");
                }
            }
        }
        catch (final IOException ex)
        {
            throw new JournalException("cannot list " + directory + ": " + ex, ex);
        }
    }

    /** @return whether {@code file} is one of Chronicle Queue's: a queue file (.cq4) or its metadata (.cq4t). */
    private static boolean isQueueFile(final Path file)
    {
        final String name = file.getFileName().toString();
        return name.endsWith(".cq4") || name.endsWith(".cq4t");
    }

    private static void removeQueueFiles(final Path directory)
    {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory))
        {
            for (final Path file : files)
            {
                if (isQueueFile(file))
                {
                    Files.deleteIfExists(file);
                }
            }
        }
        catch (final IOException ignore)
        {
            // the first failure is the one reported; the retry names what is left
        }
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("journal writer for " + directory + " is closed");
        }
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        if (null != closeable)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ignore)
            {
                // closing after a failure; the first failure is the one reported
            }
        }
    }
}
