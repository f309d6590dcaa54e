package io.kvledger.replay.cli;

import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.engine.store.FetchPlan;
import io.kvledger.engine.store.FileL3Store;
import io.kvledger.engine.store.L3Store;
import io.kvledger.engine.store.RedisConnector;
import io.kvledger.engine.store.RedisL3Store;
import io.kvledger.engine.store.StoreListener;
import io.kvledger.engine.store.WritePlan;
import io.kvledger.journal.codec.Pool;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * {@code kvledger bench --store-bench}: pages per second and GB/s of L3 writes and fetches, file store against Redis,
 * for 4 KiB and 64 KiB pages in operations of 1 and 64 pages. Each cell writes then fetches the same pages through
 * the store's public asynchronous API (as the engine does: many operations queued, completions counted), once to
 * warm up and once measured; the Redis keys of the benchmark are deleted afterwards.
 */
final class StoreBench
{
    private static final int[] PAGE_BYTES = {4096, 65536};
    private static final int[] BATCHES = {1, 64};
    private static final int SLOTS = 128;

    private StoreBench()
    {
    }

    /**
     * Run the benchmark and print one line per store, page size and batch size.
     *
     * @param out       where to print.
     * @param mib       MiB written (and fetched) per measured cell.
     * @param redisUris Redis to measure (empty: the file store only).
     * @param storeDir  where the file store goes (null: a temporary directory, removed afterwards).
     * @return the exit code.
     * @throws IOException when the file store's directory cannot be made.
     */
    static int run(final PrintWriter out, final int mib, final List<String> redisUris, final Path storeDir)
        throws IOException
    {
        if (mib < 1)
        {
            throw new CliException("--store-mib must be at least 1: " + mib);
        }
        RedisConnector probe = null;
        if (!redisUris.isEmpty())
        {
            try
            {
                probe = RedisConnector.connect(redisUris, namespace(), RedisConnector.DEFAULT_TIMEOUT);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CliException(ex.getMessage());
            }
        }
        // made once Redis answered, so a wrong --redis leaves no empty temporary directory behind
        final Path root;
        try
        {
            root = null == storeDir ? Files.createTempDirectory("kvledger-store-bench") : storeDir;
        }
        catch (final IOException | RuntimeException ex)
        {
            if (null != probe)
            {
                probe.close();
            }
            throw ex;
        }
        out.printf(Locale.ROOT, "store bench: %d MiB written then fetched per cell (after one warm-up pass), %d " +
            "processors; file store in %s%s%n", mib, Runtime.getRuntime().availableProcessors(), root,
            null == probe ? "; no --redis given, Redis not measured" : "; " + probe.describe());
        out.printf(Locale.ROOT, "%-6s %-7s %-6s %14s %10s %14s %10s%n", "store", "page", "batch", "write pages/s",
            "write GB/s", "fetch pages/s", "fetch GB/s");
        try
        {
            for (final int pageBytes : PAGE_BYTES)
            {
                for (final int batch : BATCHES)
                {
                    final int pages = Math.max(batch, (int)((long)mib * 1024 * 1024 / pageBytes) / batch * batch);
                    print(out, "file", pageBytes, batch, measure(null, root.resolve("l3-" + pageBytes + "-" + batch),
                        pageBytes, batch, pages));
                    if (null != probe)
                    {
                        print(out, "redis", pageBytes, batch, measure(redisUris, null, pageBytes, batch, pages));
                    }
                    out.flush();
                }
            }
        }
        finally
        {
            if (null != probe)
            {
                probe.close();
            }
            if (null == storeDir)
            {
                delete(root);
            }
        }
        return KvledgerMain.EXIT_CLEAN;
    }

    private static double[] measure(
        final List<String> redisUris, final Path dir, final int pageBytes, final int batch, final int pages)
    {
        final long[] hi = new long[pages];
        final long[] lo = new long[pages];
        final SplittableRandom random = new SplittableRandom(pageBytes * 31L + batch);
        for (int i = 0; i < pages; i++)
        {
            hi[i] = random.nextLong();
            lo[i] = random.nextLong();
        }
        final DeviceConfig config = new DeviceConfig().deviceKvPages(1).deviceMambaSlots(1).hostKvPages(SLOTS)
            .hostMambaSlots(1).kvPageBytes(pageBytes);
        try (HostDeviceBackend staging = new HostDeviceBackend(config))
        {
            for (int slot = 0; slot < SLOTS; slot++)
            {
                staging.fill(Pool.HOST_KV, slot, slot + 1);
            }
            final Counter counter = new Counter();
            final L3Store store = null == dir ? new RedisL3Store(connect(redisUris), staging, 64, 64) :
                new FileL3Store(dir, staging, 64, 64);
            final double[] result;
            try
            {
                store.start(counter);
                result = passes(store, counter, hi, lo, batch, pages);
            }
            catch (final RuntimeException ex)
            {
                throw cleanUpAfter(store, ex);
            }
            cleanUp(store);
            return result;
        }
    }

