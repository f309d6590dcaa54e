package io.kvledger.replay.cli;

import io.kvledger.engine.runtime.KvLedgerOptions;
import io.kvledger.engine.store.FetchPlan;
import io.kvledger.engine.store.L3Store;
import io.kvledger.engine.store.L3StoreFactory;
import io.kvledger.engine.store.RedisL3Store;
import io.kvledger.engine.store.RedisServers;
import io.kvledger.engine.store.StoreListener;
import io.kvledger.engine.store.StoreStats;
import io.kvledger.engine.store.WritePlan;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the live runtime does when a page that a query reported is gone by the time it is fetched, as after an LRU
 * eviction in Redis: the fetch comes back short, the staged hit is dropped (counted), the request recomputes, and
 * the journal checks clean and replays identically. The eviction is a real DEL on a real redis-server, made between
 * the query and the fetch.
 */
class RedisEvictionTest
{
    private static RedisServers redis;

    @BeforeAll
    static void startRedis()
    {
        redis = RedisServers.single();
    }

    @AfterAll
    static void stopRedis()
    {
        if (null != redis)
        {
            redis.close();
        }
    }

    @Test
    void shouldDropTheHitAndRecomputeWhenAPageWasEvictedBeforeItsFetch(@TempDir final Path dir)
    {
        final String[] args = {"--store", "redis", "--redis", redis.node(0).uri(), "--redis-namespace", "evict",
            "--requests", "8", "--prompt-tokens", "1024", "--extend-tokens", "128"};
        kvledger((Object[])concat(new String[]{"run"}, concat(args, "--journal", dir.resolve("warm").toString())))
            .exits(0);

        final RunCommand command = new RunCommand();
        new CommandLine(command).parseArgs(concat(args, "--journal", dir.resolve("evicted").toString()));
        final KvLedgerOptions options = command.options(dir.resolve("evicted"));
        final L3StoreFactory real = options.storeFactory;
        final AtomicLong evicted = new AtomicLong();
        options.storeFactory = (staging, maxPagesPerOp, planCount) ->
            new EvictingStore((RedisL3Store)real.create(staging, maxPagesPerOp, planCount), evicted);

        final WorkloadRunner.Result result = WorkloadRunner.run(options, command.workloadOptions(), false, null);

        assertTrue(evicted.get() > 0, "pages were evicted between query and fetch");
        assertTrue(result.storeNote.contains(" " + evicted.get() + " missing"), result.storeNote);
        assertEquals(evicted.get(), result.drops, "each short fetch drops its whole hit");
        assertEquals(0, result.mismatches, "the recomputed requests are right");
        assertEquals(16, result.finished);
        kvledger("check", dir.resolve("evicted")).exits(0);
        kvledger("replay", dir.resolve("evicted")).exits(0);
    }

    private static String[] concat(final String[] args, final String... more)
    {
        final String[] all = new String[args.length + more.length];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return all;
    }

    /** The real Redis store, except that every other fetch first deletes its plan's last page from Redis. */
    private static final class EvictingStore implements L3Store
    {
        private final RedisL3Store store;
        private final AtomicLong evicted;
        private long fetches;

        EvictingStore(final RedisL3Store store, final AtomicLong evicted)
        {
            this.store = store;
            this.evicted = evicted;
        }

        public void start(final StoreListener listener)
        {
            store.start(listener);
        }

        public void query(final long op, final long[] hi, final long[] lo, final int offset, final int count)
        {
            store.query(op, hi, lo, offset, count);
        }

        public FetchPlan claimFetch()
        {
            return store.claimFetch();
        }

        public FetchPlan tryClaimFetch()
        {
            return store.tryClaimFetch();
        }

        public void fetch(final long op, final FetchPlan plan)
        {
            final int last = plan.pageCount() - 1;
            if (last >= 0 && (fetches++ & 1) == 0)
            {
                if (store.connector().adminKeys().del(store.pageKey(plan.hi(last), plan.lo(last))) == 1)
                {
                    evicted.incrementAndGet();
                }
            }
            store.fetch(op, plan);
        }

        public WritePlan claimWrite()
        {
            return store.claimWrite();
        }

        public WritePlan tryClaimWrite()
        {
            return store.tryClaimWrite();
        }

        public void write(final long op, final WritePlan plan)
        {
            store.write(op, plan);
        }

        public int maxPagesPerOp()
        {
            return store.maxPagesPerOp();
        }

        public long pageCount()
        {
            return store.pageCount();
        }

        public long mambaCount()
        {
            return store.mambaCount();
        }

        public StoreStats stats()
        {
            return store.stats();
        }

        public String describe()
        {
            return store.describe();
        }

        public void close()
        {
            store.close();
        }
    }
}
