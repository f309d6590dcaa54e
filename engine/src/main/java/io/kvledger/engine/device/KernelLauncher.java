package io.kvledger.engine.device;

import io.kvledger.journal.codec.Pool;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The copy-kernel path of {@link CudaDeviceBackend}: loads the PTX module ({@link CopyKernel}), owns the entry
 * tables (pinned, one region per batch, and their device copy unless the kernel reads them mapped), each stream's
 * {@link CopyPlanner} and launch parameter structs, and the side streams with their fork and join events; turns a
 * batch into launches on a stream, with the copies the planner leaves to the copy engine beside them.
 * <p>
 * The backend keeps the context, the pools, the streams and the completions; copy-engine copies, error recording
 * and the copy counters go through it. Built and loaded by the backend's constructor, released by its
 * {@code releaseResources}; each stream's methods run on that stream's thread (or a measurement hook's, backend
 * not started).
 */
final class KernelLauncher
{
    private static final int STREAMS = CudaDeviceBackend.STREAMS;
    private static final int POOLS = 4;
    private static final int PAD = CudaDeviceBackend.PAD;
    /** Dynamic shared memory a block may have without opting in. */
    private static final int DEFAULT_SHARED_BYTES = 48 << 10;

    private final CudaDeviceBackend backend;
    private final int maxCopiesPerBatch;
    private final int kernelThreads;
    private final int kernelChunkBytes;
    private final int kernelGroupThreads;
    private final boolean mappedTable;
    private final boolean sortByHost;
    private final boolean paramTable;
    private final int splitMinBytes;
    private final int splitMaxCopies;
    private final boolean splitSideStream;
    private final boolean splitAfterLaunch;
    private final boolean forkAlways;
    private final boolean bulkAsked;
    private final boolean residentAsked;
    private final ResidentCopier[] residents = new ResidentCopier[STREAMS];
    private String residentWhyNot = "";
    private boolean bulk;
    private int sharedBytes;
    private final CUstream[] sideStreams = new CUstream[STREAMS];
    private final CUevent[] forkEvents = new CUevent[STREAMS];
    private final CUevent[] joinEvents = new CUevent[STREAMS];
    private final long[] launches = new long[STREAMS * PAD];
    private final CopyPlanner[] planners = new CopyPlanner[STREAMS];
    private final UnsafeBuffer[] launchStructs = new UnsafeBuffer[STREAMS];
    private final Pointer[] launchParams = new Pointer[STREAMS];
    private final UnsafeBuffer[] paramLaunchStructs = new UnsafeBuffer[STREAMS];
    private final Pointer[] paramLaunchParams = new Pointer[STREAMS];
    private int tableBytesPerBatch;
    private Pointer hostTables;
    private CUdeviceptr deviceTables;
    private CUdeviceptr kernelTables;
    private Pointer[] hostTableAt;
    private CUdeviceptr[] deviceTableAt;
    private UnsafeBuffer[] hostTableBuffer;
    private CUmodule module;
    private CUfunction kernel;
    private CUfunction paramKernel;
    private String why = "not loaded";

    /**
     * Take the kernel's settings; nothing is allocated until {@link #load}.
     *
     * @param config  the backend's validated configuration.
     * @param backend the backend it launches for.
     */
    KernelLauncher(final DeviceConfig config, final CudaDeviceBackend backend)
    {
        this.backend = backend;
        maxCopiesPerBatch = config.maxCopiesPerBatch();
        kernelThreads = config.kernelThreads();
        kernelChunkBytes = config.kernelChunkBytes();
        kernelGroupThreads = config.kernelGroupThreads();
        mappedTable = config.kernelMappedTable();
        sortByHost = config.kernelSortByHost();
        paramTable = config.kernelParamTable();
        splitMinBytes = config.kernelSplitMinBytes();
        residentAsked = config.cudaCopyPath() == CudaCopyPath.RESIDENT;
        splitMaxCopies = config.kernelSplitMinBytes() > 0 ? config.kernelSplitMaxCopies() : 0;
        splitSideStream = config.kernelSplitSideStream();
        splitAfterLaunch = splitSideStream && config.kernelSplitAfterLaunch();
        forkAlways = config.kernelForkAlways();
        bulkAsked = config.kernelBulk() && !residentAsked;
    }

