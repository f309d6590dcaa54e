package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

/**
 * The operation rules of the shadow model: OP_QUEUED and its block of OP_TARGETs, OP_LAUNCHED, OP_ACKED,
 * OP_FAILED and OP_CANCELLED (the I19 op lifecycle), the I13 check of a launch against the targets as queued, the
 * I14 copy-on-write source check, the Mamba content an acked load or copy-on-write defines (I16), and ending an op
 * (its targets released, the op scheduled for the end-of-document leak checks).
 */
final class OpRules extends ShadowPart
{
    OpRules(final ShadowState state)
    {
        super(state);
    }

    void checkTargetBlock(final EffectList e, final int i)
    {
        if (scope.targetsRemaining > 0 &&
            (e.type(i) != EffectType.OP_TARGET || e.id(i) != scope.expectingTargets.id))
        {
            final ShadowOp op = scope.expectingTargets;
            opFinding(Invariant.I19, op.id, "OP_QUEUED declared " + op.declaredTargets + " targets but only " +
                (op.declaredTargets - scope.targetsRemaining) + " OP_TARGETs followed");
            scope.targetsRemaining = 0;
            scope.expectingTargets = null;
        }
    }

    void opQueued(final EffectList e, final int i)
    {
        final long id = e.id(i);
        final ShadowOp existing = findOp(id);
        if (existing != null && existing.state.live())
        {
            opFinding(Invariant.I19, id, "op id " + id + " queued again while " + existing.label() + " is " +
                existing.state + " (since #" + existing.stateSequence + ")");
            end(existing, ShadowOp.State.CANCELLED);
            scope.ended.remove(existing);
        }
        final ShadowOp op = new ShadowOp(id, e.opKind(i), e.owner(i), scope.sequence, (int)e.value1(i));
        if (existing != null)
        {
            op.history = existing.history;
        }
        retiredOps.remove(id);
        ops.put(id, op);
        recordOp(op, e, i);
        scope.queued.add(op);
        if (e.value1(i) > 0)
        {
            scope.expectingTargets = op;
            scope.targetsRemaining = e.value1(i);
        }
        else if (e.value1(i) < 0)
        {
            opFinding(Invariant.I19, id, "OP_QUEUED with a negative target count " + e.value1(i));
        }
    }

    void opTarget(final EffectList e, final int i)
    {
        final ShadowOp op = ops.get(e.id(i));
        if (op == null || !op.state.live())
        {
            recordOp(op, e, i);
            opFinding(Invariant.I19, e.id(i), "OP_TARGET for op " + e.id(i) + " which is not queued");
            return;
        }
        recordOp(op, e, i);
        if (scope.expectingTargets == op && scope.targetsRemaining > 0)
        {
            scope.targetsRemaining--;
        }
        else
        {
            opFinding(Invariant.I19, op.id, "OP_TARGET outside the OP_QUEUED block of " + op.label() + " (declared " +
                op.declaredTargets + " targets)");
        }
        final ShadowSlot slot = slotOf(e, i, e.value1(i));
        if (slot == null)
        {
            return;
        }
        final Role role = e.roleCode(i) == EffectList.NULL_CODE ? Role.READ : e.role(i);
        final OpTarget target = new OpTarget(op, slot.pool, role, slot.id);
        op.targets.add(target);
        slot.addTarget(target);
        recordSlot(slot, e, i);
        if (slot.pool == Pool.DEVICE_MAMBA && target.write() && (op.kind == OpKind.LOAD || op.kind == OpKind.COW))
        {
            scope.loadWrittenMamba.put(slot.id, op);
        }
        if (op.kind == OpKind.COW && !target.write() && slot.pool == Pool.DEVICE_MAMBA)
        {
            checkCowSource(op, slot);
        }
    }

    void checkCowSource(final ShadowOp cow, final ShadowSlot slot)
    {
        for (final OpTarget other : slot.liveTargets)
        {
            if (other.op != cow && other.op.kind == OpKind.LOAD && other.write() && other.op.state.live())
            {
                slotFinding(Invariant.I14, slot, cow.label() + " copies from checkpoint " + slot.subject() +
                    " while " + other.op.label() + " (" + other.op.state + ") still loads it: a checkpoint whose " +
                    "load is in flight is not a copy-on-write source");
                return;
            }
        }
    }

    void opLaunched(final EffectList e, final int i)
    {
        final ShadowOp op = findOp(e.id(i));
        if (op == null)
        {
            opFinding(Invariant.I19, e.id(i), "OP_LAUNCHED of op " + e.id(i) + " which was never queued");
            return;
        }
        recordOp(op, e, i);
        recordTargets(op, e, i);
        if (op.state != ShadowOp.State.QUEUED)
        {
            opFinding(Invariant.I19, op.id, op.label() + " launched while " + op.state + " (since #" +
                op.stateSequence + ")" + (op.state == ShadowOp.State.LAUNCHED ? ": launched twice" : ""));
            return;
        }
        op.state = ShadowOp.State.LAUNCHED;
        op.stateSequence = scope.sequence;
        if (op.queuedSequence == scope.sequence)
        {
            scope.launchedSameDocument.add(op);
        }
        else
        {
            checkLaunch(op);
        }
    }

