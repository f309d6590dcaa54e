package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.List;

/**
 * I6 as the journal shows it. The engine's evictable and protected sizes and its LRU lists are not journaled;
 * what is journaled is what they decide: which node an eviction takes, what it frees, and how much a TICK asking
 * for pages gets. Per component, evictable + protected = the present values (FULL: the pages of the live nodes;
 * MAMBA: the nodes owning a state), the evictable part being the unlocked leaves' (and their unlocked ancestors');
 * the LRU lists hold exactly the nodes with that component's data. So:
 * <ul>
 * <li>EVICTED(MAMBA) names a node that owns a device Mamba slot (a node without a state is in no Mamba LRU), and
 * by the end of the document the node owns none (the eviction released its value).</li>
 * <li>EVICTED(FULL) deletes the node with its pages: the same incarnation is not live at the end of the
 * document.</li>
 * <li>Conversely, a NODE_DELETED follows an EVICTED(FULL) of the node in the same document, or deletes a leaf that
 * a load or copy filled when that op fails or is cancelled in the document (its rollback; the op locked the node).
 * Any other deletion took pages out of the tree without an eviction of the LRU.</li>
 * <li>A TICK asking for N pages that evicted fewer leaves no evictable leaf (a live leaf with no FULL or MAMBA lock,
 * which also covers loading nodes: a load locks the nodes it fills): the pages it could not free were protected,
 * not missing from the LRU or miscounted. Checked at the end of the document, after the TICK's parked fetches and
 * backups, which only add locks, so a leaf evictable then was evictable after the eviction too.</li>
 * </ul>
 * The engine's own counters are compared with a recount by {@code RadixTree.verify()} (explore and the seeded tests
 * run it after every input).
 */
final class EvictionRule extends ShadowPart
{
    /** A node evicted in this document: its id, component, and incarnation at the eviction. */
    private record Eviction(long node, Component component, long life)
    {
    }

    /** A node deleted in this document without an EVICTED(FULL) of it before, and the ops locking it then. */
    private record Deletion(long node, List<Long> lockingOps)
    {
    }

    private final List<Eviction> evictions = new ArrayList<>();
    private final List<Deletion> deletions = new ArrayList<>();
    private long evictedPages;

    EvictionRule(final ShadowState state)
    {
        super(state);
    }

    /** Start of a document. */
    void begin()
    {
        evictions.clear();
        deletions.clear();
        evictedPages = 0;
    }

    /** EVICTED, before the tree folds it: the node must hold the evicted component's data. */
    void evicted(final EffectList e, final int i)
    {
        final ShadowNode node = tree.liveNode(e.id(i));
        if (node == null || node.id == ROOT)
        {
            return;
        }
        final Component component = e.componentCode(i) != EffectList.NULL_CODE &&
            e.component(i) == Component.MAMBA ? Component.MAMBA : Component.FULL;
        if (component == Component.MAMBA && owners.count(SlotState.NODE, node.id, Pool.DEVICE_MAMBA) == 0)
        {
            nodeFinding(Invariant.I6, node.id, "Mamba state evicted from node " + node.id + " which owns no device " +
                "Mamba slot: the Mamba LRU holds a node without a state");
        }
        if (component == Component.FULL)
        {
            evictedPages += node.pages;
        }
        evictions.add(new Eviction(node.id, component, node.life));
    }

    /**
     * NODE_DELETED, before the tree folds it. A node leaves the tree by a FULL eviction (EVICTED(FULL) of it earlier
     * in the document) or, a leaf a load or copy filled, by the rollback of that op (its op lock released or still
     * held, the op FAILED or CANCELLED in the document; checked at the end of the document).
     */
    void deleted(final EffectList e, final int i)
    {
        final ShadowNode node = tree.liveNode(e.id(i));
        if (node == null || node.id == ROOT)
        {
            return;
        }
        for (final Eviction eviction : evictions)
        {
            if (eviction.node() == node.id && eviction.life() == node.life && eviction.component() == Component.FULL)
            {
                return;
            }
        }
        final List<Long> lockingOps = new ArrayList<>(2);
        for (final LockReceipt receipt : tree.receiptsOn(node.id, false))
        {
            if (receipt.holderKind() == SlotState.OP)
            {
                lockingOps.add(receipt.holder());
            }
        }
        for (final LockReceipt receipt : scope.opUnlocks)
        {
            if (receipt.node() == node.id && receipt.life() == node.life)
            {
                lockingOps.add(receipt.holder());
            }
        }
        deletions.add(new Deletion(node.id, lockingOps));
    }

    private boolean rolledBack(final Deletion deletion)
    {
        for (final ShadowOp op : scope.ended)
        {
            if ((op.state == ShadowOp.State.FAILED || op.state == ShadowOp.State.CANCELLED) &&
                deletion.lockingOps().contains(op.id))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * End of a document: evictions released what they took, and a TICK that got less than it asked left nothing
     * evictable.
     *
     * @param input the document's input.
     */
    void endOfDocument(final InputRecord input)
    {
        for (final Deletion deletion : deletions)
        {
            if (!rolledBack(deletion))
            {
                nodeFinding(Invariant.I6, deletion.node(), "node " + deletion.node() + " deleted without an " +
                    "EVICTED(FULL) of it and not by the rollback of a failed or cancelled op that locked it: its " +
                    "pages left the tree without an eviction of the LRU");
            }
        }
        for (final Eviction eviction : evictions)
        {
            final ShadowNode node = tree.liveNode(eviction.node());
            if (node == null || node.life != eviction.life())
            {
                continue;
            }
            if (eviction.component() == Component.FULL)
            {
                nodeFinding(Invariant.I6, node.id, "FULL eviction of node " + node.id + " left it in the tree: " +
                    "evicting FULL deletes the node with its pages");
            }
            else if (owners.count(SlotState.NODE, node.id, Pool.DEVICE_MAMBA) > 0)
            {
                nodeFinding(Invariant.I6, node.id, "Mamba eviction of node " + node.id + " left it owning its " +
                    "device Mamba slot: the evicted size was not released");
            }
        }
        if (input.type() == InputType.TICK)
        {
            final long asked = Inputs.evictPages(input);
            if (asked > 0 && evictedPages < asked)
            {
                checkNothingEvictable(asked);
            }
        }
    }

    private void checkNothingEvictable(final long asked)
    {
        for (final ShadowNode node : tree.nodes())
        {
            if (node.live && node.id != ROOT && node.children == 0 && node.fullLocks <= 0 && node.mambaLocks <= 0)
            {
                nodeFinding(Invariant.I6, node.id, "TICK asked for " + (asked == Long.MAX_VALUE ? "every" :
                    String.valueOf(asked)) + " evictable page(s) and evicted " + evictedPages + ", yet node " +
                    node.id + " (" + node.pages + " pages) is an unlocked leaf: evictable pages were missed");
                return;
            }
        }
    }
}
