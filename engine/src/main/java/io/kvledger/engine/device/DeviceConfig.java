package io.kvledger.engine.device;

import io.kvledger.journal.codec.Pool;

/**
 * Sizes and fault-injection settings of a device backend: slot counts per pool, bytes per KV page and per Mamba
 * state, the copy batches, and the seeded copy delay and failure injection of the host backend.
 * <p>
 * A mutable, fluent settings object in the style of an Aeron {@code Context}; the defaults make a small demo
 * (4 KiB pages, 16 KiB states, 256 pages and 16 states per tier). Filled on one thread, then handed to a backend
 * constructor, which validates it and copies what it needs.
 */
public final class DeviceConfig
{
    /** Default number of device KV pages. */
    public static final int DEVICE_KV_PAGES_DEFAULT = 256;
    /** Default number of device Mamba slots. */
    public static final int DEVICE_MAMBA_SLOTS_DEFAULT = 16;
    /** Default number of host staging KV pages. */
    public static final int HOST_KV_PAGES_DEFAULT = 256;
    /** Default number of host staging Mamba slots. */
    public static final int HOST_MAMBA_SLOTS_DEFAULT = 16;
    /** Default bytes of one KV page. */
    public static final int KV_PAGE_BYTES_DEFAULT = 4 * 1024;
    /** Default bytes of one Mamba state. */
    public static final int MAMBA_STATE_BYTES_DEFAULT = 16 * 1024;
    /** Default most copies in one batch. */
    public static final int MAX_COPIES_PER_BATCH_DEFAULT = 1024;
    /** Default number of preallocated copy batches (the most batches in flight). */
    public static final int BATCH_COUNT_DEFAULT = 64;
    /** Default most bytes one block of the copy kernel moves (one table entry). */
    public static final int KERNEL_CHUNK_BYTES_DEFAULT = 32 * 1024;
    /** Default threads per block of the copy kernel. */
    public static final int KERNEL_THREADS_DEFAULT = 256;
    /** Default size from which a copy of a one-launch batch goes to the copy engine beside the kernel. */
    public static final int KERNEL_SPLIT_MIN_BYTES_DEFAULT = 512 * 1024;
    /** Default most copies of a batch that go to the copy engine beside the kernel. */
    public static final int KERNEL_SPLIT_MAX_COPIES_DEFAULT = 4;

    private int deviceKvPages = DEVICE_KV_PAGES_DEFAULT;
    private int deviceMambaSlots = DEVICE_MAMBA_SLOTS_DEFAULT;
    private int hostKvPages = HOST_KV_PAGES_DEFAULT;
    private int hostMambaSlots = HOST_MAMBA_SLOTS_DEFAULT;
    private int kvPageBytes = KV_PAGE_BYTES_DEFAULT;
    private int mambaStateBytes = MAMBA_STATE_BYTES_DEFAULT;
    private int maxCopiesPerBatch = MAX_COPIES_PER_BATCH_DEFAULT;
    private int batchCount = BATCH_COUNT_DEFAULT;
    private long copyDelayMinNs;
    private long copyDelayMaxNs;
    private double failureProbability;
    private long seed;
    private int cudaDevice;
    private CudaCopyPath cudaCopyPath = CudaCopyPath.KERNEL;
    private int kernelChunkBytes = KERNEL_CHUNK_BYTES_DEFAULT;
    private int kernelThreads = KERNEL_THREADS_DEFAULT;
    private boolean cudaRegisteredHost = Boolean.getBoolean("kvledger.cuda.registeredHost");
    private int kernelGroupThreads;
    private boolean kernelMappedTable;
    private boolean kernelSortByHost;
    private boolean kernelParamTable = true;
    private int kernelSplitMinBytes = KERNEL_SPLIT_MIN_BYTES_DEFAULT;
    private int kernelSplitMaxCopies = KERNEL_SPLIT_MAX_COPIES_DEFAULT;
    private boolean kernelSplitSideStream = true;
    private boolean kernelSplitAfterLaunch;
    private boolean kernelBulk;
    private boolean kernelForkAlways;

