package io.kvledger.replay.check;

import org.agrona.collections.Long2ObjectHashMap;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Pool;

import java.util.List;

/**
 * Base of the parts of the shadow model's fold: a view of the one {@link ShadowState} (its holders under their
 * own names, its lookups, history recording and findings) so each rule class reads like the model it came from.
 * It owns no state of its own.
 */
abstract class ShadowPart
{
    static final int POOLS = ShadowState.POOLS;
    static final int STATES = ShadowState.STATES;
    static final long ROOT = ShadowModel.ROOT;

    final ShadowState state;
    final ShadowSlot[][] slots;
    final int[][] counts;
    final OwnerIndex owners;
    final Long2ObjectHashMap<ShadowOp> ops;
    final RetiredMap<ShadowOp> retiredOps;
    final Long2ObjectHashMap<ShadowRequest> requests;
    final RetiredMap<ShadowRequest> retiredRequests;
    final DocumentScope scope;
    final Findings findings;
    final ShadowTree tree;
    final AdmissionWindows admission;
    final EffectList scratch;
    final List<long[]> admittedPrefixes;
    final List<Long> startedRequests;

    ShadowPart(final ShadowState state)
    {
        this.state = state;
        this.slots = state.slots;
        this.counts = state.counts;
        this.owners = state.owners;
        this.ops = state.ops;
        this.retiredOps = state.retiredOps;
        this.requests = state.requests;
        this.retiredRequests = state.retiredRequests;
        this.scope = state.scope;
        this.findings = state.findings;
        this.tree = state.tree;
        this.admission = state.admission;
        this.scratch = state.scratch;
        this.admittedPrefixes = state.admittedPrefixes;
        this.startedRequests = state.startedRequests;
    }

    final ShadowSlot slotOf(final EffectList e, final int i, final long id)
    {
        return state.slotOf(e, i, id);
    }

    final ShadowSlot slotAt(final Pool pool, final int id)
    {
        return state.slotAt(pool, id);
    }

    final ShadowOp findOp(final long id)
    {
        return state.findOp(id);
    }

    final ShadowRequest findRequest(final long id)
    {
        return state.findRequest(id);
    }

    final void recordSlot(final ShadowSlot slot, final EffectList e, final int i)
    {
        state.recordSlot(slot, e, i);
    }

    final void recordOp(final ShadowOp op, final EffectList e, final int i)
    {
        state.recordOp(op, e, i);
    }

    final void recordRequest(final long id, final EffectList e, final int i)
    {
        state.recordRequest(id, e, i);
    }

    final void recordRequestHistory(final long id, final EffectList e, final int i)
    {
        state.recordRequestHistory(id, e, i);
    }

    final void notifyRequest(final long id, final EffectList e, final int i)
    {
        state.notifyRequest(id, e, i);
    }

    final void slotFinding(final Invariant invariant, final ShadowSlot slot, final String explanation)
    {
        state.slotFinding(invariant, slot, explanation);
    }

    final void nodeFinding(final Invariant invariant, final long node, final String explanation)
    {
        state.nodeFinding(invariant, node, explanation);
    }

    final void requestFinding(final Invariant invariant, final long request, final String explanation)
    {
        state.requestFinding(invariant, request, explanation);
    }

    final void opFinding(final Invariant invariant, final long op, final String explanation)
    {
        state.opFinding(invariant, op, explanation);
    }
}
