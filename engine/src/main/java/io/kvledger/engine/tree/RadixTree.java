package io.kvledger.engine.tree;

import io.kvledger.engine.Effects;
import io.kvledger.engine.ResultCode;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.SlotState;

/**
 * Radix tree over page-fingerprint sequences, the device cache index.
 * <p>
 * Nodes hold a run of pages (each page = one 128-bit fingerprint and the device KV page id that holds it),
 * children keyed by their first page's fingerprint, a parent, a FULL lock count (a path lock on a node counts on
 * the node and every ancestor), a MAMBA lock count (single node), an op-lock count (the part of the FULL lock
 * held by in-flight operations), the last-access sequence (an event sequence, never a wall clock) and an
 * optional Mamba slot (only at a checkpoint: a state computed exactly at the node's end).
 * <p>
 * Nodes split at page boundaries and the Mamba state stays with the deeper half. A node being filled by an
 * in-flight load ({@link #markLoading}) is invisible to {@link #match} (unless asked) and {@link #insert} stops
 * in front of it, so nobody builds on data that is not there yet and a cancelled load can delete its node.
 * <p>
 * Every change records its effect through {@link Effects} (NODE_INSERTED, NODE_SPLIT, NODE_DELETED, LOCKED,
 * UNLOCKED, EVICTED, and the SLOT_TRANSITIONs of KV pages and Mamba slots through the pools). Nodes, receipts
 * and page runs come from preallocated arrays; engine thread only; allocation-free after construction;
 * iteration order never depends on identity hashes.
 */
public final class RadixTree
{
    /** The root: empty key, never deleted. */
    public static final int ROOT = 0;
    /** No node. */
    public static final int NO_NODE = -1;

