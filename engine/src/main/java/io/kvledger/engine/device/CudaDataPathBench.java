package io.kvledger.engine.device;

import io.kvledger.journal.codec.Pool;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * The data-path benchmark of {@code kvledger bench --device cuda --data-path}: for each page size (4 KiB to
 * 1 MiB) it loads N scattered pages (random host and device slot ids) in one batch and backs them up again, by
 * the copy kernel (one launch) and by per-page {@code cuMemcpyAsync}, against one single copy of the same bytes
 * (the peak), host to device and device to host; every page's digest is checked after every path. Then it times
 * a pr-bench load (64 pages of 64 KiB and a 1 MiB Mamba state in one batch) from launch to completion, for a few
 * kernel shapes, and from submit to the completion callback through the running backend.
 * <p>
 * GPU times come from CUDA events around each batch on the load stream (median of the repeats). For the kernel
 * the batch is planned on the host first (the entry table written), and the events time what the GPU does: the
 * table copy where the table is not mapped, and the launches; the host's planning time is printed beside it. The
 * pr-bench latency is wall time from the enqueue call (planning included) to {@code cuEventQuery} reporting the
 * batch done. With the system property {@code kvledger.bench.explore=true} it also measures the kernel's settings
 * one at a time (table mapped or copied, entries sorted or not, threads per entry, registered host pools, chunk
 * size), which is how the defaults were chosen. Single-threaded.
 */
public final class CudaDataPathBench
{
    /** Page sizes measured. */
    static final int[] PAGE_SIZES = { 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20 };
    /** Goal of the kernel path: this share of the single-copy peak at every page size. */
    static final double GOAL_SHARE = 0.90;
    /** Goal of a pr-bench load, launch to completion, microseconds. */
    static final double GOAL_LOAD_US = 110;

    /** Whether the bulk-copy (TMA) kernel is measured beside the threads' copy ({@code kvledger.bench.bulk}). */
    private static final boolean BULK = Boolean.getBoolean("kvledger.bench.bulk");

    private static final long BATCH_BYTES = 256L << 20;
    private static final int MAX_PAGES = 8192;
    private static final int PR_PAGES = 64;
    private static final int PR_PAGE_BYTES = 64 << 10;
    private static final int PR_STATE_BYTES = 1 << 20;
    private static final int PLAN_WARM_UP = 30;
    /** Loads before the timed ones: the planner's code compiled by the JIT, as in a running engine. */
    private static final int LOAD_WARM_UP = 1000;

    private final PrintWriter out;
    private final int repeats;
    private final SplittableRandom random;
    private int failures;
    private int goalsMissed;
    private double lastPlanUs;

    private CudaDataPathBench(final PrintWriter out, final int repeats, final long seed)
    {
        this.out = out;
        this.repeats = repeats;
        this.random = new SplittableRandom(seed);
    }

    /**
     * Pages in the batch for a page size: 256 MiB of pages, at most 8,192.
     *
     * @param pageBytes bytes per page.
     * @return the page count.
     */
    static int pagesFor(final int pageBytes)
    {
        return (int)Math.min(MAX_PAGES, BATCH_BYTES / pageBytes);
    }

    /**
     * Run the benchmark.
     *
     * @param out     receives the report.
     * @param err     receives the one-line reason when no GPU can be used.
     * @param repeats timed runs per measurement (the median is shown), at least 1.
     * @param seed    seed of the random slot ids and contents.
     * @return 0 when every digest matched and every path ran, 1 otherwise, 2 when no usable GPU was found.
     */
    public static int run(final PrintWriter out, final PrintWriter err, final int repeats, final long seed)
    {
        final StringBuilder whyNot = new StringBuilder();
        if (!CudaDeviceBackend.available(whyNot))
        {
            err.println("bench --data-path needs an NVIDIA GPU: " + whyNot);
            err.flush();
            return 2;
        }
        final CudaDataPathBench bench = new CudaDataPathBench(out, Math.max(1, repeats), seed);
        try
        {
            bench.runAll();
        }
        catch (final RuntimeException ex)
        {
            bench.failures++;
            out.println("FAIL " + ex);
        }
        out.printf(Locale.ROOT, "%s: %d failure(s), %d goal(s) missed%n", bench.failures == 0 ? "PASS" : "FAIL",
            bench.failures, bench.goalsMissed);
        out.flush();
        return bench.failures == 0 ? 0 : 1;
    }

