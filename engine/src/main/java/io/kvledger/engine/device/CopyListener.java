package io.kvledger.engine.device;

/**
 * Told when a submitted copy batch has finished, so the runtime can publish the operation's {@code Ack}.
 * <p>
 * Thread ownership: called on the backend's copy (or completion-poller) thread, one call at a time, in submission
 * order. Keep it short and non-blocking where possible; it must not throw.
 */
@FunctionalInterface
public interface CopyListener
{
    /**
     * A batch has finished.
     *
     * @param op the operation id given to {@code submit}.
     * @param ok true when every copy of the batch completed; false when one failed, in which case the
     *           destinations may be unwritten or partly written.
     */
    void onCopyDone(long op, boolean ok);
}
