package io.kvledger.engine.counters;

/**
 * Told by the engine loop, on the engine thread, after each input was applied, journaled and dispatched, when the
 * loop finds no input and is about to wait, and when it fail-stops. Implementations must not allocate, lock or
 * block: they run on the engine thread between inputs.
 */
public interface EngineObserver
{
    /** One input is done. */
    void onApplied();

    /** No input is waiting: the engine thread is about to wait for one. */
    void onIdle();

    /** The loop fail-stopped: no later input will be applied. */
    void onFailed();
}
