package io.kvledger.engine.store;

import io.kvledger.engine.device.HostStaging;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.EnumSet;
import java.util.Set;

/**
 * The default L3 store: a directory of files keyed by fingerprint, {@code kv/<2 hex>/<32 hex>.page} and
 * {@code mamba/<2 hex>/<32 hex>.state}, that survives restarts (a later store on the same directory finds the
 * earlier run's objects).
 * <p>
 * Each file is a 40-byte little-endian header followed by the raw slot bytes:
 * <pre>
 *   0  int   magic "KVL3"      4  short version (1)   6  short kind (1 page, 2 Mamba state)
 *   8  int   content length   12  int   reserved (0)
 *  16  long  fingerprint hi   24  long  fingerprint lo  32  long  content digest (xxHash64)
 *  40  content
 * </pre>
 * Writes go to a temporary file in the same folder, then an atomic rename, so a reader never sees half an object;
 * the temporary files of a writer killed in between are removed when a store next opens the directory.
 * A fetch verifies the header and the digest; a short, corrupt or mismatched file is never loaded: it fails the
 * fetch, as a corrupt value in Redis does ({@code ok} false, counted as corrupt, not as missing), and is removed;
 * never an exception to the caller. An absent file is a short read. Files are not fsynced: a crash may lose recent
 * objects but never exposes a torn one.
 * <p>
 * Thread ownership: operations as for every {@link L3Store}; all file I/O runs on the store's I/O thread, which
 * owns the scratch buffer. Paths are built per object, so file I/O allocates a little; the engine thread never
 * does.
 */
public final class FileL3Store extends AsyncL3Store
{
    /** Bytes of the header before the content ({@link L3ObjectCodec}). */
    public static final int HEADER_LENGTH = L3ObjectCodec.HEADER_LENGTH;
    /** "KVL3" read as a little-endian int ({@link L3ObjectCodec}). */
    public static final int MAGIC = L3ObjectCodec.MAGIC;
    /** Object format version ({@link L3ObjectCodec}). */
    public static final short VERSION = L3ObjectCodec.VERSION;

    private static final String PAGE_SUFFIX = ".page";
    private static final String MAMBA_SUFFIX = ".state";
    private static final String TMP_SUFFIX = ".tmp";
    private static final Set<StandardOpenOption> TEMPORARY_OPTIONS = EnumSet.of(StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);

    private final Path directory;
    private final Path kvDirectory;
    private final Path mambaDirectory;
    private final boolean[] kvSubdirectoryReady = new boolean[256];
    private final boolean[] mambaSubdirectoryReady = new boolean[256];
    private final ByteBuffer scratch;
    private final UnsafeBuffer scratchBuffer;
    private final String tmpToken;
    private volatile long pageCount;
    private volatile long mambaCount;

    /**
     * Open (creating if missing) a store directory with default limits (4096 pages per operation, 64 plans of
     * each type).
     *
     * @param directory root of the store.
     * @param staging   host staging memory the store reads from and fetches into.
     * @throws UncheckedIOException when the directory cannot be created or scanned.
     */
    public FileL3Store(final Path directory, final HostStaging staging)
    {
        this(directory, staging, MAX_PAGES_PER_OP_DEFAULT, PLAN_COUNT_DEFAULT);
    }

    /**
     * Open (creating if missing) a store directory.
     *
     * @param directory     root of the store.
     * @param staging       host staging memory the store reads from and fetches into.
     * @param maxPagesPerOp most pages one operation may carry.
     * @param planCount     plans of each type (query, fetch, write): the most operations of a type in flight.
     * @throws UncheckedIOException when the directory cannot be created or scanned.
     */
    public FileL3Store(final Path directory, final HostStaging staging, final int maxPagesPerOp, final int planCount)
    {
        super(staging, maxPagesPerOp, planCount, "kvledger-l3-file");
        this.directory = directory.toAbsolutePath();
        this.kvDirectory = this.directory.resolve("kv");
        this.mambaDirectory = this.directory.resolve("mamba");
        try
        {
            Files.createDirectories(kvDirectory);
            Files.createDirectories(mambaDirectory);
            requireWritable(kvDirectory);
            requireWritable(mambaDirectory);
            pageCount = countFiles(kvDirectory, PAGE_SUFFIX);
            mambaCount = countFiles(mambaDirectory, MAMBA_SUFFIX);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot open L3 store at " + this.directory + ": " + IoReason.of(ex), ex);
        }

        final int capacity = HEADER_LENGTH + Math.max(kvPageBytes, mambaStateBytes);
        scratch = BufferUtil.allocateDirectAligned((capacity + 63) & -64, 64);
        scratchBuffer = new UnsafeBuffer(scratch);
        tmpToken = Long.toHexString(ProcessHandle.current().pid()) + "-" +
            Integer.toHexString(System.identityHashCode(this));
    }