    private void runAll()
    {
        out.println("data path: " + CudaDeviceBackend.probeDescription());
        out.printf(Locale.ROOT, "scattered pages, random slot ids, one batch per direction; GB/s = 1e9 bytes/s by " +
            "CUDA events, median of %d runs; %% of the single copy of the same bytes; plan = host time to write the " +
            "kernel's entry table (not in the GPU time); batched = the copy engine from one cuMemcpyBatchAsync (CUDA " +
            "12.8+; '-' where the driver lacks it), into slots first overwritten so that its digests are its own%n",
            repeats);
        header();
        for (final int pageBytes : PAGE_SIZES)
        {
            pageSize(pageBytes, "", c -> c, false, true, true);
            out.flush();
        }
        if (BULK)
        {
            out.println("the kernel moving its entries by the bulk-copy unit (TMA, DeviceConfig.kernelBulk; compute " +
                "capability 9.0 and later, else the threads' copy again)");
            for (final int pageBytes : PAGE_SIZES)
            {
                pageSize(pageBytes, " bulk", c -> c.kernelBulk(true), false, false, false);
                out.flush();
            }
        }
        out.println("the same with sequential slot ids (slot i to slot i): where the scattered cost comes from");
        for (final int pageBytes : new int[]{ 4 << 10, 64 << 10 })
        {
            pageSize(pageBytes, " seq", c -> c, true, true, false);
            out.flush();
        }
        if (Boolean.getBoolean("kvledger.bench.explore"))
        {
            explore();
        }
        out.println();
        prBenchLoad();
    }

    private void header()
    {
        out.println("page        pages  batch    | H2D kernel       H2D per-page     H2D batched      " +
            "H2D single plan us | D2H kernel       D2H per-page     D2H batched      D2H single plan us | digests");
    }

    /** The kernel's settings one at a time, on random slots (defaults: table copied, unsorted, threads by size). */
    private void explore()
    {
        out.println();
        out.println("explore: kernel settings one at a time (old = a 256-thread block per entry, the previous " +
            "kernel's shape; mapped = the kernel reads the table from mapped pinned host memory)");
        header();
        final UnaryOperator<DeviceConfig> old = c -> c.kernelGroupThreads(256);
        for (final int pageBytes : new int[]{ 4 << 10, 16 << 10, 64 << 10 })
        {
            pageSize(pageBytes, " old", old, false, false, false);
            pageSize(pageBytes, " sorted", c -> c.kernelSortByHost(true), false, false, false);
            pageSize(pageBytes, " mapped", c -> c.kernelMappedTable(true), false, false, false);
            pageSize(pageBytes, " reg", c -> c.cudaRegisteredHost(true), false, false, false);
            if (pageBytes == (4 << 10))
            {
                pageSize(pageBytes, " grp64", c -> c.kernelGroupThreads(64), false, false, false);
            }
            out.flush();
        }
    }

