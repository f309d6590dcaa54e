package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.List;

/**
 * The slot rules of the shadow model: SLOT_TRANSITION (I12 legality and owners, I8 host staging handed to a node,
 * I14 Mamba state moving between nodes, I15 early release of a load's redundant destination, PENDING_FREE for an
 * op that targets the slot), the I13 suspicion when a live op's target changes hands, the cursor effects that make
 * a device Mamba slot dirty or clean (I16, I17) and are observed on the document's request's own slot only (I12),
 * and the move that keeps the counts and owner index in step.
 */
final class SlotRules extends ShadowPart
{
    SlotRules(final ShadowState state)
    {
        super(state);
    }

    void slotTransition(final EffectList e, final int i)
    {
        final ShadowSlot slot = slotOf(e, i, e.id(i));
        if (slot == null)
        {
            return;
        }
        final SlotState to = e.toState(i);
        if (to == null || to == SlotState.NULL_VAL)
        {
            recordSlot(slot, e, i);
            slotFinding(Invariant.I12, slot, "transition to an unknown state");
            return;
        }
        final long owner = to == SlotState.FREE ? -1 : e.owner(i);
        final SlotState prevState = slot.state;
        final long prevOwner = slot.owner;
        checkTransition(slot, e.fromState(i), to, owner, e.value1(i));
        move(slot, to, owner);
        recordSlot(slot, e, i);
        final boolean changed = prevState != to || prevOwner != owner;
        if (changed && (to == SlotState.REQUEST || to == SlotState.OP))
        {
            scope.handedOver.add(slot);
        }
        if (prevState == SlotState.NODE)
        {
            scope.touch(prevOwner);
            tree.record(prevOwner, e, i);
        }
        if (to == SlotState.NODE && changed)
        {
            scope.touch(owner);
            tree.record(owner, e, i);
        }
        if (prevState == SlotState.REQUEST)
        {
            recordRequest(prevOwner, e, i);
        }
        if (to == SlotState.REQUEST && changed)
        {
            recordRequest(owner, e, i);
        }
        if (slot.pool == Pool.DEVICE_MAMBA && changed && (to == SlotState.REQUEST || to == SlotState.NODE))
        {
            scope.ownerChangedMamba.add(slot.id);
        }
        if (slot.pool == Pool.DEVICE_MAMBA && changed)
        {
            slot.undefined = to == SlotState.REQUEST;
            if (prevState == SlotState.OP && to == SlotState.FREE)
            {
                checkRedundantRelease(slot, prevOwner);
            }
        }
        if (slot.hasTargets())
        {
            // By index: checkTargetChange reads the targets and never adds or removes one.
            final List<OpTarget> targets = slot.liveTargets;
            for (int t = 0, n = targets.size(); t < n; t++)
            {
                checkTargetChange(targets.get(t), slot, prevState, prevOwner);
            }
        }
        if (slot.pool == Pool.DEVICE_MAMBA && prevState == SlotState.FREE &&
            (to == SlotState.REQUEST || to == SlotState.NODE || to == SlotState.OP))
        {
            admission.allocated(scope.sequence, slot, to, owner, e, i);
        }
    }

    /** I15: a load's own (redundant node) Mamba destination goes back to the free list only at the load's end. */
    void checkRedundantRelease(final ShadowSlot slot, final long opId)
    {
        final ShadowOp op = ops.get(opId);
        if (op != null && op.kind == OpKind.LOAD && op.state.live())
        {
            slotFinding(Invariant.I15, slot, "redundant node slot of " + op.label() + " released before the " +
                "load's ack or cancel, while the copy still writes it");
        }
    }