    /**
     * Load the module and allocate what launches need, with the backend's context current.
     *
     * @param config     the backend's configuration.
     * @param slotCounts slots per pool, by {@link Pool#ordinal()}.
     * @param slotBytes  bytes per slot, by pool.
     * @param batchCount batches the backend has, each with its own table region.
     * @return true when the kernel can be used; false (with {@link #whyNot()}) when the slot sizes do not suit it,
     * the module did not load or its addresses could not be read: the backend then copies slot by slot.
     * @throws IllegalStateException when an allocation fails.
     */
    boolean load(final DeviceConfig config, final int[] slotCounts, final int[] slotBytes, final int batchCount)
    {
        if (!CopyPlanner.kernelCopyable(config.kvPageBytes()) || !CopyPlanner.kernelCopyable(config.mambaStateBytes()))
        {
            why = "the copy kernel needs slot sizes that are multiples of 16 bytes";
            return false;
        }

        bulk = bulkAsked && backend.computeCapabilityMajor() >= 9;
        sharedBytes = bulk ? CopyKernel.bulkSharedBytes(kernelThreads) : 0;
        final CUmodule m = new CUmodule();
        final int rc = JCudaDriver.cuModuleLoadData(m, CopyKernel.image(bulk ? CopyKernel.RESOURCE_BULK :
            CopyKernel.RESOURCE));
        if (rc != CUresult.CUDA_SUCCESS)
        {
            why = "the copy kernel did not load: " + CUresult.stringFor(rc);
            return false;
        }
        module = m;
        final CUfunction f = new CUfunction();
        check(JCudaDriver.cuModuleGetFunction(f, m, CopyKernel.ENTRY), "cuModuleGetFunction " + CopyKernel.ENTRY);
        kernel = f;
        final CUfunction fp = new CUfunction();
        check(JCudaDriver.cuModuleGetFunction(fp, m, CopyKernel.ENTRY_PARAMS),
            "cuModuleGetFunction " + CopyKernel.ENTRY_PARAMS);
        paramKernel = fp;
        if (sharedBytes > DEFAULT_SHARED_BYTES)
        {
            for (final CUfunction function : new CUfunction[]{ f, fp })
            {
                check(JCudaDriver.cuFuncSetAttribute(function,
                    CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, sharedBytes),
                    "cuFuncSetAttribute of " + Sizes.bytes(sharedBytes) + " shared memory");
            }
        }

        for (int s = 0; s < STREAMS; s++)
        {
            planners[s] = new CopyPlanner(slotCounts, slotBytes, kernelChunkBytes, maxCopiesPerBatch, sortByHost,
                splitMinBytes, splitMaxCopies);
            if (splitMaxCopies > 0 && (splitSideStream || residentAsked))
            {
                sideStreams[s] = new CUstream();
                check(JCudaDriver.cuStreamCreate(sideStreams[s], CUstream_flags.CU_STREAM_NON_BLOCKING),
                    "cuStreamCreate");
                forkEvents[s] = new CUevent();
                check(JCudaDriver.cuEventCreate(forkEvents[s], CUevent_flags.CU_EVENT_DISABLE_TIMING),
                    "cuEventCreate");
                joinEvents[s] = new CUevent();
                check(JCudaDriver.cuEventCreate(joinEvents[s], CUevent_flags.CU_EVENT_DISABLE_TIMING),
                    "cuEventCreate");
            }
        }
        tableBytesPerBatch = planners[0].tableBytes();
        final long total = (long)tableBytesPerBatch * batchCount;
        if (total > Integer.MAX_VALUE)
        {
            throw new IllegalStateException("cuda: copy tables of " + Sizes.bytes(total) + " exceed 2 GiB; use " +
                "fewer batches, fewer copies per batch or a larger kernel chunk");
        }
        final Pointer host = new Pointer();
        check(JCudaDriver.cuMemHostAlloc(host, total,
            JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP | JCudaDriver.CU_MEMHOSTALLOC_PORTABLE),
            "cuMemHostAlloc of " + Sizes.bytes(total) + " copy tables");
        hostTables = host;
        final CUdeviceptr device = new CUdeviceptr();
        if (mappedTable)
        {
            check(JCudaDriver.cuMemHostGetDevicePointer(device, host, 0), "cuMemHostGetDevicePointer of the tables");
        }
        else
        {
            check(JCudaDriver.cuMemAlloc(device, total), "cuMemAlloc of " + Sizes.bytes(total) + " copy tables");
            deviceTables = device;
        }
        kernelTables = device;
        hostTableAt = new Pointer[batchCount];
        deviceTableAt = new CUdeviceptr[batchCount];
        hostTableBuffer = new UnsafeBuffer[batchCount];
        for (int i = 0; i < batchCount; i++)
        {
            final long offset = (long)i * tableBytesPerBatch;
            hostTableAt[i] = host.withByteOffset(offset);
            deviceTableAt[i] = device.withByteOffset(offset);
            hostTableBuffer[i] = new UnsafeBuffer(host.getByteBuffer(offset, tableBytesPerBatch));
        }
        for (int s = 0; s < STREAMS; s++)
        {
            final ByteBuffer launch = ByteBuffer.allocateDirect(CopyKernel.LAUNCH_BYTES);
            launchStructs[s] = new UnsafeBuffer(launch);
            launchParams[s] = Pointer.to(Pointer.to(launch));
            final ByteBuffer params = ByteBuffer.allocateDirect(CopyKernel.PARAM_LAUNCH_BYTES);
            paramLaunchStructs[s] = new UnsafeBuffer(params);
            paramLaunchParams[s] = Pointer.to(Pointer.to(params));
            for (int p = 0; p < POOLS; p++)
            {
                final long base = backend.poolAddress(p);
                launchStructs[s].putLong(8 * p, base, ByteOrder.LITTLE_ENDIAN);
                paramLaunchStructs[s].putLong(8 * p, base, ByteOrder.LITTLE_ENDIAN);
            }
            launchStructs[s].putLong(CopyKernel.LAUNCH_TABLE, backend.deviceAddress(kernelTables),
                ByteOrder.LITTLE_ENDIAN);
        }
        if (!backend.noErrorSoFar())
        {
            kernel = null;
            paramKernel = null;
            why = "the copy kernel's addresses could not be read: " + backend.lastError();
            return false;
        }
        if (residentAsked)
        {
            startResidents();
        }
        return true;
    }

