package io.kvledger.engine.api;

import io.kvledger.journal.codec.Pool;

/**
 * What the serving loop sees of slot memory: it writes what a forward pass computes and checks what it reads.
 * Content is identified by a seed: the same seed always gives the same bytes, so the expected digest of any
 * content is known without keeping a copy. Called by the serving thread only.
 */
public interface DataPlane
{
    /**
     * Write the content a forward pass computes into a slot.
     *
     * @param pool pool.
     * @param slot slot.
     * @param seed content identity.
     */
    void fill(Pool pool, int slot, long seed);

    /**
     * @param pool pool.
     * @param slot slot.
     * @return digest of the slot's current content.
     */
    long digest(Pool pool, int slot);

    /**
     * @param pool pool (slot sizes differ per pool).
     * @param seed content identity.
     * @return digest that {@link #fill} with this seed produces.
     */
    long expectedDigest(Pool pool, long seed);
}
