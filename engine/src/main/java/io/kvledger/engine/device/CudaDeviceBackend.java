package io.kvledger.engine.device;

import io.kvledger.engine.util.AgentWorker;
import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.Pool;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUctx_flags;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUpointer_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;
import org.agrona.BufferUtil;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * A device backend on an NVIDIA GPU through JCuda's driver API: device pools in GPU memory ({@code cuMemAlloc}),
 * host staging pools in pinned host memory mapped into the device's address space ({@code cuMemHostAlloc} with
 * {@code CU_MEMHOSTALLOC_DEVICEMAP}), and two streams, as on the host backend: a load stream for batches that
 * copy host to device, and a compute stream for device-local copies and backups to the host. Each stream has its
 * own thread, with the context current, which issues its batches, records one event per batch and polls the
 * events in order ({@code cuEventQuery}, exceptions off, so {@code CUDA_ERROR_NOT_READY} is a return code).
 * <p>
 * Copy path ({@link DeviceConfig#cudaCopyPath()}): {@link CudaCopyPath#KERNEL} moves a whole batch with one launch
 * of the PTX copy kernel ({@link CopyKernel}, compiled by the driver with {@code cuModuleLoadData}): the batch is
 * packed into an entry table by a {@link CopyPlanner} in pinned memory; a launch of at most
 * {@link CopyKernel#PARAM_ENTRIES} entries carries them in its launch parameters ({@link CopyKernel#ENTRY_PARAMS}),
 * a larger one reads the table from a device copy made before it (or, if so configured, from the mapped pinned
 * table). A group of threads per entry (a warp for a 4 KiB page, a block for a 32 KiB chunk:
 * {@link DeviceConfig#kernelGroupThreads()}) reads and writes 16-byte words, host memory through its device
 * address. In a batch that is one launch, up to {@link DeviceConfig#kernelSplitMaxCopies()} copies of at least
 * {@link DeviceConfig#kernelSplitMinBytes()} (a Mamba state) go to the copy engine: by default on a side stream
 * beside the kernel, issued before the launch so that they move while the launch call is made (or right after it,
 * {@link DeviceConfig#kernelSplitAfterLaunch()}, measured slower), with events ordering the side stream after the
 * stream's earlier work (left out when the stream is idle: {@link DeviceConfig#kernelForkAlways()}) and the batch's
 * completion after both; or, if so
 * configured, on the batch's stream just before the launch. A batch whose copies depend on each other takes one
 * launch per dependent group.
 * {@link CudaCopyPath#DIRECT} issues one {@code cuMemcpy*Async} per slot; it is also used when the kernel cannot
 * run (slot sizes not multiples of 16 bytes, or the module fails to load: {@link #describe()} says which).
 * The kernel path's module, tables, planners, launch parameters and side streams belong to a
 * {@link KernelLauncher}; this class keeps the context, the pools, the streams and their threads, and the
 * completions.
 * <p>
 * Thread ownership: claim and submit from the engine's dispatch thread; the two stream threads run the listener.
 * {@link #fill(Pool, int, long)} and {@link #digest(Pool, int)} are synchronous checks, callable from any thread
 * (device slots go through a pinned scratch under a lock). Only this class, {@link CudaSelfCheck} and
 * {@link CudaDataPathBench} reference JCuda, so nothing loads JCuda unless the cuda backend is chosen; probe with
 * {@link #available(StringBuilder)} first. Allocation-free per batch after construction. With the system property
 * {@code kvledger.cuda.stats=true}, {@link #close()} prints {@link #stats()} to stderr.
 */
public final class CudaDeviceBackend implements DeviceBackend
{
    /** Stream of host-to-device loads. */
    static final int LOAD_STREAM = CopyStreams.LOAD_STREAM;
    /** Stream of device-local copies (copy-on-write) and device-to-host backups. */
    static final int COMPUTE_STREAM = CopyStreams.COMPUTE_STREAM;

    static final int STREAMS = CopyStreams.STREAMS;
    private static final int POOLS = 4;
    static final int PAD = 8;
    private static final int HUGE_PAGE = 2 << 20;
    private static final int SUCCESS = CUresult.CUDA_SUCCESS;
    private static final String NO_DRIVER = "cuda: no NVIDIA driver found (libcuda.so.1 missing)";

    private static final Object PROBE_LOCK = new Object();
    private static boolean probed;
    private static boolean probeAvailable;
    private static String probeMessage;

    private final int[] slotCounts = new int[POOLS];
    private final int[] slotBytes = new int[POOLS];
    private final CUdeviceptr[] deviceBase = new CUdeviceptr[POOLS];
    private final CUdeviceptr[][] deviceSlots = new CUdeviceptr[POOLS][];
    private final Pointer[] hostBase = new Pointer[POOLS];
    private final ByteBuffer[] registeredHost = new ByteBuffer[POOLS];
    private final CUdeviceptr[] mappedBase = new CUdeviceptr[POOLS];
    private final long[] poolAddress = new long[POOLS];
    private BatchCopier batchCopier;
    private long[] batchDst;
    private long[] batchSrc;
    private long[] batchCopyBytes;
    private final Pointer[][] hostSlots = new Pointer[POOLS][];
    private final UnsafeBuffer[][] hostBuffers = new UnsafeBuffer[POOLS][];
    private final int maxCopiesPerBatch;
    private final CopyBatch[] batches;
    private final CUevent[] events;
    private final boolean[] eventRecorded;
    /** The resident kernel's sequence a batch completes at; 0 for a batch on a CUDA stream. */
    private final long[] residentSeq;
    /** Resident batches per stream whose copy-engine copies are not yet seen done. */
    private final int[] ceInFlight = new int[STREAMS];
    private final boolean[] batchOk;
    private final long[] batchBytes;
    private final CopyBatch[][] inFlight = new CopyBatch[STREAMS][];
    private final int[] inFlightHead = new int[STREAMS];
    private final int[] inFlightSize = new int[STREAMS];
    private final CopyStreams copyStreams;
    private final FaultInjector[] faults = new FaultInjector[STREAMS];
    private final boolean faultsActive;
    private final CUstream[] streams = new CUstream[STREAMS];
    private final Object scratchLock = new Object();
    private final String deviceName;
    private final int deviceOrdinal;
    private final KernelLauncher launcher;
    private final long[] streamCopyCalls = new long[STREAMS * PAD];
    private boolean kernelPath;
    private boolean residentPath;
    private String copyPathNote;

    private CUcontext context;
    private int computeCapabilityMajor;
    private Pointer scratch;
    private UnsafeBuffer scratchBuffer;
    private long deviceFills;
    private long deviceFillNs;
    private long deviceDigests;
    private long deviceDigestNs;

    private volatile boolean released;
    private volatile int lastError = SUCCESS;

    /**
     * Create a context on the configured GPU, allocate the pools (zeroed), the two streams, one event per batch,
     * and for the kernel path load the copy kernel and allocate the entry tables.
     *
     * @param config sizes, copy path and fault injection; validated here.
     * @throws IllegalStateException with a one-line reason when CUDA is unavailable or an allocation fails.
     */
    @SuppressWarnings("unchecked")
    public CudaDeviceBackend(final DeviceConfig config)
    {
        config.validate();
        final StringBuilder whyNot = new StringBuilder();
        if (!available(whyNot))
        {
            throw new IllegalStateException(whyNot.toString());
        }

        deviceOrdinal = config.cudaDevice();
        maxCopiesPerBatch = config.maxCopiesPerBatch();
        launcher = new KernelLauncher(config, this);
        batches = new CopyBatch[config.batchCount()];
        events = new CUevent[batches.length];
        eventRecorded = new boolean[batches.length];
        residentSeq = new long[batches.length];
        batchOk = new boolean[batches.length];
        batchBytes = new long[batches.length];
        copyStreams = new CopyStreams(batches.length);
        for (int s = 0; s < STREAMS; s++)
        {
            inFlight[s] = new CopyBatch[batches.length];
            faults[s] = new FaultInjector(config);
        }
        faultsActive = faults[0].active();

        try
        {
            deviceName = createContext(config.cudaDevice());
            allocatePools(config);
            for (int i = 0; i < batches.length; i++)
            {
                events[i] = new CUevent();
                check(JCudaDriver.cuEventCreate(events[i], CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
                batches[i] = new CopyBatch(this, i, maxCopiesPerBatch, slotCounts);
                copyStreams.add(batches[i]);
            }
            readPoolAddresses();
            prepareKernel(config);
        }
        catch (final RuntimeException ex)
        {
            releaseResources();
            throw ex;
        }

        for (int s = 0; s < STREAMS; s++)
        {
            copyStreams.worker(s, new AgentWorker(new StreamAgent(s),
                new BackoffIdleStrategy(100, 1_000, 1_000, 50_000)));
        }
    }
    /**
     * Whether the cuda backend can run here: probes the driver once (loading JCuda's natives, {@code cuInit},
     * the device count and the driver version), catching every error, and caches the answer.
     * <p>
     * Any thread; the first call may take a moment.
     *
     * @param whyNot receives a one-line reason when not available, e.g. "cuda: no NVIDIA driver found (libcuda.so.1
     *               missing)"; may be null.
     * @return true when a CUDA 12 capable driver and at least one device were found.
     */
    public static boolean available(final StringBuilder whyNot)
    {
        synchronized (PROBE_LOCK)
        {
            if (!probed)
            {
                probe();
                probed = true;
            }
            if (!probeAvailable && null != whyNot)
            {
                whyNot.append(probeMessage);
            }
            return probeAvailable;
        }
    }

    /**
     * The probe's one-line result: the device found, or why none can be used.
     *
     * @return the description of the probe, probing first if needed.
     */
    public static String probeDescription()
    {
        available(null);
        synchronized (PROBE_LOCK)
        {
            return probeMessage;
        }
    }

    /**
     * {@inheritDoc}
     */
    public DeviceKind kind()
    {
        return DeviceKind.CUDA;
    }

    /**
     * {@inheritDoc}
     */
    public void start(final CopyListener listener)
    {
        copyStreams.start(listener);
    }

    /**
     * {@inheritDoc}
     */
    public CopyBatch claimBatch()
    {
        return copyStreams.claim();
    }

    /**
     * {@inheritDoc}
     */
    public CopyBatch tryClaimBatch()
    {
        return copyStreams.tryClaim();
    }

    /**
     * {@inheritDoc}
     */
    public void submit(final long op, final CopyBatch batch)
    {
        copyStreams.submit(this, op, batch);
    }

    /**
     * Which copy path batches take.
     *
     * @return {@link CudaCopyPath#RESIDENT} when the resident copy kernels run, {@link CudaCopyPath#KERNEL} when the
     *         copy kernel is launched per batch, else {@link CudaCopyPath#DIRECT}.
     */
    public CudaCopyPath copyPath()
    {
        return residentPath ? CudaCopyPath.RESIDENT : kernelPath ? CudaCopyPath.KERNEL : CudaCopyPath.DIRECT;
    }

    /**
     * Whether the copy kernel loaded (it can then be used, whichever path batches take).
     *
     * @return true when the module and its function were loaded.
     */
    boolean kernelLoaded()
    {
        return launcher.loaded();
    }

    /**
     * The bytes of a host staging slot, in pinned memory; device pools are not host-addressable here.
     *
     * @param pool HOST_KV or HOST_MAMBA.
     * @param slot which slot.
     * @return a fixed view of exactly {@link #slotBytes(Pool)} bytes.
     */
    public UnsafeBuffer slot(final Pool pool, final int slot)
    {
        checkPool(pool);
        if (CopyBatch.isDevice(pool))
        {
            throw new IllegalArgumentException(pool + " is GPU memory on the cuda backend; use fill() or digest()");
        }
        return hostBuffers[pool.ordinal()][checkSlot(pool, slot)];
    }

    /**
     * {@inheritDoc}
     */
    public int slotBytes(final Pool pool)
    {
        checkPool(pool);
        return slotBytes[pool.ordinal()];
    }

    /**
     * {@inheritDoc}
     */
    public int slotCount(final Pool pool)
    {
        checkPool(pool);
        return slotCounts[pool.ordinal()];
    }

    /**
     * {@inheritDoc}
     */
    public void fill(final Pool pool, final int slot, final long contentSeed)
    {
        checkPool(pool);
        final int index = checkSlot(pool, slot);
        final int bytes = slotBytes[pool.ordinal()];
        if (!CopyBatch.isDevice(pool))
        {
            ContentPattern.fill(hostBuffers[pool.ordinal()][index], 0, bytes, contentSeed);
            return;
        }

        synchronized (scratchLock)
        {
            checkOpen();
            final long start = System.nanoTime();
            ContentPattern.fill(scratchBuffer, 0, bytes, contentSeed);
            check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
            check(JCudaDriver.cuMemcpyHtoD(deviceSlots[pool.ordinal()][index], scratch, bytes), "cuMemcpyHtoD");
            deviceFillNs += System.nanoTime() - start;
            deviceFills++;
        }
    }

    /**
     * {@inheritDoc}
     */
    public long digest(final Pool pool, final int slot)
    {
        checkPool(pool);
        final int index = checkSlot(pool, slot);
        final int bytes = slotBytes[pool.ordinal()];
        if (!CopyBatch.isDevice(pool))
        {
            return ContentDigest.digest(hostBuffers[pool.ordinal()][index], 0, bytes);
        }

        synchronized (scratchLock)
        {
            checkOpen();
            final long start = System.nanoTime();
            check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
            check(JCudaDriver.cuMemcpyDtoH(scratch, deviceSlots[pool.ordinal()][index], bytes), "cuMemcpyDtoH");
            final long digest = ContentDigest.digest(scratchBuffer, 0, bytes);
            deviceDigestNs += System.nanoTime() - start;
            deviceDigests++;
            return digest;
        }
    }

    /**
     * {@inheritDoc}
     */
    public long completedBatches()
    {
        return copyStreams.completedBatches();
    }

    /**
     * {@inheritDoc}
     */
    public long failedBatches()
    {
        return copyStreams.failedBatches();
    }

    /**
     * {@inheritDoc}
     */
    public long copiedBytes()
    {
        return copyStreams.copiedBytes();
    }

    /**
     * Listener calls that threw (the first is printed to stderr; all are otherwise ignored).
     *
     * @return the count of listener exceptions.
     */
    public long listenerErrors()
    {
        return copyStreams.listenerErrors();
    }

    /**
     * The last CUDA error seen on a stream thread, for diagnosing a failed batch.
     *
     * @return the CUDA error name, or CUDA_SUCCESS.
     */
    public String lastError()
    {
        return CUresult.stringFor(lastError);
    }

    /**
     * Counters of the run so far: batches, kernel launches and per-slot copy calls per stream, and the time spent
     * in the synchronous device fills and digests (what a model's forward pass and the checks cost here).
     *
     * @return one line of counters.
     */
    public String stats()
    {
        final long fills;
        final long fillNs;
        final long digests;
        final long digestNs;
        synchronized (scratchLock)
        {
            fills = deviceFills;
            fillNs = deviceFillNs;
            digests = deviceDigests;
            digestNs = deviceDigestNs;
        }
        return String.format(Locale.ROOT, "cuda stats: path %s; load stream %d batches, %d launches, " +
            "%d copy calls, %s; compute stream %d batches, %d launches, %d copy calls, %s; failed %d; " +
            "device fills %d in %.3f s; device digests %d in %.3f s", copyPath().cliName(),
            copyStreams.completedBatches(LOAD_STREAM), launcher.launches(LOAD_STREAM), streamCopyCalls[0],
            Sizes.bytes(copyStreams.copiedBytes(LOAD_STREAM)), copyStreams.completedBatches(COMPUTE_STREAM),
            launcher.launches(COMPUTE_STREAM), streamCopyCalls[PAD],
            Sizes.bytes(copyStreams.copiedBytes(COMPUTE_STREAM)),
            failedBatches(), fills, fillNs / 1e9, digests, digestNs / 1e9);
    }

    /**
     * {@inheritDoc}
     */
    public String describe()
    {
        return "cuda " + deviceName + " (device " + deviceOrdinal + "): " +
            Sizes.pool("device KV", slotCounts[0], slotBytes[0]) + ", " +
            Sizes.pool("device Mamba", slotCounts[1], slotBytes[1]) + ", " + hostKind() + " " +
            Sizes.pool("host KV", slotCounts[2], slotBytes[2]) + ", " + hostKind() + " " +
            Sizes.pool("host Mamba", slotCounts[3], slotBytes[3]) + "; " +
            batches.length + " batches of up to " + maxCopiesPerBatch + " copies on a load and a compute stream; " +
            copyPathNote + "; " + faults[0].describe();
    }

    private String hostKind()
    {
        return null != registeredHost[Pool.HOST_KV.ordinal()] || null != registeredHost[Pool.HOST_MAMBA.ordinal()] ?
            "registered" : "pinned";
    }

    /**
     * Finish the submitted batches, stop the stream threads, then free the events, the streams, the kernel, the GPU
     * and pinned memory and the context. Close any L3 store using the host staging first: its buffers are freed
     * here.
     */
    public void close()
    {
        if (!copyStreams.close())
        {
            return;
        }
        if (Boolean.getBoolean("kvledger.cuda.stats"))
        {
            System.err.println(stats());
        }
        releaseResources();
    }

    // CU_CTX_MAP_HOST is deprecated (mapping is on by default on current drivers) but still honoured; the mapped
    // host pools the copy kernel reads need it on older ones, so it stays, verified on the H200.
    @SuppressWarnings("deprecation")
    private String createContext(final int ordinal)
    {
        final int[] count = new int[1];
        check(JCudaDriver.cuDeviceGetCount(count), "cuDeviceGetCount");
        if (ordinal >= count[0])
        {
            throw new IllegalStateException("cuda: device " + ordinal + " requested, " + count[0] + " present");
        }
        final CUdevice device = new CUdevice();
        check(JCudaDriver.cuDeviceGet(device, ordinal), "cuDeviceGet");
        final int[] major = new int[1];
        check(JCudaDriver.cuDeviceGetAttribute(major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            device), "cuDeviceGetAttribute");
        computeCapabilityMajor = major[0];
        final CUcontext ctx = new CUcontext();
        check(JCudaDriver.cuCtxCreate(ctx, CUctx_flags.CU_CTX_MAP_HOST, device), "cuCtxCreate");
        context = ctx;
        for (int s = 0; s < STREAMS; s++)
        {
            final CUstream stream = new CUstream();
            check(JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
            streams[s] = stream;
        }

        return deviceName(device);
    }

    private void allocatePools(final DeviceConfig config)
    {
        for (final Pool pool : new Pool[]{ Pool.DEVICE_KV, Pool.DEVICE_MAMBA, Pool.HOST_KV, Pool.HOST_MAMBA })
        {
            final int p = pool.ordinal();
            final int count = config.slotCount(pool);
            final int bytes = config.slotBytes(pool);
            final long total = (long)count * bytes;
            slotCounts[p] = count;
            slotBytes[p] = bytes;
            mappedBase[p] = new CUdeviceptr();
            if (CopyBatch.isDevice(pool))
            {
                deviceSlots[p] = new CUdeviceptr[count];
                if (count > 0)
                {
                    final CUdeviceptr base = new CUdeviceptr();
                    check(JCudaDriver.cuMemAlloc(base, total), "cuMemAlloc of " + Sizes.bytes(total) + " for " + pool);
                    deviceBase[p] = base;
                    mappedBase[p] = base;
                    check(JCudaDriver.cuMemsetD8(base, (byte)0, total), "cuMemsetD8");
                    for (int i = 0; i < count; i++)
                    {
                        deviceSlots[p][i] = base.withByteOffset((long)i * bytes);
                    }
                }
            }
            else
            {
                hostSlots[p] = new Pointer[count];
                hostBuffers[p] = new UnsafeBuffer[count];
                if (count > 0)
                {
                    final Pointer base = config.cudaRegisteredHost() ? registerHost(p, total, pool) : new Pointer();
                    if (!config.cudaRegisteredHost())
                    {
                        check(JCudaDriver.cuMemHostAlloc(base, total,
                            JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP | JCudaDriver.CU_MEMHOSTALLOC_PORTABLE),
                            "cuMemHostAlloc of " + Sizes.bytes(total) + " for " + pool);
                    }
                    hostBase[p] = base;
                    final CUdeviceptr mapped = new CUdeviceptr();
                    check(JCudaDriver.cuMemHostGetDevicePointer(mapped, base, 0), "cuMemHostGetDevicePointer");
                    mappedBase[p] = mapped;
                    for (int i = 0; i < count; i++)
                    {
                        final long offset = (long)i * bytes;
                        hostSlots[p][i] = base.withByteOffset(offset);
                        hostBuffers[p][i] = null != registeredHost[p] ?
                            new UnsafeBuffer(registeredHost[p], (int)offset, bytes) :
                            new UnsafeBuffer(base.getByteBuffer(offset, bytes));
                        hostBuffers[p][i].setMemory(0, bytes, (byte)0);
                    }
                }
            }
        }

        final int scratchBytes = Math.max(config.kvPageBytes(), config.mambaStateBytes());
        final Pointer s = new Pointer();
        check(JCudaDriver.cuMemAllocHost(s, scratchBytes), "cuMemAllocHost of the scratch");
        scratch = s;
        scratchBuffer = new UnsafeBuffer(s.getByteBuffer(0, scratchBytes));
    }

    /**
     * A host pool as a 2 MiB-aligned direct buffer, touched (so transparent huge pages can back it), then pinned
     * and mapped with {@code cuMemHostRegister}.
     */
    private Pointer registerHost(final int p, final long total, final Pool pool)
    {
        final long rounded = (total + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        if (rounded > Integer.MAX_VALUE - HUGE_PAGE)
        {
            throw new IllegalStateException("cuda: a registered host pool must stay below 2 GiB: " + pool + " needs " +
                Sizes.bytes(total));
        }
        final ByteBuffer memory = BufferUtil.allocateDirectAligned((int)rounded, HUGE_PAGE);
        new UnsafeBuffer(memory).setMemory(0, (int)rounded, (byte)0);
        final Pointer base = Pointer.to(memory);
        check(JCudaDriver.cuMemHostRegister(base, rounded,
            JCudaDriver.CU_MEMHOSTREGISTER_DEVICEMAP | JCudaDriver.CU_MEMHOSTREGISTER_PORTABLE),
            "cuMemHostRegister of " + Sizes.bytes(rounded) + " for " + pool);
        registeredHost[p] = memory;
        return base;
    }

    /**
     * Each pool's base address as the device sees it (host pools through their mapping, one unified address space),
     * read once: the copy kernels' launch structs, the resident kernels and the batched copy call all address slots
     * from it. A pool without slots keeps 0; an address that cannot be read is recorded as the last error.
     */
    private void readPoolAddresses()
    {
        for (int p = 0; p < POOLS; p++)
        {
            poolAddress[p] = slotCounts[p] > 0 ? deviceAddress(mappedBase[p]) : 0;
        }
    }

    /**
     * @param pool a pool's {@link Pool#ordinal()}.
     * @return its base address as the device sees it; 0 for a pool without slots.
     */
    long poolAddress(final int pool)
    {
        return poolAddress[pool];
    }

    private void prepareKernel(final DeviceConfig config)
    {
        if (!launcher.load(config, slotCounts, slotBytes, batches.length))
        {
            copyPathNote = "direct copies (one cuMemcpyAsync per slot; " + launcher.whyNot() + ")";
            return;
        }
        residentPath = launcher.residentRunning();
        kernelPath = residentPath || config.cudaCopyPath() != CudaCopyPath.DIRECT;
        copyPathNote = (residentPath ? "resident copy kernel" : kernelPath ? "copy kernel" :
            "direct copies (one cuMemcpyAsync per slot; copy kernel loaded)") + " (" + launcher.settings() + ")" +
            (config.cudaCopyPath() == CudaCopyPath.RESIDENT && !residentPath ? "; " + launcher.residentWhyNot() +
            ", so one launch per batch" : "");
    }

    private void releaseResources()
    {
        synchronized (scratchLock)
        {
            if (released || null == context)
            {
                released = true;
                return;
            }
            released = true;
            JCudaDriver.cuCtxSetCurrent(context);
            // first: freeing device memory waits for the device to be idle, which it never is while they run
            launcher.stopResidents();
            for (int i = 0; i < events.length; i++)
            {
                if (null != events[i])
                {
                    JCudaDriver.cuEventDestroy(events[i]);
                    events[i] = null;
                }
            }
            for (int p = 0; p < POOLS; p++)
            {
                if (null != deviceBase[p])
                {
                    JCudaDriver.cuMemFree(deviceBase[p]);
                    deviceBase[p] = null;
                }
                if (null != hostBase[p])
                {
                    if (null != registeredHost[p])
                    {
                        JCudaDriver.cuMemHostUnregister(hostBase[p]);
                        registeredHost[p] = null;
                    }
                    else
                    {
                        JCudaDriver.cuMemFreeHost(hostBase[p]);
                    }
                    hostBase[p] = null;
                }
            }
            launcher.release();
            if (null != scratch)
            {
                JCudaDriver.cuMemFreeHost(scratch);
                scratch = null;
            }
            for (int s = 0; s < STREAMS; s++)
            {
                if (null != streams[s])
                {
                    JCudaDriver.cuStreamDestroy(streams[s]);
                    streams[s] = null;
                }
            }
            JCudaDriver.cuCtxDestroy(context);
            context = null;
        }
    }

    /**
     * One stream's thread: binds the context on start, then each duty cycle issues queued batches while the
     * stream has room in flight and polls the in-flight ones for completion; once the backend stops running and
     * nothing is queued or in flight, it ends.
     */
    private final class StreamAgent implements Agent
    {
        private final int stream;
        private final ManyToOneConcurrentArrayQueue<CopyBatch> queue;
        private final int capacity;
        private boolean contextOk;

        StreamAgent(final int stream)
        {
            this.stream = stream;
            this.queue = copyStreams.queue(stream);
            this.capacity = inFlight[stream].length;
        }

        public void onStart()
        {
            contextOk = record(JCudaDriver.cuCtxSetCurrent(context));
        }

        public int doWork()
        {
            int work = 0;
            CopyBatch batch;
            while (inFlightSize[stream] < capacity && null != (batch = queue.poll()))
            {
                issue(batch, stream, contextOk);
                work++;
            }
            work += pollCompletions(stream);

            if (0 == work && !copyStreams.running() && inFlightSize[stream] == 0 && queue.isEmpty())
            {
                throw AgentWorker.drained();
            }
            // While copies are in flight, poll without backing off: their completion is microseconds away, and a
            // park adds at least the kernel's timer slack (~50 µs) to every load. Only an idle stream backs off.
            return inFlightSize[stream] > 0 ? Math.max(1, work) : work;
        }

        public String roleName()
        {
            return LOAD_STREAM == stream ? "kvledger-cuda-load" : "kvledger-cuda-compute";
        }
    }

    private void issue(final CopyBatch batch, final int stream, final boolean contextOk)
    {
        final int index = batch.index();
        final int count = batch.count();
        boolean ok = contextOk;
        int limit = count;
        if (faultsActive)
        {
            final FaultInjector injector = faults[stream];
            final long delayNs = injector.nextDelayNs();
            if (delayNs > 0)
            {
                LockSupport.parkNanos(delayNs);
            }
            if (injector.nextFails())
            {
                ok = false;
                limit = injector.nextPartialCount(count);
            }
        }

        long bytes = 0;
        if (contextOk && residentPath)
        {
            final int direct = launcher.planResident(batch, limit, stream);
            // copies left to the copy engine run beside the kernel, not in its order: nothing earlier on the stream
            // may still run when they start, and nothing later is posted before they are done
            while (inFlightSize[stream] > 0 && (direct > 0 || ceInFlight[stream] > 0))
            {
                pollCompletions(stream);
                Thread.onSpinWait();
            }
            final long moved = launcher.postPlannedResident(batch, stream, events[index]);
            batchOk[index] = ok && moved >= 0;
            batchBytes[index] = Math.max(0, moved);
            residentSeq[index] = moved >= 0 ? launcher.residentPosted(stream) : 0;
            eventRecorded[index] = moved >= 0 && direct > 0;
            if (eventRecorded[index])
            {
                ceInFlight[stream]++;
            }
            track(batch, stream);
            return;
        }
        if (contextOk)
        {
            final long moved = enqueue(batch, limit, stream, kernelPath, inFlightSize[stream] == 0);
            if (moved < 0)
            {
                ok = false;
            }
            else
            {
                bytes = moved;
            }
        }

        final CUstream cuStream = streams[stream];
        batchOk[index] = ok;
        batchBytes[index] = bytes;
        eventRecorded[index] = contextOk && record(JCudaDriver.cuEventRecord(events[index], cuStream));
        if (!eventRecorded[index])
        {
            batchOk[index] = false;
            if (contextOk)
            {
                record(JCudaDriver.cuStreamSynchronize(cuStream));
            }
        }
        track(batch, stream);
    }

    /** Put an issued batch at the tail of its stream's in-flight ring, where {@link #pollCompletions} finds it. */
    private void track(final CopyBatch batch, final int stream)
    {
        final CopyBatch[] ring = inFlight[stream];
        ring[(inFlightHead[stream] + inFlightSize[stream]) % ring.length] = batch;
        inFlightSize[stream]++;
    }

    /**
     * Put the first {@code limit} copies of a batch on a stream, by the copy kernel or by per-slot copies.
     *
     * @return the bytes enqueued, or -1 when a CUDA call failed (see {@link #lastError()}).
     */
    long enqueue(final CopyBatch batch, final int limit, final int stream, final boolean useKernel,
        final boolean streamIdle)
    {
        return useKernel ? launcher.enqueue(batch, limit, stream, streamIdle) : enqueueDirect(batch, limit, stream);
    }

    private long enqueueDirect(final CopyBatch batch, final int limit, final int stream)
    {
        long bytes = 0;
        for (int i = 0; i < limit; i++)
        {
            if (!copySlot(batch, i, streams[stream], stream))
            {
                return -1;
            }
            bytes += slotBytes[batch.srcPool(i).ordinal()];
        }
        return bytes;
    }

    /**
     * Copy one of a batch's slot copies with the copy engine on a CUDA stream ({@code cuMemcpy*Async}), counted
     * as a copy call of {@code stream}; the copy kernel's launcher uses it for the copies it leaves to the engine.
     *
     * @return false when the call failed (recorded, see {@link #lastError()}).
     */
    boolean copySlot(final CopyBatch batch, final int i, final CUstream cuStream, final int stream)
    {
        final Pool srcPool = batch.srcPool(i);
        if (!record(copyAsync(srcPool, batch.srcSlot(i), batch.dstPool(i), batch.dstSlot(i),
            slotBytes[srcPool.ordinal()], cuStream)))
        {
            return false;
        }
        streamCopyCalls[stream * PAD]++;
        return true;
    }

    private int copyAsync(
        final Pool srcPool, final int srcSlot, final Pool dstPool, final int dstSlot, final int bytes,
        final CUstream stream)
    {
        final int src = srcPool.ordinal();
        final int dst = dstPool.ordinal();
        final boolean srcDevice = CopyBatch.isDevice(srcPool);
        final boolean dstDevice = CopyBatch.isDevice(dstPool);
        if (srcDevice && dstDevice)
        {
            return JCudaDriver.cuMemcpyDtoDAsync(deviceSlots[dst][dstSlot], deviceSlots[src][srcSlot], bytes, stream);
        }
        if (dstDevice)
        {
            return JCudaDriver.cuMemcpyHtoDAsync(deviceSlots[dst][dstSlot], hostSlots[src][srcSlot], bytes, stream);
        }
        if (srcDevice)
        {
            return JCudaDriver.cuMemcpyDtoHAsync(hostSlots[dst][dstSlot], deviceSlots[src][srcSlot], bytes, stream);
        }

        final int rc = JCudaDriver.cuStreamSynchronize(stream);
        if (rc == SUCCESS)
        {
            hostBuffers[dst][dstSlot].putBytes(0, hostBuffers[src][srcSlot], 0, bytes);
        }
        return rc;
    }

    private int pollCompletions(final int stream)
    {
        final CopyBatch[] ring = inFlight[stream];
        int done = 0;
        while (inFlightSize[stream] > 0)
        {
            final CopyBatch batch = ring[inFlightHead[stream]];
            final int index = batch.index();
            boolean ok = batchOk[index];
            // a resident batch is done when its kernel says so and its copy-engine copies (if any) are
            if (residentSeq[index] > 0 && launcher.residentDone(stream) < residentSeq[index])
            {
                break;
            }
            if (eventRecorded[index])
            {
                final int rc = JCudaDriver.cuEventQuery(events[index]);
                if (rc == CUresult.CUDA_ERROR_NOT_READY)
                {
                    break;
                }
                if (!record(rc))
                {
                    ok = false;
                }
                if (residentSeq[index] > 0)
                {
                    ceInFlight[stream]--;
                }
            }

            ring[inFlightHead[stream]] = null;
            inFlightHead[stream] = (inFlightHead[stream] + 1) % ring.length;
            inFlightSize[stream]--;
            copyStreams.complete(batch, stream, ok, batchBytes[index]);
            done++;
        }

        return done;
    }


    // ---- synchronous measurement hooks for CudaSelfCheck and CudaDataPathBench (backend not started) ----

    /**
     * Make the backend's context current on the calling thread, for the measurement hooks.
     */
    void bindContext()
    {
        checkOpen();
        check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    }

    /**
     * The stream a measurement hook uses.
     *
     * @param stream {@link #LOAD_STREAM} or {@link #COMPUTE_STREAM}.
     * @return the CUDA stream.
     */
    CUstream stream(final int stream)
    {
        return streams[stream];
    }

    /**
     * Enqueue a claimed batch on a stream from the calling thread, not through the backend's threads; the batch
     * stays claimed. For measurements on a backend that is not copyStreams.started().
     *
     * @param batch     a claimed batch.
     * @param stream    which stream.
     * @param useKernel  the copy kernel, or per-slot copies.
     * @param streamIdle whether the caller has seen every earlier copy on the stream complete (a stream
     *                   synchronised or an event after them queried done); false when unsure.
     * @throws IllegalStateException when a CUDA call fails.
     */
    void enqueueNow(final CopyBatch batch, final int stream, final boolean useKernel, final boolean streamIdle)
    {
        if (copyStreams.started())
        {
            throw new IllegalStateException("measurement hooks need a backend that is not started");
        }
        if (useKernel && !launcher.loaded())
        {
            throw new IllegalStateException("cuda: the copy kernel is not loaded: " + copyPathNote);
        }
        if (enqueue(batch, batch.count(), stream, useKernel, streamIdle) < 0)
        {
            throw new IllegalStateException("cuda: copy enqueue failed: " + lastError());
        }
    }

    /**
     * Post a claimed batch to a stream's resident copy kernel from the calling thread (backend not started), for
     * measurements; {@link #residentDoneNow} then says when it is done.
     *
     * @param batch  a claimed batch.
     * @param stream which stream's resident kernel.
     * @return the sequence the batch is done at.
     * @throws IllegalStateException when no resident kernel runs or it stopped taking batches.
     */
    long postResidentNow(final CopyBatch batch, final int stream)
    {
        if (copyStreams.started() || !residentPath)
        {
            throw new IllegalStateException(copyStreams.started() ? "measurement hooks need a backend that is not " +
                "started" : "cuda: no resident copy kernel runs: " + copyPathNote);
        }
        launcher.planResident(batch, batch.count(), stream);
        if (launcher.postPlannedResident(batch, stream, events[batch.index()]) < 0)
        {
            throw new IllegalStateException("cuda: the resident copy kernel took no batch: " + lastError());
        }
        return launcher.residentPosted(stream);
    }

    /**
     * Whether the copy-engine copies of the last {@link #postResidentNow} of a batch are done (true when it had none;
     * measurement hook, the caller waits for both this and the kernel's sequence).
     *
     * @param batch the batch posted.
     * @return whether its event is complete.
     */
    boolean residentCopiesDoneNow(final CopyBatch batch)
    {
        final int rc = JCudaDriver.cuEventQuery(events[batch.index()]);
        if (rc == CUresult.CUDA_ERROR_NOT_READY)
        {
            return false;
        }
        check(rc, "cuEventQuery");
        return true;
    }

    /**
     * The last sequence a stream's resident kernel completed (measurement hook).
     *
     * @param stream which stream.
     * @return the sequence.
     */
    long residentDoneNow(final int stream)
    {
        return launcher.residentDone(stream);
    }

    /**
     * How batches are copied, in words: the path and the kernel's settings.
     *
     * @return the copy path note that {@link #describe()} also shows.
     */
    String describeCopyPath()
    {
        return copyPathNote;
    }

    /**
     * Plan a claimed batch for the copy kernel on a stream's planner, without launching; for measurements that
     * time the GPU's part apart from the host's planning ({@link #launchPlannedNow}).
     *
     * @param batch  a claimed batch.
     * @param stream which stream's planner.
     * @return the entries planned.
     */
    int planNow(final CopyBatch batch, final int stream)
    {
        if (!launcher.loaded())
        {
            throw new IllegalStateException("cuda: the copy kernel is not loaded: " + copyPathNote);
        }
        return launcher.plan(batch, stream);
    }

    /**
     * Launch what {@link #planNow} last planned on a stream, from the calling thread (backend not started).
     *
     * @param batch      the batch planned.
     * @param stream     which stream.
     * @param streamIdle as for {@link #enqueueNow}.
     * @throws IllegalStateException when a CUDA call fails.
     */
    void launchPlannedNow(final CopyBatch batch, final int stream, final boolean streamIdle)
    {
        if (copyStreams.started())
        {
            throw new IllegalStateException("measurement hooks need a backend that is not started");
        }
        if (launcher.launchPlanned(batch, stream, streamIdle) < 0)
        {
            throw new IllegalStateException("cuda: copy launch failed: " + lastError());
        }
    }

    /**
     * Enqueue a claimed batch's copies as one {@code cuMemcpyBatchAsync} on a stream from the calling thread (backend
     * not started): the copy engine's batched path, measured against the copy kernel ({@link BatchCopier}).
     *
     * @param batch  a claimed batch, every copy of one direction.
     * @param stream which stream.
     * @throws IllegalStateException when the driver lacks the call or it fails.
     */
    void enqueueBatchCopyNow(final CopyBatch batch, final int stream)
    {
        if (copyStreams.started())
        {
            throw new IllegalStateException("measurement hooks need a backend that is not started");
        }
        if (!batchCopyAvailable())
        {
            throw new IllegalStateException("cuda: " + batchCopier.whyNot());
        }
        final int count = batch.count();
        for (int i = 0; i < count; i++)
        {
            final int src = batch.srcPool(i).ordinal();
            final int dst = batch.dstPool(i).ordinal();
            batchSrc[i] = poolAddress[src] + (long)batch.srcSlot(i) * slotBytes[src];
            batchDst[i] = poolAddress[dst] + (long)batch.dstSlot(i) * slotBytes[dst];
            batchCopyBytes[i] = slotBytes[src];
        }
        final boolean toDevice = count > 0 && CopyBatch.isDevice(batch.dstPool(0));
        check(batchCopier.enqueue(batchDst, batchSrc, batchCopyBytes, count, toDevice, streams[stream]),
            batchCopier.describe());
    }

    /**
     * Whether the driver has the batched copy call {@link #enqueueBatchCopyNow} makes; looked up on the first ask.
     *
     * @return true when it can be measured.
     */
    boolean batchCopyAvailable()
    {
        if (null == batchCopier)
        {
            batchCopier = BatchCopier.load(maxCopiesPerBatch);
            batchDst = new long[maxCopiesPerBatch];
            batchSrc = new long[maxCopiesPerBatch];
            batchCopyBytes = new long[maxCopiesPerBatch];
        }
        return batchCopier.available();
    }

    /** @return the batched copy call used by {@link #enqueueBatchCopyNow}, in words (after its first use). */
    String describeBatchCopy()
    {
        return null == batchCopier ? "not loaded" : batchCopier.describe();
    }

    /**
     * One copy of a whole range of a host pool to or from the same range of a device pool, on a stream: the
     * single large copy the data path is measured against.
     *
     * @param hostPool   HOST_KV or HOST_MAMBA.
     * @param devicePool DEVICE_KV or DEVICE_MAMBA.
     * @param bytes      bytes from the start of both pools.
     * @param toDevice   host to device, or device to host.
     * @param stream     which stream.
     */
    void enqueueSingleCopy(
        final Pool hostPool, final Pool devicePool, final long bytes, final boolean toDevice, final int stream)
    {
        final Pointer host = hostBase[hostPool.ordinal()];
        final CUdeviceptr device = deviceBase[devicePool.ordinal()];
        check(toDevice ?
            JCudaDriver.cuMemcpyHtoDAsync(device, host, bytes, streams[stream]) :
            JCudaDriver.cuMemcpyDtoHAsync(host, device, bytes, streams[stream]), "cuMemcpyAsync");
    }

    /** The address a device pointer holds, as the kernel sees it; 0 (and the error recorded) when unreadable. */
    long deviceAddress(final CUdeviceptr pointer)
    {
        final long[] address = new long[1];
        return record(JCudaDriver.cuPointerGetAttribute(Pointer.to(address),
            CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, pointer)) ? address[0] : 0;
    }

    /** @return the GPU's compute capability major version (9 on Hopper), read when the context was made. */
    int computeCapabilityMajor()
    {
        return computeCapabilityMajor;
    }

    /** @return true when no CUDA call failed since the backend was created. */
    boolean noErrorSoFar()
    {
        return lastError == SUCCESS;
    }

    /** Record a CUDA result: false (and the error kept for {@link #lastError()}) unless it is a success. */
    boolean record(final int rc)
    {
        if (rc != SUCCESS)
        {
            lastError = rc;
            return false;
        }
        return true;
    }

    private void checkOpen()
    {
        if (released)
        {
            throw new IllegalStateException("backend closed");
        }
    }

    private int checkSlot(final Pool pool, final int slot)
    {
        final int count = slotCounts[pool.ordinal()];
        if (slot < 0 || slot >= count)
        {
            throw new IllegalArgumentException(pool + " slot " + slot + " out of range 0.." + (count - 1));
        }
        return slot;
    }

    private static void checkPool(final Pool pool)
    {
        if (pool == null || pool == Pool.NULL_VAL)
        {
            throw new IllegalArgumentException("no such pool: " + pool);
        }
    }

    /** Throw a one-line {@link IllegalStateException} naming {@code what} unless {@code rc} is a success. */
    static void check(final int rc, final String what)
    {
        if (rc != SUCCESS)
        {
            throw new IllegalStateException("cuda: " + what + " failed: " + CUresult.stringFor(rc));
        }
    }

    private static String deviceName(final CUdevice device)
    {
        final byte[] name = new byte[256];
        if (JCudaDriver.cuDeviceGetName(name, name.length, device) != SUCCESS)
        {
            return "unknown device";
        }
        int length = 0;
        while (length < name.length && name[length] != 0)
        {
            length++;
        }
        return new String(name, 0, length, StandardCharsets.US_ASCII);
    }

    private static void probe()
    {
        try
        {
            JCudaDriver.setExceptionsEnabled(false);
            final int rc = JCudaDriver.cuInit(0);
            if (rc == CUresult.CUDA_ERROR_NO_DEVICE)
            {
                fail("cuda: no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE)");
                return;
            }
            if (rc != SUCCESS)
            {
                fail("cuda: cuInit failed (" + CUresult.stringFor(rc) + ")");
                return;
            }

            final int[] version = new int[1];
            JCudaDriver.cuDriverGetVersion(version);
            final String driver = "CUDA " + (version[0] / 1000) + "." + (version[0] % 1000 / 10);
            if (version[0] < 12000)
            {
                fail("cuda: the NVIDIA driver supports only " + driver + "; JCuda 12.6.0 needs CUDA 12 or newer");
                return;
            }

            final int[] count = new int[1];
            if (JCudaDriver.cuDeviceGetCount(count) != SUCCESS || count[0] == 0)
            {
                fail("cuda: no CUDA device found (driver " + driver + ")");
                return;
            }

            final CUdevice device = new CUdevice();
            JCudaDriver.cuDeviceGet(device, 0);
            final long[] memory = new long[1];
            JCudaDriver.cuDeviceTotalMem(memory, device);
            probeMessage = "cuda: " + deviceName(device) + ", " + Sizes.bytes(memory[0]) + ", " + count[0] +
                " device(s), driver " + driver;
            probeAvailable = true;
        }
        catch (final UnsatisfiedLinkError ex)
        {
            fail(mentions(ex, "libcuda.so") ? NO_DRIVER :
                "cuda: JCuda's native library could not be loaded (" + firstLine(ex) + ")");
        }
        catch (final NoClassDefFoundError ex)
        {
            final String missing = String.valueOf(ex.getMessage());
            if (missing.contains("Could not initialize class jcuda"))
            {
                fail("cuda: JCuda driver API unusable (" + firstLine(ex) + "; usually libcuda.so.1 is missing)");
            }
            else if (missing.startsWith("jcuda/") || missing.startsWith("jcuda."))
            {
                fail("cuda: JCuda is not on the classpath (" + firstLine(ex) + ")");
            }
            else
            {
                fail("cuda: JCuda could not be loaded (" + firstLine(ex) + ")");
            }
        }
        catch (final Throwable ex)
        {
            fail("cuda: probe failed (" + firstLine(ex) + ")");
        }
    }

    private static void fail(final String message)
    {
        probeAvailable = false;
        probeMessage = message;
    }

    private static boolean mentions(final Throwable error, final String text)
    {
        Throwable t = error;
        for (int depth = 0; null != t && depth < 8; depth++)
        {
            if (null != t.getMessage() && t.getMessage().contains(text))
            {
                return true;
            }
            for (final Throwable suppressed : t.getSuppressed())
            {
                if (null != suppressed.getMessage() && suppressed.getMessage().contains(text))
                {
                    return true;
                }
            }
            t = t.getCause();
        }
        return false;
    }

    private static String firstLine(final Throwable error)
    {
        final String message = error.getClass().getSimpleName() + ": " + error.getMessage();
        final int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