    private void startResidents()
    {
        final long[] bases = new long[POOLS];
        for (int p = 0; p < POOLS; p++)
        {
            bases[p] = backend.poolAddress(p);
        }
        for (int s = 0; s < STREAMS; s++)
        {
            residents[s] =
                ResidentCopier.start(backend, module, bases, hostTables, tableBytesPerBatch, kernelThreads);
            if (null == residents[s])
            {
                residentWhyNot = "the resident copy kernel did not start: " + backend.lastError();
                stopResidents();
                return;
            }
        }
    }

    /** @return whether both streams' resident kernels run ({@link CudaCopyPath#RESIDENT} asked and started). */
    boolean residentRunning()
    {
        return null != residents[0];
    }

    /** @return why the resident kernels do not run, when they were asked for; empty otherwise. */
    String residentWhyNot()
    {
        return residentWhyNot;
    }

    /**
     * Plan the first {@code limit} copies of a batch for the resident kernel.
     *
     * @return the copies the plan leaves to the copy engine (large ones, as beside a launch).
     */
    int planResident(final CopyBatch batch, final int limit, final int stream)
    {
        final CopyPlanner planner = planners[stream];
        planner.plan(batch, limit, hostTableBuffer[batch.index()]);
        return planner.directCount();
    }

    /**
     * Post the plan of {@link #planResident} to the stream's resident kernel, then give the copies it left out to
     * the copy engine on the stream's side stream, after the doorbell so they are off the kernel's path, with
     * {@code done} recorded after them. The caller makes sure nothing earlier on the stream is still running when
     * the plan has such copies (they would not wait for it), and that no later batch is posted before they are done.
     *
     * @param done event recorded on the side stream after the copy-engine copies (needed when there are any).
     * @return the bytes posted and enqueued, or -1 when the kernel stopped taking batches or a call failed.
     */
    long postPlannedResident(final CopyBatch batch, final int stream, final CUevent done)
    {
        final CopyPlanner planner = planners[stream];
        if (residents[stream].post(batch.index(), planner, kernelGroupThreads) < 0)
        {
            backend.record(CUresult.CUDA_ERROR_LAUNCH_TIMEOUT);
            return -1;
        }
        launches[stream * PAD]++;
        final int direct = planner.directCount();
        return direct > 0 && !enqueueSide(batch, stream, direct, done) ? -1 : planner.bytes();
    }