    /**
     * Device KV pages.
     *
     * @return the number of device KV pages.
     */
    public int deviceKvPages()
    {
        return deviceKvPages;
    }

    /**
     * Set the number of device KV pages.
     *
     * @param deviceKvPages number of pages.
     * @return this for a fluent style.
     */
    public DeviceConfig deviceKvPages(final int deviceKvPages)
    {
        this.deviceKvPages = deviceKvPages;
        return this;
    }

    /**
     * Device Mamba slots.
     *
     * @return the number of device Mamba slots.
     */
    public int deviceMambaSlots()
    {
        return deviceMambaSlots;
    }

    /**
     * Set the number of device Mamba slots.
     *
     * @param deviceMambaSlots number of slots.
     * @return this for a fluent style.
     */
    public DeviceConfig deviceMambaSlots(final int deviceMambaSlots)
    {
        this.deviceMambaSlots = deviceMambaSlots;
        return this;
    }

    /**
     * Host staging KV pages.
     *
     * @return the number of host staging KV pages.
     */
    public int hostKvPages()
    {
        return hostKvPages;
    }

    /**
     * Set the number of host staging KV pages.
     *
     * @param hostKvPages number of pages.
     * @return this for a fluent style.
     */
    public DeviceConfig hostKvPages(final int hostKvPages)
    {
        this.hostKvPages = hostKvPages;
        return this;
    }

    /**
     * Host staging Mamba slots.
     *
     * @return the number of host staging Mamba slots.
     */
    public int hostMambaSlots()
    {
        return hostMambaSlots;
    }

    /**
     * Set the number of host staging Mamba slots.
     *
     * @param hostMambaSlots number of slots.
     * @return this for a fluent style.
     */
    public DeviceConfig hostMambaSlots(final int hostMambaSlots)
    {
        this.hostMambaSlots = hostMambaSlots;
        return this;
    }

    /**
     * Slots of a pool.
     *
     * @param pool which pool.
     * @return the configured slot count of that pool.
     */
    public int slotCount(final Pool pool)
    {
        switch (pool)
        {
            case DEVICE_KV:
                return deviceKvPages;
            case DEVICE_MAMBA:
                return deviceMambaSlots;
            case HOST_KV:
                return hostKvPages;
            case HOST_MAMBA:
                return hostMambaSlots;
            default:
                throw new IllegalArgumentException("no such pool: " + pool);
        }
    }

    /**
     * Set the slot count of a pool.
     *
     * @param pool  which pool.
     * @param count number of slots.
     * @return this for a fluent style.
     */
    public DeviceConfig slotCount(final Pool pool, final int count)
    {
        switch (pool)
        {
            case DEVICE_KV:
                deviceKvPages = count;
                break;
            case DEVICE_MAMBA:
                deviceMambaSlots = count;
                break;
            case HOST_KV:
                hostKvPages = count;
                break;
            case HOST_MAMBA:
                hostMambaSlots = count;
                break;
            default:
                throw new IllegalArgumentException("no such pool: " + pool);
        }
        return this;
    }

    /**
     * Bytes of one slot of a pool: {@link #kvPageBytes()} for KV pools, {@link #mambaStateBytes()} for Mamba pools.
     *
     * @param pool which pool.
     * @return bytes per slot.
     */
    public int slotBytes(final Pool pool)
    {
        switch (pool)
        {
            case DEVICE_KV:
            case HOST_KV:
                return kvPageBytes;
            case DEVICE_MAMBA:
            case HOST_MAMBA:
                return mambaStateBytes;
            default:
                throw new IllegalArgumentException("no such pool: " + pool);
        }
    }

    /**
     * Bytes of one KV page (all layers of one page).
     *
     * @return bytes per KV page.
     */
    public int kvPageBytes()
    {
        return kvPageBytes;
    }

