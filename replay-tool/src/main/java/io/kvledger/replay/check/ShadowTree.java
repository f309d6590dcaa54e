package io.kvledger.replay.check;

import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The shadow radix tree and its locks, folded from NODE_INSERTED, NODE_SPLIT, NODE_DELETED, EVICTED, LOCKED and
 * UNLOCKED, with the tree rules of I1, I5 and I7 (see {@link ShadowModel} for the full list). FULL locks count on
 * the node and every ancestor (a split's new parent inherits the node's FULL count), MAMBA locks on the node only.
 * Receipts remember the incarnation of their node, because node ids are reused after deletion. Owned by
 * {@link ShadowModel}; single reader thread.
 */
final class ShadowTree
{
    private static final long ROOT = ShadowModel.ROOT;

    private final Findings findings;
    private final DocumentScope scope;
    private final int historyLimit;
    private final Long2ObjectHashMap<ShadowNode> nodes = new Long2ObjectHashMap<>();
    private final RetiredMap<ShadowNode> retiredNodes = ShadowModel.retiredMap();
    private final Map<Long, LockReceipt> receipts = new LinkedHashMap<>();
    private final RetiredMap<Long> releasedReceipts = ShadowModel.retiredMap();
    private final Set<Long> lockedEvictions = new HashSet<>();
    private final ArrayList<ShadowNode> pathScratch = new ArrayList<>();
    /** Receipts held per holder, by holder kind: lets {@link #heldBy} skip the scan when a holder has none. */
    private final Long2LongHashMap[] holds = new Long2LongHashMap[SlotState.values().length];
    private ShadowObserver observer;
    private long lives;

    ShadowTree(final Findings findings, final DocumentScope scope, final int historyLimit)
    {
        this.findings = findings;
        this.scope = scope;
        this.historyLimit = historyLimit;
    }

    void observer(final ShadowObserver observer)
    {
        this.observer = observer;
    }

    /** Only the root: empty, always live. */
    void reset()
    {
        nodes.clear();
        retiredNodes.clear();
        receipts.clear();
        releasedReceipts.clear();
        for (final Long2LongHashMap held : holds)
        {
            if (held != null)
            {
                held.clear();
            }
        }
        final ShadowNode root = new ShadowNode(ShadowModel.ROOT);
        root.live = true;
        root.parent = -1;
        nodes.put(ShadowModel.ROOT, root);
    }

    void beginDocument()
    {
        lockedEvictions.clear();
    }

    void nodeInserted(final EffectList e, final int i)
    {
        final long id = e.id(i);
        final long parentId = e.owner(i);
        final long pages = e.value1(i);
        final long depth = e.value2(i);
        final ShadowNode parent = liveNode(parentId);
        final ShadowNode existing = liveNode(id);
        if (id == ROOT || existing != null)
        {
            findings.node(Invariant.I1, id, "inserted twice: node " + id + " is already live" +
                (existing != null && id != ROOT ? " (since #" + existing.insertedSequence + ")" : ""));
        }
        if (parent == null)
        {
            findings.node(Invariant.I1, id, "inserted under node " + parentId + " which is not live");
        }
        if (pages < 1)
        {
            findings.node(Invariant.I1, id, "inserted with " + pages +
                " pages: every non-root node holds at least one");
        }
        else if (parent != null && depth != parent.depth + pages)
        {
            findings.node(Invariant.I1, id, "depth " + depth + " but parent " + parentId + " ends at depth " +
                parent.depth + " and the node holds " + pages + " pages");
        }
        if (id != ROOT && existing == null)
        {
            final ShadowNode node = nodeRecord(id);
            node.live = true;
            node.parent = parentId;
            node.pages = pages;
            node.depth = depth;
            node.children = 0;
            node.fullLocks = 0;
            node.mambaLocks = 0;
            node.insertedSequence = scope.sequence;
            node.life = ++lives;
            if (parent != null)
            {
                parent.children++;
            }
        }
        scope.touch(id);
        scope.touch(parentId);
        record(id, e, i);
        record(parentId, e, i);
    }

