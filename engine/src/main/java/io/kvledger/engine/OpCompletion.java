package io.kvledger.engine;

import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.ResultCode;

import io.kvledger.engine.slot.SlotPool;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.SlotState;

/**
 * Op completion: ACK of a load, copy-on-write, backup or store (the answers of L3 queries and fetches belong to the
 * read path, which completes them here too), settling a finished op (unlock, publish, free its slots) or rolling a
 * failed or cancelled one back (unlock, delete the node it filled, free everything it held).
 * <p>
 * Decisions:
 * <ul>
 * <li>Loaded data on an existing node (a state-only load) is attached at the ack, so a visible node never shows
 * a state that is not there yet; a new node filled by a load is invisible to matching until the ack.</li>
 * <li>A failed load or copy of a request that still waits for it undoes its admission: the request recomputes
 * (WAITING again, LOAD_FAILED or COW_FAILED).</li>
 * </ul>
 */
final class OpCompletion extends Flow
{
    private ReadPath read;
    private WritePath write;
    private RequestLifecycle lifecycle;

    /**
     * @param state the state holder shared with the other flows.
     */
    OpCompletion(final ApplyState state)
    {
        super(state);
    }

    /** Wire the flows this one hands work to (once, at construction of the state machine). */
    void wire(final ReadPath read, final WritePath write, final RequestLifecycle lifecycle)
    {
        this.read = read;
        this.write = write;
        this.lifecycle = lifecycle;
    }

    @Override
    void register(final InputHandlers handlers)
    {
        handlers.on(InputType.ACK, this::onAck);
    }

    int onAck(final InputRecord in)
    {
        final int o = ops.slotOf(in.op());
        if (o == NONE)
        {
            return ops.issued(in.op()) ? ResultCode.OP_ALREADY_DONE : ResultCode.UNKNOWN_OP;
        }
        final OpKind kind = ops.kind[o];
        if (kind == OpKind.QUERY || kind == OpKind.FETCH)
        {
            return ResultCode.OP_KIND_MISMATCH;
        }
        if (ops.state[o] != OpTable.LAUNCHED)
        {
            return ResultCode.OP_NOT_LAUNCHED;
        }
        final boolean ok = in.ok();
        final long opId = ops.id[o];
        final int r = requests.slotOf(ops.request[o]);
        switch (kind)
        {
            case LOAD:
            case COW:
                final boolean current = r != NONE &&
                    (kind == OpKind.LOAD ? requests.loadOp[r] == opId : requests.cowOp[r] == opId);
                if (current)
                {
                    if (kind == OpKind.LOAD)
                    {
                        requests.loadOp[r] = NONE;
                    }
                    else
                    {
                        requests.cowOp[r] = NONE;
                    }
                }
                if (!ok && current)
                {
                    // The request recomputes: its admission is undone first so the load's nodes can go.
                    state.unlockRequest(r);
                    for (final TreeComponent c : components)
                    {
                        c.release(r, false);
                    }
                    lifecycle.backToWaiting(r);
                    effects.rejected(requests.id[r], kind == OpKind.LOAD ? Reason.LOAD_FAILED : Reason.COW_FAILED);
                }
                final int loadedPages = kind == OpKind.LOAD ? ops.pagesMoved[o] : 0;
                completeOp(o, ok);
                if (ok && kind == OpKind.LOAD)
                {
                    // Counted when the pages are on the device: a load cancelled or failed served no hit.
                    counters.loadsAcked++;
                    counters.loadedPages += loadedPages;
                }
                read.drainParkedHits();
                break;
            case BACKUP:
                write.onBackupAck(o, ok);
                break;
            case STORE:
                ops.complete(o, ok);
                final int pages = ops.pagesMoved[o];
                releaseOpSlots(o);
                ops.remove(o);
                if (ok)
                {
                    effects.pagesStored(opId, pages);
                    counters.storedPages += pages;
                }
                read.drainParkedHits();
                break;
            default:
                return ResultCode.OP_KIND_MISMATCH;
        }
        return ResultCode.OK;
    }

    int checkOp(final int o, final long opId, final OpKind kind)
    {
        if (o == NONE)
        {
            return ops.issued(opId) ? ResultCode.OP_ALREADY_DONE : ResultCode.UNKNOWN_OP;
        }
        if (ops.kind[o] != kind)
        {
            return ResultCode.OP_KIND_MISMATCH;
        }
        if (ops.state[o] != OpTable.LAUNCHED)
        {
            return ResultCode.OP_NOT_LAUNCHED;
        }
        return ResultCode.OK;
    }

    /** Record an op's completion and release everything it held, then remove it. */
    void completeOp(final int o, final boolean ok)
    {
        ops.complete(o, ok);
        if (ok)
        {
            settleOp(o);
        }
        else
        {
            rollBackOp(o);
        }
        ops.remove(o);
    }

    /** A finished op: unlock its node, publish what it loaded, free its staging and parked slots. */
    private void settleOp(final int o)
    {
        state.unlockOp(o);
        if (ops.node[o] != NONE && tree.live(ops.node[o]) && tree.loadingOp(ops.node[o]) == ops.id[o])
        {
            tree.markLoading(ops.node[o], NONE);
        }
        for (final TreeComponent c : components)
        {
            c.opDone(o, true);
        }
        releaseOpSlots(o);
    }

    /** A cancelled or failed op: unlock, delete the node it filled, free everything it held. */
    void rollBackOp(final int o)
    {
        state.unlockOp(o);
        for (final TreeComponent c : components)
        {
            c.opDone(o, false);
        }
        final int node = ops.node[o];
        if (node != NONE && tree.live(node) && tree.loadingOp(node) == ops.id[o])
        {
            tree.markLoading(node, NONE);
            EngineBugException.check(tree.deleteLeaf(node), "delete of the failed load's node", node, ops.id[o]);
        }
        releaseOpSlots(o);
    }

    /** Free every slot the op owns or parked (staging, redundant destinations, PENDING_FREE slots). */
    void releaseOpSlots(final int o)
    {
        final long opId = ops.id[o];
        final int moves = ops.moveCount[o];
        for (int m = 0; m < moves; m++)
        {
            freeIfHeldBy(ops.srcPool(o, m), ops.srcSlot(o, m), opId);
            freeIfHeldBy(ops.dstPool(o, m), ops.dstSlot(o, m), opId);
        }
        if (ops.ackFreePool[o] != NONE)
        {
            freeIfHeldBy(ops.ackFreePool[o], ops.ackFreeSlot[o], opId);
            ops.ackFreePool[o] = NONE;
        }
    }

    private void freeIfHeldBy(final byte poolCode, final int slot, final long opId)
    {
        if (poolCode < 0)
        {
            return;
        }
        final SlotPool pool = state.poolOf(poolCode);
        final SlotState current = pool.state(slot);
        if ((current == SlotState.OP || current == SlotState.PENDING_FREE) && pool.owner(slot) == opId)
        {
            pool.move(slot, SlotState.FREE, NONE);
        }
    }
}
