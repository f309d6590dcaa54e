package io.kvledger.engine.sim;

import io.kvledger.engine.api.DataPlane;

import io.kvledger.journal.codec.Pool;

/**
 * Slot memory of the deterministic simulation: each slot holds the identity of its content (a 64-bit tag)
 * instead of bytes, and copies move tags. Exactly as sensitive to a stray copy as real bytes, and free of
 * threads. Single-threaded.
 */
public final class TagDataPlane implements DataPlane
{
    private final long[][] tags = new long[4][];

    /**
     * @param kvPages        device KV pages.
     * @param mambaSlots     device Mamba slots.
     * @param hostKvPages    host staging pages.
     * @param hostMambaSlots host Mamba staging slots.
     */
    public TagDataPlane(final int kvPages, final int mambaSlots, final int hostKvPages, final int hostMambaSlots)
    {
        tags[Pool.DEVICE_KV.value()] = new long[kvPages];
        tags[Pool.DEVICE_MAMBA.value()] = new long[Math.max(1, mambaSlots)];
        tags[Pool.HOST_KV.value()] = new long[hostKvPages];
        tags[Pool.HOST_MAMBA.value()] = new long[Math.max(1, hostMambaSlots)];
    }

    @Override
    public void fill(final Pool pool, final int slot, final long seed)
    {
        tags[pool.value()][slot] = seed;
    }

    @Override
    public long digest(final Pool pool, final int slot)
    {
        return tags[pool.value()][slot];
    }

    @Override
    public long expectedDigest(final Pool pool, final long seed)
    {
        return seed;
    }

    /**
     * Copy one slot's content to another.
     *
     * @param from source pool code.
     * @param fromSlot source slot.
     * @param to destination pool code.
     * @param toSlot destination slot.
     */
    public void copy(final int from, final int fromSlot, final int to, final int toSlot)
    {
        tags[to][toSlot] = tags[from][fromSlot];
    }

    /**
     * @param pool pool code.
     * @param slot slot.
     * @return the tag.
     */
    public long tag(final int pool, final int slot)
    {
        return tags[pool][slot];
    }

    /**
     * @param pool pool code.
     * @param slot slot.
     * @param tag  tag to write.
     */
    public void tag(final int pool, final int slot, final long tag)
    {
        tags[pool][slot] = tag;
    }
}
