package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;

/**
 * The request lifecycle outside admission and caching: RETRACT (an admitted request goes back to WAITING, its
 * queued load or copy cancelled), ABORT (whatever the request holds is released: its parked hit, its staged hold,
 * or its admission), dropping a staged hold, and the end of a request (its table slot freed).
 * <p>
 * Decisions:
 * <ul>
 * <li>A request stays ADMITTED after PassEnd until its first Chunk or Finish, so a Retract can still reach it
 * while its load is launched (the PENDING_FREE path).</li>
 * </ul>
 */
final class RequestLifecycle extends Flow
{
    private ReadPath read;
    private OpCompletion completion;

    /**
     * @param state the state holder shared with the other flows.
     */
    RequestLifecycle(final ApplyState state)
    {
        super(state);
    }

    /** Wire the flows this one hands work to (once, at construction of the state machine). */
    void wire(final ReadPath read, final OpCompletion completion)
    {
        this.read = read;
        this.completion = completion;
    }

    @Override
    void register(final InputHandlers handlers)
    {
        handlers.on(InputType.RETRACT, this::onRetract);
        handlers.on(InputType.ABORT, this::onAbort);
    }

    int onRetract(final InputRecord in)
    {
        final int r = requests.slotOf(in.request());
        if (r == NONE)
        {
            return ResultCode.UNKNOWN_REQUEST;
        }
        if (requests.state[r] != RequestState.ADMITTED)
        {
            return ResultCode.REQUEST_STATE;
        }
        if (config.fault(FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD) && queuedOp(requests.loadOp[r]))
        {
            // The upstream bug: the slots go back on the free list while the queued load still targets them.
            for (final TreeComponent c : components)
            {
                c.release(r, false);
            }
            requests.loadOp[r] = NONE;
            state.unlockRequest(r);
        }
        else
        {
            unwindAdmission(r, false);
        }
        backToWaiting(r);
        counters.retracts++;
        return ResultCode.OK;
    }

    /**
     * An admitted request goes back to WAITING, its admission already undone (retracted, or its load or copy
     * failed): it no longer runs and none of its pages are valid; it is admitted again later and recomputes.
     */
    void backToWaiting(final int r)
    {
        state.running--;
        state.setState(r, RequestState.WAITING);
        requests.validPages[r] = 0;
        requests.cachedPages[r] = 0;
    }

    private boolean queuedOp(final long opId)
    {
        final int o = opId == NONE ? NONE : ops.slotOf(opId);
        return o != NONE && ops.state[o] == OpTable.QUEUED;
    }

    /**
     * Undo an admission: cancel its queued load or copy, or park its slots until the launched one is acked; free
     * what the request computed with; release its lock.
     */
    private void unwindAdmission(final int r, final boolean abort)
    {
        state.unlockRequest(r);
        cancelIfQueued(requests.loadOp[r]);
        cancelIfQueued(requests.cowOp[r]);
        for (final TreeComponent c : components)
        {
            c.release(r, abort);
        }
        requests.loadOp[r] = NONE;
        requests.cowOp[r] = NONE;
    }

    private void cancelIfQueued(final long opId)
    {
        final int o = opId == NONE ? NONE : ops.slotOf(opId);
        if (o == NONE || ops.state[o] != OpTable.QUEUED)
        {
            return;
        }
        ops.advance(o, OpTable.CANCELLED);
        completion.rollBackOp(o);
        ops.remove(o);
    }

    int onAbort(final InputRecord in)
    {
        final int r = requests.slotOf(in.request());
        if (r == NONE)
        {
            return ResultCode.UNKNOWN_REQUEST;
        }
        final RequestState current = requests.state[r];
        switch (current)
        {
            case WAITING:
                read.unpark(r);
                break;
            case STAGED:
                dropHold(r, Reason.ABORTED);
                break;
            case ADMITTED:
            case RUNNING:
                for (final TreeComponent c : components)
                {
                    c.observe(r, Inputs.writePos(in), Inputs.cacheBase(in), Inputs.isFlush(in));
                }
                unwindAdmission(r, true);
                state.running--;
                break;
            default:
                return ResultCode.REQUEST_STATE;
        }
        finishRequest(r, RequestState.ABORTED);
        counters.aborts++;
        return ResultCode.OK;
    }

    void dropHold(final int r, final Reason reason)
    {
        final int hoff = requests.holdOffset(r);
        int count = requests.holdSlotCount[r];
        if (config.fault(FaultSwitch.LEAK_STAGING_ON_DROP) && count > 0)
        {
            count--;
        }
        for (int i = 0; i < count; i++)
        {
            state.poolOf(requests.holdSlotPool[hoff + i]).move(requests.holdSlot[hoff + i], SlotState.FREE, NONE);
        }
        effects.holdDropped(requests.id[r], reason, requests.holdPages[r]);
        state.unpinPrefix(r);
        requests.holdSlotCount[r] = 0;
        requests.holdPages[r] = 0;
        if (config.rules().holdDropResetsDefers())
        {
            // The count is the hold's (SGLang's release_staged_hold pops it): gone with the hold, whatever the reason.
            requests.deferCount[r] = 0;
        }
        if (requests.state[r] == RequestState.STAGED)
        {
            state.setState(r, RequestState.WAITING);
        }
        counters.drops++;
        read.drainParkedHits();
    }

    void finishRequest(final int r, final RequestState to)
    {
        state.setState(r, to);
        read.unpark(r);
        state.unpinPrefix(r);
        requests.remove(r);
    }
}
