package io.kvledger.engine.counters;

/**
 * Told by the engine loop, on the engine thread, after each input was applied, journaled and dispatched, and when
 * the loop fail-stops. Implementations must not allocate, lock or block: they run on the hot path.
 */
public interface EngineObserver
{
    /**
     * One input is done.
     *
     * @param endOfBatch true when it was the last input the ring had available.
     */
    void onApplied(boolean endOfBatch);

    /** The loop fail-stopped: no later input will be applied. */
    void onFailed();
}