    /**
     * Set the bytes of one KV page.
     *
     * @param kvPageBytes a positive multiple of 8.
     * @return this for a fluent style.
     */
    public DeviceConfig kvPageBytes(final int kvPageBytes)
    {
        this.kvPageBytes = kvPageBytes;
        return this;
    }

    /**
     * Bytes of one Mamba state (all layers of one recurrent state).
     *
     * @return bytes per Mamba state.
     */
    public int mambaStateBytes()
    {
        return mambaStateBytes;
    }

    /**
     * Set the bytes of one Mamba state.
     *
     * @param mambaStateBytes a positive multiple of 8.
     * @return this for a fluent style.
     */
    public DeviceConfig mambaStateBytes(final int mambaStateBytes)
    {
        this.mambaStateBytes = mambaStateBytes;
        return this;
    }

    /**
     * Most copies one batch can hold.
     *
     * @return the capacity of every copy batch.
     */
    public int maxCopiesPerBatch()
    {
        return maxCopiesPerBatch;
    }

    /**
     * Set the most copies one batch can hold.
     *
     * @param maxCopiesPerBatch capacity of every copy batch.
     * @return this for a fluent style.
     */
    public DeviceConfig maxCopiesPerBatch(final int maxCopiesPerBatch)
    {
        this.maxCopiesPerBatch = maxCopiesPerBatch;
        return this;
    }

    /**
     * Preallocated copy batches: the most batches claimed or in flight at once.
     *
     * @return the number of copy batches.
     */
    public int batchCount()
    {
        return batchCount;
    }

    /**
     * Set the number of preallocated copy batches.
     *
     * @param batchCount number of batches.
     * @return this for a fluent style.
     */
    public DeviceConfig batchCount(final int batchCount)
    {
        this.batchCount = batchCount;
        return this;
    }

    /**
     * Shortest injected delay before a batch is copied.
     *
     * @return the minimum delay in nanoseconds.
     */
    public long copyDelayMinNs()
    {
        return copyDelayMinNs;
    }

    /**
     * Longest injected delay before a batch is copied.
     *
     * @return the maximum delay in nanoseconds.
     */
    public long copyDelayMaxNs()
    {
        return copyDelayMaxNs;
    }

    /**
     * Set the range of the seeded delay before each batch is copied; 0..0 (the default) means none.
     *
     * @param minNs shortest delay in nanoseconds.
     * @param maxNs longest delay in nanoseconds.
     * @return this for a fluent style.
     */
    public DeviceConfig copyDelayNs(final long minNs, final long maxNs)
    {
        this.copyDelayMinNs = minNs;
        this.copyDelayMaxNs = maxNs;
        return this;
    }

    /**
     * Probability that a batch fails (seeded injection).
     *
     * @return a probability in [0, 1].
     */
    public double failureProbability()
    {
        return failureProbability;
    }

    /**
     * Set the probability that a batch fails; a failed batch reports {@code ok = false} and leaves its destinations
     * unwritten or partly written.
     *
     * @param failureProbability a probability in [0, 1]; 0 (the default) means none.
     * @return this for a fluent style.
     */
    public DeviceConfig failureProbability(final double failureProbability)
    {
        this.failureProbability = failureProbability;
        return this;
    }

    /**
     * Seed of the delay and failure injection.
     *
     * @return the seed.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * Set the seed of the delay and failure injection; the same seed and submission order give the same faults.
     *
     * @param seed the seed.
     * @return this for a fluent style.
     */
    public DeviceConfig seed(final long seed)
    {
        this.seed = seed;
        return this;
    }

    /**
     * CUDA device ordinal used by the cuda backend.
     *
     * @return the device ordinal.
     */
    public int cudaDevice()
    {
        return cudaDevice;
    }

