package io.kvledger.engine.device;

import io.kvledger.journal.codec.Pool;

/**
 * A reusable list of slot-to-slot copies that make up one transfer operation (a load, a backup, a Mamba
 * copy-on-write), claimed from a backend with {@link DeviceBackend#claimBatch()} and handed back to it with
 * {@link DeviceBackend#submit(long, CopyBatch)}.
 * <p>
 * Preallocated by the backend; after the batch's copies finish, the backend clears it and puts it back in its
 * pool. Thread ownership: between claim and submit the batch belongs to the claiming thread (the engine's dispatch
 * thread); after submit it belongs to the backend and must not be touched.
 */
public final class CopyBatch implements ClaimPool.Claimable
{
    static final int FREE = 0;
    static final int CLAIMED = 1;
    static final int SUBMITTED = 2;

    private final Object owner;
    private final int index;
    private final int[] slotCounts;
    private final Pool[] srcPool;
    private final int[] srcSlot;
    private final Pool[] dstPool;
    private final int[] dstSlot;
    private int count;
    private int state = FREE;
    private long op;

    CopyBatch(final Object owner, final int index, final int capacity, final int[] slotCounts)
    {
        this.owner = owner;
        this.index = index;
        this.slotCounts = slotCounts;
        this.srcPool = new Pool[capacity];
        this.srcSlot = new int[capacity];
        this.dstPool = new Pool[capacity];
        this.dstSlot = new int[capacity];
    }

    /**
     * Add one copy of a whole slot; source and destination must both be KV pools or both Mamba pools.
     *
     * @param srcPool pool to read.
     * @param srcSlot slot to read.
     * @param dstPool pool to write.
     * @param dstSlot slot to write.
     * @return this for a fluent style.
     * @throws IllegalArgumentException for mismatched pools or slots out of range.
     * @throws IllegalStateException when the batch is full or not claimed.
     */
    public CopyBatch add(final Pool srcPool, final int srcSlot, final Pool dstPool, final int dstSlot)
    {
        if (state != CLAIMED)
        {
            throw new IllegalStateException("copy batch is not claimed");
        }
        if (count == this.srcPool.length)
        {
            throw new IllegalStateException("copy batch full: capacity " + this.srcPool.length);
        }
        checkSlot(srcPool, srcSlot);
        checkSlot(dstPool, dstSlot);
        if (isKv(srcPool) != isKv(dstPool))
        {
            throw new IllegalArgumentException("cannot copy " + srcPool + " to " + dstPool + ": slot sizes differ");
        }

        this.srcPool[count] = srcPool;
        this.srcSlot[count] = srcSlot;
        this.dstPool[count] = dstPool;
        this.dstSlot[count] = dstSlot;
        count++;

        return this;
    }

    /**
     * Copies in the batch.
     *
     * @return the number of copies added.
     */
    public int count()
    {
        return count;
    }

    /**
     * Most copies the batch can hold.
     *
     * @return the capacity.
     */
    public int capacity()
    {
        return srcPool.length;
    }

    /**
     * Source pool of a copy.
     *
     * @param i copy index, {@code 0 .. count() - 1}.
     * @return the pool read.
     */
    public Pool srcPool(final int i)
    {
        return srcPool[i];
    }

    /**
     * Source slot of a copy.
     *
     * @param i copy index.
     * @return the slot read.
     */
    public int srcSlot(final int i)
    {
        return srcSlot[i];
    }

    /**
     * Destination pool of a copy.
     *
     * @param i copy index.
     * @return the pool written.
     */
    public Pool dstPool(final int i)
    {
        return dstPool[i];
    }

    /**
     * Destination slot of a copy.
     *
     * @param i copy index.
     * @return the slot written.
     */
    public int dstSlot(final int i)
    {
        return dstSlot[i];
    }

    /**
     * Drop every copy added so far, keeping the batch claimed.
     *
     * @return this for a fluent style.
     */
    public CopyBatch clear()
    {
        if (state != CLAIMED)
        {
            throw new IllegalStateException("copy batch is not claimed");
        }
        count = 0;
        return this;
    }

    Object owner()
    {
        return owner;
    }

    int index()
    {
        return index;
    }

    long op()
    {
        return op;
    }

    int state()
    {
        return state;
    }

    @Override
    public void claimed()
    {
        state = CLAIMED;
        count = 0;
    }

    /**
     * Check the batch was claimed from this backend, then mark it submitted for an op.
     *
     * @param backend the backend it is submitted to.
     * @param op      op id reported with the completion.
     * @throws IllegalStateException when the batch is not claimed from that backend.
     */
    void submittedTo(final Object backend, final long op)
    {
        if (owner() != backend || state() != CLAIMED)
        {
            throw new IllegalStateException("batch is not claimed from this backend");
        }
        submitted(op);
    }

    void submitted(final long op)
    {
        this.op = op;
        state = SUBMITTED;
    }

    void released()
    {
        count = 0;
        op = 0;
        state = FREE;
    }

    static boolean isKv(final Pool pool)
    {
        return pool == Pool.DEVICE_KV || pool == Pool.HOST_KV;
    }

    static boolean isDevice(final Pool pool)
    {
        return pool == Pool.DEVICE_KV || pool == Pool.DEVICE_MAMBA;
    }

    private void checkSlot(final Pool pool, final int slot)
    {
        if (pool == null || pool == Pool.NULL_VAL)
        {
            throw new IllegalArgumentException("no such pool: " + pool);
        }
        final int slots = slotCounts[pool.ordinal()];
        if (slot < 0 || slot >= slots)
        {
            throw new IllegalArgumentException(pool + " slot " + slot + " out of range 0.." + (slots - 1));
        }
    }
}