    void nodeSplit(final EffectList e, final int i)
    {
        final long id = e.id(i);
        final long newParentId = e.owner(i);
        final long taken = e.value1(i);
        final ShadowNode node = liveNode(id);
        scope.touch(id);
        scope.touch(newParentId);
        if (node == null || id == ROOT)
        {
            record(id, e, i);
            findings.node(Invariant.I1, id, id == ROOT ? "the root cannot be split" : "split of node " + id +
                " which is not live");
            return;
        }
        if (liveNode(newParentId) != null)
        {
            record(id, e, i);
            findings.node(Invariant.I1, id, "split into new parent " + newParentId + " which is already live");
            return;
        }
        if (taken < 1 || taken >= node.pages)
        {
            findings.node(Invariant.I1, id, "split takes " + taken + " of its " + node.pages +
                " pages: both halves must keep at least one page");
        }
        final ShadowNode parent = nodeRecord(newParentId);
        parent.live = true;
        parent.parent = node.parent;
        parent.pages = taken;
        parent.depth = node.depth - (node.pages - taken);
        parent.children = 1;
        parent.fullLocks = node.fullLocks;
        parent.mambaLocks = 0;
        parent.insertedSequence = scope.sequence;
        parent.life = ++lives;
        node.pages -= taken;
        node.parent = newParentId;
        scope.split(id, newParentId);
        record(id, e, i);
        record(newParentId, e, i);
    }

    void nodeDeleted(final EffectList e, final int i)
    {
        final long id = e.id(i);
        final ShadowNode node = liveNode(id);
        scope.touch(id);
        if (id == ROOT)
        {
            findings.node(Invariant.I1, id, "the root cannot be deleted");
            return;
        }
        if (node == null)
        {
            findings.node(Invariant.I1, id, "deleted node " + id + " which is not live");
            return;
        }
        if (node.children > 0)
        {
            findings.node(Invariant.I1, id, "deleted while it has " + node.children + " live children");
        }
        if (node.fullLocks > 0 || node.mambaLocks > 0)
        {
            final List<LockReceipt> held = receiptsOn(id, false);
            final boolean byOp = held.stream().anyMatch(r -> r.holderKind() == SlotState.OP);
            if (!lockedEvictions.contains(id))
            {
                findings.node(byOp ? Invariant.I7 : Invariant.I5, id, "deleted while locked: " + labels(held));
            }
        }
        node.live = false;
        final ShadowNode parent = liveNode(node.parent);
        if (parent != null)
        {
            parent.children--;
            // the orphaned locks no longer count on the ancestors; their receipts stay held (for the unlock)
            for (final ShadowNode n : path(parent))
            {
                n.fullLocks = Math.max(0, n.fullLocks - node.fullLocks);
            }
        }
    }

    void evicted(final EffectList e, final int i)
    {
        final long id = e.id(i);
        final ShadowNode node = liveNode(id);
        scope.touch(id);
        if (node == null || id == ROOT)
        {
            findings.node(Invariant.I1, id, id == ROOT ? "the root cannot be evicted" : "evicted node " + id +
                " which is not live");
            return;
        }
        if (e.componentCode(i) != EffectList.NULL_CODE && e.component(i) == Component.MAMBA)
        {
            final List<LockReceipt> held = receiptsOn(id, false);
            held.removeIf(r -> r.component() != Component.MAMBA && r.holderKind() != SlotState.OP);
            if (node.mambaLocks > 0 || !held.isEmpty())
            {
                findings.node(Invariant.I7, id, "Mamba state evicted while locked: " + labels(held));
            }
        }
        else if (node.fullLocks > 0)
        {
            lockedEvictions.add(id);
            findings.node(Invariant.I7, id, "evicted while its subtree is locked (FULL count " + node.fullLocks +
                "): " + labels(receiptsOn(id, true)));
        }
    }