    void checkLaunch(final ShadowOp op)
    {
        for (final OpTarget target : op.targets)
        {
            final boolean guarded = target.write() ? op.protectsWrites() : op.protectsReads();
            final ShadowSlot slot = slotAt(target.pool, target.slot);
            if (!guarded || target.permits(slot.state, slot.owner))
            {
                continue;
            }
            final String consequence;
            if (target.write())
            {
                consequence = slot.state == SlotState.FREE ? "the copy writes a free slot" :
                    "the copy overwrites the data of " + slot.label();
            }
            else
            {
                consequence = "the copy reads data that is no longer there";
            }
            slotFinding(Invariant.I13, slot, op.label() + " launched while its " + target.role + " target is " +
                slot.label() + " (queued as " + target.allowedLabel() + "): " + consequence);
        }
    }

    void opCompleted(final EffectList e, final int i, final ShadowOp.State terminal)
    {
        scope.completedOps.add(e.id(i));
        final ShadowOp op = findOp(e.id(i));
        if (op == null)
        {
            opFinding(Invariant.I19, e.id(i), e.type(i) + " of op " + e.id(i) + " which was never queued");
            return;
        }
        recordOp(op, e, i);
        recordTargets(op, e, i);
        if (terminal == ShadowOp.State.ACKED && op.state.live())
        {
            defineWrittenMamba(op);
        }
        if (op.state == ShadowOp.State.QUEUED)
        {
            opFinding(Invariant.I19, op.id, op.label() + " " + terminal + " while QUEUED: it was never launched");
        }
        else if (!op.state.live())
        {
            opFinding(Invariant.I19, op.id, "second completion of " + op.label() + ": already " + op.state +
                " at #" + op.stateSequence);
        }
        if (op.state.live())
        {
            end(op, terminal);
        }
    }

    /**
     * I19: an accepted input that answers an op ends the op it names in its own document (the engine answers one it
     * cannot apply with a negative result and no effects): an ACK as OP_ACKED when it says ok and OP_FAILED when it
     * says failed; a STORAGE_HIT its QUERY as OP_FAILED when the query failed (value3), else OP_ACKED; a FETCH_DONE
     * its FETCH as OP_ACKED when ok (complete or short: a short fetch drops the hold, not the op), else OP_FAILED.
     *
     * @param input      the document's input.
     * @param resultCode its result code.
     */
    void checkAnswerEnded(final InputRecord input, final int resultCode)
    {
        final InputType type = input.type();
        if (resultCode < 0 || (type != InputType.ACK && type != InputType.STORAGE_HIT && type != InputType.FETCH_DONE))
        {
            return;
        }
        final long id = input.op();
        final boolean ok = type == InputType.STORAGE_HIT ? !Inputs.queryFailed(input) : input.ok();
        final ShadowOp.State expected = ok ? ShadowOp.State.ACKED : ShadowOp.State.FAILED;
        if (!scope.completedOps.contains(id))
        {
            final ShadowOp op = findOp(id);
            opFinding(Invariant.I19, id, answerText(type, ok) + " of " +
                (op == null ? "op " + id : op.label() + " (" + op.state + ")") + " but its document has no OP_" +
                expected.name() + " for it: the op it names does not end");
            return;
        }
        for (int k = 0; k < scope.ended.size(); k++)
        {
            final ShadowOp ended = scope.ended.get(k);
            if (ended.id == id && ended.state != expected)
            {
                opFinding(Invariant.I19, id, answerText(type, ok) + " but " + ended.label() + " ended " +
                    ended.state + " in its document");
            }
        }
    }

    private static String answerText(final InputType type, final boolean ok)
    {
        return "accepted " + type + " (" + (ok ? "ok" : "failed") + ")";
    }

    /** An acked load or copy-on-write defined the content of the Mamba slots it wrote (I16). */
    void defineWrittenMamba(final ShadowOp op)
    {
        for (final OpTarget target : op.targets)
        {
            if (target.write() && target.pool == Pool.DEVICE_MAMBA)
            {
                slotAt(Pool.DEVICE_MAMBA, target.slot).undefined = false;
            }
        }
    }

    void opCancelled(final EffectList e, final int i)
    {
        scope.completedOps.add(e.id(i));
        final ShadowOp op = findOp(e.id(i));
        if (op == null)
        {
            opFinding(Invariant.I19, e.id(i), "OP_CANCELLED of op " + e.id(i) + " which was never queued");
            return;
        }
        recordOp(op, e, i);
        recordTargets(op, e, i);
        if (op.state == ShadowOp.State.LAUNCHED)
        {
            opFinding(Invariant.I19, op.id, op.label() + " cancelled after its launch (#" + op.stateSequence +
                "): a launched copy cannot be recalled, it must be acked");
        }
        else if (!op.state.live())
        {
            opFinding(Invariant.I19, op.id, op.label() + " cancelled but already " + op.state + " at #" +
                op.stateSequence);
        }
        if (op.state.live())
        {
            end(op, ShadowOp.State.CANCELLED);
        }
    }

    void end(final ShadowOp op, final ShadowOp.State state)
    {
        op.state = state;
        op.stateSequence = scope.sequence;
        for (final OpTarget target : op.targets)
        {
            slotAt(target.pool, target.slot).removeTargetsOf(op);
        }
        scope.ended.add(op);
    }

    void recordTargets(final ShadowOp op, final EffectList e, final int i)
    {
        ShadowSlot last = null;
        for (final OpTarget target : op.targets)
        {
            final ShadowSlot slot = slotAt(target.pool, target.slot);
            if (slot != last)
            {
                recordSlot(slot, e, i);
                last = slot;
            }
        }
    }

    static boolean targets(final ShadowOp op, final ShadowSlot slot)
    {
        for (final OpTarget target : op.targets)
        {
            if (target.pool == slot.pool && target.slot == slot.id)
            {
                return true;
            }
        }
        return false;
    }
}