    private static void requireWritable(final Path directory) throws IOException
    {
        if (!Files.isWritable(directory) || !Files.isExecutable(directory))
        {
            throw new java.nio.file.AccessDeniedException(directory.toString());
        }
    }

    /**
     * Root of the store.
     *
     * @return the absolute directory.
     */
    public Path directory()
    {
        return directory;
    }

    /**
     * The file of a page, whether or not it exists; allocates, any thread (for tools and tests).
     *
     * @param hi fingerprint high bits.
     * @param lo fingerprint low bits.
     * @return {@code kv/<2 hex>/<32 hex>.page} under the store's directory.
     */
    public Path pagePath(final long hi, final long lo)
    {
        return objectPath(kvDirectory, hi, lo, PAGE_SUFFIX);
    }

    /**
     * The file of a Mamba state, whether or not it exists; allocates, any thread (for tools and tests).
     *
     * @param hi fingerprint high bits of the page the state belongs to.
     * @param lo fingerprint low bits of that page.
     * @return {@code mamba/<2 hex>/<32 hex>.state} under the store's directory.
     */
    public Path mambaPath(final long hi, final long lo)
    {
        return objectPath(mambaDirectory, hi, lo, MAMBA_SUFFIX);
    }

    /**
     * {@inheritDoc}
     */
    public long pageCount()
    {
        return pageCount;
    }

    /**
     * {@inheritDoc}
     */
    public long mambaCount()
    {
        return mambaCount;
    }

    /**
     * {@inheritDoc}
     */
    public String describe()
    {
        return "file store " + directory + ": " + pageCount + " pages, " + mambaCount + " Mamba states";
    }

    boolean containsObject(final int kind, final long hi, final long lo)
    {
        return path(kind, hi, lo).toFile().length() == HEADER_LENGTH + (long)expectedLength(kind);
    }

    int readObject(final int kind, final long hi, final long lo, final MutableDirectBuffer dst, final int length)
        throws IOException
    {
        final Path path = path(kind, hi, lo);
        final int total = HEADER_LENGTH + length;
        final FileChannel channel;
        try
        {
            channel = FileChannel.open(path, StandardOpenOption.READ);
        }
        catch (final NoSuchFileException ex)
        {
            return READ_MISSING;
        }

        try (channel)
        {
            if (channel.size() != total)
            {
                return corrupt(kind, path);
            }
            scratch.clear().limit(total);
            while (scratch.hasRemaining())
            {
                if (channel.read(scratch) < 0)
                {
                    break;
                }
            }
            if (scratch.hasRemaining())
            {
                return corrupt(kind, path);
            }
        }

        final UnsafeBuffer buffer = scratchBuffer;
        if (!L3ObjectCodec.verify(buffer, kind, hi, lo, length))
        {
            return corrupt(kind, path);
        }

        dst.putBytes(0, buffer, HEADER_LENGTH, length);
        return READ_OK;
    }