    private void pageSize(
        final int pageBytes, final String variant, final UnaryOperator<DeviceConfig> settings, final boolean sequential,
        final boolean direct, final boolean goal)
    {
        final int pages = pagesFor(pageBytes);
        final DeviceConfig config = settings.apply(new DeviceConfig()
            .kvPageBytes(pageBytes).mambaStateBytes(pageBytes)
            .deviceKvPages(2 * pages).hostKvPages(3 * pages).deviceMambaSlots(1).hostMambaSlots(1)
            .maxCopiesPerBatch(pages).batchCount(2));
        try (CudaDeviceBackend backend = new CudaDeviceBackend(config))
        {
            backend.bindContext();
            final int[] hostSlots = sequential ? identity(3 * pages) : permutation(3 * pages);
            final int[] deviceSlots = sequential ? identity(2 * pages) : permutation(2 * pages);
            final long[] seeds = new long[pages];
            final long[] expected = new long[pages];
            for (int i = 0; i < pages; i++)
            {
                seeds[i] = random.nextLong();
            }

            final long bytes = (long)pages * pageBytes;
            final CopyBatch kernelBatch = backend.claimBatch();
            final CopyBatch directBatch = backend.claimBatch();
            for (int i = 0; i < pages; i++)
            {
                kernelBatch.add(Pool.HOST_KV, hostSlots[i], Pool.DEVICE_KV, deviceSlots[i]);
                directBatch.add(Pool.HOST_KV, hostSlots[i], Pool.DEVICE_KV, deviceSlots[pages + i]);
            }
            try (Timer timer = new Timer(backend.stream(CudaDeviceBackend.LOAD_STREAM)))
            {
                // the single copies first: they overwrite the start of both pools; then the pages are filled
                final double h2dSingle = gbps(bytes, timer.single(backend, bytes, true, repeats));
                final double d2hSingle = gbps(bytes, timer.single(backend, bytes, false, repeats));
                for (int i = 0; i < pages; i++)
                {
                    backend.fill(Pool.HOST_KV, hostSlots[i], seeds[i]);
                    expected[i] = backend.digest(Pool.HOST_KV, hostSlots[i]);
                }
                final double h2dKernel = gbps(bytes, timer.batch(backend, kernelBatch, true, repeats));
                final double h2dPlan = lastPlanUs;
                final double h2dDirect = direct ? gbps(bytes, timer.batch(backend, directBatch, false, repeats)) : 0;
                if (!direct)
                {
                    timer.batch(backend, directBatch, true, 1);
                }
                int mismatches = mismatches(backend, Pool.DEVICE_KV, deviceSlots, 0, expected) +
                    mismatches(backend, Pool.DEVICE_KV, deviceSlots, pages, expected);
                final boolean batched = direct && backend.batchCopyAvailable();
                double h2dBatched = 0;
                if (batched)
                {
                    overwrite(backend, Pool.DEVICE_KV, deviceSlots, pages, pages);
                    h2dBatched = gbps(bytes, timer.batched(backend, directBatch, repeats));
                    mismatches += mismatches(backend, Pool.DEVICE_KV, deviceSlots, pages, expected);
                }

                kernelBatch.clear();
                directBatch.clear();
                for (int i = 0; i < pages; i++)
                {
                    kernelBatch.add(Pool.DEVICE_KV, deviceSlots[i], Pool.HOST_KV, hostSlots[pages + i]);
                    directBatch.add(Pool.DEVICE_KV, deviceSlots[pages + i], Pool.HOST_KV, hostSlots[2 * pages + i]);
                }
                final double d2hKernel = gbps(bytes, timer.batch(backend, kernelBatch, true, repeats));
                final double d2hPlan = lastPlanUs;
                final double d2hDirect = direct ? gbps(bytes, timer.batch(backend, directBatch, false, repeats)) : 0;
                if (!direct)
                {
                    timer.batch(backend, directBatch, true, 1);
                }
                mismatches += mismatches(backend, Pool.HOST_KV, hostSlots, pages, expected) +
                    mismatches(backend, Pool.HOST_KV, hostSlots, 2 * pages, expected);
                double d2hBatched = 0;
                if (batched)
                {
                    overwrite(backend, Pool.HOST_KV, hostSlots, 2 * pages, pages);
                    d2hBatched = gbps(bytes, timer.batched(backend, directBatch, repeats));
                    mismatches += mismatches(backend, Pool.HOST_KV, hostSlots, 2 * pages, expected);
                }

                if (mismatches > 0)
                {
                    failures++;
                }
                final boolean met = h2dKernel >= GOAL_SHARE * h2dSingle && d2hKernel >= GOAL_SHARE * d2hSingle;
                if (goal && !met)
                {
                    goalsMissed++;
                }
                final String label = Sizes.bytes(pageBytes) + variant;
                out.printf(Locale.ROOT, "%-11s %-6d %-8s | %-16s %-16s %-16s %-10s %-7.0f | %-16s %-16s %-16s %-10s " +
                    "%-7.0f | %d of %d mismatched; kernel >= 90%%: %s%n", label, pages, Sizes.bytes(bytes),
                    share(h2dKernel, h2dSingle), direct ? share(h2dDirect, h2dSingle) : "-",
                    batched ? share(h2dBatched, h2dSingle) : "-", String.format(Locale.ROOT, "%.1f", h2dSingle),
                    h2dPlan, share(d2hKernel, d2hSingle), direct ? share(d2hDirect, d2hSingle) : "-",
                    batched ? share(d2hBatched, d2hSingle) : "-", String.format(Locale.ROOT, "%.1f", d2hSingle),
                    d2hPlan, mismatches, (batched ? 6 : 4) * pages, met ? "yes" : "NO");
            }
        }
    }

