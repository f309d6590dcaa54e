package io.kvledger.engine.tree;

/**
 * Each node's pages copied end to end in one place, so that a walk compares a node's fingerprints as a sequential
 * scan instead of following the node's linked list of pages, one dependent load per page.
 * <p>
 * A cache, never the truth: the tree's linked pages ({@code nextPage}, {@code pageHi}, {@code pageLo} indexed by KV
 * page id) stay what every change, hash and check reads; a run is a copy of one node's pages (fingerprint words and
 * page ids, in order) made when the node is created or first walked, and is valid while the node's
 * {@link #epoch(int)} equals the current epoch. Runs are handed out from a bump pointer over one array; when it
 * reaches the end the epoch moves on (every run becomes invalid at once, in O(1)), the pointer goes back to the
 * start, and nodes are copied again as walks reach them. So there is no compaction and no pause proportional to
 * the tree; the capacity (twice the KV pool: every live node fits with room to spare) keeps the copies rare.
 * A split keeps both halves' runs (the new parent takes the first {@code k} positions, the node the rest); a
 * deleted or reused node id just loses its run. A pure function of the tree's changes, so deterministic; it is no
 * part of the state hash. Engine thread only; allocation-free after construction.
 */
final class PageRuns
{
    /** Epoch of a node without a run; the current epoch is never 0. */
    private static final long NO_EPOCH = 0;

    final long[] hi;
    final long[] lo;
    final int[] page;
    private final int[] start;
    private final long[] epoch;
    private final int capacity;
    private int top;
    private long currentEpoch = 1;

    /**
     * @param capacity positions, at least the most pages one node can hold (the KV pool's size).
     * @param maxNodes node ids.
     */
    PageRuns(final int capacity, final int maxNodes)
    {
        this.capacity = Math.max(1, capacity);
        hi = new long[this.capacity];
        lo = new long[this.capacity];
        page = new int[this.capacity];
        start = new int[maxNodes];
        epoch = new long[maxNodes];
    }

    /**
     * @param node node id.
     * @return whether the node has a valid run.
     */
    boolean has(final int node)
    {
        return currentEpoch == epoch[node];
    }

    /**
     * @param node node with a valid run.
     * @return the position of its first page.
     */
    int start(final int node)
    {
        return start[node];
    }

    /**
     * Hand out positions for a node's run of {@code pages} pages, starting a new epoch first when the array has no
     * room left; the caller fills {@code [start, start + pages)}.
     *
     * @param node  node id.
     * @param pages its page count, 1 .. capacity.
     * @return the first position.
     */
    int allocate(final int node, final int pages)
    {
        if (top + pages > capacity)
        {
            currentEpoch++;
            top = 0;
        }
        final int first = top;
        top += pages;
        start[node] = first;
        epoch[node] = currentEpoch;
        return first;
    }

    /**
     * A split of {@code node} at {@code k}: the new parent's run is the node's first {@code k} positions, the
     * node's the rest.
     */
    void split(final int node, final int newParent, final int k)
    {
        if (has(node))
        {
            start[newParent] = start[node];
            epoch[newParent] = currentEpoch;
            start[node] += k;
        }
        else
        {
            epoch[newParent] = NO_EPOCH;
        }
    }

    /** The node id no longer has a run (deleted or handed out again). */
    void forget(final int node)
    {
        epoch[node] = NO_EPOCH;
    }

    /** @return how many epochs have begun (1 until the array first filled); for tests and diagnostics. */
    long epochs()
    {
        return currentEpoch;
    }
}