    /**
     * @return the last sequence posted to a stream's resident kernel (a batch is done once {@link #residentDone}
     *         reaches the sequence read right after posting it).
     */
    long residentPosted(final int stream)
    {
        return residents[stream].posted();
    }

    /** @return the last sequence a stream's resident kernel completed. */
    long residentDone(final int stream)
    {
        return residents[stream].done();
    }

    /** @return blocks of each resident kernel's grid (0 when none runs). */
    int residentBlocks()
    {
        return null == residents[0] ? 0 : residents[0].blocks();
    }

    /** Stop the resident kernels (they finish what was posted first) and free what they used; idempotent. */
    void stopResidents()
    {
        // every kernel is asked to stop before any memory is freed: a free waits for the whole device to be idle
        for (int s = 0; s < STREAMS; s++)
        {
            if (null != residents[s])
            {
                residents[s].requestStop();
            }
        }
        for (int s = 0; s < STREAMS; s++)
        {
            if (null != residents[s])
            {
                residents[s].release();
                residents[s] = null;
            }
        }
    }

    /** @return whether {@link #load} succeeded. */
    boolean loaded()
    {
        return null != kernel;
    }

    /** @return why the kernel cannot be used, after {@link #load} returned false. */
    String whyNot()
    {
        return why;
    }

    /**
     * The kernel's settings in words, for the backend's description.
     *
     * @return e.g. "256 threads per block, threads per entry by entry size, chunks of 32 KiB, ...".
     */
    String settings()
    {
        final String resident = residentRunning() ? "resident: " + residentBlocks() + " blocks a stream, batches " +
            "posted to mapped memory, " : "";
        return resident + (bulk ? "bulk copies (TMA) through " + Sizes.bytes(sharedBytes) +
            " of shared memory a block, " :
            bulkAsked ? "threads' copies (the bulk-copy kernel needs compute capability 9.0), " : "") +
            kernelThreads + " threads per block, " +
            (kernelGroupThreads == 0 ? "threads per entry by entry size" : kernelGroupThreads + " threads per entry") +
            ", chunks of " + Sizes.bytes(kernelChunkBytes) + ", " +
            (paramTable ? "entries in the launch parameters up to " + CopyKernel.PARAM_ENTRIES + ", else " : "") +
            "table " + (mappedTable ? "mapped" : "copied") + (sortByHost ? ", sorted by host slot" : "") +
            (splitMaxCopies > 0 ? ", up to " + splitMaxCopies + " copies of " + Sizes.bytes(splitMinBytes) +
            " or more by the copy engine " + (splitSideStream ? "beside it" : "before it") : "");
    }

    /**
     * Kernel launches made on a stream.
     *
     * @param stream {@link CudaDeviceBackend#LOAD_STREAM} or {@link CudaDeviceBackend#COMPUTE_STREAM}.
     * @return the count.
     */
    long launches(final int stream)
    {
        return launches[stream * PAD];
    }

    /**
     * Plan the first {@code limit} copies of a batch and launch them on a stream.
     *
     * @param streamIdle whether every batch issued on the stream before has been seen complete (see
     *                   {@link #launchPlanned}).
     * @return the bytes enqueued, or -1 when a CUDA call failed (recorded by the backend).
     */
    long enqueue(final CopyBatch batch, final int limit, final int stream, final boolean streamIdle)
    {
        final CopyPlanner planner = planners[stream];
        final int entries = planner.plan(batch, limit, hostTableBuffer[batch.index()]);
        return entries == 0 && planner.directCount() == 0 ? 0 : launchPlanned(batch, stream, streamIdle);
    }