    private void prBenchLoad()
    {
        out.printf(Locale.ROOT, "pr-bench load: %d pages of %s (random slots) + one %s Mamba state in one batch; " +
            "launch to completion = enqueue call (planning included) to cuEventQuery done, wall time, %d samples " +
            "after %d untimed loads%n", PR_PAGES, Sizes.bytes(PR_PAGE_BYTES), Sizes.bytes(PR_STATE_BYTES), 200,
            LOAD_WARM_UP);
        final double defaultShape = prBenchLoad("kernel", c -> c, LoadMode.KERNEL);
        final boolean explore = Boolean.getBoolean("kvledger.bench.explore");
        double best = defaultShape;
        // the fork left out on an idle stream, against keeping it (alternated, so that a drift shows as such)
        for (int round = 0; round < 2; round++)
        {
            best = Math.min(best, prBenchLoad("kernel, fork always", c -> c.kernelForkAlways(true), LoadMode.KERNEL));
            best = Math.min(best, prBenchLoad("kernel", c -> c, LoadMode.KERNEL));
        }
        if (explore)
        {
            final UnaryOperator<DeviceConfig> noSplit = c -> c.kernelSplitMinBytes(0);
            final UnaryOperator<DeviceConfig> table = c -> c.kernelParamTable(false);
            best = Math.min(best, prBenchLoad("no split", noSplit, LoadMode.KERNEL));
            best = Math.min(best, prBenchLoad("split before", c -> c.kernelSplitSideStream(false), LoadMode.KERNEL));
            best = Math.min(best, prBenchLoad("table copied", table, LoadMode.KERNEL));
            best = Math.min(best, prBenchLoad("old shape", c -> noSplit.apply(table.apply(c)).kernelGroupThreads(256),
                LoadMode.KERNEL));
            best = Math.min(best, prBenchLoad("table mapped", c -> noSplit.apply(table.apply(c))
                .kernelMappedTable(true), LoadMode.KERNEL));
            best = Math.min(best, prBenchLoad("sorted", c -> c.kernelSortByHost(true), LoadMode.KERNEL));
            for (final int chunk : new int[]{ 16 << 10, 64 << 10 })
            {
                best = Math.min(best, prBenchLoad("chunk " + Sizes.bytes(chunk), c -> c.kernelChunkBytes(chunk),
                    LoadMode.KERNEL));
            }
            best = Math.min(best, prBenchLoad("split by bench", noSplit, LoadMode.SPLIT));
            prBenchLoad("one page, table", table, LoadMode.ONE_PAGE);
            prBenchLoad("one page", c -> c, LoadMode.ONE_PAGE);
            prBenchLoad("single copy", c -> c, LoadMode.SINGLE);
        }
        best = Math.min(best, prBenchLoad("side copies issued after the launch", c -> c.kernelSplitAfterLaunch(true),
            LoadMode.KERNEL));
        if (BULK)
        {
            // alternated with the default, so that a drift of the machine shows as such
            for (int round = 0; round < 3; round++)
            {
                prBenchLoad("kernel", c -> c, LoadMode.KERNEL);
                best = Math.min(best, prBenchLoad("bulk (TMA)", c -> c.kernelBulk(true), LoadMode.KERNEL));
            }
            best = Math.min(best, prBenchLoad("bulk, no split", c -> c.kernelBulk(true).kernelSplitMinBytes(0),
                LoadMode.KERNEL));
        }
        // the resident kernel (chosen, not the default), alternated with the default so that a drift shows as such
        double resident = Double.MAX_VALUE;
        for (int round = 0; round < 3; round++)
        {
            resident = Math.min(resident, prBenchLoad("resident", c -> c.cudaCopyPath(CudaCopyPath.RESIDENT),
                LoadMode.RESIDENT));
            prBenchLoad("kernel", c -> c, LoadMode.KERNEL);
        }
        prBenchLoad("per-page", c -> c.cudaCopyPath(CudaCopyPath.DIRECT), LoadMode.DIRECT);
        // the copy engine's batched call (CUDA 12.8+), alternated with the default so that a drift shows as such
        double batched = Double.MAX_VALUE;
        for (int round = 0; round < 3; round++)
        {
            batched = Math.min(batched, prBenchLoadIfPossible("batched copy", LoadMode.BATCH));
            prBenchLoad("kernel", c -> c, LoadMode.KERNEL);
        }
        final double again = prBenchLoad("kernel", c -> c, LoadMode.KERNEL);
        if (defaultShape > GOAL_LOAD_US)
        {
            goalsMissed++;
        }
        out.printf(Locale.ROOT, "pr-bench load goal <= %.0f us: default settings p50 %.1f us (%s; again: %.1f us), " +
            "best p50 %.1f us; resident kernel best p50 %.1f us (%s); batched copy best p50 %s%n", GOAL_LOAD_US,
            defaultShape, defaultShape <= GOAL_LOAD_US ? "met" : "MISSED", again, best, resident,
            resident <= GOAL_LOAD_US ? "met" : "missed", batched == Double.MAX_VALUE ? "not available" :
            String.format(Locale.ROOT, "%.1f us (%s)", batched, batched <= GOAL_LOAD_US ? "met" : "missed"));
        submitToCallback();
    }

