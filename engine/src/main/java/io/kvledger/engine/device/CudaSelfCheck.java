package io.kvledger.engine.device;

import io.kvledger.journal.codec.Pool;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Checks the cuda backend on a machine with a GPU: probe, small pools, host fills, H2D / D2D / D2H round trips
 * through the asynchronous path compared by digest, many concurrent batches, completion latency, and a pinned
 * host-to-device bandwidth measurement. Prints one PASS / FAIL / INFO line per step.
 * <p>
 * Run: {@code java <module flags> -cp <engine classpath> io.kvledger.engine.device.CudaSelfCheck}. Exit code 0
 * when every check passes, 1 when one fails, 2 when no usable GPU is found. Single-threaded apart from the
 * backend's own thread.
 */
public final class CudaSelfCheck
{
    private static final long WAIT_SECONDS = 60;

    private final PrintStream out;
    private int failures;

    private CudaSelfCheck(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * Run every check and exit with 0 (pass), 1 (a check failed) or 2 (no usable GPU).
     *
     * @param args ignored.
     */
    public static void main(final String[] args)
    {
        System.exit(new CudaSelfCheck(System.out).run());
    }

    private int run()
    {
        final StringBuilder whyNot = new StringBuilder();
        if (!CudaDeviceBackend.available(whyNot))
        {
            out.println("FAIL probe: " + whyNot);
            return 2;
        }
        out.println("PASS probe: " + CudaDeviceBackend.probeDescription());

        for (final CudaCopyPath path : CudaCopyPath.values())
        {
            checkBackend(path);
        }

        try
        {
            measureBandwidth();
        }
        catch (final RuntimeException ex)
        {
            verdict(false, "bandwidth", ex.toString());
        }

        out.println(failures == 0 ? "PASS all checks" : "FAIL " + failures + " check(s)");
        return failures == 0 ? 0 : 1;
    }

    private void checkBackend(final CudaCopyPath path)
    {
        final DeviceConfig config = new DeviceConfig()
            .deviceKvPages(256).hostKvPages(256).kvPageBytes(32 * 1024)
            .deviceMambaSlots(8).hostMambaSlots(8).mambaStateBytes(256 * 1024)
            .batchCount(64).maxCopiesPerBatch(256).cudaCopyPath(path);
        final Completions completions = new Completions(4096);
        try (CudaDeviceBackend backend = new CudaDeviceBackend(config))
        {
            verdict(backend.copyPath() == path, "allocate " + path.cliName(), backend.describe());
            backend.start(completions);
            checkKvRoundTrip(backend, completions);
            checkMambaRoundTrip(backend, completions);
            checkDeviceFill(backend);
            checkConcurrentBatches(backend, completions);
            measureLatency(backend, completions);
            verdict(backend.failedBatches() == 0 && backend.listenerErrors() == 0, "counters " + path.cliName(),
                "completed=" + backend.completedBatches() + " failed=" + backend.failedBatches() +
                " copied=" + Sizes.bytes(backend.copiedBytes()) + " lastError=" + backend.lastError() + "; " +
                backend.stats());
        }
        catch (final RuntimeException ex)
        {
            verdict(false, "backend " + path.cliName(), ex.toString());
        }
    }

    private void checkKvRoundTrip(final CudaDeviceBackend backend, final Completions completions)
    {
        final int pages = 64;
        final long[] expected = new long[pages];
        for (int i = 0; i < pages; i++)
        {
            backend.fill(Pool.HOST_KV, i, 1000 + i);
            expected[i] = backend.digest(Pool.HOST_KV, i);
        }

        final CopyBatch load = backend.claimBatch();
        for (int i = 0; i < pages; i++)
        {
            load.add(Pool.HOST_KV, i, Pool.DEVICE_KV, i);
        }
        final boolean loaded = submitAndWait(backend, completions, 1, load);

        final CopyBatch backup = backend.claimBatch();
        for (int i = 0; i < pages; i++)
        {
            backup.add(Pool.DEVICE_KV, i, Pool.HOST_KV, pages + i);
        }
        final boolean backedUp = submitAndWait(backend, completions, 2, backup);

        int mismatches = 0;
        for (int i = 0; i < pages; i++)
        {
            if (backend.digest(Pool.HOST_KV, pages + i) != expected[i] ||
                backend.digest(Pool.DEVICE_KV, i) != expected[i])
            {
                mismatches++;
            }
        }
        verdict(loaded && backedUp && mismatches == 0, "kv round trip",
            pages + " pages H2D then D2H, ok=" + loaded + "/" + backedUp + ", digest mismatches=" + mismatches);
    }

    private void checkMambaRoundTrip(final CudaDeviceBackend backend, final Completions completions)
    {
        backend.fill(Pool.HOST_MAMBA, 0, 77);
        final long expected = backend.digest(Pool.HOST_MAMBA, 0);

        final CopyBatch batch = backend.claimBatch()
            .add(Pool.HOST_MAMBA, 0, Pool.DEVICE_MAMBA, 0)
            .add(Pool.DEVICE_MAMBA, 0, Pool.DEVICE_MAMBA, 1)
            .add(Pool.DEVICE_MAMBA, 1, Pool.HOST_MAMBA, 1);
        final boolean ok = submitAndWait(backend, completions, 3, batch);
        final long d0 = backend.digest(Pool.DEVICE_MAMBA, 0);
        final long d1 = backend.digest(Pool.DEVICE_MAMBA, 1);
        final long h1 = backend.digest(Pool.HOST_MAMBA, 1);
        verdict(ok && d0 == expected && d1 == expected && h1 == expected, "mamba round trip",
            "H2D, D2D (copy-on-write), D2H in one batch, ok=" + ok + ", digests " +
            (d0 == expected) + "/" + (d1 == expected) + "/" + (h1 == expected));
    }

    private void checkDeviceFill(final CudaDeviceBackend backend)
    {
        final int bytes = backend.slotBytes(Pool.DEVICE_KV);
        final UnsafeBuffer reference = new UnsafeBuffer(ByteBuffer.allocateDirect(bytes));
        ContentPattern.fill(reference, 0, bytes, 4242);
        backend.fill(Pool.DEVICE_KV, 200, 4242);
        final boolean ok = backend.digest(Pool.DEVICE_KV, 200) == ContentDigest.digest(reference, 0, bytes);
        verdict(ok, "device fill", "fill through scratch + cuMemcpyHtoD, digest through cuMemcpyDtoH");
    }

    private void checkConcurrentBatches(final CudaDeviceBackend backend, final Completions completions)
    {
        final int batches = 1000;
        final long firstOp = 10_000;
        final long before = completions.count();
        for (int i = 0; i < 64; i++)
        {
            backend.fill(Pool.HOST_KV, i, 5000 + i);
        }

        for (int b = 0; b < batches; b++)
        {
            final CopyBatch batch = backend.claimBatch();
            final int page = b % 64;
            batch.add(Pool.HOST_KV, page, Pool.DEVICE_KV, 64 + page);
            batch.add(Pool.DEVICE_KV, 64 + page, Pool.HOST_KV, 128 + page);
            backend.submit(firstOp + b, batch);
        }
        final boolean all = completions.await(before + batches);

        int mismatches = 0;
        for (int i = 0; i < 64; i++)
        {
            if (backend.digest(Pool.HOST_KV, 128 + i) != backend.digest(Pool.HOST_KV, i))
            {
                mismatches++;
            }
        }
        final boolean inOrder = completions.inOrder(before, batches, firstOp);
        verdict(all && inOrder && completions.failures() == 0 && mismatches == 0, "concurrent batches",
            batches + " batches in flight together, all done=" + all + ", in submission order=" + inOrder +
            ", failures=" + completions.failures() + ", digest mismatches=" + mismatches);
    }

    private void measureLatency(final CudaDeviceBackend backend, final Completions completions)
    {
        final int samples = 200;
        final long[] latencyNs = new long[samples];
        for (int i = 0; i < samples; i++)
        {
            final CopyBatch batch = backend.claimBatch().add(Pool.HOST_KV, i % 64, Pool.DEVICE_KV, i % 64);
            final long target = completions.count() + 1;
            final long start = System.nanoTime();
            backend.submit(100_000 + i, batch);
            completions.await(target);
            latencyNs[i] = System.nanoTime() - start;
        }
        Arrays.sort(latencyNs);
        out.printf("INFO completion latency of one %s H2D batch, submit to onCopyDone: median %.1f us, " +
            "p90 %.1f us, max %.1f us%n", Sizes.bytes(backend.slotBytes(Pool.HOST_KV)),
            latencyNs[samples / 2] / 1e3, latencyNs[samples * 9 / 10] / 1e3, latencyNs[samples - 1] / 1e3);
    }

    private void measureBandwidth()
    {
        final long maxBytes = 64L << 20;
        final CUdevice cuDevice = new CUdevice();
        final CUcontext context = new CUcontext();
        check(JCudaDriver.cuDeviceGet(cuDevice, 0), "cuDeviceGet");
        check(JCudaDriver.cuCtxCreate(context, 0, cuDevice), "cuCtxCreate");
        final Pointer host = new Pointer();
        final CUdeviceptr device = new CUdeviceptr();
        final CUstream stream = new CUstream();
        check(JCudaDriver.cuMemAllocHost(host, maxBytes), "cuMemAllocHost");
        check(JCudaDriver.cuMemAlloc(device, maxBytes), "cuMemAlloc");
        check(JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        try
        {
            new UnsafeBuffer(host.getByteBuffer(0, maxBytes)).setMemory(0, (int)maxBytes, (byte)1);
            for (long bytes = 1L << 20; bytes <= maxBytes; bytes <<= 2)
            {
                final double h2d = bandwidth(host, device, stream, bytes, true);
                final double d2h = bandwidth(host, device, stream, bytes, false);
                out.printf("INFO pinned bandwidth %s copies: H2D %.1f GB/s, D2H %.1f GB/s%n",
                    Sizes.bytes(bytes), h2d, d2h);
            }
            verdict(true, "bandwidth", "measured");
        }
        finally
        {
            JCudaDriver.cuStreamDestroy(stream);
            JCudaDriver.cuMemFree(device);
            JCudaDriver.cuMemFreeHost(host);
            JCudaDriver.cuCtxDestroy(context);
        }
    }

    private static double bandwidth(
        final Pointer host, final CUdeviceptr device, final CUstream stream, final long bytes, final boolean toDevice)
    {
        final int warmUp = 3;
        final int repeats = (int)Math.max(8, (512L << 20) / bytes);
        long start = 0;
        for (int i = 0; i < warmUp + repeats; i++)
        {
            if (i == warmUp)
            {
                check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
                start = System.nanoTime();
            }
            check(toDevice ?
                JCudaDriver.cuMemcpyHtoDAsync(device, host, bytes, stream) :
                JCudaDriver.cuMemcpyDtoHAsync(host, device, bytes, stream), "cuMemcpyAsync");
        }
        check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
        final long elapsedNs = System.nanoTime() - start;

        return (double)bytes * repeats / elapsedNs;
    }

    private boolean submitAndWait(
        final CudaDeviceBackend backend, final Completions completions, final long op, final CopyBatch batch)
    {
        final long target = completions.count() + 1;
        final long failuresBefore = completions.failures();
        backend.submit(op, batch);
        return completions.await(target) && completions.failures() == failuresBefore;
    }

    private void verdict(final boolean pass, final String name, final String detail)
    {
        if (!pass)
        {
            failures++;
        }
        out.println((pass ? "PASS " : "FAIL ") + name + ": " + detail);
    }

    private static void check(final int rc, final String what)
    {
        if (rc != CUresult.CUDA_SUCCESS)
        {
            throw new IllegalStateException(what + " failed: " + CUresult.stringFor(rc));
        }
    }

    private static final class Completions implements CopyListener
    {
        private final AtomicLongArray ops;
        private final AtomicLong count = new AtomicLong();
        private final AtomicLong failures = new AtomicLong();

        Completions(final int capacity)
        {
            ops = new AtomicLongArray(capacity);
        }

        public synchronized void onCopyDone(final long op, final boolean ok)
        {
            final long n = count.get();
            if (n < ops.length())
            {
                ops.set((int)n, op);
            }
            if (!ok)
            {
                failures.incrementAndGet();
            }
            count.incrementAndGet();
        }

        long count()
        {
            return count.get();
        }

        long failures()
        {
            return failures.get();
        }

        boolean await(final long target)
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (count.get() < target)
            {
                if (System.nanoTime() > deadline)
                {
                    return false;
                }
                Thread.onSpinWait();
            }
            return true;
        }

        boolean inOrder(final long from, final int n, final long firstOp)
        {
            for (int i = 0; i < n; i++)
            {
                if (from + i < ops.length() && ops.get((int)(from + i)) != firstOp + i)
                {
                    return false;
                }
            }
            return true;
        }
    }
}