    void locked(final EffectList e, final int i)
    {
        final long id = e.id(i);
        final long receipt = e.value1(i);
        final Component component = component(e, i);
        final SlotState holderKind = e.toState(i);
        final long holder = e.owner(i);
        if (receipts.containsKey(receipt))
        {
            findings.node(Invariant.I5, id, "receipt " + receipt + " taken while already held as " +
                receipts.get(receipt).label() + " on node " + receipts.get(receipt).node());
            return;
        }
        final ShadowNode node = liveNode(id);
        if (node == null)
        {
            findings.node(Invariant.I1, id, "locked node " + id + " which is not live");
        }
        receipts.put(receipt, new LockReceipt(receipt, id, component, holderKind, holder, scope.sequence,
            node == null ? -1 : node.life));
        final Long2LongHashMap holderHolds = holdsOf(holderKind);
        holderHolds.put(holder, holderHolds.get(holder) + 1);
        releasedReceipts.remove(receipt);
        if (node == null)
        {
            return;
        }
        if (component == Component.MAMBA)
        {
            node.mambaLocks++;
        }
        else
        {
            for (final ShadowNode n : path(node))
            {
                n.fullLocks++;
                scope.touch(n.id);
            }
        }
    }

    void unlocked(final EffectList e, final int i)
    {
        final long id = e.id(i);
        final long receipt = e.value1(i);
        final LockReceipt held = receipts.remove(receipt);
        if (held == null)
        {
            final Long released = releasedReceipts.get(receipt);
            findings.node(Invariant.I5, id, "UNLOCKED receipt " + receipt + " which is not held" +
                (released != null ? ": already released at #" + released + " (double unlock)" : ""));
            return;
        }
        releasedReceipts.put(receipt, scope.sequence);
        final Long2LongHashMap holderHolds = holdsOf(held.holderKind());
        final long remaining = holderHolds.get(held.holder()) - 1;
        if (remaining <= 0)
        {
            holderHolds.remove(held.holder());
        }
        else
        {
            holderHolds.put(held.holder(), remaining);
        }
        if (held.holderKind() == SlotState.OP)
        {
            scope.opUnlocks.add(held);
        }
        if (held.node() != id || held.component() != component(e, i) || held.holder() != e.owner(i) ||
            held.holderKind() != e.toState(i))
        {
            findings.node(Invariant.I5, id, "receipt " + receipt + " was taken as " + held.label() + " on node " +
                held.node() + " but UNLOCKED names " + component(e, i) + " by " +
                EffectText.owner(e.toState(i), e.owner(i)) + " on node " + id);
        }
        final ShadowNode node = liveNode(held.node());
        if (node == null || node.life != held.life())
        {
            return;
        }
        if (held.component() == Component.MAMBA)
        {
            if (--node.mambaLocks < 0)
            {
                findings.node(Invariant.I5, node.id, "MAMBA lock count went negative");
                node.mambaLocks = 0;
            }
            return;
        }
        for (final ShadowNode n : path(node))
        {
            scope.touch(n.id);
            if (--n.fullLocks < 0)
            {
                findings.node(Invariant.I5, n.id, "FULL lock count went negative");
                n.fullLocks = 0;
            }
        }
    }

    private Long2LongHashMap holdsOf(final SlotState holderKind)
    {
        Long2LongHashMap held = holds[holderKind.ordinal()];
        if (held == null)
        {
            held = new Long2LongHashMap(0);
            holds[holderKind.ordinal()] = held;
        }
        return held;
    }

    List<LockReceipt> receiptsOn(final long node, final boolean subtree)
    {
        final List<LockReceipt> out = new ArrayList<>();
        for (final LockReceipt receipt : receipts.values())
        {
            if (!current(receipt))
            {
                continue;
            }
            if (receipt.node() == node || (subtree && receipt.component() != Component.MAMBA &&
                isAncestor(node, receipt.node())))
            {
                out.add(receipt);
            }
        }
        return out;
    }

    /**
     * @return true when the receipt's node is live in the incarnation it was locked in.
     */
    boolean current(final LockReceipt receipt)
    {
        final ShadowNode node = liveNode(receipt.node());
        return node != null && node.life == receipt.life();
    }

    private boolean isAncestor(final long ancestor, final long node)
    {
        final ShadowNode start = liveNode(node);
        return start != null && onPath(start, ancestor);
    }

