package io.kvledger.engine.runtime;

import io.kvledger.engine.api.Decision;
import org.agrona.concurrent.IdleStrategy;

/**
 * A caller's answer slot: the engine thread writes the decision for the caller's input, then releases the
 * {@link #done} ticket; the caller spins, yields, then parks until it sees its ticket. One per caller thread;
 * reused for every call, so waiting allocates nothing.
 */
final class Reply
{
    final Decision decision;
    private volatile long done;
    private long ticket;

    Reply(final int maxPages)
    {
        decision = new Decision(maxPages);
    }

    /** Caller thread: start a new call and get its ticket. */
    long next()
    {
        return ++ticket;
    }

    /** Engine thread: the decision is written. */
    void complete(final long ticketDone)
    {
        done = ticketDone;
    }

    /**
     * Any thread: whether the call with this ticket was answered.
     *
     * @param expected ticket.
     * @return true once the engine completed it.
     */
    boolean answered(final long expected)
    {
        return done >= expected;
    }

    /**
     * Caller thread: wait for the engine to answer the call with this ticket.
     *
     * @param expected ticket.
     * @param idle     how to wait.
     * @param loop     to check for a fail-stop while waiting.
     */
    void await(final long expected, final IdleStrategy idle, final EngineLoop loop)
    {
        idle.reset();
        while (done < expected)
        {
            loop.checkRunning();
            idle.idle();
        }
    }
}
