package io.kvledger.engine.sim;

import io.kvledger.engine.util.Hashing;

/**
 * The simulated L3 store's content: for each stored object, named by its 128-bit fingerprint and whether it is a
 * page or a recurrent state, the content tag of what was written. Open addressing with linear probing over
 * primitive arrays (24 bytes a slot, at most two thirds full), so a long deterministic run keeps every object it
 * stored in about 40 bytes instead of a boxed map entry's hundred: 200,000 pr-bench requests store about 14 million
 * pages.
 * <p>
 * Only put, get and contains: nothing iterates it, so its layout cannot change a run. Single-threaded.
 */
public final class L3Tags
{
    private static final int INITIAL_CAPACITY = 1 << 10;

    private final Table pages = new Table();
    private final Table states = new Table();

    /**
     * Store (or overwrite) an object's tag.
     *
     * @param hi    fingerprint, high half.
     * @param lo    fingerprint, low half.
     * @param state true for a recurrent state, false for a KV page.
     * @param tag   content tag of what was written.
     */
    public void put(final long hi, final long lo, final boolean state, final long tag)
    {
        (state ? states : pages).put(hi, lo, tag);
    }

    /**
     * @param hi    fingerprint, high half.
     * @param lo    fingerprint, low half.
     * @param state true for a recurrent state, false for a KV page.
     * @return whether the object is stored.
     */
    public boolean contains(final long hi, final long lo, final boolean state)
    {
        return find(hi, lo, state) >= 0;
    }

    /**
     * Where an object is, to read its tag with {@link #tagAt} without a second lookup; valid until the next put.
     *
     * @param hi    fingerprint, high half.
     * @param lo    fingerprint, low half.
     * @param state true for a recurrent state, false for a KV page.
     * @return its slot, or -1 when it is not stored.
     */
    public int find(final long hi, final long lo, final boolean state)
    {
        return (state ? states : pages).find(hi, lo);
    }

    /**
     * @param slot  from {@link #find}, not negative.
     * @param state the kind {@link #find} was asked for.
     * @return the tag stored there.
     */
    public long tagAt(final int slot, final boolean state)
    {
        return (state ? states : pages).tags[slot];
    }

    /**
     * @param hi      fingerprint, high half.
     * @param lo      fingerprint, low half.
     * @param state   true for a recurrent state, false for a KV page.
     * @param missing returned when the object is not stored.
     * @return the stored tag, or {@code missing}.
     */
    public long get(final long hi, final long lo, final boolean state, final long missing)
    {
        final int slot = find(hi, lo, state);
        return slot >= 0 ? tagAt(slot, state) : missing;
    }

    /** @return objects stored, pages and states together. */
    public long size()
    {
        return (long)pages.size + states.size;
    }

    /** One kind of object: keys and tags in parallel arrays, a slot used when {@code used} says so. */
    private static final class Table
    {
        private long[] his = new long[INITIAL_CAPACITY];
        private long[] los = new long[INITIAL_CAPACITY];
        private long[] tags = new long[INITIAL_CAPACITY];
        private boolean[] used = new boolean[INITIAL_CAPACITY];
        private int size;

        int find(final long hi, final long lo)
        {
            final int mask = his.length - 1;
            int slot = home(hi, lo, mask);
            while (used[slot])
            {
                if (his[slot] == hi && los[slot] == lo)
                {
                    return slot;
                }
                slot = (slot + 1) & mask;
            }
            return -1;
        }

        void put(final long hi, final long lo, final long tag)
        {
            final int found = find(hi, lo);
            if (found >= 0)
            {
                tags[found] = tag;
                return;
            }
            if ((size + 1) * 3L > his.length * 2L)
            {
                grow();
            }
            insert(hi, lo, tag);
            size++;
        }

        private void insert(final long hi, final long lo, final long tag)
        {
            final int mask = his.length - 1;
            int slot = home(hi, lo, mask);
            while (used[slot])
            {
                slot = (slot + 1) & mask;
            }
            used[slot] = true;
            his[slot] = hi;
            los[slot] = lo;
            tags[slot] = tag;
        }

        private void grow()
        {
            final long[] oldHis = his;
            final long[] oldLos = los;
            final long[] oldTags = tags;
            final boolean[] oldUsed = used;
            final int capacity = oldHis.length << 1;
            if (capacity <= 0)
            {
                throw new IllegalStateException("simulated L3 store full: " + size + " objects");
            }
            his = new long[capacity];
            los = new long[capacity];
            tags = new long[capacity];
            used = new boolean[capacity];
            for (int i = 0; i < oldHis.length; i++)
            {
                if (oldUsed[i])
                {
                    insert(oldHis[i], oldLos[i], oldTags[i]);
                }
            }
        }

        private static int home(final long hi, final long lo, final int mask)
        {
            return (int)Hashing.mixGamma(hi ^ Long.rotateLeft(lo, 32)) & mask;
        }
    }
}