    /**
     * @return true when the node or one of its live ancestors has the id; walks the parent chain without
     * allocating and stops on a cycle a corrupt journal could create.
     */
    boolean onPath(final ShadowNode from, final long id)
    {
        int steps = nodes.size() + 1;
        for (ShadowNode n = from; n != null && steps-- > 0; n = n.id == ROOT ? null : liveNode(n.parent))
        {
            if (n.id == id)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The node and its live ancestors up to the root; stops on a cycle a corrupt journal could create. The list
     * is this tree's scratch, valid until the next call: callers iterate it at once and never nest a call.
     */
    private List<ShadowNode> path(final ShadowNode from)
    {
        final ArrayList<ShadowNode> out = pathScratch;
        out.clear();
        final int limit = nodes.size() + 1;
        for (ShadowNode n = from; n != null && out.size() < limit; n = n.id == ROOT ? null : liveNode(n.parent))
        {
            out.add(n);
        }
        return out;
    }

    private static String labels(final List<LockReceipt> held)
    {
        if (held.isEmpty())
        {
            return "lock counts above zero";
        }
        final StringBuilder b = new StringBuilder();
        for (final LockReceipt receipt : held)
        {
            b.append(b.length() == 0 ? "" : ", ").append(receipt.label()).append(" on node ").append(receipt.node())
                .append(" (since #").append(receipt.sequence()).append(')');
        }
        return b.toString();
    }

    private static Component component(final EffectList e, final int i)
    {
        return e.componentCode(i) != EffectList.NULL_CODE && e.component(i) == Component.MAMBA ?
            Component.MAMBA : Component.FULL;
    }

    // ---------------------------------------------------------------------------------------------------------
    // history, lookups, queries

    /**
     * Record an effect in a node's history and tell the observer.
     */
    void record(final long id, final EffectList e, final int i)
    {
        if (id < 0)
        {
            return;
        }
        if (historyLimit > 0)
        {
            final ShadowNode node = nodeRecord(id);
            if (node.history == null)
            {
                node.history = new HistoryRing(historyLimit);
            }
            node.history.add(scope.sequence, e, i, null, -1);
        }
        if (observer != null)
        {
            observer.onNodeEffect(id, scope.sequence, e, i);
        }
    }

    ShadowNode liveNode(final long id)
    {
        final ShadowNode node = nodes.get(id);
        return node != null && node.live ? node : null;
    }

    /**
     * @return the node's record, live or deleted in this document, or null.
     */
    ShadowNode node(final long id)
    {
        return nodes.get(id);
    }

    boolean known(final long id)
    {
        return nodes.containsKey(id) || retiredNodes.containsKey(id);
    }

    HistoryRing history(final long id)
    {
        final ShadowNode node = nodes.containsKey(id) ? nodes.get(id) : retiredNodes.get(id);
        return node == null ? null : node.history;
    }

    private ShadowNode nodeRecord(final long id)
    {
        ShadowNode node = nodes.get(id);
        if (node == null)
        {
            node = retiredNodes.remove(id);
            if (node == null)
            {
                node = new ShadowNode(id);
            }
            nodes.put(id, node);
        }
        return node;
    }

    /**
     * Move a node deleted in this document out of the live table (its history stays, bounded).
     */
    void retire(final long id)
    {
        final ShadowNode node = nodes.get(id);
        if (node != null && !node.live && id != ShadowModel.ROOT)
        {
            nodes.remove(id);
            retiredNodes.put(id, node);
        }
    }

    /**
     * @return receipts held now by a holder on a live node (locks on deleted nodes were reported when deleted).
     */
    List<LockReceipt> heldBy(final SlotState holderKind, final long holder)
    {
        if (holdsOf(holderKind).get(holder) == 0)
        {
            return List.of();
        }
        final List<LockReceipt> out = new ArrayList<>();
        for (final LockReceipt receipt : receipts.values())
        {
            if (receipt.holderKind() == holderKind && receipt.holder() == holder && current(receipt))
            {
                out.add(receipt);
            }
        }
        return out;
    }

    int receiptCount()
    {
        return receipts.size();
    }

    Collection<ShadowNode> nodes()
    {
        return nodes.values();
    }
}
