package io.kvledger.engine.slot;

import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.util.Hashing;
import io.kvledger.journal.codec.Pool;

/**
 * ReplaySSM cursors (write_pos, cache_base, is_flush) of every device Mamba slot. The server moves them while a
 * request decodes, so a slot whose last observed cursors are non-zero is dirty until {@link #reset} records a
 * CURSORS_RESET. Freeing a slot does not clean it: the cursor arrays live beside the state, as in SGLang's
 * MambaPool. Engine thread only; allocation-free.
 */
public final class MambaCursors
{
    private final Effects effects;
    private final long[] writePos;
    private final long[] cacheBase;
    private final long[] isFlush;

    /**
     * @param capacity number of device Mamba slots.
     * @param effects  where resets and observations are recorded.
     */
    public MambaCursors(final int capacity, final Effects effects)
    {
        this.effects = effects;
        writePos = new long[capacity];
        cacheBase = new long[capacity];
        isFlush = new long[capacity];
    }

    /** @return number of slots. */
    public int capacity()
    {
        return writePos.length;
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
        this.writePos[slot] = writePos;
        this.cacheBase[slot] = cacheBase;
        this.isFlush[slot] = isFlush;
        effects.cursorsObserved(Pool.DEVICE_MAMBA, slot, writePos, cacheBase, isFlush);
    }

    /**
     * Zero all three cursors of a slot and record CURSORS_RESET.
     *
     * @param slot Mamba slot.
     */
    public void reset(final int slot)
    {
        writePos[slot] = 0;
        cacheBase[slot] = 0;
        isFlush[slot] = 0;
        effects.cursorsReset(Pool.DEVICE_MAMBA, slot);
    }

    /**
     * @param slot Mamba slot.
     * @return true when all three cursors are zero.
     */
    public boolean clean(final int slot)
    {
        return 0 == writePos[slot] && 0 == cacheBase[slot] && 0 == isFlush[slot];
    }

    public long writePos(final int slot)
    {
        return writePos[slot];
    }

    public long cacheBase(final int slot)
    {
        return cacheBase[slot];
    }

    public long isFlush(final int slot)
    {
        return isFlush[slot];
    }

    /**
     * @return hash over all slots' cursors in slot order.
     */
    public long stateHash()
    {
        long hash = Hashing.mix(writePos.length);
        for (int slot = 0; slot < writePos.length; slot++)
        {
            final long entry = Hashing.mix(writePos[slot] * 0x9E3779B97F4A7C15L +
                Hashing.mix(cacheBase[slot] + 0x632BE59BD9B4E019L) + Hashing.mix(isFlush[slot] ^ slot));
            hash = Hashing.mix(hash * 0x9E3779B97F4A7C15L + entry);
        }
        return hash;
    }

    /** Pool these cursors belong to. */
    public static Pool pool()
    {
        return Pool.DEVICE_MAMBA;
    }
}
