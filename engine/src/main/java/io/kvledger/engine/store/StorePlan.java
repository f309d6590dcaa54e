package io.kvledger.engine.store;

import io.kvledger.engine.device.ClaimPool;

/**
 * Shared body of the store's reusable plans: a list of page fingerprints with their host staging slots, and an
 * optional Mamba state. Preallocated by the store; owned by the claiming thread until submitted, then by the I/O
 * thread until it is cleared and returned to the pool.
 */
abstract class StorePlan implements ClaimPool.Claimable
{
    static final int QUERY = 0;
    static final int FETCH = 1;
    static final int WRITE = 2;

    static final int FREE = 0;
    static final int CLAIMED = 1;
    static final int SUBMITTED = 2;

    /** Value of a slot field that does not apply. */
    static final int NO_SLOT = -1;

    final Object owner;
    final int type;
    final int kvSlots;
    final int mambaSlots;
    final long[] hi;
    final long[] lo;
    final int[] slot;
    int count;
    boolean hasMamba;
    long mambaHi;
    long mambaLo;
    int mambaSlot = NO_SLOT;
    int state = FREE;
    long op;

    StorePlan(final Object owner, final int type, final int capacity, final int kvSlots, final int mambaSlots)
    {
        this.owner = owner;
        this.type = type;
        this.kvSlots = kvSlots;
        this.mambaSlots = mambaSlots;
        this.hi = new long[capacity];
        this.lo = new long[capacity];
        this.slot = new int[capacity];
    }

    /**
     * Pages in the plan.
     *
     * @return the number of pages added.
     */
    public int pageCount()
    {
        return count;
    }

    /**
     * Most pages the plan can hold.
     *
     * @return the capacity.
     */
    public int capacity()
    {
        return hi.length;
    }

    /**
     * High 64 bits of a page's fingerprint.
     *
     * @param i page index, {@code 0 .. pageCount() - 1}.
     * @return the high bits.
     */
    public long hi(final int i)
    {
        return hi[i];
    }

    /**
     * Low 64 bits of a page's fingerprint.
     *
     * @param i page index.
     * @return the low bits.
     */
    public long lo(final int i)
    {
        return lo[i];
    }

    /**
     * HOST_KV staging slot of a page.
     *
     * @param i page index.
     * @return the staging slot.
     */
    public int slot(final int i)
    {
        return slot[i];
    }

    /**
     * Whether the plan carries a Mamba state.
     *
     * @return true when a Mamba state was set.
     */
    public boolean hasMamba()
    {
        return hasMamba;
    }

    /**
     * High 64 bits of the fingerprint keying the Mamba state.
     *
     * @return the high bits.
     */
    public long mambaHi()
    {
        return mambaHi;
    }

    /**
     * Low 64 bits of the fingerprint keying the Mamba state.
     *
     * @return the low bits.
     */
    public long mambaLo()
    {
        return mambaLo;
    }

    /**
     * HOST_MAMBA staging slot of the Mamba state.
     *
     * @return the staging slot, or -1 when the plan carries none.
     */
    public int mambaSlot()
    {
        return mambaSlot;
    }

    final void addPage(final long pageHi, final long pageLo, final int kvSlot)
    {
        checkClaimed();
        if (count == hi.length)
        {
            throw new IllegalStateException("plan full: capacity " + hi.length);
        }
        if (kvSlot < 0 || kvSlot >= kvSlots)
        {
            throw new IllegalArgumentException("HOST_KV slot " + kvSlot + " out of range 0.." + (kvSlots - 1));
        }
        hi[count] = pageHi;
        lo[count] = pageLo;
        slot[count] = kvSlot;
        count++;
    }

    final void setMamba(final long stateHi, final long stateLo, final int hostMambaSlot)
    {
        checkClaimed();
        if (hostMambaSlot < 0 || hostMambaSlot >= mambaSlots)
        {
            throw new IllegalArgumentException(
                "HOST_MAMBA slot " + hostMambaSlot + " out of range 0.." + (mambaSlots - 1));
        }
        hasMamba = true;
        mambaHi = stateHi;
        mambaLo = stateLo;
        mambaSlot = hostMambaSlot;
    }

    final void copyFingerprints(final long[] srcHi, final long[] srcLo, final int offset, final int pages)
    {
        if (pages > hi.length)
        {
            throw new IllegalArgumentException("query of " + pages + " pages exceeds capacity " + hi.length);
        }
        System.arraycopy(srcHi, offset, hi, 0, pages);
        System.arraycopy(srcLo, offset, lo, 0, pages);
        count = pages;
    }

    final void clearBody()
    {
        count = 0;
        hasMamba = false;
        mambaHi = 0;
        mambaLo = 0;
        mambaSlot = NO_SLOT;
    }

    @Override
    public final void claimed()
    {
        clearBody();
        state = CLAIMED;
    }

    final void submitted(final long op)
    {
        this.op = op;
        state = SUBMITTED;
    }

    final void released()
    {
        clearBody();
        op = 0;
        state = FREE;
    }

    private void checkClaimed()
    {
        if (state != CLAIMED)
        {
            throw new IllegalStateException("plan is not claimed");
        }
    }
}