    /**
     * Set the CUDA device ordinal used by the cuda backend.
     *
     * @param cudaDevice device ordinal, 0 for the first GPU.
     * @return this for a fluent style.
     */
    public DeviceConfig cudaDevice(final int cudaDevice)
    {
        this.cudaDevice = cudaDevice;
        return this;
    }

    /**
     * How the cuda backend copies between host and device memory.
     *
     * @return {@link CudaCopyPath#KERNEL} (the default), {@link CudaCopyPath#DIRECT} or
     *         {@link CudaCopyPath#RESIDENT}.
     */
    public CudaCopyPath cudaCopyPath()
    {
        return cudaCopyPath;
    }

    /**
     * Set how the cuda backend copies: one copy kernel launch per batch, or one {@code cuMemcpyAsync} per slot.
     * The kernel path falls back to direct copies where the kernel cannot run (slot sizes not multiples of 16).
     *
     * @param cudaCopyPath the copy path.
     * @return this for a fluent style.
     */
    public DeviceConfig cudaCopyPath(final CudaCopyPath cudaCopyPath)
    {
        this.cudaCopyPath = cudaCopyPath;
        return this;
    }

    /**
     * Most bytes one thread block of the copy kernel moves: larger slots are split into chunks of this size.
     *
     * @return the chunk size in bytes.
     */
    public int kernelChunkBytes()
    {
        return kernelChunkBytes;
    }

    /**
     * Set the most bytes one thread block of the copy kernel moves.
     *
     * @param kernelChunkBytes a positive multiple of 16, at most 1 MiB.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelChunkBytes(final int kernelChunkBytes)
    {
        this.kernelChunkBytes = kernelChunkBytes;
        return this;
    }

    /**
     * Threads per block of the copy kernel.
     *
     * @return threads per block.
     */
    public int kernelThreads()
    {
        return kernelThreads;
    }

    /**
     * Set the threads per block of the copy kernel.
     *
     * @param kernelThreads a multiple of 32 from 32 to 1024.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelThreads(final int kernelThreads)
    {
        this.kernelThreads = kernelThreads;
        return this;
    }

    /**
     * Whether the cuda backend's host pools are 2 MiB-aligned direct buffers pinned with {@code cuMemHostRegister}
     * (so transparent huge pages can back them) rather than {@code cuMemHostAlloc} memory. The default is false, or
     * the system property {@code kvledger.cuda.registeredHost}.
     *
     * @return true for registered host pools.
     */
    public boolean cudaRegisteredHost()
    {
        return cudaRegisteredHost;
    }

    /**
     * Choose registered host pools (2 MiB-aligned direct buffers, {@code cuMemHostRegister}) over
     * {@code cuMemHostAlloc}; each pool must then stay below 2 GiB.
     *
     * @param cudaRegisteredHost true for registered host pools.
     * @return this for a fluent style.
     */
    public DeviceConfig cudaRegisteredHost(final boolean cudaRegisteredHost)
    {
        this.cudaRegisteredHost = cudaRegisteredHost;
        return this;
    }

    /**
     * Threads of the copy kernel that copy one table entry together; 0 (the default) lets the backend choose per
     * launch from the largest entry: one thread per 128 bytes (eight 16-byte words in flight each), at least a
     * warp, at most a block.
     *
     * @return threads per entry, or 0 for the choice per launch.
     */
    public int kernelGroupThreads()
    {
        return kernelGroupThreads;
    }

    /**
     * Set the threads that copy one table entry together.
     *
     * @param kernelGroupThreads 0 for the choice per launch, else a power of two from 32 to {@link #kernelThreads()}.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelGroupThreads(final int kernelGroupThreads)
    {
        this.kernelGroupThreads = kernelGroupThreads;
        return this;
    }

    /**
     * Whether the copy kernel reads its entry table from mapped pinned host memory through its device address
     * rather than from a device copy made before the launch (the default: on the H200 the uncached reads of a
     * mapped table cost up to three quarters of the bandwidth, see README's GPU section).
     *
     * @return true for the mapped table.
     */
    public boolean kernelMappedTable()
    {
        return kernelMappedTable;
    }

