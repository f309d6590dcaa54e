package io.kvledger.engine.tree;

import io.kvledger.engine.util.Hashing;

/**
 * The tree's lock receipts: who holds which lock, by receipt.
 * <p>
 * Owns a preallocated table of held locks (receipt, node, component code, holder kind code, holder id) with a
 * LIFO stack of free table slots, the map from receipt to table slot and the receipt counter (receipts are
 * increasing longs from 1, never reused). The map is an open-addressing table indexed by the receipt's low bits
 * (linear probing, backward-shift deletion): receipts are handed out in order and mostly released in about that
 * order, so the receipts held at once sit in neighbouring slots and each lock and unlock touches lines already in
 * the cache, where a hashed map scatters them over a table of twice the lock capacity. It does not change lock
 * counts; the tree does that around {@link #add} and {@link #take}. Allocation-free after construction; engine
 * thread only.
 */
final class LockReceipts
{
    private final int capacity;
    private final long[] receiptId;
    private final int[] node;
    private final byte[] component;
    private final byte[] kind;
    private final long[] holder;
    private final int[] freeSlots;
    private int freeTop;
    private final int mapMask;
    private final long[] mapReceipt;
    private final int[] mapSlot;
    private int mapped;
    private long nextReceipt = 1;

    /**
     * @param capacity locks that can be held at once.
     */
    LockReceipts(final int capacity)
    {
        this.capacity = capacity;
        receiptId = new long[capacity];
        node = new int[capacity];
        component = new byte[capacity];
        kind = new byte[capacity];
        holder = new long[capacity];
        freeSlots = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            freeSlots[i] = capacity - 1 - i;
            node[i] = RadixTree.NO_NODE;
        }
        freeTop = capacity;
        int mapCapacity = 16;
        while (mapCapacity < 2 * capacity)
        {
            mapCapacity <<= 1;
        }
        mapMask = mapCapacity - 1;
        mapReceipt = new long[mapCapacity];
        mapSlot = new int[mapCapacity];
    }

    /** @return whether no more locks can be held. */
    boolean full()
    {
        return 0 == freeTop;
    }

    /**
     * Record a held lock; the table must not be {@link #full}.
     *
     * @param lockedNode     node locked.
     * @param componentCode  component value.
     * @param holderKindCode holder kind value.
     * @param holderId       request or op id.
     * @return the new receipt.
     */
    long add(final int lockedNode, final byte componentCode, final byte holderKindCode, final long holderId)
    {
        final int slot = freeSlots[--freeTop];
        final long receipt = nextReceipt++;
        receiptId[slot] = receipt;
        node[slot] = lockedNode;
        component[slot] = componentCode;
        kind[slot] = holderKindCode;
        holder[slot] = holderId;
        int i = (int)receipt & mapMask;
        while (0 != mapReceipt[i])
        {
            i = (i + 1) & mapMask;
        }
        mapReceipt[i] = receipt;
        mapSlot[i] = slot;
        mapped++;
        return receipt;
    }

    /**
     * Unmap a receipt; its table slot keeps its fields until {@link #free}.
     *
     * @param receipt receipt.
     * @return its table slot, or -1 when it is not held.
     */
    int take(final long receipt)
    {
        final int at = find(receipt);
        if (at < 0)
        {
            return -1;
        }
        final int slot = mapSlot[at];
        int hole = at;
        int j = at;
        while (true)
        {
            j = (j + 1) & mapMask;
            final long r = mapReceipt[j];
            if (0 == r)
            {
                break;
            }
            final int home = (int)r & mapMask;
            if (((j - home) & mapMask) >= ((j - hole) & mapMask))
            {
                mapReceipt[hole] = r;
                mapSlot[hole] = mapSlot[j];
                hole = j;
            }
        }
        mapReceipt[hole] = 0;
        mapped--;
        return slot;
    }

    private int find(final long receipt)
    {
        if (receipt <= 0)
        {
            return -1;
        }
        int i = (int)receipt & mapMask;
        while (true)
        {
            final long r = mapReceipt[i];
            if (r == receipt)
            {
                return i;
            }
            if (0 == r)
            {
                return -1;
            }
            i = (i + 1) & mapMask;
        }
    }

    /**
     * Return a table slot from {@link #take} to the free stack.
     *
     * @param slot table slot.
     */
    void free(final int slot)
    {
        receiptId[slot] = 0;
        node[slot] = RadixTree.NO_NODE;
        holder[slot] = 0;
        freeSlots[freeTop++] = slot;
    }

    /** @param receipt receipt. @return its table slot, or -1 when it is not held. */
    int slotOf(final long receipt)
    {
        final int at = find(receipt);
        return at < 0 ? -1 : mapSlot[at];
    }

    /** @return table size. */
    int capacity()
    {
        return capacity;
    }

    /** @return locks held. */
    int count()
    {
        return capacity - freeTop;
    }

    /** @return receipts in the receipt map. */
    int mappedCount()
    {
        return mapped;
    }

    /** @return the receipt the next lock gets. */
    long nextReceipt()
    {
        return nextReceipt;
    }

    /** @param slot table slot. @return its receipt, 0 when free. */
    long receiptAt(final int slot)
    {
        return receiptId[slot];
    }

    /** @param slot table slot. @return the node it locks, {@link RadixTree#NO_NODE} when free. */
    int nodeAt(final int slot)
    {
        return node[slot];
    }

    /** @param slot table slot. @return its component value. */
    byte componentAt(final int slot)
    {
        return component[slot];
    }

    /** @param slot table slot. @return its holder kind value. */
    byte kindAt(final int slot)
    {
        return kind[slot];
    }

    /** @param slot table slot. @return its holder id. */
    long holderAt(final int slot)
    {
        return holder[slot];
    }

    /**
     * @return order-independent hash of the receipt counter and the held receipts; the tree adds it to its own.
     */
    long stateHash()
    {
        long hash = Hashing.mix(nextReceipt ^ 0x5DEECE66DL);
        for (int slot = 0; slot < capacity; slot++)
        {
            if (RadixTree.NO_NODE != node[slot])
            {
                hash += Hashing.mix(Hashing.mix(receiptId[slot]) + node[slot] * 31L + component[slot] * 7L +
                    kind[slot] + Hashing.mix(holder[slot] ^ 0x2545F4914F6CDD1DL));
            }
        }
        return hash;
    }
}