    /**
     * @param maxNodes    node pool size, the root included.
     * @param maxReceipts lock receipt table size.
     * @param kvPool      device KV pages; a node's pages are owned by the node (state NODE, owner = node id).
     * @param mambaPool   device Mamba slots, or null for a pure-attention tree.
     * @param effects     where changes are recorded.
     */
    public RadixTree(final int maxNodes, final int maxReceipts, final SlotPool kvPool, final SlotPool mambaPool,
        final Effects effects)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Longest cached prefix of a fingerprint sequence, page-granular. Stops in front of a loading node unless
     * {@code includeLoading}. Changes nothing (no LRU refresh; see {@link #touch}).
     *
     * @param hi             fingerprint high words.
     * @param lo             fingerprint low words.
     * @param offset         index of page 0 in the arrays.
     * @param count          pages in the sequence.
     * @param includeLoading whether nodes with an in-flight load may be matched (fault path only).
     * @param out            filled with the result.
     */
    public void match(final long[] hi, final long[] lo, final int offset, final int count,
        final boolean includeLoading, final MatchResult out)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Split {@code node} so that a node ends exactly {@code pagesIntoNode} pages into it; the new parent takes
     * those pages, the node keeps the rest, its children and its Mamba state.
     *
     * @param node          to split; must not be the root.
     * @param pagesIntoNode 1 .. pageCount(node) - 1.
     * @return the new parent node, or {@link #NO_NODE} when the node pool is exhausted (nothing changes).
     */
    public int split(final int node, final int pagesIntoNode)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Insert pages {@code [0, count)} of a sequence. Pages already in the tree are kept (dedupe) and
     * {@code canonical[i]} gets the tree's page id; new pages take {@code kvPages[i]}, which moves from its
     * current owner to NODE, and {@code canonical[i] = kvPages[i]}. New pages always form one new leaf under
     * the node reached (splitting a node at the divergence or at {@code count} as needed). The walk stops in front
     * of a loading node: then only the pages before it are inserted.
     *
     * @param hi        fingerprint high words.
     * @param lo        fingerprint low words.
     * @param offset    index of page 0 in the arrays.
     * @param count     pages to insert.
     * @param kvPages   the caller's device KV page per page (entries for pages already cached may be -1).
     * @param canonical receives the tree's page id per page inserted or found.
     * @param sequence  access sequence for the LRU.
     * @param out       receives {@code pages} = pages now cached (== count unless stopped), {@code node} = node
     *                  ending exactly there.
     * @return {@link ResultCode#OK}, or {@link ResultCode#NODE_POOL_EXHAUSTED} with nothing changed.
     */
    public int insert(final long[] hi, final long[] lo, final int offset, final int count, final int[] kvPages,
        final int[] canonical, final long sequence, final MatchResult out)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Delete a leaf: its pages and Mamba slot go FREE, NODE_DELETED is recorded.
     *
     * @param node leaf to delete.
     * @return {@link ResultCode#OK}, {@link ResultCode#NODE_HAS_CHILDREN}, {@link ResultCode#NODE_LOCKED} or
     * {@link ResultCode#NODE_UNKNOWN}.
     */
    public int deleteLeaf(final int node)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Take a lock. FULL counts on the node and every ancestor; MAMBA on the node only. A holder of kind OP
     * also counts in the node's op-lock count.
     *
     * @param node       to lock (not the root for MAMBA).
     * @param component  FULL or MAMBA.
     * @param holderKind REQUEST or OP.
     * @param holder     request or op id.
     * @return receipt (> 0) to release with, or a negative {@link ResultCode}.
     */
    public long lock(final int node, final Component component, final SlotState holderKind, final long holder)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Release a lock by its receipt, exactly once.
     *
     * @param receipt from {@link #lock}.
     * @return {@link ResultCode#OK}, or {@link ResultCode#LOCK_RECEIPT_UNKNOWN} with nothing changed.
     */
    public int unlock(final long receipt)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Fault path only: release a lock a second time as a buggy caller would, decrementing the counts of the node
     * the receipt named (which may go negative) and recording UNLOCKED with that receipt again.
     *
     * @param receipt a receipt that was already released.
     * @param node    node it locked.
     * @param component its component.
     * @param holderKind its holder kind.
     * @param holder  its holder.
     */
    public void unlockAgain(final long receipt, final int node, final Component component,
        final SlotState holderKind, final long holder)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Mark a node as being filled by an in-flight load, or clear the mark.
     *
     * @param node node.
     * @param op   the load op id, or -1 to clear.
     */
    public void markLoading(final int node, final long op)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @param node node.
     * @return the op filling it, or -1.
     */
    public long loadingOp(final int node)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Give a node its Mamba state: the slot moves from its current owner to NODE and the node joins the Mamba LRU.
     *
     * @param node node without a Mamba state.
     * @param slot device Mamba slot.
     * @return {@link ResultCode#OK} or the pool's refusal.
     */
    public int attachMamba(final int node, final int slot)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @param node node.
     * @return its Mamba slot or -1.
     */
    public int mambaSlot(final int node)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Refresh the FULL last-access of a node and its ancestors, and the MAMBA last-access of the node only.
     *
     * @param node     node used.
     * @param sequence the current event sequence.
     */
    public void touch(final int node, final long sequence)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Evict least-recently-used unlocked leaves (FULL lock 0; op locks ignored when {@code ignoreOpLocks}, the
     * fault path) until at least {@code pages} KV pages were freed or no candidate is left. Each victim records
     * EVICTED(FULL), its slots going FREE, and NODE_DELETED.
     *
     * @param pages         KV pages wanted.
     * @param ignoreOpLocks fault path: treat locks held by operations as absent.
     * @return pages freed.
     */
    public int evictPages(final int pages, final boolean ignoreOpLocks)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Drop least-recently-used Mamba states (MAMBA lock 0, no op lock) until {@code slots} slots were freed or no
     * candidate is left. An inner node loses only its state (EVICTED(MAMBA)); a leaf victim is deleted whole
     * (EVICTED(FULL), needs FULL lock 0).
     *
     * @param slots         Mamba slots wanted.
     * @param ignoreOpLocks fault path: treat locks held by operations as absent.
     * @return slots freed.
     */
    public int evictMamba(final int slots, final boolean ignoreOpLocks)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @return KV pages that {@link #evictPages} could free now (pages of non-root nodes with FULL lock 0).
     */
    public int evictablePages()
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @return Mamba slots that {@link #evictMamba} could free now.
     */
    public int evictableMambaSlots()
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Copy the KV page ids from the root to the end of {@code node} into {@code out}.
     *
     * @param node node.
     * @param out  receives the page ids in order.
     * @return number of pages (the node's depth).
     */
    public int collectPages(final int node, final int[] out)
    {
        throw new UnsupportedOperationException();
    }

    public int parent(final int node)
    {
        throw new UnsupportedOperationException();
    }

    public int pageCount(final int node)
    {
        throw new UnsupportedOperationException();
    }

    /** @param node node. @return depth in pages at the node's end. */
    public int depth(final int node)
    {
        throw new UnsupportedOperationException();
    }

    public int childCount(final int node)
    {
        throw new UnsupportedOperationException();
    }

    public int fullLocks(final int node)
    {
        throw new UnsupportedOperationException();
    }

    public int mambaLocks(final int node)
    {
        throw new UnsupportedOperationException();
    }

    public boolean live(final int node)
    {
        throw new UnsupportedOperationException();
    }

    /** @return live nodes, the root included. */
    public int nodeCount()
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Check I1 (root empty, every other node has a live parent and a non-empty key, children unique by first
     * page), I2 (a node's page count equals the KV pages the pool says it owns), I4, I5 (lock counts non-negative,
     * a parent's FULL count at least the sum of its children's, receipts consistent), I6 (LRU lists hold exactly
     * the live nodes / the nodes with a Mamba state) and I14 (a Mamba slot only on a node, owned by that node), in
     * O(n).
     *
     * @throws IllegalStateException naming the node and the invariant.
     */
    public void verify()
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @return order-independent hash of the tree's content (fingerprints, page ids, Mamba slots, locks).
     */
    public long stateHash()
    {
        throw new UnsupportedOperationException();
    }
}
