package io.kvledger.engine.api;

import io.kvledger.journal.InputRecord;

/**
 * How the serving loop talks to a controller: the deterministic simulation applies inputs in the same thread,
 * the live runtime publishes them to its ring and waits for the answer. Serving thread only.
 */
public interface EnginePort
{
    /**
     * Submit one input and wait until it is applied and journaled; the port stamps its sequence and timestamp.
     *
     * @param in       the input.
     * @param decision filled with the answer for the input's request.
     * @return the result code.
     */
    int submit(InputRecord in, Decision decision);

    /**
     * Let time pass: deliver completions that are due (simulation) or that have arrived (live), telling the
     * listener of finished loads and copies.
     *
     * @param listener told of finished loads and copies.
     * @throws IllegalStateException when the engine behind the port has stopped (closed, or fail-stopped), after
     * the completions still queued were delivered: a serving loop ends there.
     */
    void pump(OpListener listener);

    /** @return the clock the serving loop runs on, in nanoseconds. */
    long nowNs();

    /** @return slot memory as the serving loop sees it. */
    DataPlane dataPlane();

    /** @return whether any operation is still in flight. */
    boolean busy();

    /**
     * A count that grows with every input the controller applied that the serving loop did not submit (operation
     * completions: storage answers, fetches, acks), so the loop can tell whether anything a waiting request waits
     * for may have changed.
     *
     * @return the count, or -1 when the port does not know it (then waiting requests are offered every pass).
     */
    default long completions()
    {
        return -1;
    }

    /**
     * A count that grows with every write-back the controller was told finished (device to host backups and host
     * to L3 stores): finite work that drains a backlog, so the serving loop counts it as progress while no request
     * can finish yet (a parked hit waiting for the backups ahead of it to leave host staging).
     *
     * @return the count, or -1 when the port does not know it.
     */
    default long writeBacks()
    {
        return -1;
    }

    /** Told when a load or copy-on-write finished. */
    interface OpListener
    {
        /**
         * @param op op id.
         * @param ok whether it succeeded.
         */
        void onOpDone(long op, boolean ok);
    }
}
