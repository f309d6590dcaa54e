package io.kvledger.engine.device;

import jcuda.Pointer;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One stream's resident copy kernel ({@value #ENTRY}, {@code copy.cu}): launched once and left running, it takes
 * batches from a control block in mapped pinned host memory, so posting a batch costs the host a descriptor and a
 * doorbell written to memory, not a driver call, and its completion is a sequence the kernel writes back to host
 * memory, read without a driver call either. The batch's entries are the ones a {@link CopyPlanner} wrote into the
 * batch's table region (mapped pinned memory); the kernel's first block reads them over the bus once and stages them
 * in device memory for the others. The plan's launch groups become stages the kernel runs one after the other.
 * Batches run one at a time, in the order posted, as on a stream. The copies a plan leaves to the copy engine are
 * the launcher's to issue ({@link KernelLauncher#postPlannedResident}).
 * <p>
 * The kernel's grid must be resident all at once (it waits at a grid-wide barrier between stages): it takes a
 * block for every second multiprocessor, a quarter of the device's threads at most, leaving room for the other
 * stream's resident kernel and for other work. A GPU shared with work that fills it could keep part of the grid
 * from starting; the path is chosen explicitly ({@link CudaCopyPath#RESIDENT}) for that reason.
 * <p>
 * Control block (little-endian): u64 doorbell at {@value #DOORBELL} (the last sequence posted), u64 stop at
 * {@value #STOP}, u64 done at {@value #DONE} (the last sequence the kernel completed), then a ring of
 * {@value #RING} descriptors of {@value #DESCRIPTOR_BYTES} bytes from {@value #RING_OFFSET}: u32 batch index,
 * u32 stage count, u32 first entry, u32 unused, then per stage u32 end and u32 log2 of its threads per entry.
 * <p>
 * Threads: {@link #post} and {@link #done} from the stream's thread (or a measurement hook's); made and released
 * with the backend's context current.
 */
final class ResidentCopier
{
    /** The kernel's entry point in {@code copy.ptx}. */
    static final String ENTRY = "kvledger_copy_resident";
    /** Descriptors in the ring: at most this many sequences posted and not done. */
    static final int RING = 16;
    /** Stages one descriptor carries; a batch with more launch groups takes several sequences. */
    static final int STAGES = 6;
    static final int DOORBELL = 0;
    static final int STOP = 8;
    static final int DONE = 16;
    /** Where the kernel's device state stages a batch's entries (after its sequence, arrivals and descriptor). */
    private static final int STAGING_OFFSET = 128;
    static final int RING_OFFSET = 64;
    static final int DESCRIPTOR_BYTES = 64;
    private static final int CONTROL_BYTES = RING_OFFSET + RING * DESCRIPTOR_BYTES;
    /** Bytes of the kernel's parameter: the launch struct (pool bases), then tables, control, counters, table bytes. */
    static final int PARAM_BYTES = CopyKernel.LAUNCH_BYTES + 8 + 8 + 8 + 8;
    /** How long posting waits for a ring slot, and closing for the kernel, before giving up. */
    private static final long WAIT_NS = 2_000_000_000L;

    private final CudaDeviceBackend backend;
    private final Pointer control;
    private final UnsafeBuffer controlBuffer;
    private final CUdeviceptr counters;
    private final CUstream stream;
    private final int blocks;
    private final int threads;
    private long posted;
    private boolean launched;
    private boolean stopRequested;

    private ResidentCopier(final CudaDeviceBackend backend, final Pointer control, final CUdeviceptr counters,
        final CUstream stream, final int blocks, final int threads)
    {
        this.backend = backend;
        this.control = control;
        this.controlBuffer = new UnsafeBuffer(control.getByteBuffer(0, CONTROL_BYTES));
        this.counters = counters;
        this.stream = stream;
        this.blocks = blocks;
        this.threads = threads;
    }

    /**
     * Allocate the control block and counters and launch the resident kernel on a stream of its own.
     *
     * @param backend    the backend (context current on this thread).
     * @param module     the loaded {@code copy.ptx} module.
     * @param poolBases  the four pools' device-visible bases, by pool ordinal.
     * @param tables     the host entry tables (pinned, allocated with {@code CU_MEMHOSTALLOC_DEVICEMAP}).
     * @param tableBytes bytes of one batch's table region.
     * @param threads    threads per block (a multiple of 32).
     * @return the running copier, or null when a CUDA call failed (recorded by the backend).
     */
    static ResidentCopier start(final CudaDeviceBackend backend, final CUmodule module, final long[] poolBases,
        final Pointer tables, final int tableBytes, final int threads)
    {
        final CUfunction function = new CUfunction();
        if (!backend.record(JCudaDriver.cuModuleGetFunction(function, module, ENTRY)))
        {
            return null;
        }
        final CUdevice device = new CUdevice();
        final int[] multiprocessors = new int[1];
        if (!backend.record(JCudaDriver.cuCtxGetDevice(device)) || !backend.record(JCudaDriver.cuDeviceGetAttribute(
            multiprocessors, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device)))
        {
            return null;
        }
        final CUdeviceptr tablesMapped = new CUdeviceptr();
        if (!backend.record(JCudaDriver.cuMemHostGetDevicePointer(tablesMapped, tables, 0)))
        {
            return null;
        }

        final Pointer control = new Pointer();
        if (!backend.record(JCudaDriver.cuMemHostAlloc(control, CONTROL_BYTES,
            JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP | JCudaDriver.CU_MEMHOSTALLOC_PORTABLE)))
        {
            return null;
        }
        final CUdeviceptr controlMapped = new CUdeviceptr();
        final CUdeviceptr counters = new CUdeviceptr();
        final CUstream stream = new CUstream();
        if (!backend.record(JCudaDriver.cuMemHostGetDevicePointer(controlMapped, control, 0)) ||
            !backend.record(JCudaDriver.cuMemAlloc(counters, STAGING_OFFSET + tableBytes)) ||
            !backend.record(JCudaDriver.cuMemsetD8(counters, (byte)0, STAGING_OFFSET + tableBytes)) ||
            !backend.record(JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING)))
        {
            JCudaDriver.cuMemFreeHost(control);
            return null;
        }
        final ResidentCopier copier = new ResidentCopier(backend, control, counters, stream,
            Math.max(1, multiprocessors[0] / 2), threads);
        copier.controlBuffer.setMemory(0, CONTROL_BYTES, (byte)0);

        final ByteBuffer param = ByteBuffer.allocateDirect(PARAM_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int p = 0; p < poolBases.length; p++)
        {
            param.putLong(8 * p, poolBases[p]);
        }
        int at = CopyKernel.LAUNCH_BYTES;
        param.putLong(at, backend.deviceAddress(tablesMapped));
        at += 8;
        param.putLong(at, backend.deviceAddress(controlMapped));
        at += 8;
        param.putLong(at, backend.deviceAddress(counters));
        at += 8;
        param.putInt(at, tableBytes);
        if (!backend.noErrorSoFar() || !backend.record(JCudaDriver.cuLaunchKernel(function, copier.blocks, 1, 1,
            threads, 1, 1, 0, stream, Pointer.to(Pointer.to(param)), null)))
        {
            copier.release();
            return null;
        }
        copier.launched = true;
        return copier;
    }

    /** @return blocks of the resident grid. */
    int blocks()
    {
        return blocks;
    }

    /**
     * Post the last plan of a planner for a batch: one sequence per {@value #STAGES} launch groups, each written to
     * the ring and published by the doorbell.
     *
     * @param batchIndex   the batch, whose table region holds the plan's entries.
     * @param planner      the planner that planned it (no copies left to the copy engine).
     * @param groupThreads threads per entry as configured (0: by entry size, as the launcher picks them).
     * @return the batch's last sequence (done once {@link #done()} reaches it), or -1 when the ring stayed full
     *         past the wait (the kernel is not making progress).
     */
    long post(final int batchIndex, final CopyPlanner planner, final int groupThreads)
    {
        final int groups = planner.groups();
        int g = 0;
        int first = 0;
        do
        {
            final long seq = posted + 1;
            if (!awaitRingSlot(seq))
            {
                return -1;
            }
            final int at = RING_OFFSET + (int)(seq % RING) * DESCRIPTOR_BYTES;
            final int stages = Math.min(STAGES, groups - g);
            controlBuffer.putInt(at, batchIndex, ByteOrder.LITTLE_ENDIAN);
            controlBuffer.putInt(at + 4, stages, ByteOrder.LITTLE_ENDIAN);
            controlBuffer.putInt(at + 8, first, ByteOrder.LITTLE_ENDIAN);
            for (int s = 0; s < stages; s++, g++)
            {
                final int end = planner.groupEnd(g);
                final int shift = Integer.numberOfTrailingZeros(
                    KernelLauncher.groupThreads(groupThreads, threads, planner.groupMaxBytes(g)));
                controlBuffer.putInt(at + 16 + 8 * s, end, ByteOrder.LITTLE_ENDIAN);
                controlBuffer.putInt(at + 20 + 8 * s, shift, ByteOrder.LITTLE_ENDIAN);
                first = end;
            }
            // the descriptor's stores are ordered before the doorbell's (a release store), which the kernel reads
            // before the descriptor
            controlBuffer.putLongOrdered(DOORBELL, seq);
            posted = seq;
        }
        while (g < groups);
        return posted;
    }

    private boolean awaitRingSlot(final long seq)
    {
        if (seq - done() < RING)
        {
            return true;
        }
        final long deadline = System.nanoTime() + WAIT_NS;
        while (seq - done() >= RING)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    /**
     * The last sequence the kernel completed: every copy of every batch up to it is done, its bytes visible to the
     * host and to later work.
     *
     * @return the sequence (0 before the first).
     */
    long done()
    {
        return controlBuffer.getLongVolatile(DONE);
    }

    /** @return the last sequence posted. */
    long posted()
    {
        return posted;
    }

    /**
     * Let the kernel finish what was posted, stop it and free what it used. Waits at most about two seconds for
     * each; a kernel that does not return then is left to the context's destruction.
     */
    /** Ask the kernel to return once everything posted is done (the first half of {@link #release}); idempotent. */
    void requestStop()
    {
        if (launched && !stopRequested)
        {
            final long deadline = System.nanoTime() + WAIT_NS;
            while (done() < posted && System.nanoTime() - deadline < 0)
            {
                Thread.onSpinWait();
            }
            controlBuffer.putLongVolatile(STOP, 1);
            stopRequested = true;
        }
    }

    /**
     * Let the kernel finish what was posted, stop it and free what it used. Waits at most about two seconds for
     * each; a kernel that does not return then is left to the context's destruction.
     */
    void release()
    {
        if (launched)
        {
            requestStop();
            final long deadline = System.nanoTime() + WAIT_NS;
            int rc;
            while ((rc = JCudaDriver.cuStreamQuery(stream)) == CUresult.CUDA_ERROR_NOT_READY &&
                System.nanoTime() - deadline < 0)
            {
                Thread.onSpinWait();
            }
            launched = false;
            if (rc != CUresult.CUDA_SUCCESS)
            {
                // still running (or failed): freeing its memory under it is not safe; the context's end takes it
                backend.record(rc == CUresult.CUDA_ERROR_NOT_READY ? CUresult.CUDA_ERROR_LAUNCH_TIMEOUT : rc);
                return;
            }
        }
        JCudaDriver.cuStreamDestroy(stream);
        JCudaDriver.cuMemFree(counters);
        JCudaDriver.cuMemFreeHost(control);
    }
}
