package io.kvledger.replay.check;

import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The read-only queries over the shadow model used by inspection, timelines, reports and explore: document
 * counters, pool occupancy, slot and node state and history, the tree summary, in-flight ops and live requests.
 * It changes nothing.
 */
final class ShadowQueries extends ShadowPart
{
    ShadowQueries(final ShadowState state)
    {
        super(state);
    }

    long documents()
    {
        return state.documents;
    }

    long lastSequence()
    {
        return state.lastSequence;
    }

    long lastTimestampNs()
    {
        return state.lastTimestampNs;
    }

    int capacity(final Pool pool)
    {
        return slots[pool.value()].length;
    }

    PoolOccupancy occupancy(final Pool pool)
    {
        final int[] c = counts[pool.value()];
        return new PoolOccupancy(pool.name(), slots[pool.value()].length, c[SlotState.FREE.value()],
            c[SlotState.REQUEST.value()], c[SlotState.NODE.value()], c[SlotState.OP.value()],
            c[SlotState.PENDING_FREE.value()]);
    }

    List<PoolOccupancy> occupancy()
    {
        final List<PoolOccupancy> out = new ArrayList<>(POOLS);
        for (int p = 0; p < POOLS; p++)
        {
            out.add(occupancy(Pool.get((short)p)));
        }
        return out;
    }

    SlotState slotState(final Pool pool, final int id)
    {
        return slotAt(pool, id).state;
    }

    long slotOwner(final Pool pool, final int id)
    {
        return slotAt(pool, id).owner;
    }

    boolean slotDirty(final Pool pool, final int id)
    {
        return slotAt(pool, id).dirty;
    }

    String slotLabel(final Pool pool, final int id)
    {
        return slotAt(pool, id).label();
    }

    List<HistoryEntry> slotHistory(final Pool pool, final int id)
    {
        final HistoryRing ring = slotAt(pool, id).history;
        return ring == null ? List.of() : ring.entries(scratch);
    }

    List<SlotLane.Point> slotOwnerHistory(final Pool pool, final int id)
    {
        final HistoryRing ring = slotAt(pool, id).history;
        final List<SlotLane.Point> out = new ArrayList<>();
        if (ring != null)
        {
            for (int n = 0; n < ring.size(); n++)
            {
                out.add(new SlotLane.Point(ring.sequence(n), EffectText.owner(ring.stateAfter(n), ring.ownerAfter(n))));
            }
        }
        return out;
    }

    List<HistoryEntry> nodeHistory(final long id)
    {
        final HistoryRing ring = tree.history(id);
        return ring == null ? List.of() : ring.entries(scratch);
    }

    boolean nodeLive(final long id)
    {
        return tree.liveNode(id) != null;
    }

    String requestLabel(final long id)
    {
        final ShadowRequest request = state.findRequest(id);
        return request == null ? "unknown" : request.state.name();
    }

    String nodeLabel(final long id)
    {
        final ShadowNode node = tree.liveNode(id);
        if (node == null)
        {
            return tree.known(id) ? "deleted" : "unknown";
        }
        final StringBuilder b = new StringBuilder("live parent ").append(node.parent).append(" pages ")
            .append(node.pages).append(" depth ").append(node.depth).append(" children ").append(node.children)
            .append(" locks ").append(node.fullLocks).append('/').append(node.mambaLocks);
        for (final long key : owners.owned(SlotState.NODE, id))
        {
            if (OwnerIndex.pool(key) == Pool.DEVICE_MAMBA)
            {
                b.append(" mamba ").append(OwnerIndex.slot(key));
            }
        }
        return b.toString();
    }

    TreeSummary treeSummary()
    {
        int count = 0;
        int leaves = 0;
        int withMamba = 0;
        int locked = 0;
        long maxDepth = 0;
        for (final ShadowNode node : tree.nodes())
        {
            if (!node.live)
            {
                continue;
            }
            count++;
            maxDepth = Math.max(maxDepth, node.depth);
            if (node.id != ROOT)
            {
                leaves += node.children == 0 ? 1 : 0;
                locked += node.fullLocks > 0 || node.mambaLocks > 0 ? 1 : 0;
            }
            withMamba += owners.count(SlotState.NODE, node.id, Pool.DEVICE_MAMBA) > 0 ? 1 : 0;
        }
        return new TreeSummary(count, maxDepth, leaves, withMamba, locked, tree.receiptCount());
    }

    List<OpView> inflightOps()
    {
        final List<OpView> out = new ArrayList<>();
        for (final ShadowOp op : ops.values())
        {
            if (!op.state.live())
            {
                continue;
            }
            final List<String> targets = new ArrayList<>(op.targets.size());
            for (final OpTarget target : op.targets)
            {
                final ShadowSlot slot = slotAt(target.pool, target.slot);
                targets.add(target.role + " " + slot.subject() + " (" + slot.label() + ")");
            }
            out.add(new OpView(op.id, op.kind == null ? "?" : op.kind.name(), op.state.name(), op.owner,
                op.queuedSequence, targets));
        }
        out.sort(Comparator.comparingLong(OpView::id));
        return out;
    }

    List<RequestView> liveRequests()
    {
        final List<RequestView> out = new ArrayList<>();
        for (final ShadowRequest request : requests.values())
        {
            if (request.terminal())
            {
                continue;
            }
            final List<String> held = new ArrayList<>();
            for (final long key : owners.owned(SlotState.REQUEST, request.id))
            {
                held.add(OwnerIndex.pool(key).name() + ":" + OwnerIndex.slot(key));
            }
            out.add(new RequestView(request.id, request.state.name(), request.stateSequence, held));
        }
        out.sort(Comparator.comparingLong(RequestView::id));
        return out;
    }

}
