package io.kvledger.engine.runtime;

import io.kvledger.engine.api.Decision;
import io.kvledger.engine.effect.ResultCode;
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
     * Caller thread: wait for the engine to answer the call with this ticket. A fail-stopped engine still answers
     * ({@link ResultCode#ENGINE_STOPPED}); only when the loop can answer no more (closed, or its thread gone) does
     * the caller answer itself with {@link ResultCode#ENGINE_STOPPED} rather than wait for ever.
     *
     * @param expected ticket.
     * @param idle     how to wait.
     * @param loop     whose end to watch for while waiting.
     */
    void await(final long expected, final IdleStrategy idle, final EngineLoop loop)
    {
        idle.reset();
        while (done < expected)
        {
            if (loop.terminated())
            {
                if (done < expected)
                {
                    decision.clear();
                    decision.resultCode = ResultCode.ENGINE_STOPPED;
                }
                return;
            }
            idle.idle();
        }
    }
}