    /**
     * Plan a batch on a stream's planner without launching it ({@link #launchPlanned} launches it).
     *
     * @return the entries planned.
     */
    int plan(final CopyBatch batch, final int stream)
    {
        return planners[stream].plan(batch, batch.count(), hostTableBuffer[batch.index()]);
    }

    /**
     * Launch the last plan of a stream's planner for a batch: copy the table to the device first unless the kernel
     * reads it mapped, then one launch per launch group.
     * <p>
     * A split batch's side stream must not start its copies before the work issued earlier on the batch's stream
     * (a copy may read a slot that work writes), so it waits for a fork event recorded on that stream. When the
     * caller knows the stream idle (every batch issued on it before has been seen complete, which also covers the
     * side stream's earlier copies, joined into those batches), there is nothing to wait for and the fork's two
     * driver calls are left out, unless {@link DeviceConfig#kernelForkAlways()}.
     *
     * @param streamIdle whether every batch issued on the stream before has been seen complete; false when unsure.
     * @return the bytes enqueued, or -1 when a CUDA call failed.
     */
    long launchPlanned(final CopyBatch batch, final int stream, final boolean streamIdle)
    {
        final int index = batch.index();
        final CopyPlanner planner = planners[stream];
        final CUstream cuStream = backend.stream(stream);
        final UnsafeBuffer table = hostTableBuffer[index];
        final int tableFirst = index * (tableBytesPerBatch / CopyPlanner.ENTRY_BYTES);
        final int direct = planner.directCount();
        final boolean fork = forkAlways || !streamIdle;
        if (direct > 0 && splitAfterLaunch && fork && !forkSide(stream))
        {
            return -1;
        }
        if (direct > 0 && !splitAfterLaunch && !(splitSideStream ? (!fork || forkSide(stream)) && enqueueSide(batch,
            stream, direct) : enqueueDirectFirst(batch, stream, direct)))
        {
            return -1;
        }
        boolean tableReady = mappedTable;
        for (int g = 0; g < planner.groups(); g++)
        {
            final int start = planner.groupStart(g);
            final int count = planner.groupEnd(g) - start;
            if (count == 0)
            {
                continue;
            }
            final int groupThreads = groupThreads(kernelGroupThreads, kernelThreads, planner.groupMaxBytes(g));
            final int perBlock = kernelThreads / groupThreads;
            final int shift = Integer.numberOfTrailingZeros(groupThreads);
            final int blocks = (count + perBlock - 1) / perBlock;
            final int rc;
            if (paramTable && count <= CopyKernel.PARAM_ENTRIES)
            {
                final UnsafeBuffer params = paramLaunchStructs[stream];
                params.putInt(CopyKernel.LAUNCH_COUNT, count, ByteOrder.LITTLE_ENDIAN);
                params.putInt(CopyKernel.LAUNCH_SHIFT, shift, ByteOrder.LITTLE_ENDIAN);
                params.putBytes(CopyKernel.PARAM_ENTRIES_OFFSET, table, start * CopyPlanner.ENTRY_BYTES,
                    count * CopyPlanner.ENTRY_BYTES);
                rc = JCudaDriver.cuLaunchKernel(paramKernel, blocks, 1, 1, kernelThreads, 1, 1, sharedBytes, cuStream,
                    paramLaunchParams[stream], null);
            }
            else
            {
                if (!tableReady)
                {
                    if (!backend.record(JCudaDriver.cuMemcpyHtoDAsync(deviceTableAt[index], hostTableAt[index],
                        (long)planner.entries() * CopyPlanner.ENTRY_BYTES, cuStream)))
                    {
                        return -1;
                    }
                    tableReady = true;
                }
                final UnsafeBuffer launch = launchStructs[stream];
                launch.putInt(CopyKernel.LAUNCH_FIRST, tableFirst + start, ByteOrder.LITTLE_ENDIAN);
                launch.putInt(CopyKernel.LAUNCH_COUNT, count, ByteOrder.LITTLE_ENDIAN);
                launch.putInt(CopyKernel.LAUNCH_SHIFT, shift, ByteOrder.LITTLE_ENDIAN);
                rc = JCudaDriver.cuLaunchKernel(kernel, blocks, 1, 1, kernelThreads, 1, 1, sharedBytes, cuStream,
                    launchParams[stream], null);
            }
            if (!backend.record(rc))
            {
                return -1;
            }
            launches[stream * PAD]++;
        }
        if (direct > 0 && splitAfterLaunch && !enqueueSide(batch, stream, direct))
        {
            return -1;
        }
        if (direct > 0 && splitSideStream &&
            !backend.record(JCudaDriver.cuStreamWaitEvent(cuStream, joinEvents[stream], 0)))
        {
            return -1;
        }
        return planner.bytes();
    }