    void writeObject(final int kind, final long hi, final long lo, final DirectBuffer src, final int length)
        throws IOException
    {
        L3ObjectCodec.encode(scratchBuffer, kind, hi, lo, src, length);

        ensureSubdirectory(kind, hi);
        final Path target = path(kind, hi, lo);
        final Path tmp = target.resolveSibling(target.getFileName().toString() + "." + tmpToken + TMP_SUFFIX);
        final boolean existed = target.toFile().exists();
        try
        {
            try (FileChannel channel = openTemporary(tmp))
            {
                scratch.clear().limit(HEADER_LENGTH + length);
                while (scratch.hasRemaining())
                {
                    channel.write(scratch);
                }
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final IOException | RuntimeException ex)
        {
            Files.deleteIfExists(tmp);
            throw ex;
        }

        if (!existed)
        {
            adjustCount(kind, 1);
        }
    }

    /**
     * Open an object's temporary file. Its folder is made once per bucket and remembered; when it is gone (the
     * store directory emptied while the store runs, as a clean-up would), it is made again, so the writes into that
     * bucket do not fail until a restart.
     */
    private static FileChannel openTemporary(final Path tmp) throws IOException
    {
        try
        {
            return FileChannel.open(tmp, TEMPORARY_OPTIONS);
        }
        catch (final NoSuchFileException ex)
        {
            Files.createDirectories(tmp.getParent());
            return FileChannel.open(tmp, TEMPORARY_OPTIONS);
        }
    }

    private int corrupt(final int kind, final Path path)
    {
        try
        {
            if (Files.deleteIfExists(path))
            {
                adjustCount(kind, -1);
            }
        }
        catch (final IOException ignore)
        {
            // A corrupt file that cannot be removed is still reported as corrupt; the next fetch finds it again.
        }
        return READ_CORRUPT;
    }

    private void adjustCount(final int kind, final long delta)
    {
        if (kind == PAGE)
        {
            pageCount += delta;
        }
        else
        {
            mambaCount += delta;
        }
    }

    private void ensureSubdirectory(final int kind, final long hi) throws IOException
    {
        final int bucket = (int)(hi >>> 56);
        final boolean[] ready = kind == PAGE ? kvSubdirectoryReady : mambaSubdirectoryReady;
        if (!ready[bucket])
        {
            Files.createDirectories(path(kind, hi, 0).getParent());
            ready[bucket] = true;
        }
    }

    private Path path(final int kind, final long hi, final long lo)
    {
        return kind == PAGE ? objectPath(kvDirectory, hi, lo, PAGE_SUFFIX) :
            objectPath(mambaDirectory, hi, lo, MAMBA_SUFFIX);
    }

    private int expectedLength(final int kind)
    {
        return kind == PAGE ? kvPageBytes : mambaStateBytes;
    }

    private static Path objectPath(final Path root, final long hi, final long lo, final String suffix)
    {
        final StringBuilder name = new StringBuilder(32 + suffix.length());
        appendHex(name, hi, 16);
        appendHex(name, lo, 16);
        name.append(suffix);
        return root.resolve(name.substring(0, 2)).resolve(name.toString());
    }

    private static void appendHex(final StringBuilder builder, final long value, final int digits)
    {
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
        {
            builder.append(Character.forDigit((int)(value >>> shift) & 0xF, 16));
        }
    }

    /**
     * Count the objects under {@code root}, removing on the way the temporary files of writers that no longer run
     * (a process killed between writing and renaming leaves one; their names carry the writer's pid). A temporary
     * file of a live process, this one's or another's sharing the directory, is left alone. An entry that is gone
     * by the time its attributes are read (renamed by a live writer, removed by another store opening the same
     * directory) is skipped: it is either an object the other process counts or no object at all.
     */
    private static long countFiles(final Path root, final String suffix) throws IOException
    {
        final long[] count = new long[1];
        Files.walkFileTree(root, EnumSet.noneOf(FileVisitOption.class), 2, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult visitFile(final Path path, final BasicFileAttributes attributes)
            {
                final String name = path.getFileName().toString();
                if (name.endsWith(TMP_SUFFIX))
                {
                    if (!writerAlive(name))
                    {
                        try
                        {
                            Files.deleteIfExists(path);
                        }
                        catch (final IOException ignored)
                        {
                            // another opener removed it, or it cannot be removed: it is never read as an object
                        }
                    }
                }
                else if (name.endsWith(suffix))
                {
                    count[0]++;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(final Path path, final IOException ex) throws IOException
            {
                if (ex instanceof NoSuchFileException)
                {
                    return FileVisitResult.CONTINUE;
                }
                throw ex;
            }
        });
        return count[0];
    }

    /** Whether the writer named in a temporary file's name ({@code <object>.<pid hex>-<hash hex>.tmp}) still runs. */
    static boolean writerAlive(final String tmpName)
    {
        final String stem = tmpName.substring(0, tmpName.length() - TMP_SUFFIX.length());
        final int dot = stem.lastIndexOf('.');
        final int dash = stem.lastIndexOf('-');
        if (dot < 0 || dash < dot)
        {
            return true;
        }
        try
        {
            return ProcessHandle.of(Long.parseLong(stem.substring(dot + 1, dash), 16)).isPresent();
        }
        catch (final NumberFormatException ex)
        {
            return true;
        }
    }
}
