package io.kvledger.engine.store;

import io.kvledger.engine.device.ClaimPool;
import io.kvledger.engine.device.HostStaging;
import io.kvledger.engine.util.AgentWorker;
import io.kvledger.journal.codec.Pool;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.io.IOException;

/**
 * The asynchronous machinery shared by the L3 stores: preallocated query, fetch and write plans, one submission
 * queue, one I/O thread that runs the operations in order and reports them, and the query and fetch semantics.
 * A subclass supplies only object storage: whether an object exists, read one, write one.
 * <p>
 * Thread ownership: the public operations may be called from any thread (one, the engine's dispatch thread, by
 * design); the abstract object methods and the listener run only on the I/O thread, an {@link AgentWorker}
 * running the {@code IoAgent}, which on close finishes the operations already submitted before it stops.
 */
abstract class AsyncL3Store implements L3Store
{
    /** Default most pages per operation. */
    static final int MAX_PAGES_PER_OP_DEFAULT = 4096;
    /** Default number of plans of each type (query, fetch, write). */
    static final int PLAN_COUNT_DEFAULT = 64;

    static final int PAGE = 1;
    static final int MAMBA = 2;

    static final int READ_OK = 0;
    static final int READ_MISSING = 1;
    static final int READ_CORRUPT = 2;

    /** Bit of a fetch result: the plan's Mamba state was read. */
    static final long FETCH_MAMBA_READ = 1L << 32;
    /** Bit of a fetch result: the fetch failed (reported with ok false). */
    static final long FETCH_FAILED = 1L << 33;

    final HostStaging staging;
    final StoreStats stats = new StoreStats();
    final int kvPageBytes;
    final int mambaStateBytes;

    private final int maxPagesPerOp;
    private final ClaimPool<QueryPlan> freeQueries;
    private final ClaimPool<FetchPlan> freeFetches;
    private final ClaimPool<WritePlan> freeWrites;
    private final Runnable openCheck = this::checkOpen;
    private final Runnable runningCheck = this::checkRunning;
    private final ManyToOneConcurrentArrayQueue<StorePlan> submitted;
    private final AgentWorker ioWorker;

    private volatile StoreListener listener;
    private volatile boolean started;
    private volatile boolean running;
    private volatile boolean closed;

    AsyncL3Store(final HostStaging staging, final int maxPagesPerOp, final int planCount, final String threadName)
    {
        if (maxPagesPerOp < 1)
        {
            throw new IllegalArgumentException("maxPagesPerOp must be >= 1: " + maxPagesPerOp);
        }
        if (planCount < 1)
        {
            throw new IllegalArgumentException("planCount must be >= 1: " + planCount);
        }
        this.staging = staging;
        this.maxPagesPerOp = maxPagesPerOp;
        this.kvPageBytes = staging.slotBytes(Pool.HOST_KV);
        this.mambaStateBytes = staging.slotBytes(Pool.HOST_MAMBA);

        final int kvSlots = staging.slotCount(Pool.HOST_KV);
        final int mambaSlots = staging.slotCount(Pool.HOST_MAMBA);
        final int queueCapacity = Math.max(2, planCount);
        freeQueries = new ClaimPool<>(queueCapacity);
        freeFetches = new ClaimPool<>(queueCapacity);
        freeWrites = new ClaimPool<>(queueCapacity);
        submitted = new ManyToOneConcurrentArrayQueue<>(3 * queueCapacity);
        for (int i = 0; i < planCount; i++)
        {
            freeQueries.release(new QueryPlan(this, maxPagesPerOp));
            freeFetches.release(new FetchPlan(this, maxPagesPerOp, kvSlots, mambaSlots));
            freeWrites.release(new WritePlan(this, maxPagesPerOp, kvSlots, mambaSlots));
        }

        ioWorker = new AgentWorker(new IoAgent(threadName), new BackoffIdleStrategy(10, 20, 1_000, 1_000_000));
    }