    /** The plan's copy-engine copies on the batch's stream, before its launches. */
    private boolean enqueueDirectFirst(final CopyBatch batch, final int stream, final int direct)
    {
        final CopyPlanner planner = planners[stream];
        for (int k = 0; k < direct; k++)
        {
            if (!backend.copySlot(batch, planner.directCopy(k), backend.stream(stream), stream))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Order the stream's side stream after the stream's earlier work (fork event), before the batch's launches are
     * issued: the side stream's copies then never wait for the launches, whenever they are issued.
     */
    private boolean forkSide(final int stream)
    {
        return backend.record(JCudaDriver.cuEventRecord(forkEvents[stream], backend.stream(stream))) &&
            backend.record(JCudaDriver.cuStreamWaitEvent(sideStreams[stream], forkEvents[stream], 0));
    }

    /**
     * The plan's copy-engine copies on the stream's side stream (after {@link #forkSide}), with a join event the
     * stream waits on after its launches.
     */
    private boolean enqueueSide(final CopyBatch batch, final int stream, final int direct)
    {
        return enqueueSide(batch, stream, direct, joinEvents[stream]);
    }

    /** The plan's copy-engine copies on the stream's side stream, then {@code done} recorded there. */
    private boolean enqueueSide(final CopyBatch batch, final int stream, final int direct, final CUevent done)
    {
        final CopyPlanner planner = planners[stream];
        final CUstream side = sideStreams[stream];
        for (int k = 0; k < direct; k++)
        {
            if (!backend.copySlot(batch, planner.directCopy(k), side, stream))
            {
                return false;
            }
        }
        return backend.record(JCudaDriver.cuEventRecord(done, side));
    }

    /**
     * Threads that copy one entry together: the configured number, or one thread per 128 bytes of the largest
     * entry (eight 16-byte words in flight each), rounded up to a power of two, at least a warp and at most the
     * block; always a power of two that divides the block.
     *
     * @param configured   {@link DeviceConfig#kernelGroupThreads()}, 0 for the choice by size.
     * @param blockThreads threads per block, a multiple of 32.
     * @param largestEntry bytes of the largest entry of the launch.
     * @return threads per entry.
     */
    static int groupThreads(final int configured, final int blockThreads, final int largestEntry)
    {
        if (configured > 0)
        {
            return configured;
        }
        final int wanted = Math.max(32, Integer.highestOneBit(Math.max(1, (largestEntry + 127) / 128 - 1)) << 1);
        int threads = 32;
        while (threads < wanted && blockThreads % (threads << 1) == 0)
        {
            threads <<= 1;
        }
        return threads;
    }

    private static void check(final int rc, final String what)
    {
        CudaDeviceBackend.check(rc, what);
    }

    /**
     * Free the tables, the module, the side streams and their events, with the backend's context current.
     * Idempotent.
     */
    void release()
    {
        stopResidents();
        if (null != hostTables)
        {
            JCudaDriver.cuMemFreeHost(hostTables);
            hostTables = null;
        }
        if (null != deviceTables)
        {
            JCudaDriver.cuMemFree(deviceTables);
            deviceTables = null;
        }
        if (null != module)
        {
            JCudaDriver.cuModuleUnload(module);
            module = null;
        }
        for (int s = 0; s < STREAMS; s++)
        {
            if (null != forkEvents[s])
            {
                JCudaDriver.cuEventDestroy(forkEvents[s]);
                JCudaDriver.cuEventDestroy(joinEvents[s]);
                forkEvents[s] = null;
                joinEvents[s] = null;
            }
            if (null != sideStreams[s])
            {
                JCudaDriver.cuStreamDestroy(sideStreams[s]);
                sideStreams[s] = null;
            }
        }
    }
}