    private static double[] passes(final L3Store store, final Counter counter, final long[] hi, final long[] lo,
        final int batch, final int pages)
    {
        final double[] result = new double[2];
        long op = 0;
        for (int pass = 0; pass < 2; pass++)
        {
            final long writeStart = System.nanoTime();
            for (int first = 0; first < pages; first += batch)
            {
                final WritePlan plan = store.claimWrite();
                for (int i = first; i < first + batch; i++)
                {
                    plan.page(hi[i], lo[i], i % SLOTS);
                }
                store.write(op++, plan);
            }
            counter.await(op);
            final long writeNs = System.nanoTime() - writeStart;

            final long fetchStart = System.nanoTime();
            for (int first = 0; first < pages; first += batch)
            {
                final FetchPlan plan = store.claimFetch();
                for (int i = first; i < first + batch; i++)
                {
                    plan.page(hi[i], lo[i], i % SLOTS);
                }
                store.fetch(op++, plan);
            }
            counter.await(op);
            final long fetchNs = System.nanoTime() - fetchStart;
            if (counter.failures.get() > 0 || counter.pagesRead.get() != (long)pages * (pass + 1))
            {
                throw new CliException("store bench: " + counter.failures.get() + " failed operations, " +
                    counter.pagesRead.get() + " pages read; " + store.stats());
            }
            result[0] = pages * 1e9 / writeNs;
            result[1] = pages * 1e9 / fetchNs;
        }
        return result;
    }

    /**
     * @return the bench's key namespace in Redis, one per process so two benches sharing a Redis keep apart (the
     *         probe that prints the header and every cell use it, so the header names the keys' real namespace).
     */
    private static String namespace()
    {
        return "kvledger-bench-" + ProcessHandle.current().pid();
    }

    /** A cell's own connection; Redis that answered the probe may have gone since (one line, not a stack trace). */
    private static RedisConnector connect(final List<String> redisUris)
    {
        try
        {
            return RedisConnector.connect(redisUris, namespace(), Duration.ofSeconds(30));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException("store bench: " + ex.getMessage(), ex);
        }
    }

    /**
     * After a cell: delete its Redis keys, then close the store (its connections), whether or not the deletion
     * worked.
     *
     * @throws CliException when the keys could not be deleted.
     */
    private static void cleanUp(final L3Store store)
    {
        final String leftOver = deleteKeys(store);
        if (null != leftOver)
        {
            throw new CliException("store bench: " + leftOver);
        }
    }

    /**
     * After a cell that failed: the same clean-up, which must not hide why the cell failed (a Redis that went away
     * fails the cell first, then the deletion of its keys).
     *
     * @return the exception to throw: the cell's failure, one line, saying too when its keys were left behind.
     */
    private static RuntimeException cleanUpAfter(final L3Store store, final RuntimeException failure)
    {
        final String leftOver = deleteKeys(store);
        if (null == leftOver)
        {
            return failure;
        }
        final String message = failure instanceof CliException ? failure.getMessage() : "store bench: " + failure;
        return new CliException(message + "; " + leftOver, failure);
    }

    /** @return null when done, else why the benchmark's Redis keys are left behind; the store is closed. */
    private static String deleteKeys(final L3Store store)
    {
        try
        {
            if (store instanceof RedisL3Store redis)
            {
                try
                {
                    redis.deleteAll();
                }
                catch (final RuntimeException ex)
                {
                    return "the benchmark's keys in " + redis.connector().describe() + " could not be deleted: " +
                        ex.getMessage();
                }
            }
            return null;
        }
        finally
        {
            store.close();
        }
    }

    private static void print(
        final PrintWriter out, final String store, final int pageBytes, final int batch, final double[] rates)
    {
        out.printf(Locale.ROOT, "%-6s %-7s %-6d %,14.0f %10.3f %,14.0f %10.3f%n", store, pageBytes / 1024 + " KiB",
            batch, rates[0], rates[0] * pageBytes / 1e9, rates[1], rates[1] * pageBytes / 1e9);
    }

    private static void delete(final Path root) throws IOException
    {
        try (Stream<Path> files = Files.walk(root))
        {
            files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
    }

    /** Counts completions; the benchmark thread waits for a count. */
    private static final class Counter implements StoreListener
    {
        final AtomicLong done = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        final AtomicLong pagesRead = new AtomicLong();

        public void onQueryDone(final long op, final int presentPages, final int mambaPages)
        {
            done.incrementAndGet();
        }

        public void onFetchDone(final long op, final boolean ok, final int pagesRead, final boolean mambaRead)
        {
            this.pagesRead.addAndGet(pagesRead);
            if (!ok)
            {
                failures.incrementAndGet();
            }
            done.incrementAndGet();
        }

        public void onWriteDone(final long op, final boolean ok)
        {
            if (!ok)
            {
                failures.incrementAndGet();
            }
            done.incrementAndGet();
        }

        void await(final long count)
        {
            while (done.get() < count)
            {
                LockSupport.parkNanos(20_000);
            }
        }
    }
}
