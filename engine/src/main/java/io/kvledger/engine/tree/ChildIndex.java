package io.kvledger.engine.tree;

import io.kvledger.engine.util.Hashing;

/**
 * The tree's child index: which child of a node starts with a given page fingerprint.
 * <p>
 * Owns one open-addressing table keyed by (parent node, first-page fingerprint high and low word) whose value is
 * the child node id: parallel primitive arrays, a power-of-two capacity at least twice the node pool (so at most
 * half full), linear probing and backward-shift deletion (no tombstones). Probe order depends only on the key,
 * never on identity hashes. Allocation-free after construction; engine thread only.
 */
final class ChildIndex
{
    private static final int EMPTY = -1;

    private final int mask;
    private final int[] parentKey;
    private final long[] hiKey;
    private final long[] loKey;
    private final int[] child;
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
        parentKey = new int[capacity];
        hiKey = new long[capacity];
        loKey = new long[capacity];
        child = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            parentKey[i] = EMPTY;
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
        return slot < 0 ? RadixTree.NO_NODE : child[slot];
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
        while (EMPTY != parentKey[slot])
        {
            slot = (slot + 1) & mask;
        }
        parentKey[slot] = parentNode;
        hiKey[slot] = hi;
        loKey[slot] = lo;
        child[slot] = childNode;
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
        child[findSlot(parentNode, hi, lo)] = childNode;
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
            if (EMPTY == parentKey[j])
            {
                break;
            }
            final int h = home(parentKey[j], hiKey[j], loKey[j]);
            if (((j - h) & mask) >= ((j - hole) & mask))
            {
                parentKey[hole] = parentKey[j];
                hiKey[hole] = hiKey[j];
                loKey[hole] = loKey[j];
                child[hole] = child[j];
                hole = j;
            }
        }
        parentKey[hole] = EMPTY;
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
        return EMPTY != parentKey[slot];
    }

    /** @param slot occupied table slot. @return its parent key. */
    int parentAt(final int slot)
    {
        return parentKey[slot];
    }

    /** @param slot occupied table slot. @return its fingerprint high word key. */
    long hiAt(final int slot)
    {
        return hiKey[slot];
    }

    /** @param slot occupied table slot. @return its fingerprint low word key. */
    long loAt(final int slot)
    {
        return loKey[slot];
    }

    /** @param slot occupied table slot. @return its child. */
    int childAt(final int slot)
    {
        return child[slot];
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
        while (EMPTY != parentKey[slot])
        {
            if (parentKey[slot] == parentNode && hiKey[slot] == hi && loKey[slot] == lo)
            {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }
}
