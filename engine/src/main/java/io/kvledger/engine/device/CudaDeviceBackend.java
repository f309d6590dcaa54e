package io.kvledger.engine.device;

import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.Pool;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;

/**
 * A device backend on an NVIDIA GPU through JCuda's driver API: device pools in GPU memory ({@code cuMemAlloc}),
 * host staging pools in pinned memory ({@code cuMemAllocHost}), copies issued asynchronously on one stream with
 * one event recorded per batch, and completions found by polling {@code cuEventQuery} (exceptions off, so
 * {@code CUDA_ERROR_NOT_READY} is a return code).
 * <p>
 * Thread ownership: claim and submit from the engine's dispatch thread; one backend thread, with the context
 * current, issues every batch and polls the events in submission order (one stream completes in order) and runs
 * the listener. {@link #fill(Pool, int, long)} and {@link #digest(Pool, int)} are synchronous checks, callable
 * from any thread (device slots go through a pinned scratch under a lock). Only this class and
 * {@link CudaSelfCheck} reference JCuda, so nothing loads JCuda unless the cuda backend is chosen; probe with
 * {@link #available(StringBuilder)} first. Allocation-free per batch after construction.
 */
public final class CudaDeviceBackend implements DeviceBackend
{
    private static final int POOLS = 4;
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
    private final Pointer[][] hostSlots = new Pointer[POOLS][];
    private final UnsafeBuffer[][] hostBuffers = new UnsafeBuffer[POOLS][];
    private final int maxCopiesPerBatch;
    private final CopyBatch[] batches;
    private final CUevent[] events;
    private final boolean[] eventRecorded;
    private final boolean[] batchOk;
    private final long[] batchBytes;
    private final CopyBatch[] inFlight;
    private final ClaimPool<CopyBatch> freeBatches;
    private final Runnable openCheck = this::checkNotClosed;
    private final ManyToOneConcurrentArrayQueue<CopyBatch> submitted;
    private final FaultInjector faults;
    private final boolean faultsActive;
    private final IdleStrategy idleStrategy = new BackoffIdleStrategy(100, 50, 1_000, 200_000);
    private final Thread cudaThread;
    private final Object scratchLock = new Object();
    private final String deviceName;
    private final int deviceOrdinal;
    private CUcontext context;
    private CUstream stream;
    private Pointer scratch;
    private UnsafeBuffer scratchBuffer;
    private int inFlightHead;
    private int inFlightSize;

    private volatile CopyListener listener;
    private volatile boolean started;
    private volatile boolean running;
    private volatile boolean closed;
    private volatile boolean released;
    private volatile long completedBatches;
    private volatile long failedBatches;
    private volatile long copiedBytes;
    private volatile long listenerErrors;
    private volatile int lastError = SUCCESS;

    /**
     * Create a context on the configured GPU, allocate the pools (zeroed), the stream and one event per batch.
     *
     * @param config sizes and fault injection; validated here.
     * @throws IllegalStateException with a one-line reason when CUDA is unavailable or an allocation fails.
     */
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
        batches = new CopyBatch[config.batchCount()];
        events = new CUevent[batches.length];
        eventRecorded = new boolean[batches.length];
        batchOk = new boolean[batches.length];
        batchBytes = new long[batches.length];
        inFlight = new CopyBatch[batches.length];
        freeBatches = new ClaimPool<>(batches.length);
        submitted = new ManyToOneConcurrentArrayQueue<>(Math.max(2, batches.length));
        faults = new FaultInjector(config);
        faultsActive = faults.active();

