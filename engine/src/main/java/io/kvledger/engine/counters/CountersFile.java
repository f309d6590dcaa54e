package io.kvledger.engine.counters;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The memory-mapped counters file beside the journal ({@value #FILE_NAME}), laid out like Aeron's CnC file: a
 * small header, then the Agrona counters metadata (type id and label per counter) and values buffers. One process
 * writes it ({@link #create}); any number of processes read it ({@link #openReadOnly}) while the writer runs and
 * after it ended.
 * <pre>
 *   0  int magic "KVLC" (written last, with release semantics: a reader never sees a half-made file as valid)
 *   4  int layout version
 *   8  int metadata buffer length
 *  12  int values buffer length
 * 128  metadata buffer (CountersReader.METADATA_LENGTH per counter)
 *  ..  values buffer (CountersReader.COUNTER_LENGTH per counter, one cache-line pair each: no false sharing)
 * </pre>
 * The mapping is left to the garbage collector rather than unmapped on close: a reader thread (the metrics server)
 * or a late engine thread never touches unmapped memory, and the cost is one small mapping until the next GC.
 */
public final class CountersFile
{
    /** File name inside the journal directory. */
    public static final String FILE_NAME = "kvledger-counters.dat";

    /** "KVLC" little-endian. */
    public static final int MAGIC = 0x434c564b;

    /** Layout version. */
    public static final int VERSION = 1;

    /** Bytes before the metadata buffer. */
    public static final int HEADER_LENGTH = 128;

    /** Counters the file has room for. */
    public static final int MAX_COUNTERS = 128;

    private static final int MAGIC_OFFSET = 0;
    private static final int VERSION_OFFSET = 4;
    private static final int METADATA_LENGTH_OFFSET = 8;
    private static final int VALUES_LENGTH_OFFSET = 12;

    private final Path path;
    private final UnsafeBuffer header;
    private final UnsafeBuffer metadata;
    private final UnsafeBuffer values;

    private CountersFile(final Path path, final MappedByteBuffer mapped, final int metadataLength,
        final int valuesLength)
    {
        this.path = path;
        header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        metadata = new UnsafeBuffer(mapped, HEADER_LENGTH, metadataLength);
        values = new UnsafeBuffer(mapped, HEADER_LENGTH + metadataLength, valuesLength);
    }

    /**
     * Create (or replace) the counters file, zeroed; allocate counters through {@link #manager()}, then call
     * {@link #markReady()}.
     *
     * @param path the file.
     * @return the writable file.
     * @throws IllegalStateException when the file cannot be created.
     */
    public static CountersFile create(final Path path)
    {
        final int metadataLength = MAX_COUNTERS * CountersReader.METADATA_LENGTH;
        final int valuesLength = MAX_COUNTERS * CountersReader.COUNTER_LENGTH;
        final MappedByteBuffer mapped;
        try
        {
            Files.deleteIfExists(path);
            mapped = IoUtil.mapNewFile(path.toFile(), HEADER_LENGTH + metadataLength + valuesLength, true);
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new IllegalStateException("cannot create the counters file " + path + ": " + ex, ex);
        }
        final CountersFile file = new CountersFile(path, mapped, metadataLength, valuesLength);
        file.header.putInt(VERSION_OFFSET, VERSION);
        file.header.putInt(METADATA_LENGTH_OFFSET, metadataLength);
        file.header.putInt(VALUES_LENGTH_OFFSET, valuesLength);
        return file;
    }

    /**
     * Map an existing counters file read-only.
     *
     * @param path the file, or a directory holding {@value #FILE_NAME}.
     * @return the file.
     * @throws IllegalArgumentException with a one-line reason when it is missing or not a counters file.
     */
    public static CountersFile openReadOnly(final Path path)
    {
        final Path file = Files.isDirectory(path) ? path.resolve(FILE_NAME) : path;
        if (!Files.exists(path))
        {
            throw new IllegalArgumentException("no such file or directory: " + path);
        }
        if (!Files.isRegularFile(file))
        {
            throw new IllegalArgumentException("no counters file in " + path + " (" + FILE_NAME +
                " is written by kvledger run and KvLedger.open; a run --deterministic writes none)");
        }
        final long size;
        try
        {
            size = Files.size(file);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read " + file + ": " + ex.getMessage(), ex);
        }
        if (size < HEADER_LENGTH)
        {
            throw new IllegalArgumentException(file + " is not a kvledger counters file (" + size + " bytes)");
        }
        final MappedByteBuffer mapped;
        try
        {
            mapped = IoUtil.mapExistingFile(file.toFile(), FileChannel.MapMode.READ_ONLY, "counters");
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException("cannot map " + file + ": " + ex.getMessage(), ex);
        }
        final UnsafeBuffer header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        final int magic = header.getIntVolatile(MAGIC_OFFSET);
        final int version = header.getInt(VERSION_OFFSET);
        final int metadataLength = header.getInt(METADATA_LENGTH_OFFSET);
        final int valuesLength = header.getInt(VALUES_LENGTH_OFFSET);
        if (MAGIC != magic)
        {
            throw new IllegalArgumentException(file + " is not a kvledger counters file (or is still being created)");
        }
        if (VERSION != version)
        {
            throw new IllegalArgumentException(file + " has counters layout version " + version + "; this kvledger " +
                "reads version " + VERSION);
        }
        // whole records, at least one counter, and metadata for every value (Agrona's reader throws otherwise)
        if (valuesLength < CountersReader.COUNTER_LENGTH || valuesLength % CountersReader.COUNTER_LENGTH != 0 ||
            metadataLength <= 0 || metadataLength % CountersReader.METADATA_LENGTH != 0 ||
            (long)HEADER_LENGTH + metadataLength + valuesLength > size ||
            metadataLength < valuesLength * (CountersReader.METADATA_LENGTH / CountersReader.COUNTER_LENGTH))
        {
            throw new IllegalArgumentException(file + " is a damaged counters file (buffer lengths " +
                metadataLength + " and " + valuesLength + " in " + size + " bytes)");
        }
        final CountersFile counters = new CountersFile(file, mapped, metadataLength, valuesLength);
        counters.checkLabels();
        return counters;
    }

    /**
     * Every allocated counter's label length must lie within its record: a damaged length would make the reader
     * allocate or read up to 2 GiB (OutOfMemoryError, NegativeArraySizeException, IndexOutOfBoundsException).
     *
     * @throws IllegalArgumentException naming the counter and the length.
     */
    private void checkLabels()
    {
        final CountersReader reader = reader();
        for (int id = 0; id <= reader.maxCounterId(); id++)
        {
            final int state = reader.getCounterState(id);
            if (CountersReader.RECORD_UNUSED == state)
            {
                return;
            }
            if (CountersReader.RECORD_ALLOCATED == state)
            {
                final int labelLength =
                    metadata.getInt(CountersReader.metaDataOffset(id) + CountersReader.LABEL_OFFSET);
                if (labelLength < 0 || labelLength > CountersReader.MAX_LABEL_LENGTH)
                {
                    throw new IllegalArgumentException(path + " is a damaged counters file (counter " + id +
                        " has a label length of " + labelLength + " bytes, at most " + CountersReader.MAX_LABEL_LENGTH +
                        ")");
                }
            }
        }
    }

    /** @return a manager that allocates counters (writer only). */
    public CountersManager manager()
    {
        return new CountersManager(metadata, values, StandardCharsets.US_ASCII);
    }

    /** @return a reader of the counters (any process). */
    public CountersReader reader()
    {
        return new CountersReader(metadata, values, StandardCharsets.US_ASCII);
    }

    /** @return the values buffer, for the writer's stores. */
    public UnsafeBuffer values()
    {
        return values;
    }

    /** @return the file. */
    public Path path()
    {
        return path;
    }

    /** @return the file as a {@link File}. */
    public File file()
    {
        return path.toFile();
    }

    /** Publish the file as valid: the magic, after every counter is allocated. */
    public void markReady()
    {
        header.putIntRelease(MAGIC_OFFSET, MAGIC);
    }
}
