package io.kvledger.engine.store;

/**
 * Told when an L3 store operation finishes, so the runtime can publish the matching engine input
 * ({@code StorageHit}, {@code FetchDone}, {@code Ack}).
 * <p>
 * Thread ownership: called on the store's I/O thread, one call at a time, in submission order; primitive
 * arguments only, and the plan of the operation is already back in the store's pool. It must not throw.
 */
public interface StoreListener
{
    /**
     * A query finished.
     *
     * @param op           the operation id given to {@code query}.
     * @param presentPages number of consecutive pages present in the store from the query's offset.
     * @param mambaPages   the largest {@code p <= presentPages}, {@code p >= 1}, such that a Mamba state is stored
     *                     for page {@code offset + p - 1}; 0 when none.
     */
    void onQueryDone(long op, int presentPages, int mambaPages);

    /**
     * A query could not be answered (a timeout, a lost connection, an I/O error): the engine journals it as a
     * failed op and the request recomputes. By default it reads as an answer of nothing present.
     *
     * @param op the operation id given to {@code query}.
     */
    default void onQueryFailed(final long op)
    {
        onQueryDone(op, 0, 0);
    }

    /**
     * A fetch into host staging finished.
     *
     * @param op        the operation id given to {@code fetch}.
     * @param ok        false when an I/O error occurred or an object was corrupt (never loaded); a missing object
     *                  alone leaves it true.
     * @param pagesRead number of leading pages of the plan read into their staging slots; fewer than asked when a
     *                  page vanished (a short read, still {@code ok}) or was corrupt.
     * @param mambaRead true when the plan's Mamba state was read into its staging slot.
     */
    void onFetchDone(long op, boolean ok, int pagesRead, boolean mambaRead);

    /**
     * A write from host staging finished.
     *
     * @param op the operation id given to {@code write}.
     * @param ok true when every page (and the Mamba state, if any) of the plan is stored.
     */
    void onWriteDone(long op, boolean ok);
}
