package io.kvledger.replay.check;

import org.agrona.collections.Long2ObjectHashMap;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.List;

/**
 * The shared state of the shadow model's fold: the four pools of slots with their per-state counts and owner
 * index, the live and retired operations and requests, the document scope, the findings, the tree and the
 * admission windows. It owns the lookups (slot, op and request by id), the per-subject history recording and the
 * hand-off of findings to the sink; the rule classes ({@link SlotRules}, {@link OpRules}, {@link RequestRules},
 * {@link EndOfDocumentRules}) and {@link ShadowQueries} all read and change this one holder.
 */
final class ShadowState
{
    static final int POOLS = 4;
    static final int STATES = 5;

    final ViolationSink sink;
    final int historyLimit;
    ShadowObserver observer;
    final ShadowSlot[][] slots = new ShadowSlot[POOLS][0];
    final int[][] counts = new int[POOLS][STATES];
    final OwnerIndex owners = new OwnerIndex();
    final Long2ObjectHashMap<ShadowOp> ops = new Long2ObjectHashMap<>();
    final RetiredMap<ShadowOp> retiredOps = ShadowModel.retiredMap();
    final Long2ObjectHashMap<ShadowRequest> requests = new Long2ObjectHashMap<>();
    final RetiredMap<ShadowRequest> retiredRequests = ShadowModel.retiredMap();
    final DocumentScope scope = new DocumentScope();
    final Findings findings = new Findings();
    final ShadowTree tree;
    final AdmissionWindows admission = new AdmissionWindows(findings);
    final EffectList scratch = new EffectList(1);
    final List<long[]> admittedPrefixes = new ArrayList<>();
    final List<Long> startedRequests = new ArrayList<>();
    long documents;
    long lastSequence = -1;
    long lastTimestampNs;

    ShadowState(final ViolationSink sink, final int historyLimit)
    {
        this.sink = sink;
        this.historyLimit = historyLimit;
        this.tree = new ShadowTree(findings, scope, historyLimit);
    }

    void recordSlot(final ShadowSlot slot, final EffectList e, final int i)
    {
        if (historyLimit > 0)
        {
            if (slot.history == null)
            {
                slot.history = new HistoryRing(historyLimit);
            }
            slot.history.add(scope.sequence, e, i, slot.state, slot.owner);
        }
        if (observer != null)
        {
            observer.onSlotEffect(slot.pool, slot.id, scope.sequence, e, i, slot.state, slot.owner);
        }
    }

    void recordOp(final ShadowOp op, final EffectList e, final int i)
    {
        if (op != null && historyLimit > 0)
        {
            if (op.history == null)
            {
                op.history = new HistoryRing(historyLimit);
            }
            op.history.add(scope.sequence, e, i, null, -1);
        }
    }

    void recordRequest(final long id, final EffectList e, final int i)
    {
        notifyRequest(id, e, i);
        recordRequestHistory(id, e, i);
    }

    /** Show an effect on a request to the observer, which reads the request's state as it is now. */
    void notifyRequest(final long id, final EffectList e, final int i)
    {
        if (observer != null)
        {
            observer.onRequestEffect(id, scope.sequence, e, i);
        }
    }

    /** Add an effect to a request's history (what a violation's explanation shows), without the observer. */
    void recordRequestHistory(final long id, final EffectList e, final int i)
    {
        if (historyLimit <= 0)
        {
            return;
        }
        final ShadowRequest request = findRequest(id);
        if (request != null)
        {
            if (request.history == null)
            {
                request.history = new HistoryRing(historyLimit);
            }
            request.history.add(scope.sequence, e, i, null, -1);
        }
    }

    void recordHolder(final SlotState kind, final long holder, final EffectList e, final int i)
    {
        if (kind == SlotState.REQUEST)
        {
            recordRequest(holder, e, i);
        }
        else if (kind == SlotState.OP)
        {
            recordOp(findOp(holder), e, i);
        }
    }

