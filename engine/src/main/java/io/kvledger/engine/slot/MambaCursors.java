package io.kvledger.engine.slot;

import io.kvledger.engine.Effects;
import io.kvledger.journal.codec.Pool;

/**
 * ReplaySSM cursors (write_pos, cache_base, is_flush) of every device Mamba slot. The server moves them while a
 * request decodes, so a slot whose last observed cursors are non-zero is dirty until {@link #reset} records a
 * CURSORS_RESET. Freeing a slot does not clean it: the cursor arrays live beside the state, as in SGLang's
 * MambaPool. Engine thread only; allocation-free.
 */
public final class MambaCursors
{
    /**
     * @param capacity number of device Mamba slots.
     * @param effects  where resets and observations are recorded.
     */
    public MambaCursors(final int capacity, final Effects effects)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Record the cursors the server reported for a slot (CURSORS_OBSERVED); recorded even when all are zero.
     *
     * @param slot      Mamba slot.
     * @param writePos  un-flushed ring entries.
     * @param cacheBase spec-decode cache base.
     * @param isFlush   spec-decode flush flag.
     */
    public void observe(final int slot, final long writePos, final long cacheBase, final long isFlush)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Zero all three cursors of a slot and record CURSORS_RESET.
     *
     * @param slot Mamba slot.
     */
    public void reset(final int slot)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @param slot Mamba slot.
     * @return true when all three cursors are zero.
     */
    public boolean clean(final int slot)
    {
        throw new UnsupportedOperationException();
    }

    public long writePos(final int slot)
    {
        throw new UnsupportedOperationException();
    }

    public long cacheBase(final int slot)
    {
        throw new UnsupportedOperationException();
    }

    public long isFlush(final int slot)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @return hash over all slots' cursors in slot order.
     */
    public long stateHash()
    {
        throw new UnsupportedOperationException();
    }

    /** Pool these cursors belong to. */
    public static Pool pool()
    {
        return Pool.DEVICE_MAMBA;
    }
}