    /**
     * Choose where the copy kernel reads its entry table.
     *
     * @param kernelMappedTable true for mapped pinned host memory, false for a device copy per batch.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelMappedTable(final boolean kernelMappedTable)
    {
        this.kernelMappedTable = kernelMappedTable;
        return this;
    }

    /**
     * Whether the copy kernel's entries of one launch are ordered by host slot, so that scattered pages walk host
     * memory in rising address order. Off by default: on the H200 it changed nothing measurable.
     *
     * @return true for entries sorted by host slot.
     */
    public boolean kernelSortByHost()
    {
        return kernelSortByHost;
    }

    /**
     * Choose whether the copy kernel's entries of one launch are ordered by host slot.
     *
     * @param kernelSortByHost true to sort.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelSortByHost(final boolean kernelSortByHost)
    {
        this.kernelSortByHost = kernelSortByHost;
        return this;
    }

    /**
     * Whether a launch of at most {@link CopyKernel#PARAM_ENTRIES} entries carries them in its launch parameters
     * (the default: no table copy or table read before the copying starts); larger launches use the table.
     *
     * @return true for entries in the parameters where they fit.
     */
    public boolean kernelParamTable()
    {
        return kernelParamTable;
    }

    /**
     * Choose whether small launches carry their entries in their parameters.
     *
     * @param kernelParamTable true to use the parameters where the entries fit.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelParamTable(final boolean kernelParamTable)
    {
        this.kernelParamTable = kernelParamTable;
        return this;
    }

    /**
     * Size from which a copy of a batch that is one launch goes to the copy engine ({@code cuMemcpyAsync}, issued
     * before the kernel's launch) while the kernel moves the rest, at most {@link #kernelSplitMaxCopies()} of them:
     * a pr-bench load's 1 MiB Mamba state then moves while the launch call (several microseconds on the H200
     * machine) is still being made. 0 turns this off.
     *
     * @return bytes, or 0 for off.
     */
    public int kernelSplitMinBytes()
    {
        return kernelSplitMinBytes;
    }

    /**
     * Set the size from which a copy goes to the copy engine beside the kernel.
     *
     * @param kernelSplitMinBytes bytes, 0 for off.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelSplitMinBytes(final int kernelSplitMinBytes)
    {
        this.kernelSplitMinBytes = kernelSplitMinBytes;
        return this;
    }

    /**
     * Most copies of one batch that go to the copy engine beside the kernel.
     *
     * @return the limit (0 for none).
     */
    public int kernelSplitMaxCopies()
    {
        return kernelSplitMaxCopies;
    }

    /**
     * Set the most copies of one batch that go to the copy engine beside the kernel.
     *
     * @param kernelSplitMaxCopies the limit, 0 for none.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelSplitMaxCopies(final int kernelSplitMaxCopies)
    {
        this.kernelSplitMaxCopies = kernelSplitMaxCopies;
        return this;
    }

    /**
     * Whether the copy engine's copies of a split batch run on a side stream beside the kernel, joined by events
     * (the default: a pr-bench load's p50 113.0 us against 117.6 us on the batch's stream just before the launch,
     * and 116.4 us unsplit, on the H200).
     *
     * @return true for a side stream.
     */
    public boolean kernelSplitSideStream()
    {
        return kernelSplitSideStream;
    }

    /**
     * Choose where the copy engine's copies of a split batch run.
     *
     * @param kernelSplitSideStream true for a side stream beside the kernel, false for the batch's stream.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelSplitSideStream(final boolean kernelSplitSideStream)
    {
        this.kernelSplitSideStream = kernelSplitSideStream;
        return this;
    }

    /**
     * Whether the side stream's copy-engine copies of a split batch are issued after the kernel's launch call (the
     * side stream still waits only for the batch stream's earlier work, through an event recorded before the launch)
     * rather than before it. Only with {@link #kernelSplitSideStream()}. Off by default: measured on the H200, the
     * pr-bench load took 114.6 us p50 this way against 111.7 us with the copies issued first
     * ({@code docs/results/gpu/split-order/datapath.txt}).
     *
     * @return true to issue the launch first.
     */
    public boolean kernelSplitAfterLaunch()
    {
        return kernelSplitAfterLaunch;
    }