    /** How a pr-bench load is issued. */
    private enum LoadMode
    {
        /** The whole batch by the copy kernel, one launch. */
        KERNEL,
        /** One cuMemcpyAsync per slot. */
        DIRECT,
        /**
         * The pages by the kernel on the load stream, the state by one cuMemcpyAsync on the compute stream, issued
         * first, no events between them (the backend's split, without its fork and join).
         */
        SPLIT,
        /** One page by the kernel: the fixed cost of a launch and its completion. */
        ONE_PAGE,
        /** One contiguous cuMemcpyAsync of the same bytes: the copy engine's floor. */
        SINGLE,
        /** The whole batch posted to the load stream's resident copy kernel (no driver call), done when it says. */
        RESIDENT,
        /** The whole batch as one cuMemcpyBatchAsync: the copy engine takes every copy from one driver call. */
        BATCH
    }

    /** {@link #prBenchLoad} of a path the driver may lack: its line says why when it does. */
    private double prBenchLoadIfPossible(final String label, final LoadMode mode)
    {
        try
        {
            return prBenchLoad(label, c -> c, mode);
        }
        catch (final IllegalStateException ex)
        {
            out.printf(Locale.ROOT, "  %-15s: not measured: %s%n", label, ex.getMessage());
            return Double.MAX_VALUE;
        }
    }

