package io.kvledger.engine.store;

import io.kvledger.engine.device.HostStaging;

/**
 * Makes the L3 store of a {@link io.kvledger.engine.runtime.KvLedger} once its host staging exists; how a store
 * that lives outside the engine module (the Redis store, module {@code store-redis}) is plugged in without the
 * engine depending on its client library.
 * <p>
 * A factory may hold resources for the store it will make (the Redis store's connections): the store made takes
 * them over and releases them when it closes; {@link #close} releases them when no store was made, e.g. when the
 * run failed to start before its store was created. The creator of a factory closes it once the run is over.
 */
@FunctionalInterface
public interface L3StoreFactory extends AutoCloseable
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

    /**
     * Release what the factory holds for a store it has not made; nothing once a store was made (the store owns
     * it then). Idempotent.
     */
    @Override
    default void close()
    {
    }
}
