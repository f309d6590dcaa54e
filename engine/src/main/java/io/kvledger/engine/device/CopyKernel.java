package io.kvledger.engine.device;


import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The copy kernel's PTX text, carried as the resource {@code io/kvledger/engine/device/copy.ptx} and handed to
 * the driver by {@link CudaDeviceBackend} ({@code cuModuleLoadData}), which compiles it for the GPU present: no
 * CUDA toolkit is needed at run time.
 * <p>
 * The kernel {@value #ENTRY} copies the entries of a {@link CopyPlanner} table in memory, a group of threads per
 * entry; {@value #ENTRY_PARAMS} copies up to {@value #PARAM_ENTRIES} entries carried in its launch parameter,
 * in the same 16-byte format. Each takes one parameter, a struct (see {@link #LAUNCH_BYTES}): JCuda
 * marshals one parameter held in a direct buffer in about a tenth of the time of eight separate ones. Generated
 * from {@code engine/src/main/cuda/copy.cu}. Free of JCuda, so it can be read and checked on a machine without a
 * GPU. Any thread.
 */
public final class CopyKernel
{
    /** Resource name, next to this class. */
    public static final String RESOURCE = "copy.ptx";
    /**
     * Resource of the same two kernels moving their entries by the bulk-copy unit (TMA), for compute capability 9.0
     * and later; generated from {@code engine/src/main/cuda/copy_bulk.cu}. Their blocks need dynamic shared memory
     * of {@link #bulkSharedBytes}.
     */
    public static final String RESOURCE_BULK = "copy_bulk.ptx";
    /** Name of the kernel's entry point. */
    public static final String ENTRY = "kvledger_copy";
    /** Name of the kernel that takes its entries in its launch parameters. */
    public static final String ENTRY_PARAMS = "kvledger_copy_params";
    /**
     * Bytes of the one parameter of {@value #ENTRY}, a struct (little-endian): u64 pool bases [4] at 0, u32 entry
     * count at 32, u32 log2 of the threads per entry at 36, u64 table address at 40, u32 first entry at 48.
     */
    public static final int LAUNCH_BYTES = 56;
    /** Offset of the entry count in the launch struct. */
    public static final int LAUNCH_COUNT = 32;
    /** Offset of log2 of the threads per entry in the launch struct. */
    public static final int LAUNCH_SHIFT = 36;
    /** Offset of the table's device address in the launch struct. */
    public static final int LAUNCH_TABLE = 40;
    /** Offset of the launch's first entry in the table, in the launch struct. */
    public static final int LAUNCH_FIRST = 48;
    /** Most entries {@value #ENTRY_PARAMS} takes in its parameter. */
    public static final int PARAM_ENTRIES = 252;
    /** Offset of the first 16-byte entry in the parameter of {@value #ENTRY_PARAMS}, after the launch struct. */
    public static final int PARAM_ENTRIES_OFFSET = 64;
    /** Bytes of the one parameter of {@value #ENTRY_PARAMS}: the launch struct, then the entries; 4 KiB. */
    public static final int PARAM_LAUNCH_BYTES = PARAM_ENTRIES_OFFSET + 16 * PARAM_ENTRIES;

    private CopyKernel()
    {
    }

    /**
     * The PTX text.
     *
     * @return the whole resource as ASCII text.
     * @throws IllegalStateException when the resource is missing or unreadable.
     */
    public static String ptx()
    {
        return ptx(RESOURCE);
    }

    /**
     * Dynamic shared memory a block of the bulk-copy kernels needs: an 8-byte barrier per 32 threads, rounded up to
     * 128 bytes, then 128 bytes of buffer per thread.
     *
     * @param blockThreads threads per block.
     * @return bytes.
     */
    public static int bulkSharedBytes(final int blockThreads)
    {
        return ((blockThreads / 4 + 127) & ~127) + 128 * blockThreads;
    }

    /**
     * The PTX text of a resource next to this class.
     *
     * @param resource {@link #RESOURCE} or {@link #RESOURCE_BULK}.
     * @return the whole resource as ASCII text.
     * @throws IllegalStateException when the resource is missing or unreadable.
     */
    public static String ptx(final String resource)
    {
        try (InputStream in = CopyKernel.class.getResourceAsStream(resource))
        {
            if (null == in)
            {
                throw new IllegalStateException("cuda: copy kernel resource " + resource + " not found");
            }
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream(8192);
            in.transferTo(bytes);
            return bytes.toString(StandardCharsets.US_ASCII);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cuda: copy kernel resource " + resource + " unreadable: " + ex, ex);
        }
    }

    /**
     * The PTX of a resource as the NUL-terminated image {@code cuModuleLoadData} takes.
     *
     * @param resource {@link #RESOURCE} or {@link #RESOURCE_BULK}.
     * @return ASCII bytes followed by one zero byte.
     */
    static byte[] image(final String resource)
    {
        final byte[] text = ptx(resource).getBytes(StandardCharsets.US_ASCII);
        final byte[] image = new byte[text.length + 1];
        System.arraycopy(text, 0, image, 0, text.length);
        return image;
    }
}