        try
        {
            deviceName = createContext(config.cudaDevice());
            allocatePools(config);
            for (int i = 0; i < batches.length; i++)
            {
                events[i] = new CUevent();
                check(JCudaDriver.cuEventCreate(events[i], CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
                batches[i] = new CopyBatch(this, i, maxCopiesPerBatch, slotCounts);
                freeBatches.release(batches[i]);
            }
        }
        catch (final RuntimeException ex)
        {
            releaseResources();
            throw ex;
        }

        cudaThread = new Thread(this::runCudaLoop, "kvledger-cuda-copy");
        cudaThread.setDaemon(true);
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
    public synchronized void start(final CopyListener listener)
    {
        if (closed)
        {
            throw new IllegalStateException("backend closed");
        }
        if (started)
        {
            throw new IllegalStateException("backend already started");
        }
        if (null == listener)
        {
            throw new NullPointerException("listener");
        }
        this.listener = listener;
        running = true;
        started = true;
        cudaThread.start();
    }

    /**
     * {@inheritDoc}
     */
    public CopyBatch claimBatch()
    {
        return freeBatches.claim(openCheck);
    }

    /**
     * {@inheritDoc}
     */
    public CopyBatch tryClaimBatch()
    {
        return freeBatches.tryClaim();
    }

    private void checkNotClosed()
    {
        if (closed)
        {
            throw new IllegalStateException("backend closed");
        }
    }

    /**
     * {@inheritDoc}
     */
    public void submit(final long op, final CopyBatch batch)
    {
        if (!started || closed)
        {
            throw new IllegalStateException(closed ? "backend closed" : "backend not started");
        }
        batch.submittedTo(this, op);
        if (!submitted.offer(batch))
        {
            throw new IllegalStateException("copy queue full");
        }
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
            ContentPattern.fill(scratchBuffer, 0, bytes, contentSeed);
            check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
            check(JCudaDriver.cuMemcpyHtoD(deviceSlots[pool.ordinal()][index], scratch, bytes), "cuMemcpyHtoD");
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
            check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
            check(JCudaDriver.cuMemcpyDtoH(scratch, deviceSlots[pool.ordinal()][index], bytes), "cuMemcpyDtoH");
            return ContentDigest.digest(scratchBuffer, 0, bytes);
        }
    }

    /**
     * {@inheritDoc}
     */
    public long completedBatches()
    {
        return completedBatches;
    }

    /**
     * {@inheritDoc}
     */
    public long failedBatches()
    {
        return failedBatches;
    }

    /**
     * {@inheritDoc}
     */
    public long copiedBytes()
    {
        return copiedBytes;
    }

    /**
     * Listener calls that threw (the first is printed to stderr; all are otherwise ignored).
     *
     * @return the count of listener exceptions.
     */
    public long listenerErrors()
    {
        return listenerErrors;
    }

    /**
     * The last CUDA error seen on the backend thread, for diagnosing a failed batch.
     *
     * @return the CUDA error name, or CUDA_SUCCESS.
     */
    public String lastError()
    {
        return CUresult.stringFor(lastError);
    }

    /**
     * {@inheritDoc}
     */
    public String describe()
    {
        return "cuda " + deviceName + " (device " + deviceOrdinal + "): " +
            Sizes.pool("device KV", slotCounts[0], slotBytes[0]) + ", " +
            Sizes.pool("device Mamba", slotCounts[1], slotBytes[1]) + ", pinned " +
            Sizes.pool("host KV", slotCounts[2], slotBytes[2]) + ", pinned " +
            Sizes.pool("host Mamba", slotCounts[3], slotBytes[3]) + "; " +
            batches.length + " batches of up to " + maxCopiesPerBatch + " copies on one stream; " + faults.describe();
    }

    /**
     * Finish the submitted batches, stop the backend thread, then free the events, the stream, the GPU and pinned
     * memory and the context. Close any L3 store using the host staging first: its buffers are freed here.
     */
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            running = false;
        }
        if (started)
        {
            boolean interrupted = false;
            while (cudaThread.isAlive())
            {
                try
                {
                    cudaThread.join();
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        releaseResources();
    }

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
        final CUcontext ctx = new CUcontext();
        check(JCudaDriver.cuCtxCreate(ctx, 0, device), "cuCtxCreate");
        context = ctx;
        final CUstream s = new CUstream();
        check(JCudaDriver.cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        stream = s;

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
            if (CopyBatch.isDevice(pool))
            {
                deviceSlots[p] = new CUdeviceptr[count];
                if (count > 0)
                {
                    final CUdeviceptr base = new CUdeviceptr();
                    check(JCudaDriver.cuMemAlloc(base, total), "cuMemAlloc of " + Sizes.bytes(total) + " for " + pool);
                    deviceBase[p] = base;
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
                    final Pointer base = new Pointer();
                    check(JCudaDriver.cuMemAllocHost(base, total),
                        "cuMemAllocHost of " + Sizes.bytes(total) + " for " + pool);
                    hostBase[p] = base;
                    for (int i = 0; i < count; i++)
                    {
                        final long offset = (long)i * bytes;
                        hostSlots[p][i] = base.withByteOffset(offset);
                        hostBuffers[p][i] = new UnsafeBuffer(base.getByteBuffer(offset, bytes));
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
                    JCudaDriver.cuMemFreeHost(hostBase[p]);
                    hostBase[p] = null;
                }
            }
            if (null != scratch)
            {
                JCudaDriver.cuMemFreeHost(scratch);
                scratch = null;
            }
            if (null != stream)
            {
                JCudaDriver.cuStreamDestroy(stream);
                stream = null;
            }
            JCudaDriver.cuCtxDestroy(context);
            context = null;
        }
    }

    private void runCudaLoop()
    {
        final boolean contextOk = record(JCudaDriver.cuCtxSetCurrent(context));
        final IdleStrategy idle = idleStrategy;
        while (true)
        {
            int work = 0;
            CopyBatch batch;
            while (inFlightSize < inFlight.length && null != (batch = submitted.poll()))
            {
                issue(batch, contextOk);
                work++;
            }
            work += pollCompletions();

            if (work > 0)
            {
                idle.reset();
            }
            else if (!running && inFlightSize == 0 && submitted.isEmpty())
            {
                break;
            }
            else
            {
                idle.idle();
            }
        }
    }

    private void issue(final CopyBatch batch, final boolean contextOk)
    {
        final int index = batch.index();
        final int count = batch.count();
        boolean ok = contextOk;
        int limit = count;
        if (faultsActive)
        {
            final long delayNs = faults.nextDelayNs();
            if (delayNs > 0)
            {
                LockSupport.parkNanos(delayNs);
            }
            if (faults.nextFails())
            {
                ok = false;
                limit = faults.nextPartialCount(count);
            }
        }

        long bytes = 0;
        for (int i = 0; i < limit && contextOk; i++)
        {
            final Pool srcPool = batch.srcPool(i);
            final int length = slotBytes[srcPool.ordinal()];
            if (!record(copyAsync(srcPool, batch.srcSlot(i), batch.dstPool(i), batch.dstSlot(i), length)))
            {
                ok = false;
                break;
            }
            bytes += length;
        }

        batchOk[index] = ok;
        batchBytes[index] = bytes;
        eventRecorded[index] = contextOk && record(JCudaDriver.cuEventRecord(events[index], stream));
        if (!eventRecorded[index])
        {
            batchOk[index] = false;
            if (contextOk)
            {
                record(JCudaDriver.cuStreamSynchronize(stream));
            }
        }

        inFlight[(inFlightHead + inFlightSize) % inFlight.length] = batch;
        inFlightSize++;
    }

    private int copyAsync(final Pool srcPool, final int srcSlot, final Pool dstPool, final int dstSlot, final int bytes)
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

    private int pollCompletions()
    {
        int done = 0;
        while (inFlightSize > 0)
        {
            final CopyBatch batch = inFlight[inFlightHead];
            final int index = batch.index();
            boolean ok = batchOk[index];
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
            }

            inFlight[inFlightHead] = null;
            inFlightHead = (inFlightHead + 1) % inFlight.length;
            inFlightSize--;
            complete(batch, ok, batchBytes[index]);
            done++;
        }

        return done;
    }

    private void complete(final CopyBatch batch, final boolean ok, final long bytes)
    {
        final long op = batch.op();
        copiedBytes += bytes;
        if (ok)
        {
            completedBatches++;
        }
        else
        {
            failedBatches++;
        }
        batch.released();
        freeBatches.release(batch);

        try
        {
            listener.onCopyDone(op, ok);
        }
        catch (final Throwable ex)
        {
            if (listenerErrors++ == 0)
            {
                ex.printStackTrace();
            }
        }
    }

    private boolean record(final int rc)
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

    private static void check(final int rc, final String what)
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