    /**
     * Whether an object is stored and has the expected size; I/O thread only.
     *
     * @param kind PAGE or MAMBA.
     * @param hi   fingerprint high bits.
     * @param lo   fingerprint low bits.
     * @return true when present.
     */
    abstract boolean containsObject(int kind, long hi, long lo);

    /**
     * Read an object into a staging slot; I/O thread only. A missing or corrupt object is a return code.
     *
     * @param kind   PAGE or MAMBA.
     * @param hi     fingerprint high bits.
     * @param lo     fingerprint low bits.
     * @param dst    staging slot.
     * @param length bytes expected.
     * @return READ_OK, READ_MISSING or READ_CORRUPT.
     * @throws IOException on an I/O error other than absence.
     */
    abstract int readObject(int kind, long hi, long lo, MutableDirectBuffer dst, int length) throws IOException;

    /**
     * Store an object from a staging slot, replacing any previous one; I/O thread only.
     *
     * @param kind   PAGE or MAMBA.
     * @param hi     fingerprint high bits.
     * @param lo     fingerprint low bits.
     * @param src    staging slot.
     * @param length bytes to store.
     * @throws IOException on an I/O error.
     */
    abstract void writeObject(int kind, long hi, long lo, DirectBuffer src, int length) throws IOException;

    /**
     * {@inheritDoc}
     */
    public synchronized void start(final StoreListener listener)
    {
        if (closed)
        {
            throw new IllegalStateException("store closed");
        }
        if (started)
        {
            throw new IllegalStateException("store already started");
        }
        if (null == listener)
        {
            throw new NullPointerException("listener");
        }
        this.listener = listener;
        running = true;
        started = true;
        ioWorker.start();
    }

    /**
     * {@inheritDoc}
     */
    public void query(final long op, final long[] hi, final long[] lo, final int offset, final int count)
    {
        checkRunning();
        if (offset < 0 || count < 0 || offset + count > hi.length || offset + count > lo.length)
        {
            throw new IllegalArgumentException("query range [" + offset + ", " + (offset + count) +
                ") out of bounds for arrays of " + hi.length + " and " + lo.length);
        }
        if (count > maxPagesPerOp)
        {
            throw new IllegalArgumentException("query of " + count + " pages exceeds maxPagesPerOp " + maxPagesPerOp);
        }

        final QueryPlan plan = freeQueries.claim(runningCheck);
        plan.copyFingerprints(hi, lo, offset, count);
        enqueue(op, plan);
    }

    /**
     * {@inheritDoc}
     */
    public FetchPlan claimFetch()
    {
        return freeFetches.claim(openCheck);
    }

    /**
     * {@inheritDoc}
     */
    public FetchPlan tryClaimFetch()
    {
        return freeFetches.tryClaim();
    }

    /**
     * {@inheritDoc}
     */
    public void fetch(final long op, final FetchPlan plan)
    {
        checkRunning();
        checkClaimed(plan);
        enqueue(op, plan);
    }

    /**
     * {@inheritDoc}
     */
    public WritePlan claimWrite()
    {
        return freeWrites.claim(openCheck);
    }

    /**
     * {@inheritDoc}
     */
    public WritePlan tryClaimWrite()
    {
        return freeWrites.tryClaim();
    }

    /**
     * {@inheritDoc}
     */
    public void write(final long op, final WritePlan plan)
    {
        checkRunning();
        checkClaimed(plan);
        enqueue(op, plan);
    }

    /**
     * {@inheritDoc}
     */
    public int maxPagesPerOp()
    {
        return maxPagesPerOp;
    }

    /**
     * {@inheritDoc}
     */
    public StoreStats stats()
    {
        return stats;
    }

    /**
     * {@inheritDoc}
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
            ioWorker.close();
        }
        onClosed();
    }

    /**
     * Release what the subclass holds, after the I/O thread has stopped.
     */
    void onClosed()
    {
    }