    void checkTransition(final ShadowSlot slot, final SlotState from, final SlotState to, final long owner,
        final long recordedPrevious)
    {
        // Host staging: "one owner, freed exactly once" is I9 (the domain's I12 is the device slots' table).
        final Invariant owners = slot.pool == Pool.HOST_KV || slot.pool == Pool.HOST_MAMBA ? Invariant.I9 :
            Invariant.I12;
        if (from != slot.state)
        {
            if (slot.state == SlotState.FREE && to == SlotState.FREE)
            {
                slotFinding(owners, slot, "double free: released by " +
                    EffectText.owner(from, recordedPrevious) + " but the slot is already FREE (since #" +
                    slot.ownerSinceSequence + ")");
            }
            else
            {
                slotFinding(owners, slot, "owner confusion: the transition starts from " +
                    EffectText.owner(from, recordedPrevious) + " but the slot is " + slot.label() + " (since #" +
                    slot.ownerSinceSequence + ")");
            }
        }
        else if (from != SlotState.FREE && recordedPrevious != slot.owner)
        {
            slotFinding(owners, slot, "owner confusion: the transition names previous owner " +
                EffectText.owner(from, recordedPrevious) + " but the slot belongs to " + slot.label());
        }
        else if (from == SlotState.FREE && (to == SlotState.FREE || to == SlotState.PENDING_FREE))
        {
            slotFinding(Invariant.I12, slot, to == SlotState.FREE ? "double free: FREE -> FREE" :
                "a FREE slot cannot be parked as PENDING_FREE");
        }
        else if (from != SlotState.FREE && from == to && recordedPrevious == owner)
        {
            slotFinding(Invariant.I12, slot, "handed again to its owner " + slot.label() +
                ": a no-op transition, the slot was handed out twice");
        }
        else if (from == SlotState.PENDING_FREE && to != SlotState.FREE)
        {
            slotFinding(Invariant.I12, slot, "a PENDING_FREE slot may only become FREE (at its op's ack), not " +
                EffectText.owner(to, owner));
        }
        checkNewOwner(slot, to, owner);
    }

    void checkNewOwner(final ShadowSlot slot, final SlotState to, final long owner)
    {
        final boolean host = slot.pool == Pool.HOST_KV || slot.pool == Pool.HOST_MAMBA;
        if (host && to == SlotState.NODE)
        {
            slotFinding(Invariant.I8, slot, "host staging handed to node " + owner +
                ": in buffer-only mode no node holds host data");
        }
        if (slot.state == SlotState.NODE && to == SlotState.NODE && slot.owner != owner)
        {
            if (slot.pool == Pool.DEVICE_MAMBA)
            {
                slotFinding(Invariant.I14, slot, "Mamba state moved from node " + slot.owner + " to node " + owner +
                    ": a split keeps the state with the deeper half and states never move between nodes");
            }
            else if (slot.pool == Pool.DEVICE_KV && !scope.splitMove(slot.owner, owner))
            {
                slotFinding(Invariant.I12, slot, "page moved from node " + slot.owner + " to node " + owner +
                    " without a NODE_SPLIT of node " + slot.owner + " into " + owner + " in this document");
            }
        }
        if (to == SlotState.REQUEST && slot.state == SlotState.OP)
        {
            // an op of a request (a fetch's staging becoming its hold, a cancelled load's or copy's slots going
            // back) hands its slots to that request only: given to another one, the slot changed owner here
            final ShadowOp op = ops.get(slot.owner);
            if (op != null && op.owner != owner &&
                (op.kind == OpKind.FETCH || op.kind == OpKind.LOAD || op.kind == OpKind.COW))
            {
                slotFinding(host ? Invariant.I9 : Invariant.I12, slot, "handed by " + op.label() + " of request " +
                    op.owner + " to request " + owner + ": an op gives its slots back to its own request only");
            }
        }
        if (to == SlotState.NODE && tree.liveNode(owner) == null)
        {
            slotFinding(Invariant.I12, slot, "handed to node " + owner + " which is not in the tree (" +
                (tree.known(owner) ? "deleted" : "never inserted") + " at this point of the document): no owner " +
                "that does not exist");
        }
        if (to == SlotState.REQUEST)
        {
            final ShadowRequest request = findRequest(owner);
            if (request != null && request.terminal())
            {
                slotFinding(Invariant.I12, slot, "handed to request " + owner + " which is " + request.state +
                    " (since #" + request.stateSequence + ")");
            }
        }
        if (to == SlotState.PENDING_FREE)
        {
            final ShadowOp op = ops.get(owner);
            if (op == null || !op.state.live())
            {
                slotFinding(Invariant.I12, slot, "parked as PENDING_FREE for op " + owner +
                    " which is not in flight: nothing will ever free it");
            }
            else if (!OpRules.targets(op, slot))
            {
                slotFinding(Invariant.I12, slot, "parked as PENDING_FREE for " + op.label() +
                    " which does not target it");
            }
        }
    }

