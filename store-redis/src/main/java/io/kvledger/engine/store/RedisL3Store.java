package io.kvledger.engine.store;

import io.kvledger.engine.device.HostStaging;
import io.kvledger.journal.codec.Pool;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A shared L3 store on Redis or Redis Cluster: what one machine writes, another loads. Same semantics as
 * {@link FileL3Store} (the contract tests run against both), on the store's I/O thread, with every operation sent as
 * one pipelined batch: a query, a fetch or a write is one round trip, not one per page.
 * <p>
 * Keys are binary: {@code <namespace>:p:} or {@code <namespace>:m:} followed by the 16-byte fingerprint (high then
 * low 64 bits, big-endian); the Mamba state of a checkpoint page is its own {@code m} key. No prompt content is in a
 * key. A value is the file store's 40-byte header (magic, version, kind, length, fingerprint, xxHash64 content
 * digest) followed by the page or state bytes.
 * <ul>
 * <li>Query: STRLEN of every page key and every Mamba key of the query in one batch; the answer is the leading
 * pages whose value has the right length and, among them, the deepest with a Mamba state, as the file store.</li>
 * <li>Fetch: GET of every page key and the Mamba key in one batch; pages are copied into staging, in order, until
 * the first absent one (a short read: the page was evicted or never there). A value whose header or digest does not
 * match is never loaded: the fetch fails (reported with {@code ok} false, journaled as a failed op), it is counted
 * as corrupt, and the key is deleted so that a later write can replace it.</li>
 * <li>Write: SET of every key in one batch; any failed SET fails the write.</li>
 * <li>A timeout (no answer within the connector's timeout) or a lost connection fails the operation (counted in
 * {@link StoreStats#ioErrors()} and {@link StoreStats#timeouts()}); the connector reconnects by itself.</li>
 * </ul>
 * Memory is bounded by Redis itself ({@code maxmemory} with {@code allkeys-lru}); an evicted page is a short read.
 * <p>
 * Thread ownership: operations as for every {@link L3Store}; Redis I/O runs on the store's I/O thread, which
 * allocates a key and a value array per object (the engine thread never does).
 */
public final class RedisL3Store extends AsyncL3Store
{
    private final RedisConnector connector;
    private final RedisClusterAsyncCommands<byte[], byte[]> redis;
    private final byte[] pagePrefix;
    private final byte[] mambaPrefix;
    private final long timeoutNs;
    private final ArrayList<RedisFuture<?>> pending = new ArrayList<>();
    private final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);

    /**
     * Create a store on a connector, which it owns from then on (closing the store closes the connector).
     *
     * @param connector     connections to Redis.
     * @param staging       host staging memory the store reads from and fetches into.
     * @param maxPagesPerOp most pages one operation may carry.
     * @param planCount     plans of each type (query, fetch, write): the most operations of a type in flight.
     */
    public RedisL3Store(
        final RedisConnector connector, final HostStaging staging, final int maxPagesPerOp, final int planCount)
    {
        super(staging, maxPagesPerOp, planCount, "kvledger-l3-redis");
        this.connector = connector;
        this.redis = connector.async();
        this.pagePrefix = connector.prefix('p');
        this.mambaPrefix = connector.prefix('m');
        this.timeoutNs = connector.timeout().toNanos();
        connector.countInto(stats);
    }

    /**
     * Create a store with default limits (4096 pages per operation, 64 plans of each type).
     *
     * @param connector connections to Redis, owned by the store from then on.
     * @param staging   host staging memory the store reads from and fetches into.
     */
    public RedisL3Store(final RedisConnector connector, final HostStaging staging)
    {
        this(connector, staging, MAX_PAGES_PER_OP_DEFAULT, PLAN_COUNT_DEFAULT);
    }

    /**
     * A factory for {@link io.kvledger.engine.runtime.KvLedgerOptions#storeFactory}.
     *
     * @param connector connections to Redis, owned by the store the factory makes, or closed by the factory's
     *                  {@link L3StoreFactory#close} when it made none.
     * @return the factory.
     */
    public static L3StoreFactory factory(final RedisConnector connector)
    {
        return new Factory(connector);
    }

    /** Hands its connections to the one store it makes, or closes them when it made none. */
    private static final class Factory implements L3StoreFactory
    {
        private final RedisConnector connector;
        private final AtomicBoolean handedOver = new AtomicBoolean();

        Factory(final RedisConnector connector)
        {
            this.connector = connector;
        }

        @Override
        public L3Store create(final HostStaging staging, final int maxPagesPerOp, final int planCount)
        {
            if (!handedOver.compareAndSet(false, true))
            {
                throw new IllegalStateException("a Redis store factory makes one store (its connections go with it)");
            }
            return new RedisL3Store(connector, staging, maxPagesPerOp, planCount);
        }

        @Override
        public void close()
        {
            if (handedOver.compareAndSet(false, true))
            {
                connector.close();
            }
        }
    }

    /**
     * The connector, for tools and tests.
     *
     * @return the connector.
     */
    public RedisConnector connector()
    {
        return connector;
    }

    /**
     * The key of a page; allocates, any thread (for tools and tests).
     *
     * @param hi fingerprint high bits.
     * @param lo fingerprint low bits.
     * @return {@code <namespace>:p:} and the 16 fingerprint bytes.
     */
    public byte[] pageKey(final long hi, final long lo)
    {
        return key(pagePrefix, hi, lo);
    }

    /**
     * The key of a Mamba state; allocates, any thread (for tools and tests).
     *
     * @param hi fingerprint high bits of the page the state belongs to.
     * @param lo fingerprint low bits of that page.
     * @return {@code <namespace>:m:} and the 16 fingerprint bytes.
     */
    public byte[] mambaKey(final long hi, final long lo)
    {
        return key(mambaPrefix, hi, lo);
    }

    /**
     * Pages stored under this store's namespace, counted with SCAN over every node (shared by every process that
     * uses the namespace; for summaries and tests).
     *
     * @return the number of page keys.
     */
    public long pageCount()
    {
        return connector.countKeys(pagePrefix);
    }

    /**
     * Mamba states stored under this store's namespace, counted with SCAN over every node.
     *
     * @return the number of Mamba state keys.
     */
    public long mambaCount()
    {
        return connector.countKeys(mambaPrefix);
    }

    /**
     * Delete every page and Mamba state of this store's namespace (for benchmarks and tests); any thread.
     *
     * @return the number of keys deleted.
     */
    public long deleteAll()
    {
        return connector.deleteKeys(pagePrefix) + connector.deleteKeys(mambaPrefix);
    }

    /**
     * {@inheritDoc}
     */
    public String describe()
    {
        return "redis store " + connector.describe();
    }

    long answerQuery(final QueryPlan plan)
    {
        final int count = plan.count;
        pending.clear();
        for (int i = 0; i < count; i++)
        {
            pending.add(redis.strlen(key(pagePrefix, plan.hi[i], plan.lo[i])));
        }
        for (int i = 0; i < count; i++)
        {
            pending.add(redis.strlen(key(mambaPrefix, plan.hi[i], plan.lo[i])));
        }
        awaitBatch();

        final long pageLength = L3ObjectCodec.HEADER_LENGTH + (long)kvPageBytes;
        final long mambaLength = L3ObjectCodec.HEADER_LENGTH + (long)mambaStateBytes;
        int present = 0;
        while (present < count && pageLength == (Long)result(present))
        {
            present++;
        }
        int mambaPages = 0;
        for (int p = present; p >= 1; p--)
        {
            if (mambaLength == (Long)result(count + p - 1))
            {
                mambaPages = p;
                break;
            }
        }
        pending.clear();
        return queryAnswer(present, mambaPages);
    }

    long readPlan(final FetchPlan plan) throws IOException
    {
        final int count = plan.count;
        pending.clear();
        for (int i = 0; i < count; i++)
        {
            pending.add(redis.get(key(pagePrefix, plan.hi[i], plan.lo[i])));
        }
        if (plan.hasMamba)
        {
            pending.add(redis.get(key(mambaPrefix, plan.mambaHi, plan.mambaLo)));
        }
        awaitBatch();

        long result = 0;
        int pagesRead = 0;
        for (int i = 0; i < count; i++)
        {
            final int read = load(PAGE, plan.hi[i], plan.lo[i], (byte[])result(i),
                staging.slot(Pool.HOST_KV, plan.slot[i]), kvPageBytes);
            if (read != READ_OK)
            {
                result |= failedRead(read);
                break;
            }
            pagesRead++;
        }
        stats.addPagesRead(pagesRead);
        stats.addBytesRead((long)pagesRead * kvPageBytes);

        if (plan.hasMamba)
        {
            final int read = load(MAMBA, plan.mambaHi, plan.mambaLo, (byte[])result(count),
                staging.slot(Pool.HOST_MAMBA, plan.mambaSlot), mambaStateBytes);
            if (read == READ_OK)
            {
                result |= FETCH_MAMBA_READ;
                stats.addMambaRead(1);
                stats.addBytesRead(mambaStateBytes);
            }
            else
            {
                result |= failedRead(read);
            }
        }
        pending.clear();
        return result | pagesRead;
    }

    void writePlan(final WritePlan plan)
    {
        final int count = plan.count;
        pending.clear();
        for (int i = 0; i < count; i++)
        {
            pending.add(redis.set(key(pagePrefix, plan.hi[i], plan.lo[i]),
                encode(PAGE, plan.hi[i], plan.lo[i], staging.slot(Pool.HOST_KV, plan.slot[i]), kvPageBytes)));
        }
        if (plan.hasMamba)
        {
            pending.add(redis.set(key(mambaPrefix, plan.mambaHi, plan.mambaLo), encode(MAMBA, plan.mambaHi,
                plan.mambaLo, staging.slot(Pool.HOST_MAMBA, plan.mambaSlot), mambaStateBytes)));
        }
        awaitBatch();
        pending.clear();

        stats.addPagesWritten(count);
        stats.addBytesWritten((long)count * kvPageBytes);
        if (plan.hasMamba)
        {
            stats.addMambaWritten(1);
            stats.addBytesWritten(mambaStateBytes);
        }
    }

    boolean containsObject(final int kind, final long hi, final long lo)
    {
        throw new UnsupportedOperationException("queries run as one batch in answerQuery");
    }

    int readObject(final int kind, final long hi, final long lo, final MutableDirectBuffer dst, final int length)
    {
        throw new UnsupportedOperationException("fetches run as one batch in readPlan");
    }

    void writeObject(final int kind, final long hi, final long lo, final DirectBuffer src, final int length)
    {
        throw new UnsupportedOperationException("writes run as one batch in writePlan");
    }

    void onClosed()
    {
        connector.close();
    }

    /**
     * Send the pending commands in one flush and wait for every answer, up to the timeout.
     *
     * @throws RedisStoreException when a command failed (connection lost, server error) or the time ran out.
     */
    private void awaitBatch()
    {
        connector.flush();
        final long deadline = System.nanoTime() + timeoutNs;
        final int size = pending.size();
        for (int i = 0; i < size; i++)
        {
            final RedisFuture<?> future = pending.get(i);
            try
            {
                future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (final TimeoutException ex)
            {
                cancelPending(i);
                stats.addTimeouts(1);
                throw new RedisStoreException("Redis did not answer within " + connector.timeout(), ex);
            }
            catch (final ExecutionException ex)
            {
                cancelPending(i);
                throw new RedisStoreException("Redis command failed: " + ex.getCause(), ex.getCause());
            }
            catch (final InterruptedException ex)
            {
                cancelPending(i);
                Thread.currentThread().interrupt();
                throw new RedisStoreException("interrupted while waiting for Redis", ex);
            }
        }
    }

    private void cancelPending(final int from)
    {
        for (int i = from; i < pending.size(); i++)
        {
            pending.get(i).cancel(false);
        }
        pending.clear();
    }

    private Object result(final int index)
    {
        try
        {
            return pending.get(index).get();
        }
        catch (final InterruptedException | ExecutionException ex)
        {
            throw new RedisStoreException("Redis answer lost", ex);
        }
    }

    private int load(
        final int kind, final long hi, final long lo, final byte[] data, final MutableDirectBuffer dst,
        final int length)
    {
        if (null == data)
        {
            return READ_MISSING;
        }
        final UnsafeBuffer buffer = value;
        buffer.wrap(data);
        if (data.length != L3ObjectCodec.HEADER_LENGTH + length || !L3ObjectCodec.verify(buffer, kind, hi, lo, length))
        {
            // Never loaded; removed so that the next write of this page replaces it (sent with the next batch).
            redis.del(key(kind == PAGE ? pagePrefix : mambaPrefix, hi, lo));
            connector.flush();
            return READ_CORRUPT;
        }
        dst.putBytes(0, buffer, L3ObjectCodec.HEADER_LENGTH, length);
        return READ_OK;
    }

    private static byte[] encode(final int kind, final long hi, final long lo, final DirectBuffer src, final int length)
    {
        final byte[] data = new byte[L3ObjectCodec.HEADER_LENGTH + length];
        L3ObjectCodec.encode(new UnsafeBuffer(data), kind, hi, lo, src, length);
        return data;
    }

    private static byte[] key(final byte[] prefix, final long hi, final long lo)
    {
        final byte[] key = new byte[prefix.length + 16];
        System.arraycopy(prefix, 0, key, 0, prefix.length);
        final UnsafeBuffer buffer = new UnsafeBuffer(key);
        buffer.putLong(prefix.length, hi, ByteOrder.BIG_ENDIAN);
        buffer.putLong(prefix.length + 8, lo, ByteOrder.BIG_ENDIAN);
        return key;
    }

    /** An operation that Redis failed or did not answer in time; the store reports the operation as failed. */
    static final class RedisStoreException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        RedisStoreException(final String message, final Throwable cause)
        {
            super(message, cause);
        }
    }
}