    private void enqueue(final long op, final StorePlan plan)
    {
        plan.submitted(op);
        if (!submitted.offer(plan))
        {
            throw new IllegalStateException("store queue full");
        }
    }

    private void checkClaimed(final StorePlan plan)
    {
        if (plan.owner != this || plan.state != StorePlan.CLAIMED)
        {
            throw new IllegalStateException("plan is not claimed from this store");
        }
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("store closed");
        }
    }

    private void checkRunning()
    {
        if (!started || closed)
        {
            throw new IllegalStateException(closed ? "store closed" : "store not started");
        }
    }

    /**
     * The I/O thread: runs the submitted operations in order, one per duty cycle; once the store stops running
     * and the queue is empty, it ends.
     */
    private final class IoAgent implements Agent
    {
        private final String roleName;

        IoAgent(final String roleName)
        {
            this.roleName = roleName;
        }

        public int doWork()
        {
            final StorePlan plan = submitted.poll();
            if (null != plan)
            {
                process(plan);
                return 1;
            }
            if (!running && submitted.isEmpty())
            {
                throw AgentWorker.drained();
            }
            return 0;
        }

        public String roleName()
        {
            return roleName;
        }
    }

    private void process(final StorePlan plan)
    {
        switch (plan.type)
        {
            case StorePlan.QUERY:
                processQuery((QueryPlan)plan);
                break;

            case StorePlan.FETCH:
                processFetch((FetchPlan)plan);
                break;

            default:
                processWrite((WritePlan)plan);
                break;
        }
    }

    private void processQuery(final QueryPlan plan)
    {
        final long op = plan.op;
        long answer;
        boolean failed = false;
        try
        {
            answer = answerQuery(plan);
        }
        catch (final RuntimeException ex)
        {
            stats.addIoErrors(1);
            answer = 0;
            failed = true;
        }

        plan.released();
        freeQueries.release(plan);
        stats.addQueries(1);
        try
        {
            if (failed)
            {
                listener.onQueryFailed(op);
            }
            else
            {
                listener.onQueryDone(op, queryPresentPages(answer), queryMambaPages(answer));
            }
        }
        catch (final Throwable ex)
        {
            listenerFailed(ex);
        }
    }

    /**
     * Answer a query: how many leading pages are stored, and the deepest of those with a Mamba state; I/O thread
     * only. This default asks object by object; a store on a network overrides it to ask in one round trip.
     *
     * @param plan the query.
     * @return the answer packed by {@link #queryAnswer(int, int)}.
     */
    long answerQuery(final QueryPlan plan)
    {
        final int count = plan.count;
        int present = 0;
        int mambaPages = 0;
        while (present < count && containsObject(PAGE, plan.hi[present], plan.lo[present]))
        {
            present++;
        }
        for (int p = present; p >= 1; p--)
        {
            if (containsObject(MAMBA, plan.hi[p - 1], plan.lo[p - 1]))
            {
                mambaPages = p;
                break;
            }
        }
        return queryAnswer(present, mambaPages);
    }

    /**
     * Pack a query's answer without allocating.
     *
     * @param presentPages leading pages present.
     * @param mambaPages   deepest present page with a Mamba state (1-based), 0 when none.
     * @return the packed answer.
     */
    static long queryAnswer(final int presentPages, final int mambaPages)
    {
        return ((long)presentPages << 32) | (mambaPages & 0xFFFF_FFFFL);
    }

    static int queryPresentPages(final long answer)
    {
        return (int)(answer >>> 32);
    }

    static int queryMambaPages(final long answer)
    {
        return (int)answer;
    }

    private void processFetch(final FetchPlan plan)
    {
        final long op = plan.op;
        long result;
        try
        {
            result = readPlan(plan);
        }
        catch (final IOException | RuntimeException ex)
        {
            stats.addIoErrors(1);
            result = FETCH_FAILED;
        }

        plan.released();
        freeFetches.release(plan);
        stats.addFetches(1);
        try
        {
            listener.onFetchDone(op, (result & FETCH_FAILED) == 0, fetchPagesRead(result),
                (result & FETCH_MAMBA_READ) != 0);
        }
        catch (final Throwable ex)
        {
            listenerFailed(ex);
        }
    }

    /**
     * Read a plan's leading pages (stopping at the first missing or corrupt one) and its Mamba state into host
     * staging, counting what was read; a corrupt object fails the fetch ({@link #failedRead(int)}); I/O thread
     * only. This default reads object by object; a store on a network overrides it to read in one round trip.
     *
     * @param plan the fetch.
     * @return pages read, or'ed with {@link #FETCH_MAMBA_READ} and {@link #FETCH_FAILED} as they apply.
     * @throws IOException on an I/O error other than absence (the fetch fails).
     */
    long readPlan(final FetchPlan plan) throws IOException
    {
        int pagesRead = 0;
        long result = 0;
        for (int i = 0; i < plan.count; i++)
        {
            final int read = readObject(
                PAGE, plan.hi[i], plan.lo[i], staging.slot(Pool.HOST_KV, plan.slot[i]), kvPageBytes);
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
            final int read = readObject(
                MAMBA, plan.mambaHi, plan.mambaLo, staging.slot(Pool.HOST_MAMBA, plan.mambaSlot), mambaStateBytes);
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
        return result | pagesRead;
    }

    static int fetchPagesRead(final long result)
    {
        return (int)result;
    }

    private void processWrite(final WritePlan plan)
    {
        final long op = plan.op;
        boolean ok = true;
        try
        {
            writePlan(plan);
        }
        catch (final IOException | RuntimeException ex)
        {
            ok = false;
            stats.addIoErrors(1);
        }

        plan.released();
        freeWrites.release(plan);
        stats.addWrites(1);
        try
        {
            listener.onWriteDone(op, ok);
        }
        catch (final Throwable ex)
        {
            listenerFailed(ex);
        }
    }

    /**
     * Store a plan's pages and Mamba state from host staging, counting what was written; I/O thread only. This
     * default writes object by object; a store on a network overrides it to write in one round trip.
     *
     * @param plan the write.
     * @throws IOException on an I/O error (the write fails).
     */
    void writePlan(final WritePlan plan) throws IOException
    {
        for (int i = 0; i < plan.count; i++)
        {
            writeObject(PAGE, plan.hi[i], plan.lo[i], staging.slot(Pool.HOST_KV, plan.slot[i]), kvPageBytes);
            stats.addPagesWritten(1);
            stats.addBytesWritten(kvPageBytes);
        }
        if (plan.hasMamba)
        {
            writeObject(
                MAMBA, plan.mambaHi, plan.mambaLo, staging.slot(Pool.HOST_MAMBA, plan.mambaSlot), mambaStateBytes);
            stats.addMambaWritten(1);
            stats.addBytesWritten(mambaStateBytes);
        }
    }

    /**
     * Count an object a fetch could not read, and say how the fetch reports it; I/O thread only. Every store
     * reports alike: an absent object (evicted, never stored) is a short read, still ok, counted as missing; a
     * corrupt one (wrong size, header or digest) is never loaded and fails the fetch (ok false, journaled as a
     * failed op), counted as corrupt only. The two counts are disjoint.
     *
     * @param result READ_MISSING or READ_CORRUPT.
     * @return {@link #FETCH_FAILED} for a corrupt object, else 0.
     */
    long failedRead(final int result)
    {
        if (result == READ_CORRUPT)
        {
            stats.addCorrupt(1);
            return FETCH_FAILED;
        }
        stats.addMissing(1);
        return 0;
    }

    private void listenerFailed(final Throwable ex)
    {
        if (stats.listenerErrors() == 0)
        {
            ex.printStackTrace();
        }
        stats.addListenerErrors(1);
    }

}