    void slotFinding(final Invariant invariant, final ShadowSlot slot, final String explanation)
    {
        findings.slot(invariant, slot, explanation);
    }

    void nodeFinding(final Invariant invariant, final long node, final String explanation)
    {
        findings.node(invariant, node, explanation);
    }

    void requestFinding(final Invariant invariant, final long request, final String explanation)
    {
        findings.request(invariant, request, explanation);
    }

    void opFinding(final Invariant invariant, final long op, final String explanation)
    {
        findings.op(invariant, op, explanation);
    }

    void flush()
    {
        if (findings.isEmpty())
        {
            return;
        }
        for (final Findings.Finding finding : findings.drain())
        {
            final List<HistoryEntry> history = finding.history() != null ? finding.history() : history(finding);
            sink.onViolation(new Violation(scope.sequence, finding.invariant(), finding.pool(), finding.id(),
                finding.explanation(), history));
        }
    }

    List<HistoryEntry> history(final Findings.Finding finding)
    {
        final HistoryRing ring = switch (finding.kind())
        {
            case SLOT -> slotAt(Pool.valueOf(finding.pool()), (int)finding.id()).history;
            case NODE -> tree.history(finding.id());
            case REQUEST -> requestHistoryRing(finding.id());
            case OP -> opHistoryRing(finding.id());
        };
        return ring == null ? List.of() : ring.entries(scratch);
    }

    HistoryRing requestHistoryRing(final long id)
    {
        final ShadowRequest request = findRequest(id);
        return request == null ? null : request.history;
    }

    HistoryRing opHistoryRing(final long id)
    {
        final ShadowOp op = findOp(id);
        return op == null ? null : op.history;
    }

    ShadowSlot slotOf(final EffectList e, final int i, final long id)
    {
        final short code = e.poolCode(i);
        if (code == EffectList.NULL_CODE || code < 0 || code >= POOLS)
        {
            findings.add(new Findings.Finding(Invariant.I12, Findings.Kind.SLOT, "pool?", id, "effect names no pool",
                List.of(new HistoryEntry(scope.sequence, EffectText.describe(e, i)))));
            return null;
        }
        final ShadowSlot[] pool = slots[code];
        if (id < 0 || id >= pool.length)
        {
            final String name = Pool.get(code).name();
            findings.add(new Findings.Finding(Invariant.I12, Findings.Kind.SLOT, name, id, pool.length == 0 ?
                "pool " + name + " is absent in this configuration" :
                "slot id outside the pool (capacity " + pool.length + ")",
                List.of(new HistoryEntry(scope.sequence, EffectText.describe(e, i)))));
            return null;
        }
        return slotAt(pool, Pool.get(code), (int)id);
    }

    ShadowSlot slotAt(final Pool pool, final int id)
    {
        return slotAt(slots[pool.value()], pool, id);
    }

    /** A slot is made when first touched: a free slot nobody touched needs no object (a pool may hold millions). */
    private static ShadowSlot slotAt(final ShadowSlot[] pool, final Pool poolName, final int id)
    {
        ShadowSlot slot = pool[id];
        if (null == slot)
        {
            slot = new ShadowSlot(poolName, id);
            pool[id] = slot;
        }
        return slot;
    }

    ShadowOp findOp(final long id)
    {
        final ShadowOp op = ops.get(id);
        return op != null ? op : retiredOps.get(id);
    }

    ShadowRequest findRequest(final long id)
    {
        final ShadowRequest request = requests.get(id);
        return request != null ? request : retiredRequests.get(id);
    }

    void size(final Pool pool, final int capacity)
    {
        final ShadowSlot[] array = new ShadowSlot[Math.max(0, capacity)];
        slots[pool.value()] = array;
        java.util.Arrays.fill(counts[pool.value()], 0);
        counts[pool.value()][SlotState.FREE.value()] = array.length;
    }
}
