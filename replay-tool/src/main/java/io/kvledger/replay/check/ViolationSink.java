package io.kvledger.replay.check;

/**
 * Receives violations as the shadow model finds them, in detection order. Called on the thread that folds.
 */
@FunctionalInterface
public interface ViolationSink
{
    /**
     * @param violation found.
     */
    void onViolation(Violation violation);
}