    void checkTargetChange(final OpTarget target, final ShadowSlot slot, final SlotState prevState,
        final long prevOwner)
    {
        final ShadowOp op = target.op;
        if (!op.state.live() || target.reported || op.queuedSequence == scope.sequence)
        {
            return;
        }
        final boolean guarded = target.write() ? op.protectsWrites() :
            op.protectsReads() && op.state == ShadowOp.State.LAUNCHED;
        if (!guarded || target.permits(slot.state, slot.owner))
        {
            return;
        }
        if (slot.state == SlotState.NODE && prevState == SlotState.NODE && target.allowedState == SlotState.NODE &&
            target.allowedOwner == prevOwner && scope.splitMove(prevOwner, slot.owner))
        {
            target.allowedOwner = slot.owner;
            return;
        }
        if (op.kind == OpKind.FETCH && slot.state == SlotState.REQUEST && slot.owner == op.owner &&
            scope.input.type() == InputType.FETCH_DONE && scope.input.op() == op.id)
        {
            return;
        }
        final String what = slot.state == SlotState.FREE ? "freed" : "handed to " + slot.label();
        scope.suspicions.add(new DocumentScope.Suspicion(target, slot, what + " while " + op.label() + " (" +
            op.state + " since #" + op.stateSequence + ") still " + (target.write() ? "writes" : "reads") +
            " it; it was queued as " + target.allowedLabel()));
    }

    void cursors(final EffectList e, final int i)
    {
        final ShadowSlot slot = slotOf(e, i, e.id(i));
        if (slot == null)
        {
            return;
        }
        if (e.type(i) == EffectType.CURSORS_RESET)
        {
            slot.dirty = false;
            slot.undefined = false;
        }
        else if (slot.pool == Pool.DEVICE_MAMBA)
        {
            checkObservedOwner(slot);
            slot.dirty = e.value1(i) != 0 || e.value2(i) != 0 || e.value3(i) != 0;
            if (slot.dirty)
            {
                slot.dirtySequence = scope.sequence;
            }
        }
        recordSlot(slot, e, i);
    }

    /**
     * I12: the cursors a CHUNK, FINISH or ABORT reports are those of the request's own working slot, so the slot
     * they are observed on must be owned by the document's request when they are; observed on a FREE slot, a slot
     * of another request, a node or an op, the request computes in a slot it does not own.
     */
    void checkObservedOwner(final ShadowSlot slot)
    {
        final long request = scope.input.request();
        if (slot.state != SlotState.REQUEST || slot.owner != request)
        {
            slotFinding(Invariant.I12, slot, "cursors observed for " + (request == InputRecord.NULL_ID ?
                "no request (the input names none)" : "request " + request) + " on a slot that is " +
                slot.label() + " (since #" + slot.ownerSinceSequence + "): a request's cursors are those of its " +
                "own working slot");
        }
    }

    void move(final ShadowSlot slot, final SlotState to, final long owner)
    {
        final int p = slot.pool.value();
        owners.remove(slot.state, slot.owner, slot.pool, slot.id);
        counts[p][slot.state.value()]--;
        slot.state = to;
        slot.owner = owner;
        slot.ownerSinceSequence = scope.sequence;
        counts[p][to.value()]++;
        owners.add(to, owner, slot.pool, slot.id);
    }
}
