package io.kvledger.engine.store;

/**
 * Live counters of an L3 store's work, for summaries and tests.
 * <p>
 * Thread ownership: written only by the store's I/O thread (single writer), except the connection counters
 * ({@link #disconnects()}, {@link #reconnects()}) which a networked store's client thread writes under this object's
 * lock; readable from any thread; each value is current on its own, not a consistent snapshot of all of them.
 */
public final class StoreStats
{
    private volatile long queries;
    private volatile long fetches;
    private volatile long writes;
    private volatile long pagesRead;
    private volatile long pagesWritten;
    private volatile long mambaRead;
    private volatile long mambaWritten;
    private volatile long missing;
    private volatile long corrupt;
    private volatile long ioErrors;
    private volatile long bytesRead;
    private volatile long bytesWritten;
    private volatile long listenerErrors;
    private volatile long timeouts;
    private volatile long disconnects;
    private volatile long reconnects;

    /**
     * Count of queries answered.
     *
     * @return the count so far.
     */
    public long queries()
    {
        return queries;
    }

    /**
     * Count of fetches finished.
     *
     * @return the count so far.
     */
    public long fetches()
    {
        return fetches;
    }

    /**
     * Count of writes finished.
     *
     * @return the count so far.
     */
    public long writes()
    {
        return writes;
    }

    /**
     * Count of pages read into host staging.
     *
     * @return the count so far.
     */
    public long pagesRead()
    {
        return pagesRead;
    }

    /**
     * Count of pages written from host staging.
     *
     * @return the count so far.
     */
    public long pagesWritten()
    {
        return pagesWritten;
    }

    /**
     * Count of Mamba states read into host staging.
     *
     * @return the count so far.
     */
    public long mambaRead()
    {
        return mambaRead;
    }

    /**
     * Count of Mamba states written from host staging.
     *
     * @return the count so far.
     */
    public long mambaWritten()
    {
        return mambaWritten;
    }

    /**
     * Count of objects a fetch asked for that were absent (a corrupt one counts in {@link #corrupt()} only).
     *
     * @return the count so far.
     */
    public long missing()
    {
        return missing;
    }

    /**
     * Count of objects found corrupt or short (never loaded: the fetch fails; removed). Disjoint from
     * {@link #missing()}.
     *
     * @return the count so far.
     */
    public long corrupt()
    {
        return corrupt;
    }

    /**
     * Count of operations that failed with an I/O error.
     *
     * @return the count so far.
     */
    public long ioErrors()
    {
        return ioErrors;
    }

    /**
     * Count of content bytes read.
     *
     * @return the count so far.
     */
    public long bytesRead()
    {
        return bytesRead;
    }

    /**
     * Count of content bytes written.
     *
     * @return the count so far.
     */
    public long bytesWritten()
    {
        return bytesWritten;
    }

    /**
     * Count of listener calls that threw.
     *
     * @return the count so far.
     */
    public long listenerErrors()
    {
        return listenerErrors;
    }

    /**
     * Count of operations that failed because the store did not answer in time (also counted in
     * {@link #ioErrors()}); networked stores only.
     *
     * @return the count so far.
     */
    public long timeouts()
    {
        return timeouts;
    }

    /**
     * Count of connections to the store that were lost; networked stores only.
     *
     * @return the count so far.
     */
    public long disconnects()
    {
        return disconnects;
    }

    /**
     * Count of lost connections to the store that were re-established automatically; networked stores only.
     *
     * @return the count so far.
     */
    public long reconnects()
    {
        return reconnects;
    }

    void addTimeouts(final long delta)
    {
        timeouts += delta;
    }

    /** Connection events arrive on a client thread other than the I/O thread, hence synchronized. */
    synchronized void addDisconnects(final long delta)
    {
        disconnects += delta;
    }

    synchronized void addReconnects(final long delta)
    {
        reconnects += delta;
    }

    void addQueries(final long delta)
    {
        queries += delta;
    }

    void addFetches(final long delta)
    {
        fetches += delta;
    }

    void addWrites(final long delta)
    {
        writes += delta;
    }

    void addPagesRead(final long delta)
    {
        pagesRead += delta;
    }

    void addPagesWritten(final long delta)
    {
        pagesWritten += delta;
    }

    void addMambaRead(final long delta)
    {
        mambaRead += delta;
    }

    void addMambaWritten(final long delta)
    {
        mambaWritten += delta;
    }

    void addMissing(final long delta)
    {
        missing += delta;
    }

    void addCorrupt(final long delta)
    {
        corrupt += delta;
    }

    void addIoErrors(final long delta)
    {
        ioErrors += delta;
    }

    void addBytesRead(final long delta)
    {
        bytesRead += delta;
    }

    void addBytesWritten(final long delta)
    {
        bytesWritten += delta;
    }

    void addListenerErrors(final long delta)
    {
        listenerErrors += delta;
    }

    /**
     * The counters as one line.
     *
     * @return the counters as text.
     */
    public String toString()
    {
        return "StoreStats{queries=" + queries +
            ", fetches=" + fetches +
            ", writes=" + writes +
            ", pagesRead=" + pagesRead +
            ", pagesWritten=" + pagesWritten +
            ", mambaRead=" + mambaRead +
            ", mambaWritten=" + mambaWritten +
            ", missing=" + missing +
            ", corrupt=" + corrupt +
            ", ioErrors=" + ioErrors +
            ", bytesRead=" + bytesRead +
            ", bytesWritten=" + bytesWritten +
            ", listenerErrors=" + listenerErrors +
            ", timeouts=" + timeouts +
            ", disconnects=" + disconnects +
            ", reconnects=" + reconnects +
            '}';
    }
}
