package io.kvledger.engine.store;

import io.kvledger.engine.device.HostStaging;

/**
 * Makes the L3 store of a {@link io.kvledger.engine.runtime.KvLedger} once its host staging exists; how a store
 * that lives outside the engine module (the Redis store, module {@code store-redis}) is plugged in without the
 * engine depending on its client library.
 */
@FunctionalInterface
public interface L3StoreFactory
{
    /**
     * Create a store, not yet started.
     *
     * @param staging       host staging memory the store reads from and fetches into.
     * @param maxPagesPerOp most pages one operation may carry.
     * @param planCount     plans of each type: the most operations of a type in flight.
     * @return the store.
     */
    L3Store create(HostStaging staging, int maxPagesPerOp, int planCount);
}
