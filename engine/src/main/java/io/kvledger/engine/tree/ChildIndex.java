package io.kvledger.engine.tree;

import io.kvledger.engine.util.Hashing;

/**
 * The tree's child index: which child of a node starts with a given page fingerprint.
 * <p>
 * Owns one open-addressing table keyed by (parent node, first-page fingerprint high and low word) whose value is
 * the child node id, a power-of-two capacity at least twice the node pool (so at most half full), linear probing
 * and backward-shift deletion (no tombstones). Each slot is four consecutive longs of one array (parent and child
 * packed in the first, then the fingerprint's two words, one unused), so a probe reads one cache line rather than
 * one line in each of three or four parallel arrays: every step of a match walk is one lookup here. Probe order
 * depends only on the key, never on identity hashes. Allocation-free after construction; engine thread only.
 */
final class ChildIndex
{
    private static final int STRIDE = 4;
    private static final int SHIFT = 2;
    private static final long EMPTY = -1L;

    private final int mask;
    private final long[] table;
    private int size;

    /**
     * @param maxNodes node pool size; the table holds at most {@code maxNodes} entries.
     */
    ChildIndex(final int maxNodes)
    {
        int capacity = 2;
        while (capacity < 2 * maxNodes)
        {
            capacity <<= 1;
        }
        mask = capacity - 1;
        table = new long[capacity * STRIDE];
        for (int i = 0; i < capacity; i++)
        {
            table[i << SHIFT] = EMPTY;
        }
    }

    /**
     * @param parentNode parent.
     * @param hi         first-page fingerprint high word.
     * @param lo         first-page fingerprint low word.
     * @return the child, or {@link RadixTree#NO_NODE}.
     */
    int find(final int parentNode, final long hi, final long lo)
    {
        final int slot = findSlot(parentNode, hi, lo);
        return slot < 0 ? RadixTree.NO_NODE : childAt(slot);
    }

    /**
     * Add an entry; the key must not be present.
     *
     * @param parentNode parent.
     * @param hi         first-page fingerprint high word.
     * @param lo         first-page fingerprint low word.
     * @param childNode  child.
     */
    void put(final int parentNode, final long hi, final long lo, final int childNode)
    {
        int slot = home(parentNode, hi, lo);
        while (occupied(slot))
        {
            slot = (slot + 1) & mask;
        }
        final int base = slot << SHIFT;
        table[base] = pack(parentNode, childNode);
        table[base + 1] = hi;
        table[base + 2] = lo;
        size++;
    }

    /**
     * Point an existing entry at another child (a split puts the new parent where the node was).
     *
     * @param parentNode parent.
     * @param hi         first-page fingerprint high word.
     * @param lo         first-page fingerprint low word.
     * @param childNode  the new child.
     */
    void replace(final int parentNode, final long hi, final long lo, final int childNode)
    {
        table[findSlot(parentNode, hi, lo) << SHIFT] = pack(parentNode, childNode);
    }

    /**
     * Remove an entry, shifting later entries of its probe run back.
     *
     * @param parentNode parent.
     * @param hi         first-page fingerprint high word.
     * @param lo         first-page fingerprint low word.
     * @throws IllegalStateException when the entry is missing.
     */
    void remove(final int parentNode, final long hi, final long lo)
    {
        final int slot = findSlot(parentNode, hi, lo);
        if (slot < 0)
        {
            throw new IllegalStateException("I1 child map entry missing");
        }
        int hole = slot;
        int j = slot;
        while (true)
        {
            j = (j + 1) & mask;
            if (!occupied(j))
            {
                break;
            }
            final int h = home(parentAt(j), hiAt(j), loAt(j));
            if (((j - h) & mask) >= ((j - hole) & mask))
            {
                final int from = j << SHIFT;
                final int to = hole << SHIFT;
                table[to] = table[from];
                table[to + 1] = table[from + 1];
                table[to + 2] = table[from + 2];
                hole = j;
            }
        }
        table[hole << SHIFT] = EMPTY;
        size--;
    }

    /** @return entries held. */
    int size()
    {
        return size;
    }

    /** @return table slots (for a full scan by the verifier). */
    int capacity()
    {
        return mask + 1;
    }

    /** @param slot table slot. @return whether it holds an entry. */
    boolean occupied(final int slot)
    {
        return EMPTY != table[slot << SHIFT];
    }

    /** @param slot occupied table slot. @return its parent key. */
    int parentAt(final int slot)
    {
        return (int)(table[slot << SHIFT] >>> 32);
    }

    /** @param slot occupied table slot. @return its fingerprint high word key. */
    long hiAt(final int slot)
    {
        return table[(slot << SHIFT) + 1];
    }

    /** @param slot occupied table slot. @return its fingerprint low word key. */
    long loAt(final int slot)
    {
        return table[(slot << SHIFT) + 2];
    }

    /** @param slot occupied table slot. @return its child. */
    int childAt(final int slot)
    {
        return (int)table[slot << SHIFT];
    }

    private static long pack(final int parentNode, final int childNode)
    {
        return ((long)parentNode << 32) | (childNode & 0xFFFF_FFFFL);
    }

    private int home(final int parentNode, final long hi, final long lo)
    {
        final long h = Hashing.mix(hi * 0x9E3779B97F4A7C15L ^ Long.rotateLeft(lo * 0xC2B2AE3D27D4EB4FL, 31) ^
            (parentNode * 0x165667B19E3779F9L));
        return (int)h & mask;
    }

    private int findSlot(final int parentNode, final long hi, final long lo)
    {
        int slot = home(parentNode, hi, lo);
        while (true)
        {
            final int base = slot << SHIFT;
            final long meta = table[base];
            if (EMPTY == meta)
            {
                return -1;
            }
            if ((int)(meta >>> 32) == parentNode && table[base + 1] == hi && table[base + 2] == lo)
            {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }
}