    /**
     * Choose whether the side stream's copies are issued after the launch call or before it.
     *
     * @param kernelSplitAfterLaunch true for after.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelSplitAfterLaunch(final boolean kernelSplitAfterLaunch)
    {
        this.kernelSplitAfterLaunch = kernelSplitAfterLaunch;
        return this;
    }

    /**
     * Whether the kernel moves its entries with the Hopper bulk-copy unit (TMA: {@code cp.async.bulk} through shared
     * memory, {@code copy_bulk.ptx}) instead of the threads' own 16-byte loads and stores; only on a GPU of compute
     * capability 9.0 or later, others use the threads' copy. Default false: the threads' copy is the measured path.
     *
     * @return true for the bulk-copy kernel.
     */
    public boolean kernelBulk()
    {
        return kernelBulk;
    }

    /**
     * Choose the bulk-copy (TMA) kernel where the GPU has it.
     *
     * @param kernelBulk true for the bulk-copy kernel.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelBulk(final boolean kernelBulk)
    {
        this.kernelBulk = kernelBulk;
        return this;
    }

    /**
     * Whether a split batch's side stream is ordered after the batch stream's earlier work by a fork event even when
     * that stream is idle. By default the fork (an event recorded on the stream and waited on by the side stream, two
     * driver calls) is left out when every batch issued on the stream before has been seen complete: the side stream
     * then has no earlier work to wait for, its own earlier copies having been joined into those batches. True keeps
     * the fork always, as before; for measurements.
     *
     * @return true to fork on an idle stream too.
     */
    public boolean kernelForkAlways()
    {
        return kernelForkAlways;
    }

    /**
     * Choose whether the side stream forks from an idle batch stream too.
     *
     * @param kernelForkAlways true to fork always.
     * @return this for a fluent style.
     */
    public DeviceConfig kernelForkAlways(final boolean kernelForkAlways)
    {
        this.kernelForkAlways = kernelForkAlways;
        return this;
    }

    /**
     * Bytes of a whole pool.
     *
     * @param pool which pool.
     * @return slot count times slot bytes.
     */
    public long poolBytes(final Pool pool)
    {
        return (long)slotCount(pool) * slotBytes(pool);
    }

