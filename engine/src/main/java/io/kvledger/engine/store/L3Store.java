package io.kvledger.engine.store;

/**
 * The L3 tier: pages keyed by their 128-bit fingerprint, and Mamba states stored as one object each, keyed by the
 * fingerprint of the page at which the state was computed (the node's last page). Data moves only between the
 * store and host staging memory.
 * <p>
 * Every operation is asynchronous: it is queued and returns at once, runs on the store's I/O thread, and reports
 * to the {@link StoreListener} given to {@link #start(StoreListener)}, in submission order.
 * Thread ownership: claim, query, fetch and write are called by the engine's dispatch thread (any thread is safe);
 * the listener runs on the I/O thread.
 */
public interface L3Store extends AutoCloseable
{
    /**
     * Start the I/O thread; completions go to the listener from then on. Call once, before the first operation.
     *
     * @param listener told of each finished operation, on the I/O thread.
     */
    void start(StoreListener listener);

    /**
     * Ask which of {@code count} consecutive pages, from {@code offset}, are stored; answered by
     * {@link StoreListener#onQueryDone(long, int, int)}. The fingerprints are copied before this returns.
     *
     * @param op     operation id to report with the answer.
     * @param hi     high 64 bits of the page fingerprints.
     * @param lo     low 64 bits of the page fingerprints.
     * @param offset index of the first page to ask about.
     * @param count  number of pages to ask about, at most {@link #maxPagesPerOp()}.
     */
    void query(long op, long[] hi, long[] lo, int offset, int count);

    /**
     * Claim a cleared fetch plan, waiting (with a backoff) while every plan is claimed or in flight.
     *
     * @return a plan owned by the caller until it is passed to {@link #fetch(long, FetchPlan)}.
     */
    FetchPlan claimFetch();

    /**
     * Claim a cleared fetch plan without waiting.
     *
     * @return a plan owned by the caller, or null when none is free.
     */
    FetchPlan tryClaimFetch();

    /**
     * Read a plan's pages (and optionally its Mamba state) into host staging; reported by
     * {@link StoreListener#onFetchDone(long, boolean, int, boolean)}. A missing object is a short read; a corrupt one
     * (wrong size, header or digest) is never loaded and fails the fetch; neither is an exception. The plan goes
     * back to the store.
     *
     * @param op   operation id to report with the completion.
     * @param plan a plan claimed from this store.
     */
    void fetch(long op, FetchPlan plan);

    /**
     * Claim a cleared write plan, waiting (with a backoff) while every plan is claimed or in flight.
     *
     * @return a plan owned by the caller until it is passed to {@link #write(long, WritePlan)}.
     */
    WritePlan claimWrite();

    /**
     * Claim a cleared write plan without waiting.
     *
     * @return a plan owned by the caller, or null when none is free.
     */
    WritePlan tryClaimWrite();

    /**
     * Store a plan's pages (and optionally its Mamba state) from host staging; reported by
     * {@link StoreListener#onWriteDone(long, boolean)}. The plan goes back to the store.
     *
     * @param op   operation id to report with the completion.
     * @param plan a plan claimed from this store.
     */
    void write(long op, WritePlan plan);

    /**
     * Most pages one query, fetch or write may carry.
     *
     * @return the page capacity of one operation.
     */
    int maxPagesPerOp();

    /**
     * Pages stored, for summaries.
     *
     * @return the number of pages in the store.
     */
    long pageCount();

    /**
     * Mamba states stored, for summaries.
     *
     * @return the number of Mamba states in the store.
     */
    long mambaCount();

    /**
     * Live counters of the store's work, for summaries and tests.
     *
     * @return the store's counters, updated by the I/O thread.
     */
    StoreStats stats();

    /**
     * A one-line description for logs.
     *
     * @return the description.
     */
    String describe();

    /**
     * Finish the operations already queued (their completions are still reported) and stop the I/O thread.
     */
    void close();
}
