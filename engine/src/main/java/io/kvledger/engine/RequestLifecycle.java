package io.kvledger.engine;

import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
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
final class RequestLifecycle
{
    private static final int NONE = ApplyState.NONE;

    private final ApplyState state;
    private final EngineConfig config;
    private final Effects effects;
    private final RequestTable requests;
    private final OpTable ops;
    private final TreeComponent[] components;
    private final EngineCounters counters;
    private ReadPath read;
    private OpCompletion completion;

    /**
     * @param state the state holder shared with the other flows.
     */
    RequestLifecycle(final ApplyState state)
    {
        this.state = state;
        config = state.config;
        effects = state.effects;
        requests = state.requests;
        ops = state.ops;
        components = state.components;
        counters = state.counters;
    }

    /** Wire the flows this one hands work to (once, at construction of the state machine). */
    void wire(final ReadPath read, final OpCompletion completion)
    {
        this.read = read;
        this.completion = completion;
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
        state.running--;
        state.setState(r, RequestState.WAITING);
        requests.validPages[r] = 0;
        requests.cachedPages[r] = 0;
        counters.retracts++;
        return ResultCode.OK;
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
