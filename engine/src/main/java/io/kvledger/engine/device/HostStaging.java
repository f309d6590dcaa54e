package io.kvledger.engine.device;

import io.kvledger.journal.codec.Pool;
import org.agrona.MutableDirectBuffer;

/**
 * The host-addressable view of a device backend's slot memory, which an L3 store reads pages from and fetches
 * pages into.
 * <p>
 * Thread ownership: the returned buffers are fixed views created at construction, safe to use from any thread;
 * who may touch a slot's bytes at a given time is decided by the engine's ownership table, not here.
 */
public interface HostStaging
{
    /**
     * The bytes of one slot of a host-addressable pool (HOST_KV and HOST_MAMBA always; device pools only on
     * backends whose device memory is host memory).
     *
     * @param pool which pool.
     * @param slot slot id, {@code 0 .. slotCount(pool) - 1}.
     * @return a buffer of exactly {@link #slotBytes(Pool)} bytes at index 0.
     * @throws IllegalArgumentException for a pool that is not host-addressable or a slot out of range.
     */
    MutableDirectBuffer slot(Pool pool, int slot);

    /**
     * Bytes per slot of a pool.
     *
     * @param pool which pool.
     * @return bytes of one slot (a KV page or a Mamba state).
     */
    int slotBytes(Pool pool);

    /**
     * Slots in a pool.
     *
     * @param pool which pool.
     * @return number of slots; ids are {@code 0 .. count - 1}.
     */
    int slotCount(Pool pool);
}