    private double prBenchLoad(final String label, final UnaryOperator<DeviceConfig> settings, final LoadMode mode)
    {
        final DeviceConfig config = settings.apply(prBenchConfig());
        try (CudaDeviceBackend backend = new CudaDeviceBackend(config))
        {
            backend.bindContext();
            final CopyBatch batch = backend.claimBatch();
            final long[] expected = prBenchBatch(backend, batch);
            final CopyBatch pages = backend.claimBatch();
            final CopyBatch state = backend.claimBatch();
            final int count = mode == LoadMode.ONE_PAGE ? 1 : PR_PAGES;
            for (int i = 0; i < count; i++)
            {
                pages.add(batch.srcPool(i), batch.srcSlot(i), batch.dstPool(i), batch.dstSlot(i));
            }
            state.add(batch.srcPool(PR_PAGES), batch.srcSlot(PR_PAGES), batch.dstPool(PR_PAGES),
                batch.dstSlot(PR_PAGES));
            final long loadBytes = mode == LoadMode.ONE_PAGE ? PR_PAGE_BYTES :
                PR_PAGES * (long)PR_PAGE_BYTES + PR_STATE_BYTES;
            final CUstream load = backend.stream(CudaDeviceBackend.LOAD_STREAM);
            final CUstream compute = backend.stream(CudaDeviceBackend.COMPUTE_STREAM);
            final CUevent done = new CUevent();
            final CUevent stateDone = new CUevent();
            check(JCudaDriver.cuEventCreate(done, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
            check(JCudaDriver.cuEventCreate(stateDone, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
            final int samples = 200;
            long residentSeq = 0;
            final long[] ns = new long[samples];
            final long[] issueNs = new long[samples];
            try
            {
                for (int i = 0; i < LOAD_WARM_UP + samples; i++)
                {
                    final long start = System.nanoTime();
                    switch (mode)
                    {
                        case KERNEL:
                            backend.enqueueNow(batch, CudaDeviceBackend.LOAD_STREAM, true, true);
                            break;
                        case DIRECT:
                            backend.enqueueNow(batch, CudaDeviceBackend.LOAD_STREAM, false, true);
                            break;
                        case ONE_PAGE:
                            backend.enqueueNow(pages, CudaDeviceBackend.LOAD_STREAM, true, true);
                            break;
                        case RESIDENT:
                            residentSeq = backend.postResidentNow(batch, CudaDeviceBackend.LOAD_STREAM);
                            break;
                        case BATCH:
                            backend.enqueueBatchCopyNow(batch, CudaDeviceBackend.LOAD_STREAM);
                            break;
                        case SINGLE:
                            backend.enqueueSingleCopy(Pool.HOST_KV, Pool.DEVICE_KV, loadBytes, true,
                                CudaDeviceBackend.LOAD_STREAM);
                            break;
                        default:
                            backend.enqueueNow(state, CudaDeviceBackend.COMPUTE_STREAM, false, true);
                            backend.enqueueNow(pages, CudaDeviceBackend.LOAD_STREAM, true, true);
                            break;
                    }
                    if (mode != LoadMode.RESIDENT)
                    {
                        check(JCudaDriver.cuEventRecord(done, load), "cuEventRecord");
                    }
                    if (mode == LoadMode.SPLIT)
                    {
                        check(JCudaDriver.cuEventRecord(stateDone, compute), "cuEventRecord");
                    }
                    final long issued = System.nanoTime() - start;
                    if (mode == LoadMode.RESIDENT)
                    {
                        waitForResident(backend, residentSeq);
                        while (!backend.residentCopiesDoneNow(batch))
                        {
                            Thread.onSpinWait();
                        }
                    }
                    else
                    {
                        waitFor(done);
                    }
                    if (mode == LoadMode.SPLIT)
                    {
                        waitFor(stateDone);
                    }
                    final long took = System.nanoTime() - start;
                    if (i >= LOAD_WARM_UP)
                    {
                        ns[i - LOAD_WARM_UP] = took;
                        issueNs[i - LOAD_WARM_UP] = issued;
                    }
                }
            }
            finally
            {
                JCudaDriver.cuEventDestroy(done);
                JCudaDriver.cuEventDestroy(stateDone);
            }
            final int mismatches = mode == LoadMode.SINGLE || mode == LoadMode.ONE_PAGE ? 0 :
                prBenchMismatches(backend, batch, expected);
            if (mismatches > 0)
            {
                failures++;
            }
            Arrays.sort(ns);
            Arrays.sort(issueNs);
            final double p50 = ns[samples / 2] / 1e3;
            out.printf(Locale.ROOT, "  %-15s: p50 %6.1f us, p90 %6.1f us, max %7.1f us (%.1f GB/s at p50; issue " +
                "calls p50 %.1f us); %s; %s%n", label, p50, ns[samples * 9 / 10] / 1e3, ns[samples - 1] / 1e3,
                loadBytes / (p50 * 1e3), issueNs[samples / 2] / 1e3,
                mode == LoadMode.SINGLE || mode == LoadMode.ONE_PAGE ? "not checked" :
                mismatches + " of " + (PR_PAGES + 1) + " digests mismatched",
                mode == LoadMode.BATCH ? backend.describeBatchCopy() : backend.describeCopyPath());
            return p50;
        }
    }

    private static void waitForResident(final CudaDeviceBackend backend, final long seq)
    {
        final long deadline = System.nanoTime() + 2_000_000_000L;
        while (backend.residentDoneNow(CudaDeviceBackend.LOAD_STREAM) < seq)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("cuda: the resident copy kernel did not finish a batch in 2 s");
            }
            Thread.onSpinWait();
        }
    }

    private static void waitFor(final CUevent event)
    {
        int rc;
        while ((rc = JCudaDriver.cuEventQuery(event)) == CUresult.CUDA_ERROR_NOT_READY)
        {
            Thread.onSpinWait();
        }
        check(rc, "cuEventQuery");
    }

    private void submitToCallback()
    {
        for (final CudaCopyPath path : CudaCopyPath.values())
        {
            final AtomicLong done = new AtomicLong();
            final AtomicLong failed = new AtomicLong();
            try (CudaDeviceBackend backend = new CudaDeviceBackend(prBenchConfig().cudaCopyPath(path)))
            {
                final CopyBatch first = backend.claimBatch();
                final long[] expected = prBenchBatch(backend, first);
                final int[][] copies = new int[first.count()][];
                for (int i = 0; i < first.count(); i++)
                {
                    copies[i] = new int[]{ first.srcPool(i).ordinal(), first.srcSlot(i), first.dstPool(i).ordinal(),
                        first.dstSlot(i) };
                }
                first.clear();
                backend.start((op, ok) ->
                {
                    if (!ok)
                    {
                        failed.incrementAndGet();
                    }
                    done.incrementAndGet();
                });
                final int warmUp = LOAD_WARM_UP;
                final int samples = 200;
                final long[] ns = new long[samples];
                CopyBatch batch = first;
                for (int i = 0; i < warmUp + samples; i++)
                {
                    for (final int[] c : copies)
                    {
                        batch.add(Pool.values()[c[0]], c[1], Pool.values()[c[2]], c[3]);
                    }
                    final long target = done.get() + 1;
                    final long start = System.nanoTime();
                    backend.submit(i, batch);
                    final long deadline = start + TimeUnit.SECONDS.toNanos(30);
                    while (done.get() < target)
                    {
                        if (System.nanoTime() > deadline)
                        {
                            throw new IllegalStateException("cuda: a pr-bench load did not complete in 30 s");
                        }
                        Thread.onSpinWait();
                    }
                    final long took = System.nanoTime() - start;
                    if (i >= warmUp)
                    {
                        ns[i - warmUp] = took;
                    }
                    batch = backend.claimBatch();
                }
                batch.clear();
                for (final int[] c : copies)
                {
                    batch.add(Pool.values()[c[0]], c[1], Pool.values()[c[2]], c[3]);
                }
                final int mismatches = prBenchMismatches(backend, batch, expected);
                if (mismatches > 0 || failed.get() > 0)
                {
                    failures++;
                }
                Arrays.sort(ns);
                out.printf(Locale.ROOT, "  %-9s submit to onCopyDone through the running backend (%s): p50 %6.1f us, " +
                    "p90 %6.1f us, max %7.1f us; %d failed batches, %d of %d digests mismatched%n", path.cliName(),
                    backend.copyPath().cliName(), ns[samples / 2] / 1e3, ns[samples * 9 / 10] / 1e3,
                    ns[samples - 1] / 1e3, failed.get(), mismatches, PR_PAGES + 1);
            }
        }
    }

    private static DeviceConfig prBenchConfig()
    {
        return new DeviceConfig().kvPageBytes(PR_PAGE_BYTES).mambaStateBytes(PR_STATE_BYTES)
            .deviceKvPages(4 * PR_PAGES).hostKvPages(4 * PR_PAGES).deviceMambaSlots(4).hostMambaSlots(4)
            .maxCopiesPerBatch(PR_PAGES + 4).batchCount(6);
    }

    /** Fill a pr-bench load's sources and add its copies; returns the expected digests (pages, then the state). */
    private long[] prBenchBatch(final CudaDeviceBackend backend, final CopyBatch batch)
    {
        final int[] hostSlots = permutation(4 * PR_PAGES);
        final int[] deviceSlots = permutation(4 * PR_PAGES);
        final long[] expected = new long[PR_PAGES + 1];
        for (int i = 0; i < PR_PAGES; i++)
        {
            backend.fill(Pool.HOST_KV, hostSlots[i], random.nextLong());
            expected[i] = backend.digest(Pool.HOST_KV, hostSlots[i]);
            batch.add(Pool.HOST_KV, hostSlots[i], Pool.DEVICE_KV, deviceSlots[i]);
        }
        backend.fill(Pool.HOST_MAMBA, 2, random.nextLong());
        expected[PR_PAGES] = backend.digest(Pool.HOST_MAMBA, 2);
        batch.add(Pool.HOST_MAMBA, 2, Pool.DEVICE_MAMBA, 1);
        return expected;
    }

    private static int prBenchMismatches(final CudaDeviceBackend backend, final CopyBatch batch, final long[] expected)
    {
        int mismatches = 0;
        for (int i = 0; i < batch.count(); i++)
        {
            mismatches += backend.digest(batch.dstPool(i), batch.dstSlot(i)) == expected[i] ? 0 : 1;
        }
        return mismatches;
    }

    private static int[] identity(final int n)
    {
        final int[] ids = new int[n];
        for (int i = 0; i < n; i++)
        {
            ids[i] = i;
        }
        return ids;
    }

    private int[] permutation(final int n)
    {
        final int[] ids = new int[n];
        for (int i = 0; i < n; i++)
        {
            ids[i] = i;
        }
        for (int i = n - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final int t = ids[i];
            ids[i] = ids[j];
            ids[j] = t;
        }
        return ids;
    }

    /**
     * Fill {@code slots[from .. from + count)} of a pool with other content, so that a copy measured into them next
     * must write them for their digests to match again.
     */
    private void overwrite(final CudaDeviceBackend backend, final Pool pool, final int[] slots, final int from,
        final int count)
    {
        for (int i = 0; i < count; i++)
        {
            backend.fill(pool, slots[from + i], random.nextLong());
        }
    }

    /** Slots {@code slots[from + i]} of a pool whose digest is not {@code expected[i]}, for every i. */
    private static int mismatches(final CudaDeviceBackend backend, final Pool pool, final int[] slots, final int from,
        final long[] expected)
    {
        int mismatches = 0;
        for (int i = 0; i < expected.length; i++)
        {
            mismatches += backend.digest(pool, slots[from + i]) == expected[i] ? 0 : 1;
        }
        return mismatches;
    }

    private static double gbps(final long bytes, final double ms)
    {
        return bytes / (ms * 1e6);
    }

    private static String share(final double gbps, final double peak)
    {
        return String.format(Locale.ROOT, "%.1f (%.0f%%)", gbps, 100 * gbps / peak);
    }

    private static void check(final int rc, final String what)
    {
        if (rc != CUresult.CUDA_SUCCESS)
        {
            throw new IllegalStateException("cuda: " + what + " failed: " + CUresult.stringFor(rc));
        }
    }

    /** Two timing events on one stream; the median of repeated timed runs. */
    private final class Timer implements AutoCloseable
    {
        private final CUstream stream;
        private final CUevent start = new CUevent();
        private final CUevent stop = new CUevent();
        private final float[] elapsed = new float[1];

        Timer(final CUstream stream)
        {
            this.stream = stream;
            check(JCudaDriver.cuEventCreate(start, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate");
            check(JCudaDriver.cuEventCreate(stop, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate");
        }

        /** GPU time of a batch, median of runs; for the kernel, planned first and the planning timed apart. */
        double batch(final CudaDeviceBackend backend, final CopyBatch batch, final boolean useKernel, final int runs)
        {
            final double[] ms = new double[runs];
            final double[] planUs = new double[runs];
            // not idle as far as the timing goes: the side stream must wait for the start event (the fork)
            backend.enqueueNow(batch, CudaDeviceBackend.LOAD_STREAM, useKernel, false);
            check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
            for (int i = 0; useKernel && i < PLAN_WARM_UP; i++)
            {
                backend.planNow(batch, CudaDeviceBackend.LOAD_STREAM);
            }
            for (int i = 0; i < runs; i++)
            {
                if (useKernel)
                {
                    final long planStart = System.nanoTime();
                    backend.planNow(batch, CudaDeviceBackend.LOAD_STREAM);
                    planUs[i] = (System.nanoTime() - planStart) / 1e3;
                    check(JCudaDriver.cuEventRecord(start, stream), "cuEventRecord");
                    backend.launchPlannedNow(batch, CudaDeviceBackend.LOAD_STREAM, false);
                }
                else
                {
                    check(JCudaDriver.cuEventRecord(start, stream), "cuEventRecord");
                    backend.enqueueNow(batch, CudaDeviceBackend.LOAD_STREAM, false, false);
                }
                ms[i] = stopAndRead();
            }
            lastPlanUs = median(planUs);
            return median(ms);
        }

        /** GPU time of a batch enqueued as one cuMemcpyBatchAsync, median of runs. */
        double batched(final CudaDeviceBackend backend, final CopyBatch batch, final int runs)
        {
            final double[] ms = new double[runs];
            backend.enqueueBatchCopyNow(batch, CudaDeviceBackend.LOAD_STREAM);
            check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
            for (int i = 0; i < runs; i++)
            {
                check(JCudaDriver.cuEventRecord(start, stream), "cuEventRecord");
                backend.enqueueBatchCopyNow(batch, CudaDeviceBackend.LOAD_STREAM);
                ms[i] = stopAndRead();
            }
            return median(ms);
        }

        double single(final CudaDeviceBackend backend, final long bytes, final boolean toDevice, final int runs)
        {
            final double[] ms = new double[runs];
            backend.enqueueSingleCopy(Pool.HOST_KV, Pool.DEVICE_KV, bytes, toDevice, CudaDeviceBackend.LOAD_STREAM);
            check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
            for (int i = 0; i < runs; i++)
            {
                check(JCudaDriver.cuEventRecord(start, stream), "cuEventRecord");
                backend.enqueueSingleCopy(Pool.HOST_KV, Pool.DEVICE_KV, bytes, toDevice,
                    CudaDeviceBackend.LOAD_STREAM);
                ms[i] = stopAndRead();
            }
            return median(ms);
        }

        private double stopAndRead()
        {
            check(JCudaDriver.cuEventRecord(stop, stream), "cuEventRecord");
            check(JCudaDriver.cuEventSynchronize(stop), "cuEventSynchronize");
            check(JCudaDriver.cuEventElapsedTime(elapsed, start, stop), "cuEventElapsedTime");
            return elapsed[0];
        }

        private static double median(final double[] values)
        {
            Arrays.sort(values);
            return values[values.length / 2];
        }

        public void close()
        {
            JCudaDriver.cuEventDestroy(start);
            JCudaDriver.cuEventDestroy(stop);
        }
    }
}