    /**
     * Check every setting, throwing on the first one out of range.
     *
     * @return this for a fluent style.
     * @throws IllegalArgumentException naming the bad setting.
     */
    public DeviceConfig validate()
    {
        requireCount("deviceKvPages", deviceKvPages);
        requireCount("deviceMambaSlots", deviceMambaSlots);
        requireCount("hostKvPages", hostKvPages);
        requireCount("hostMambaSlots", hostMambaSlots);
        requireSlotBytes("kvPageBytes", kvPageBytes);
        requireSlotBytes("mambaStateBytes", mambaStateBytes);
        if (maxCopiesPerBatch < 1)
        {
            throw new IllegalArgumentException("maxCopiesPerBatch must be >= 1: " + maxCopiesPerBatch);
        }
        if (batchCount < 1)
        {
            throw new IllegalArgumentException("batchCount must be >= 1: " + batchCount);
        }
        if (copyDelayMinNs < 0 || copyDelayMaxNs < copyDelayMinNs)
        {
            throw new IllegalArgumentException("copy delay range must satisfy 0 <= min <= max: " +
                copyDelayMinNs + ".." + copyDelayMaxNs);
        }
        if (!(failureProbability >= 0.0 && failureProbability <= 1.0))
        {
            throw new IllegalArgumentException("failureProbability must be in [0, 1]: " + failureProbability);
        }
        if (cudaDevice < 0)
        {
            throw new IllegalArgumentException("cudaDevice must be >= 0: " + cudaDevice);
        }
        if (null == cudaCopyPath)
        {
            throw new IllegalArgumentException("cudaCopyPath must be kernel, direct or resident");
        }
        if (kernelChunkBytes < 16 || (kernelChunkBytes & 15) != 0 || kernelChunkBytes > (1 << 20))
        {
            throw new IllegalArgumentException("kernelChunkBytes must be a positive multiple of 16, at most 1 MiB: " +
                kernelChunkBytes);
        }
        if (kernelThreads < 32 || kernelThreads > 1024 || (kernelThreads & 31) != 0)
        {
            throw new IllegalArgumentException("kernelThreads must be a multiple of 32 from 32 to 1024: " +
                kernelThreads);
        }
        if (kernelSplitMinBytes < 0 || kernelSplitMaxCopies < 0)
        {
            throw new IllegalArgumentException("kernelSplitMinBytes and kernelSplitMaxCopies must be >= 0: " +
                kernelSplitMinBytes + ", " + kernelSplitMaxCopies);
        }
        if (kernelGroupThreads != 0 && (kernelGroupThreads < 32 || kernelGroupThreads > kernelThreads ||
            Integer.bitCount(kernelGroupThreads) != 1 || kernelThreads % kernelGroupThreads != 0))
        {
            throw new IllegalArgumentException("kernelGroupThreads must be 0 or a power of two from 32 to " +
                "kernelThreads (" + kernelThreads + ") dividing it: " + kernelGroupThreads);
        }
        return this;
    }

    /**
     * A one-line summary of the settings.
     *
     * @return the settings as text.
     */
    public String toString()
    {
        return "DeviceConfig{deviceKvPages=" + deviceKvPages +
            ", deviceMambaSlots=" + deviceMambaSlots +
            ", hostKvPages=" + hostKvPages +
            ", hostMambaSlots=" + hostMambaSlots +
            ", kvPageBytes=" + kvPageBytes +
            ", mambaStateBytes=" + mambaStateBytes +
            ", maxCopiesPerBatch=" + maxCopiesPerBatch +
            ", batchCount=" + batchCount +
            ", copyDelayNs=" + copyDelayMinNs + ".." + copyDelayMaxNs +
            ", failureProbability=" + failureProbability +
            ", seed=" + seed +
            ", cudaDevice=" + cudaDevice +
            ", cudaCopyPath=" + cudaCopyPath +
            ", kernelChunkBytes=" + kernelChunkBytes +
            ", kernelThreads=" + kernelThreads +
            ", cudaRegisteredHost=" + cudaRegisteredHost +
            ", kernelGroupThreads=" + kernelGroupThreads +
            ", kernelMappedTable=" + kernelMappedTable +
            ", kernelSortByHost=" + kernelSortByHost +
            ", kernelParamTable=" + kernelParamTable +
            ", kernelSplitMinBytes=" + kernelSplitMinBytes +
            ", kernelSplitMaxCopies=" + kernelSplitMaxCopies +
            ", kernelSplitSideStream=" + kernelSplitSideStream +
            ", kernelSplitAfterLaunch=" + kernelSplitAfterLaunch +
            ", kernelBulk=" + kernelBulk +
            ", kernelForkAlways=" + kernelForkAlways +
            '}';
    }

    private static void requireCount(final String name, final int count)
    {
        if (count < 0)
        {
            throw new IllegalArgumentException(name + " must be >= 0: " + count);
        }
    }

    private static void requireSlotBytes(final String name, final int bytes)
    {
        if (bytes < 8 || (bytes & 7) != 0)
        {
            throw new IllegalArgumentException(name + " must be a positive multiple of 8: " + bytes);
        }
    }
}
