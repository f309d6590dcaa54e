package io.kvledger.engine.util;

/**
 * Intrusive doubly linked list of int ids ({@code 0 .. capacity - 1}), oldest at the head: the tree keeps one in
 * last-access order for all non-root nodes (the FULL LRU) and one for the nodes holding a Mamba state (the MAMBA
 * LRU); the read path keeps one over request slots as the FIFO of L3 hits parked for host staging.
 * <p>
 * Owns the previous and next links (two int arrays indexed by node id), the head, the tail and the number of
 * nodes on the list. It does not know access sequences: callers keep the order by appending at the tail on
 * access. Every operation is O(1) and allocation-free; engine thread only.
 */
public final class IndexList
{
    /** End of the list, and the link of a node that is not on it. */
    public static final int NIL = -1;

    private final int[] prev;
    private final int[] next;
    private int head = NIL;
    private int tail = NIL;
    private int size;

    /**
     * @param capacity node ids are {@code 0 .. capacity - 1}.
     */
    public IndexList(final int capacity)
    {
        prev = new int[capacity];
        next = new int[capacity];
        for (int node = 0; node < capacity; node++)
        {
            prev[node] = NIL;
            next[node] = NIL;
        }
    }

    /** @return least recent node, or {@link #NIL} when empty. */
    public int head()
    {
        return head;
    }

    /** @return most recent node, or {@link #NIL} when empty. */
    public int tail()
    {
        return tail;
    }

    /**
     * @param node an id.
     * @return whether it is on the list.
     */
    public boolean contains(final int node)
    {
        return NIL != prev[node] || NIL != next[node] || head == node;
    }

    /** @return nodes on the list. */
    public int size()
    {
        return size;
    }

    /** @param node node on the list. @return the next more recent node, or {@link #NIL}. */
    public int next(final int node)
    {
        return next[node];
    }

    /** @param node node on the list. @return the next less recent node, or {@link #NIL}. */
    public int prev(final int node)
    {
        return prev[node];
    }

    /**
     * Put a node that is not on the list at the most recent end.
     *
     * @param node node to add.
     */
    public void append(final int node)
    {
        prev[node] = tail;
        next[node] = NIL;
        if (NIL == tail)
        {
            head = node;
        }
        else
        {
            next[tail] = node;
        }
        tail = node;
        size++;
    }

    /**
     * Put a node that is not on the list right after one that is.
     *
     * @param existing node on the list.
     * @param node     node to add.
     */
    public void insertAfter(final int existing, final int node)
    {
        final int following = next[existing];
        prev[node] = existing;
        next[node] = following;
        next[existing] = node;
        if (NIL == following)
        {
            tail = node;
        }
        else
        {
            prev[following] = node;
        }
        size++;
    }

    /**
     * Take a node off the list; its links become {@link #NIL}.
     *
     * @param node node on the list.
     */
    public void remove(final int node)
    {
        final int before = prev[node];
        final int after = next[node];
        if (NIL == before)
        {
            head = after;
        }
        else
        {
            next[before] = after;
        }
        if (NIL == after)
        {
            tail = before;
        }
        else
        {
            prev[after] = before;
        }
        prev[node] = NIL;
        next[node] = NIL;
        size--;
    }

    /**
     * Move a node on the list to the most recent end.
     *
     * @param node node on the list.
     */
    public void moveToTail(final int node)
    {
        remove(node);
        append(node);
    }

    /**
     * Forget the links of a node that is not on the list (a node id being reset).
     *
     * @param node node id.
     */
    public void clearLinks(final int node)
    {
        prev[node] = NIL;
        next[node] = NIL;
    }
}
