package io.kvledger.engine.tree;

import io.kvledger.engine.util.IndexList;

import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.util.Hashing;
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
 * <p>
 * Storage: node fields are parallel primitive arrays indexed by node id; free node ids form a LIFO stack that
 * hands out ascending ids at first. A node's pages are a singly linked list threaded through arrays indexed by
 * the KV page id itself (next page, fingerprint high and low word), so a split relinks k pages and copies
 * nothing. The tree owns these node and page arrays, the walk, the lock counts and the incrementally kept
 * evictable-page count; it hands four jobs to collaborators in this package: {@link ChildIndex} finds a child by
 * (parent, first-page fingerprint), {@link LockReceipts} keeps the held locks by receipt, two {@link IndexList}s
 * keep the access order, and {@link TreeVerifier} checks the invariants from scratch.
 * <p>
 * LRU: all non-root nodes sit on an intrusive FULL list in last-access order; {@link #touch} moves the node and
 * then its ancestors to the most-recent end, so a node always precedes its ancestors on the list (checked by
 * {@link #verify}). Nodes holding a Mamba state also sit on a MAMBA list that {@link #touch} refreshes for the
 * touched node only. Access sequences must not decrease from call to call.
 */
public final class RadixTree
{
    /** The root: empty key, never deleted. */
    public static final int ROOT = 0;
    /** No node. */
    public static final int NO_NODE = -1;
    /** No page, no slot. */
    public static final int NO_SLOT = -1;
    /** No loading op. */
    public static final long NO_OP = -1;

    private static final int NIL = -1;
    private static final byte FULL_CODE = (byte)Component.FULL.value();
    private static final byte MAMBA_CODE = (byte)Component.MAMBA.value();
    private static final byte OP_CODE = (byte)SlotState.OP.value();

    private final int maxNodes;
    private final SlotPool kvPool;
    private final SlotPool mambaPool;
    private final Effects effects;

    private final boolean[] live;
    private final int[] parent;
    private final int[] firstPage;
    private final int[] lastPage;
    private final int[] pageCount;
    private final int[] depth;
    private final int[] childCount;
    private final int[] fullLocks;
    private final int[] opLocks;
    private final int[] mambaLocks;
    private final int[] mambaOpLocks;
    /** FULL locks held by operations whose target is this node itself (not a descendant). */
    private final int[] ownOpLocks;
    /** Rules 3: Mamba eviction and its count take every state the domain calls evictable ({@link #exactMamba}). */
    private boolean exactMamba;
    /** Parents whose children one {@link #evictMamba} pass deleted (their {@link #deletedChildren} to clear). */
    private final int[] passParents;
    private final int[] mambaSlot;
    private final long[] lastAccess;
    private final long[] mambaAccess;
    private final long[] loadingOp;
    private final int[] freeNodes;
    /** How many times each node id was handed out: a holder of an id tells a reused id from the node it knew. */
    private final long[] incarnation;
    private int freeNodeTop;
    private int liveNodes;

    private final IndexList nodeLru;
    private final IndexList mambaLru;

    private final int[] nextPage;
    private final long[] pageHi;
    private final long[] pageLo;

    private final ChildIndex children;
    private final LockReceipts receipts;

    private int walkNode;
    private int walkPages;
    private int walkChild;
    private int walkInto;
    private int walkMambaNode;
    private int walkMambaPages;
    private boolean walkStoppedAtLoading;

    private final int[] blockedInSubtree;
    private int evictablePageCount;

    /** Bumped by every change a {@link #match} result can depend on; see {@link #matchVersion}. */
    private long matchVersion;

    private final boolean[] pageMark;
    private final int[] deletedChildren;
    private final TreeVerifier verifier;

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
        if (maxNodes < 1 || maxReceipts < 0)
        {
            throw new IllegalArgumentException("maxNodes=" + maxNodes + " maxReceipts=" + maxReceipts);
        }
        this.maxNodes = maxNodes;
        this.kvPool = kvPool;
        this.mambaPool = mambaPool;
        this.effects = effects;

        live = new boolean[maxNodes];
        parent = new int[maxNodes];
        firstPage = new int[maxNodes];
        lastPage = new int[maxNodes];
        pageCount = new int[maxNodes];
        depth = new int[maxNodes];
        childCount = new int[maxNodes];
        fullLocks = new int[maxNodes];
        opLocks = new int[maxNodes];
        mambaLocks = new int[maxNodes];
        mambaOpLocks = new int[maxNodes];
        ownOpLocks = new int[maxNodes];
        mambaSlot = new int[maxNodes];
        lastAccess = new long[maxNodes];
        mambaAccess = new long[maxNodes];
        loadingOp = new long[maxNodes];
        nodeLru = new IndexList(maxNodes);
        mambaLru = new IndexList(maxNodes);
        freeNodes = new int[maxNodes];
        incarnation = new long[maxNodes];
        for (int node = 0; node < maxNodes; node++)
        {
            resetNode(node);
        }
        for (int i = 0; i < maxNodes - 1; i++)
        {
            freeNodes[i] = maxNodes - 1 - i;
        }
        freeNodeTop = maxNodes - 1;
        live[ROOT] = true;
        liveNodes = 1;

        final int pages = kvPool.capacity();
        nextPage = new int[pages];
        pageHi = new long[pages];
        pageLo = new long[pages];
        pageMark = new boolean[pages];
        for (int page = 0; page < pages; page++)
        {
            nextPage[page] = NIL;
        }

        children = new ChildIndex(maxNodes);
        receipts = new LockReceipts(maxReceipts);
        blockedInSubtree = new int[maxNodes];
        deletedChildren = new int[maxNodes];
        passParents = new int[maxNodes];
        verifier = new TreeVerifier(this, maxNodes, pages);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Lookup
    // ------------------------------------------------------------------------------------------------------------

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
        walk(hi, lo, offset, count, includeLoading);
        fillMatch(out);
    }

    /**
     * {@link #match}, also writing the KV page id of each matched page {@code i} to {@code pageIds[pageOffset + i]}
     * for {@code i} in {@code [0, out.pages)}, as the walk passes it ({@link #collectPages} of the matched path
     * without a second walk). Nothing else of {@code pageIds} is written.
     *
     * @param hi             fingerprint high words.
     * @param lo             fingerprint low words.
     * @param offset         index of page 0 in the fingerprint arrays.
     * @param count          pages in the sequence.
     * @param includeLoading whether nodes with an in-flight load may be matched (fault path only).
     * @param out            filled with the result.
     * @param pageIds        receives the matched pages' KV page ids.
     * @param pageOffset     index of page 0 in {@code pageIds}.
     */
    public void matchPages(final long[] hi, final long[] lo, final int offset, final int count,
        final boolean includeLoading, final MatchResult out, final int[] pageIds, final int pageOffset)
    {
        walkFrom(ROOT, 0, ROOT, 0, hi, lo, offset, count, includeLoading, pageIds, pageOffset);
        fillMatch(out);
    }

    private void fillMatch(final MatchResult out)
    {
        out.pages = walkPages;
        out.node = walkNode;
        out.nodePages = depth[walkNode];
        out.partialNode = walkChild;
        out.mambaNode = walkMambaNode;
        out.mambaPages = walkMambaPages;
    }

    /**
     * A counter that changes whenever a {@link #match} result may change, so a caller can keep the result of a
     * match and reuse it while the counter stays the same. {@link #match} reads the child index, the nodes' page
     * runs, fingerprints and depths, their loading marks and their Mamba slots; these change only when a node is
     * allocated (a new leaf, the upper half of a split), a node is deleted, a loading mark is set or cleared, or a
     * Mamba state is attached or dropped, and each of those bumps the counter. Locks, access sequences, the LRU
     * lists and the pools' states are not read by a match and do not bump it. A pure function of the changes
     * applied, so deterministic; never part of the state hash.
     *
     * @return the current match version.
     */
    public long matchVersion()
    {
        return matchVersion;
    }

    private void walk(final long[] hi, final long[] lo, final int offset, final int count,
        final boolean includeLoading)
    {
        walkFrom(ROOT, 0, ROOT, 0, hi, lo, offset, count, includeLoading, null, 0);
    }

    /**
     * The walk of {@link #match} and {@link #insert}, started at {@code start} (ending {@code startPages} pages in,
     * the deepest Mamba node at or above it being {@code startMambaNode}, ending {@code startMambaPages} in) as a walk
     * from the root that reached it would continue. When {@code record} is not null, the id of each page matched
     * from {@code startPages} on is written to {@code record[recordOffset + i]}.
     */
    private void walkFrom(final int start, final int startPages, final int startMambaNode, final int startMambaPages,
        final long[] hi, final long[] lo, final int offset, final int count, final boolean includeLoading,
        final int[] record, final int recordOffset)
    {
        int node = start;
        int i = startPages;
        int mNode = startMambaNode;
        int mPages = startMambaPages;
        walkChild = NO_NODE;
        walkInto = 0;
        walkStoppedAtLoading = false;
        while (i < count)
        {
            // a leaf has no child to look up: the walk ends without a probe of the child index
            final int child = 0 == childCount[node] ? NO_NODE : children.find(node, hi[offset + i], lo[offset + i]);
            if (NO_NODE == child)
            {
                break;
            }
            if (!includeLoading && NO_OP != loadingOp[child])
            {
                walkStoppedAtLoading = true;
                break;
            }
            final int n = pageCount[child];
            int page = firstPage[child];
            int k = 0;
            while (k < n && i < count && pageHi[page] == hi[offset + i] && pageLo[page] == lo[offset + i])
            {
                if (null != record)
                {
                    record[recordOffset + i] = page;
                }
                k++;
                i++;
                page = nextPage[page];
            }
            if (k == n)
            {
                node = child;
                if (NO_SLOT != mambaSlot[child])
                {
                    mNode = child;
                    mPages = i;
                }
            }
            else
            {
                walkChild = child;
                walkInto = k;
                break;
            }
        }
        walkNode = node;
        walkPages = i;
        walkMambaNode = mNode;
        walkMambaPages = mPages;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Structure changes
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Split {@code node} so that a node ends exactly {@code pagesIntoNode} pages into it; the new parent takes
     * those pages, the node keeps the rest, its children and its Mamba state. The new parent copies the node's
     * FULL and op lock counts (its subtree holds the same locks), has MAMBA lock 0, no Mamba state and the node's
     * last access. Records NODE_SPLIT, then the SLOT_TRANSITIONs NODE(node) to NODE(new parent) of the moved
     * pages. Splitting a loading node (possible only on the fault path, after a match that includes loading
     * nodes) marks the new parent with the same load, and clearing the node's mark clears it there too.
     *
     * @param node          to split; must not be the root.
     * @param pagesIntoNode 1 .. pageCount(node) - 1.
     * @return the new parent node, or {@link #NO_NODE} when the node pool is exhausted (nothing changes).
     * @throws IllegalArgumentException for the root, a dead node, or a split point out of range.
     */
    public int split(final int node, final int pagesIntoNode)
    {
        if (!live(node) || ROOT == node)
        {
            throw new IllegalArgumentException("cannot split node " + node);
        }
        if (pagesIntoNode < 1 || pagesIntoNode >= pageCount[node])
        {
            throw new IllegalArgumentException(
                "split of node " + node + " at " + pagesIntoNode + " of " + pageCount[node] + " pages");
        }
        if (0 == freeNodeTop)
        {
            return NO_NODE;
        }
        return splitNode(node, pagesIntoNode);
    }

    private int splitNode(final int node, final int k)
    {
        final int newParent = allocNode();
        effects.nodeSplit(node, newParent, k);

        final int oldParent = parent[node];
        final int first = firstPage[node];
        int last = first;
        for (int i = 1; i < k; i++)
        {
            last = nextPage[last];
        }
        final int newFirst = nextPage[last];
        children.replace(oldParent, pageHi[first], pageLo[first], newParent);

        parent[newParent] = oldParent;
        firstPage[newParent] = first;
        lastPage[newParent] = last;
        nextPage[last] = NIL;
        pageCount[newParent] = k;
        depth[newParent] = depth[node] - pageCount[node] + k;
        childCount[newParent] = 1;
        fullLocks[newParent] = fullLocks[node];
        opLocks[newParent] = opLocks[node];
        lastAccess[newParent] = lastAccess[node];
        loadingOp[newParent] = loadingOp[node];

        firstPage[node] = newFirst;
        pageCount[node] -= k;
        parent[node] = newParent;
        children.put(newParent, pageHi[newFirst], pageLo[newFirst], node);
        nodeLru.insertAfter(node, newParent);

        int page = first;
        for (int i = 0; i < k; i++)
        {
            final int next = nextPage[page];
            movePage(page, SlotState.NODE, newParent);
            page = next;
        }
        countSplit(node, newParent, k);
        return newParent;
    }

    /**
     * Insert pages {@code [0, count)} of a sequence. Pages already in the tree are kept (dedupe) and
     * {@code canonical[i]} gets the tree's page id; new pages take {@code kvPages[i]}, which moves from its
     * current owner to NODE, and {@code canonical[i] = kvPages[i]}. New pages always form one new leaf under
     * the node reached (splitting a node at the divergence or at {@code count} as needed). The walk stops in front
     * of a loading node: then only the pages before it are inserted.
     * <p>
     * {@code kvPages} and {@code canonical} are indexed by page number {@code i} in {@code [0, count)};
     * {@code offset} applies to {@code hi} and {@code lo} only. The path to the node reached is then touched with
     * {@code sequence}. Records NODE_SPLIT (then the moved pages) for each split and NODE_INSERTED (then the new
     * pages' transitions) for the new leaf.
     *
     * @param hi        fingerprint high words.
     * @param lo        fingerprint low words.
     * @param offset    index of page 0 in the arrays.
     * @param count     pages to insert.
     * @param kvPages   the caller's device KV page per page (entries for pages already cached may be -1).
     * @param canonical receives the tree's page id per page inserted or found (the walk writes those it finds as
     *                  it passes them, so on a refusal they may have been written too).
     * @param sequence  access sequence for the LRU.
     * @param out       receives {@code pages} = pages now cached (== count unless stopped), {@code node} = node
     *                  ending exactly there.
     * @return {@link ResultCode#OK}, or {@link ResultCode#NODE_POOL_EXHAUSTED} with nothing changed; also, with
     * nothing changed, {@link ResultCode#SLOT_UNKNOWN} or {@link ResultCode#SLOT_ILLEGAL_TRANSITION} when a new
     * page id is out of range, already owned by a node, listed twice or not allowed to move to NODE.
     */
    public int insert(final long[] hi, final long[] lo, final int offset, final int count, final int[] kvPages,
        final int[] canonical, final long sequence, final MatchResult out)
    {
        walkFrom(ROOT, 0, ROOT, 0, hi, lo, offset, count, false, canonical, 0);
        return insertWalked(hi, lo, offset, count, kvPages, canonical, sequence, out);
    }

    /**
     * {@link #insert} with the walk started at {@code start}, a node the caller knows to lie on the sequence's path:
     * the same changes, effects, result code and {@code out} as {@link #insert}, at a cost that follows the pages
     * below {@code start} rather than the whole sequence. Only {@code canonical[depth(start), ...)} is written (all
     * of it when this falls back to {@link #insert}): the canonical ids of the pages above are those of the path to
     * {@code start}, which the caller already holds.
     * <p>
     * Why it is exact: a live node's path from the root (its fingerprints and page ids) never changes while it
     * keeps its incarnation, because nodes are deleted only as leaves (never under a live descendant), pages never
     * move between positions, and a split keeps the node id as the deeper half at the same depth, putting a new
     * parent with the same pages above it. So when the path to {@code start} spelled pages {@code [0, depth(start))}
     * of the sequence at incarnation {@code startIncarnation}, it still does, and a walk from the root reaches
     * {@code start} with {@code depth(start)} pages matched, unless it stops in front of a loading node on the
     * way; the walk from {@code start} then continues exactly as the root walk would. The deepest Mamba node the
     * root walk would have passed is found by climbing from {@code start}, which also checks that no node on the
     * path is loading. When {@code start} is the root, not live, of another incarnation, deeper than
     * {@code count}, or has a loading node on its path, this is {@link #insert} (the walk from the root).
     *
     * @param start            node on the sequence's path (e.g. one the caller holds a FULL lock on), or -1.
     * @param startIncarnation its {@link #incarnation} when the caller saw it on the sequence's path.
     * @param hi               fingerprint high words.
     * @param lo               fingerprint low words.
     * @param offset           index of page 0 in the arrays.
     * @param count            pages to insert.
     * @param kvPages          the caller's device KV page per page (entries for pages already cached may be -1).
     * @param canonical        receives the tree's page id per page inserted or found below {@code start}.
     * @param sequence         access sequence for the LRU.
     * @param out              as for {@link #insert}.
     * @return as for {@link #insert}.
     */
    public int insertFrom(final int start, final long startIncarnation, final long[] hi, final long[] lo,
        final int offset, final int count, final int[] kvPages, final int[] canonical, final long sequence,
        final MatchResult out)
    {
        if (ROOT == start || !live(start) || incarnation[start] != startIncarnation || depth[start] > count)
        {
            return insert(hi, lo, offset, count, kvPages, canonical, sequence, out);
        }
        int mNode = ROOT;
        int n = start;
        while (ROOT != n)
        {
            if (NO_OP != loadingOp[n])
            {
                return insert(hi, lo, offset, count, kvPages, canonical, sequence, out);
            }
            if (ROOT == mNode && NO_SLOT != mambaSlot[n])
            {
                mNode = n;
            }
            n = parent[n];
        }
        walkFrom(start, depth[start], mNode, depth[mNode], hi, lo, offset, count, false, canonical, 0);
        return insertWalked(hi, lo, offset, count, kvPages, canonical, sequence, out);
    }

    private int insertWalked(final long[] hi, final long[] lo, final int offset, final int count,
        final int[] kvPages, final int[] canonical, final long sequence, final MatchResult out)
    {
        final int matchedPages = walkPages;
        final int reached = walkNode;
        final int partial = walkChild;
        final int into = walkInto;
        final boolean needLeaf = !walkStoppedAtLoading && matchedPages < count;
        final int needed = (NO_NODE != partial ? 1 : 0) + (needLeaf ? 1 : 0);
        if (needed > freeNodeTop)
        {
            out.clear();
            return ResultCode.NODE_POOL_EXHAUSTED;
        }
        if (needLeaf)
        {
            final int result = checkNewPages(kvPages, matchedPages, count);
            if (ResultCode.OK != result)
            {
                out.clear();
                return result;
            }
        }

        int end = reached;
        if (NO_NODE != partial)
        {
            end = splitNode(partial, into);
        }
        if (needLeaf)
        {
            end = newLeaf(end, hi, lo, offset, matchedPages, count, kvPages, canonical, sequence);
        }

        out.pages = depth[end];
        out.node = end;
        out.nodePages = depth[end];
        out.partialNode = NO_NODE;
        out.mambaNode = walkMambaNode;
        out.mambaPages = walkMambaPages;
        out.existingPages = matchedPages;
        if (ROOT != end)
        {
            touch(end, sequence);
        }
        return ResultCode.OK;
    }

    private int checkNewPages(final int[] kvPages, final int from, final int to)
    {
        int result = ResultCode.OK;
        int j = from;
        for (; j < to; j++)
        {
            final int page = kvPages[j];
            if (page < 0 || page >= pageMark.length)
            {
                result = ResultCode.SLOT_UNKNOWN;
                break;
            }
            final SlotState state = kvPool.state(page);
            if (pageMark[page] || SlotState.NODE == state || !SlotPool.legal(state, SlotState.NODE))
            {
                result = ResultCode.SLOT_ILLEGAL_TRANSITION;
                break;
            }
            pageMark[page] = true;
        }
        for (int i = from; i < j; i++)
        {
            pageMark[kvPages[i]] = false;
        }
        return result;
    }

    private int newLeaf(final int parentNode, final long[] hi, final long[] lo, final int offset, final int from,
        final int to, final int[] kvPages, final int[] canonical, final long sequence)
    {
        final int leaf = allocNode();
        final int pages = to - from;
        parent[leaf] = parentNode;
        pageCount[leaf] = pages;
        depth[leaf] = depth[parentNode] + pages;
        lastAccess[leaf] = sequence;
        effects.nodeInserted(leaf, parentNode, pages, depth[leaf]);

        int previous = NIL;
        for (int j = from; j < to; j++)
        {
            final int page = kvPages[j];
            pageHi[page] = hi[offset + j];
            pageLo[page] = lo[offset + j];
            nextPage[page] = NIL;
            if (NIL == previous)
            {
                firstPage[leaf] = page;
            }
            else
            {
                nextPage[previous] = page;
            }
            previous = page;
            canonical[j] = page;
            movePage(page, SlotState.NODE, leaf);
        }
        lastPage[leaf] = previous;
        children.put(parentNode, hi[offset + from], lo[offset + from], leaf);
        childCount[parentNode]++;
        nodeLru.append(leaf);
        countNewNode(leaf);
        return leaf;
    }

    /**
     * Delete a leaf: its pages and Mamba slot go FREE, NODE_DELETED is recorded. A loading leaf may be deleted
     * (a cancelled or failed load).
     *
     * @param node leaf to delete.
     * @return {@link ResultCode#OK}, {@link ResultCode#NODE_HAS_CHILDREN}, {@link ResultCode#NODE_LOCKED} (any
     * FULL or MAMBA lock count not zero) or {@link ResultCode#NODE_UNKNOWN} (not live, or the root).
     */
    public int deleteLeaf(final int node)
    {
        if (!live(node) || ROOT == node)
        {
            return ResultCode.NODE_UNKNOWN;
        }
        if (childCount[node] > 0)
        {
            return ResultCode.NODE_HAS_CHILDREN;
        }
        if (0 != fullLocks[node] || 0 != mambaLocks[node])
        {
            return ResultCode.NODE_LOCKED;
        }
        deleteNode(node);
        return ResultCode.OK;
    }

    private void deleteNode(final int node)
    {
        matchVersion++;
        countDeletedLeaf(node);
        final int p = parent[node];
        final int first = firstPage[node];
        children.remove(p, pageHi[first], pageLo[first]);
        childCount[p]--;

        int page = first;
        while (NIL != page)
        {
            final int next = nextPage[page];
            nextPage[page] = NIL;
            movePage(page, SlotState.FREE, SlotPool.NO_OWNER);
            page = next;
        }
        dropMamba(node);
        nodeLru.remove(node);
        resetNode(node);
        liveNodes--;
        freeNodes[freeNodeTop++] = node;
        effects.nodeDeleted(node);
    }

    private void movePage(final int page, final SlotState to, final long owner)
    {
        final int result = kvPool.transition(page, to, owner);
        if (ResultCode.OK != result)
        {
            throw new IllegalStateException("I2 page " + page + ": pool refused " + kvPool.state(page) + "(" +
                kvPool.owner(page) + ") -> " + to + "(" + owner + "): " + ResultCode.name(result));
        }
    }

    private void dropMamba(final int node)
    {
        final int slot = mambaSlot[node];
        if (NO_SLOT != slot)
        {
            final int result = mambaPool.transition(slot, SlotState.FREE, SlotPool.NO_OWNER);
            if (ResultCode.OK != result)
            {
                throw new IllegalStateException("I14 node " + node + ": pool refused to free Mamba slot " + slot +
                    " in state " + mambaPool.state(slot) + ": " + ResultCode.name(result));
            }
            mambaLru.remove(node);
            mambaSlot[node] = NO_SLOT;
            mambaAccess[node] = 0;
            matchVersion++;
        }
    }

    private int allocNode()
    {
        final int node = freeNodes[--freeNodeTop];
        matchVersion++;
        resetNode(node);
        incarnation[node]++;
        live[node] = true;
        liveNodes++;
        return node;
    }

    /**
     * @param node node id.
     * @return how many times the id was handed out; a node deleted and its id reused has a new incarnation.
     */
    public long incarnation(final int node)
    {
        return incarnation[node];
    }

    private void resetNode(final int node)
    {
        live[node] = false;
        parent[node] = NO_NODE;
        firstPage[node] = NIL;
        lastPage[node] = NIL;
        pageCount[node] = 0;
        depth[node] = 0;
        childCount[node] = 0;
        fullLocks[node] = 0;
        opLocks[node] = 0;
        ownOpLocks[node] = 0;
        mambaLocks[node] = 0;
        mambaOpLocks[node] = 0;
        mambaSlot[node] = NO_SLOT;
        lastAccess[node] = 0;
        mambaAccess[node] = 0;
        loadingOp[node] = NO_OP;
        nodeLru.clearLinks(node);
        mambaLru.clearLinks(node);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Locks
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Take a lock. FULL counts on the node and every ancestor below the root (a FULL lock on the root itself
     * gets a receipt and counts nowhere); MAMBA on the node only. A holder of kind OP also counts in the node's
     * op-lock count (FULL) or MAMBA op-lock count (MAMBA), so the fault path can ignore op locks.
     *
     * @param node       to lock (not the root for MAMBA).
     * @param component  FULL or MAMBA.
     * @param holderKind REQUEST or OP.
     * @param holder     request or op id.
     * @return receipt (> 0) to release with, or a negative {@link ResultCode}: {@link ResultCode#NODE_UNKNOWN}
     * for a dead node or a MAMBA lock on the root.
     * @throws IllegalArgumentException for a component or holder kind outside the lists above.
     * @throws IllegalStateException    when the receipt table is full (a sizing error).
     */
    public long lock(final int node, final Component component, final SlotState holderKind, final long holder)
    {
        if (Component.FULL != component && Component.MAMBA != component)
        {
            throw new IllegalArgumentException("lock component " + component);
        }
        if (SlotState.REQUEST != holderKind && SlotState.OP != holderKind)
        {
            throw new IllegalArgumentException("lock holder kind " + holderKind);
        }
        if (!live(node) || (Component.MAMBA == component && ROOT == node))
        {
            return ResultCode.NODE_UNKNOWN;
        }
        if (receipts.full())
        {
            throw new IllegalStateException("receipt table full: " + receipts.capacity() + " locks held");
        }
        final long receipt = receipts.add(node, (byte)component.value(), (byte)holderKind.value(), holder);
        addLock(node, (byte)component.value(), SlotState.OP == holderKind, 1);
        effects.locked(node, component, holderKind, holder, receipt);
        return receipt;
    }

    /**
     * Release a lock by its receipt, exactly once.
     *
     * @param receipt from {@link #lock}.
     * @return {@link ResultCode#OK}, or {@link ResultCode#LOCK_RECEIPT_UNKNOWN} with nothing changed.
     */
    public int unlock(final long receipt)
    {
        final int slot = receipts.take(receipt);
        if (slot < 0)
        {
            return ResultCode.LOCK_RECEIPT_UNKNOWN;
        }
        final int node = receipts.nodeAt(slot);
        final byte component = receipts.componentAt(slot);
        final byte kind = receipts.kindAt(slot);
        addLock(node, component, OP_CODE == kind, -1);
        effects.unlocked(node, Component.get(component), SlotState.get(kind), receipts.holderAt(slot), receipt);
        receipts.free(slot);
        return ResultCode.OK;
    }

    /**
     * Take a lock the engine relies on: a refusal is an engine bug.
     *
     * @param node       to lock.
     * @param component  FULL or MAMBA.
     * @param holderKind REQUEST or OP.
     * @param holder     request or op id.
     * @return the receipt.
     * @throws EngineBugException when {@link #lock} refuses (a dead node, a MAMBA lock on the root).
     */
    public long acquire(final int node, final Component component, final SlotState holderKind, final long holder)
    {
        final long receipt = lock(node, component, holderKind, holder);
        if (receipt < 0)
        {
            throw new EngineBugException(component + " lock of node " + node + " for " + holderKind + " " + holder +
                " refused: " + ResultCode.name((int)receipt));
        }
        return receipt;
    }

    /**
     * Release a lock the engine holds: an unknown receipt is an engine bug (a double release or a lost receipt).
     *
     * @param receipt from {@link #lock} or {@link #acquire}.
     * @throws EngineBugException when the receipt is not held.
     */
    public void release(final long receipt)
    {
        final int result = unlock(receipt);
        if (ResultCode.OK != result)
        {
            throw new EngineBugException("release of lock receipt " + receipt + " refused: " +
                ResultCode.name(result));
        }
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
        addLock(node, (byte)component.value(), SlotState.OP == holderKind, -1);
        effects.unlocked(node, component, holderKind, holder, receipt);
    }

    /**
     * Add {@code delta} to a lock count. A FULL lock counts on the node and every ancestor below the root, and the
     * evictable-page count follows in the same climb: each node's blocked state depends only on its own counts, so
     * updating it right after its own count gives what a second climb after all counts changed would give.
     */
    private void addLock(final int node, final byte component, final boolean op, final int delta)
    {
        if (FULL_CODE == component)
        {
            if (op && ROOT != node && NO_NODE != node)
            {
                ownOpLocks[node] += delta;
            }
            final boolean counted = live[node];
            int carried = 0;
            int n = node;
            while (ROOT != n && NO_NODE != n)
            {
                fullLocks[n] += delta;
                if (op)
                {
                    opLocks[n] += delta;
                }
                if (counted)
                {
                    final boolean before = NO_OP != loadingOp[n] || fullLocks[n] - delta > 0 || mambaLocks[n] > 0;
                    carried += (selfBlocked(n) ? 1 : 0) - (before ? 1 : 0);
                    if (0 != carried)
                    {
                        addBlockedAt(n, carried);
                    }
                }
                n = parent[n];
            }
        }
        else
        {
            mambaLocks[node] += delta;
            if (op)
            {
                mambaOpLocks[node] += delta;
            }
            countMambaLockChange(node, delta);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Loading marks, Mamba states, access
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Mark a node as being filled by an in-flight load, or clear the mark. Clearing also clears the ancestors
     * marked with the same load (the upper halves of a loading node split on the fault path). Clearing the mark
     * of a node that is no longer live (the load's node was already deleted) does nothing.
     *
     * @param node node.
     * @param op   the load op id, or -1 to clear.
     * @throws IllegalArgumentException when marking the root or a dead node.
     */
    public void markLoading(final int node, final long op)
    {
        if (!live(node) || ROOT == node)
        {
            if (NO_OP == op)
            {
                return;
            }
            throw new IllegalArgumentException("cannot mark node " + node + " loading");
        }
        if (NO_OP == op)
        {
            final long previous = loadingOp[node];
            int n = node;
            while (ROOT != n && NO_OP != previous && previous == loadingOp[n])
            {
                setLoadingOp(n, NO_OP);
                n = parent[n];
            }
        }
        setLoadingOp(node, op);
    }

    /**
     * @param node node.
     * @return the op filling it, or -1.
     */
    public long loadingOp(final int node)
    {
        return live(node) ? loadingOp[node] : NO_OP;
    }

    /**
     * Give a node its Mamba state: the slot moves from its current owner to NODE and the node joins the Mamba LRU
     * at its most-recent end (its Mamba last access = the node's FULL last access, or the latest Mamba access
     * when that is later, so the list stays in access order).
     *
     * @param node node without a Mamba state.
     * @param slot device Mamba slot.
     * @return {@link ResultCode#OK} or the pool's refusal; {@link ResultCode#NODE_UNKNOWN} for a dead node or the
     * root; {@link ResultCode#SLOT_ILLEGAL_TRANSITION} when the node already has a state or the slot belongs to
     * a node.
     * @throws IllegalStateException on a pure-attention tree.
     */
    public int attachMamba(final int node, final int slot)
    {
        if (null == mambaPool)
        {
            throw new IllegalStateException("attachMamba on a tree without a Mamba pool");
        }
        if (!live(node) || ROOT == node)
        {
            return ResultCode.NODE_UNKNOWN;
        }
        final int check = mambaPool.checkTransition(slot, SlotState.NODE, node);
        if (ResultCode.OK != check)
        {
            return check;
        }
        if (NO_SLOT != mambaSlot[node] || SlotState.NODE == mambaPool.state(slot))
        {
            return ResultCode.SLOT_ILLEGAL_TRANSITION;
        }
        mambaPool.transition(slot, SlotState.NODE, node);
        mambaSlot[node] = slot;
        matchVersion++;
        final int mambaTail = mambaLru.tail();
        mambaAccess[node] = NIL == mambaTail ? lastAccess[node] : Math.max(lastAccess[node], mambaAccess[mambaTail]);
        mambaLru.append(node);
        return ResultCode.OK;
    }

    /**
     * @param node node.
     * @return its Mamba slot or -1.
     */
    public int mambaSlot(final int node)
    {
        return live(node) ? mambaSlot[node] : NO_SLOT;
    }

    /**
     * Refresh the FULL last-access of a node and its ancestors, and the MAMBA last-access of the node only.
     * O(depth in nodes). Touching the root does nothing.
     *
     * @param node     node used.
     * @param sequence the current event sequence.
     * @throws IllegalArgumentException for a dead node.
     */
    public void touch(final int node, final long sequence)
    {
        if (!live(node))
        {
            throw new IllegalArgumentException("touch of dead node " + node);
        }
        if (ROOT == node)
        {
            return;
        }
        if (NO_SLOT != mambaSlot[node])
        {
            mambaAccess[node] = sequence;
            mambaLru.moveToTail(node);
        }
        int n = node;
        while (ROOT != n)
        {
            lastAccess[n] = sequence;
            nodeLru.moveToTail(n);
            n = parent[n];
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Eviction
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Evict least-recently-used unlocked leaves (FULL lock 0; op locks ignored when {@code ignoreOpLocks}, the
     * fault path) until at least {@code pages} KV pages were freed or no candidate is left. Each victim records
     * EVICTED(FULL), its slots going FREE, and NODE_DELETED. Loading leaves and leaves with a MAMBA lock are
     * never victims. A parent left childless becomes a candidate in its own LRU position, which always lies
     * after its children, so one pass from the least-recent end suffices: O(nodes) worst case per call (and so
     * per victim).
     *
     * @param pages         KV pages wanted.
     * @param ignoreOpLocks fault path: treat locks held by operations as absent.
     * @return pages freed.
     */
    public int evictPages(final int pages, final boolean ignoreOpLocks)
    {
        return evictPages(pages, ignoreOpLocks, Integer.MAX_VALUE);
    }

    /**
     * {@link #evictPages(int, boolean)}, stopping before the first victim whose effects (EVICTED, a SLOT_TRANSITION
     * per page and one for its Mamba state, NODE_DELETED) would take the input's effects past {@code maxEffects}: a
     * TICK's count is whatever the caller sent, and one journal document records at most so many effects.
     *
     * @param pages         KV pages wanted.
     * @param ignoreOpLocks fault path: treat locks held by operations as absent.
     * @param maxEffects    the most effects the input may have recorded when this returns.
     * @return pages freed.
     */
    public int evictPages(final int pages, final boolean ignoreOpLocks, final int maxEffects)
    {
        int freed = 0;
        int node = nodeLru.head();
        while (NIL != node && freed < pages)
        {
            final int next = nodeLru.next(node);
            if (0 == childCount[node] && NO_OP == loadingOp[node] &&
                effectiveFullLocks(node, ignoreOpLocks) <= 0 && effectiveMambaLocks(node, ignoreOpLocks) <= 0)
            {
                if ((long)effects.list().size() + pageCount[node] + (NO_SLOT == mambaSlot[node] ? 2 : 3) > maxEffects)
                {
                    break;
                }
                effects.evicted(node, Component.FULL);
                freed += pageCount[node];
                deleteNode(node);
            }
            node = next;
        }
        return freed;
    }

    /**
     * Drop least-recently-used Mamba states (MAMBA lock 0, no op lock, not loading) until {@code slots} slots
     * were freed or no candidate is left. An inner node loses only its state (EVICTED(MAMBA)); a leaf victim is
     * deleted whole (EVICTED(FULL), needs FULL lock 0), otherwise it is skipped (under rules 3 not when the pass
     * deleted its children: it then loses only its state; see {@link #exactMamba}). One pass over the Mamba LRU:
     * O(nodes) worst case per call (and so per victim).
     *
     * @param slots         Mamba slots wanted.
     * @param ignoreOpLocks fault path: treat locks held by operations as absent.
     * @return slots freed.
     */
    public int evictMamba(final int slots, final boolean ignoreOpLocks)
    {
        int freed = 0;
        int marked = 0;
        int node = mambaLru.head();
        while (NIL != node && freed < slots)
        {
            final int next = mambaLru.next(node);
            if (mambaCandidate(node, ignoreOpLocks))
            {
                final boolean locked = effectiveFullLocks(node, ignoreOpLocks) > 0;
                if (childCount[node] > 0 || (exactMamba && locked && deletedChildren[node] > 0))
                {
                    effects.evicted(node, Component.MAMBA);
                    dropMamba(node);
                    freed++;
                }
                else if (!locked)
                {
                    final int p = parent[node];
                    effects.evicted(node, Component.FULL);
                    deleteNode(node);
                    freed++;
                    if (exactMamba && deletedChildren[p]++ == 0)
                    {
                        passParents[marked++] = p;
                    }
                }
            }
            node = next;
        }
        for (int i = 0; i < marked; i++)
        {
            deletedChildren[passParents[i]] = 0;
        }
        return freed;
    }

    /**
     * A Mamba state that eviction may drop: not loading, MAMBA lock 0, and no operation holding the node. Under
     * rules 1 and 2 an operation on any descendant (its FULL lock is path-wide) kept the state too; under rules 3
     * only one on the node itself does (a backup reads the node's state, a load may publish into it), since dropping
     * an inner node's state keeps the node and its pages, which is all a descendant's operation needs.
     */
    private boolean mambaCandidate(final int node, final boolean ignoreOpLocks)
    {
        return NO_OP == loadingOp[node] && effectiveMambaLocks(node, ignoreOpLocks) <= 0 &&
            (ignoreOpLocks || (exactMamba ? ownOpLocks[node] : opLocks[node]) <= 0);
    }

    /**
     * Rules 3: Mamba eviction (and the count the admission gate asks for) takes every state the domain calls
     * evictable, whatever the order of the Mamba LRU: (1) an operation's FULL lock keeps only the state of its own
     * node, not those of the node's ancestors, which it neither reads nor writes; (2) a node that had children when
     * the pass began keeps its state droppable (dropped, the node kept) when the pass deleted those children before
     * reaching it and a lock keeps the node itself. Under rules 1 and 2 a descendant's operation kept the state, and
     * such a node was skipped, so the gate could refuse while enough states were evictable. Set once, before any
     * input.
     *
     * @param on true under admission rules 3 and later.
     */
    public void exactMamba(final boolean on)
    {
        exactMamba = on;
    }

    private int effectiveFullLocks(final int node, final boolean ignoreOpLocks)
    {
        return ignoreOpLocks ? fullLocks[node] - opLocks[node] : fullLocks[node];
    }

    private int effectiveMambaLocks(final int node, final boolean ignoreOpLocks)
    {
        return ignoreOpLocks ? mambaLocks[node] - mambaOpLocks[node] : mambaLocks[node];
    }

    /**
     * KV pages that {@link #evictPages} could free now: pages of non-root nodes with FULL lock 0 whose subtree
     * holds no loading node and no MAMBA-locked node (a loading or MAMBA-locked leaf is never a victim, so its
     * ancestors never become leaves). Where every loading node is also FULL-locked by its load and MAMBA locks sit
     * on FULL-locked paths, this is simply the pages of non-root, non-loading nodes with FULL lock 0. O(1): the
     * count is kept as nodes are inserted, split, deleted, locked, unlocked and marked loading (each node keeps
     * the number of blocked nodes in its subtree, updated along the path that changed, O(depth in nodes));
     * {@link #verify} checks it against {@link #countEvictablePages}.
     *
     * @return KV pages that {@link #evictPages} could free now.
     */
    public int evictablePages()
    {
        return evictablePageCount;
    }

    /**
     * The same value as {@link #evictablePages} recounted from scratch: one pass over the FULL LRU (children
     * before parents), O(nodes). For checks and tests.
     *
     * @return KV pages that {@link #evictPages} could free now.
     */
    public int countEvictablePages()
    {
        return verifier.countEvictablePages();
    }

    // ------------------------------------------------------------------------------------------------------------
    // The evictable-page count, kept incrementally
    // ------------------------------------------------------------------------------------------------------------

    private boolean selfBlocked(final int node)
    {
        return NO_OP != loadingOp[node] || fullLocks[node] > 0 || mambaLocks[node] > 0;
    }

    /**
     * Add {@code delta} blocked nodes to the subtree counts of {@code from} and its ancestors below the root,
     * moving the pages of each node whose count leaves or reaches zero out of or into the evictable count.
     */
    private void addBlocked(final int from, final int delta)
    {
        int n = from;
        while (ROOT != n && NO_NODE != n && 0 != delta)
        {
            addBlockedAt(n, delta);
            n = parent[n];
        }
    }

    private void addBlockedAt(final int node, final int delta)
    {
        final boolean wasEvictable = 0 == blockedInSubtree[node];
        blockedInSubtree[node] += delta;
        final boolean evictable = 0 == blockedInSubtree[node];
        if (wasEvictable != evictable)
        {
            evictablePageCount += evictable ? pageCount[node] : -pageCount[node];
        }
    }

    private void countNewNode(final int leaf)
    {
        final int blocked = selfBlocked(leaf) ? 1 : 0;
        blockedInSubtree[leaf] = blocked;
        if (0 == blocked)
        {
            evictablePageCount += pageCount[leaf];
        }
        addBlocked(parent[leaf], blocked);
    }

    private void countSplit(final int node, final int newParent, final int movedPages)
    {
        final int blocked = selfBlocked(newParent) ? 1 : 0;
        blockedInSubtree[newParent] = blockedInSubtree[node] + blocked;
        if (0 == blockedInSubtree[node])
        {
            evictablePageCount -= movedPages;
        }
        if (0 == blockedInSubtree[newParent])
        {
            evictablePageCount += movedPages;
        }
        addBlocked(parent[newParent], blocked);
    }

    private void countDeletedLeaf(final int leaf)
    {
        if (0 == blockedInSubtree[leaf])
        {
            evictablePageCount -= pageCount[leaf];
        }
        addBlocked(parent[leaf], -blockedInSubtree[leaf]);
        blockedInSubtree[leaf] = 0;
    }

    private void countMambaLockChange(final int node, final int delta)
    {
        if (!live[node] || ROOT == node)
        {
            return;
        }
        final boolean now = selfBlocked(node);
        final boolean before = NO_OP != loadingOp[node] || fullLocks[node] > 0 || mambaLocks[node] - delta > 0;
        addBlocked(node, (now ? 1 : 0) - (before ? 1 : 0));
    }

    private void setLoadingOp(final int node, final long op)
    {
        final boolean before = selfBlocked(node);
        matchVersion++;
        loadingOp[node] = op;
        addBlocked(node, (selfBlocked(node) ? 1 : 0) - (before ? 1 : 0));
    }

    /**
     * Mamba slots that {@link #evictMamba} could free now: it simulates one pass over the Mamba LRU (nodes with
     * a state, MAMBA lock 0, op lock 0, not loading, and either with children or FULL lock 0, counting children
     * deleted earlier in the pass; rules 3 as {@link #exactMamba} says). O(Mamba nodes) per call.
     *
     * @return Mamba slots that {@link #evictMamba} could free now.
     */
    public int evictableMambaSlots()
    {
        return countEvictableMamba(Integer.MAX_VALUE);
    }

    /**
     * Whether {@link #evictMamba} could free at least {@code wanted} Mamba slots now: the same simulated pass as
     * {@link #evictableMambaSlots()}, stopped as soon as the count reaches {@code wanted} (the count only grows along
     * the pass, so the answer is the same as comparing the full count). What the admission gate asks.
     *
     * @param wanted slots wanted.
     * @return true when at least that many could be freed.
     */
    public boolean evictableMambaSlotsAtLeast(final int wanted)
    {
        return wanted <= 0 || countEvictableMamba(wanted) >= wanted;
    }

    private int countEvictableMamba(final int enough)
    {
        int total = 0;
        int node = mambaLru.head();
        while (NIL != node && total < enough)
        {
            if (mambaCandidate(node, false))
            {
                if (childCount[node] - deletedChildren[node] > 0)
                {
                    total++;
                }
                else if (fullLocks[node] <= 0)
                {
                    total++;
                    deletedChildren[parent[node]]++;
                }
                else if (exactMamba && childCount[node] > 0)
                {
                    // Its children went earlier in the pass; its state is dropped, the locked node kept.
                    total++;
                }
            }
            node = mambaLru.next(node);
        }
        final int end = node;
        node = mambaLru.head();
        while (end != node)
        {
            deletedChildren[parent[node]] = 0;
            node = mambaLru.next(node);
        }
        return total;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Accessors
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Copy the KV page ids from the root to the end of {@code node} into {@code out}.
     *
     * @param node node.
     * @param out  receives the page ids in order.
     * @return number of pages (the node's depth).
     */
    public int collectPages(final int node, final int[] out)
    {
        if (!live(node))
        {
            throw new IllegalArgumentException("collectPages of dead node " + node);
        }
        int end = depth[node];
        int n = node;
        while (ROOT != n)
        {
            end -= pageCount[n];
            int page = firstPage[n];
            for (int i = 0; i < pageCount[n]; i++)
            {
                out[end + i] = page;
                page = nextPage[page];
            }
            n = parent[n];
        }
        return depth[node];
    }

    /**
     * {@link #collectPages} of the pages from {@code from} on only: {@code out[i]} for {@code i} in
     * {@code [from, depth(node))} gets the same id, nothing else of {@code out} is written, and the climb stops at
     * the first node ending at or above {@code from}, so the cost follows the pages copied rather than the depth.
     *
     * @param node node.
     * @param from first page wanted, 0 .. depth(node).
     * @param out  receives the page ids at their page numbers.
     * @return the node's depth.
     * @throws IllegalArgumentException for a dead node.
     */
    public int collectPagesFrom(final int node, final int from, final int[] out)
    {
        if (!live(node))
        {
            throw new IllegalArgumentException("collectPages of dead node " + node);
        }
        int n = node;
        while (ROOT != n && depth[n] > from)
        {
            final int start = depth[n] - pageCount[n];
            int page = firstPage[n];
            for (int i = start; i < depth[n]; i++)
            {
                if (i >= from)
                {
                    out[i] = page;
                }
                page = nextPage[page];
            }
            n = parent[n];
        }
        return depth[node];
    }

    public int parent(final int node)
    {
        return parent[node];
    }

    public int pageCount(final int node)
    {
        return pageCount[node];
    }

    /** @param node node. @return depth in pages at the node's end. */
    public int depth(final int node)
    {
        return depth[node];
    }

    public int childCount(final int node)
    {
        return childCount[node];
    }

    public int fullLocks(final int node)
    {
        return fullLocks[node];
    }

    public int mambaLocks(final int node)
    {
        return mambaLocks[node];
    }

    /** @param node node. @return the part of its FULL lock count held by operations. */
    public int opLocks(final int node)
    {
        return opLocks[node];
    }

    /** @param node node. @return FULL locks held by operations on this node itself (not on a descendant). */
    public int ownOpLocks(final int node)
    {
        return ownOpLocks[node];
    }

    /** @param node node. @return the part of its MAMBA lock count held by operations. */
    public int mambaOpLocks(final int node)
    {
        return mambaOpLocks[node];
    }

    /** @param node node. @return FULL last-access sequence. */
    public long lastAccess(final int node)
    {
        return lastAccess[node];
    }

    /** @param node node. @return MAMBA last-access sequence (0 without a state). */
    public long mambaAccess(final int node)
    {
        return mambaAccess[node];
    }

    /** @param node node. @return KV page id of its first page, or -1 for the root. */
    public int firstPage(final int node)
    {
        return firstPage[node];
    }

    /** @param node node. @return KV page id of its last page, or -1 for the root. */
    public int lastPage(final int node)
    {
        return lastPage[node];
    }

    /** @param page KV page id held by a node. @return the next page of the same node, or -1. */
    public int nextPage(final int page)
    {
        return nextPage[page];
    }

    /** @param page KV page id held by a node. @return high word of its fingerprint. */
    public long pageHi(final int page)
    {
        return pageHi[page];
    }

    /** @param page KV page id held by a node. @return low word of its fingerprint. */
    public long pageLo(final int page)
    {
        return pageLo[page];
    }

    public boolean live(final int node)
    {
        return node >= 0 && node < maxNodes && live[node];
    }

    /** @return live nodes, the root included. */
    public int nodeCount()
    {
        return liveNodes;
    }

    /** @return node pool size, the root included. */
    public int maxNodes()
    {
        return maxNodes;
    }

    /** @return nodes that can still be created. */
    public int freeNodeCount()
    {
        return freeNodeTop;
    }

    /** @return locks currently held (live receipts). */
    public int receiptCount()
    {
        return receipts.count();
    }

    /**
     * @param receipt a receipt.
     * @return the node it locks, or {@link #NO_NODE} when it is not live.
     */
    public int receiptNode(final long receipt)
    {
        final int slot = receipts.slotOf(receipt);
        return slot < 0 ? NO_NODE : receipts.nodeAt(slot);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Verification and hashing
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Check I1 (root empty, every other node has a live parent and a non-empty key, children unique by first
     * page), I2 (a node's page count equals the KV pages the pool says it owns), I4, I5 (lock counts non-negative,
     * a parent's FULL count at least the sum of its children's, receipts consistent), I6 (LRU lists hold exactly
     * the live nodes / the nodes with a Mamba state), I14 (a Mamba slot only on a node, owned by that node) and
     * the kept {@link #evictablePages} count against a recount, in O(n). For tests and replay; never called by
     * the engine loop.
     *
     * @throws IllegalStateException naming the node and the invariant.
     */
    public void verify()
    {
        verifier.verify();
    }

    /**
     * @return order-independent hash of the tree's content (node ids, parents, fingerprints, page ids, Mamba
     * slots, locks, loading marks, last-access sequences and the held receipts).
     */
    public long stateHash()
    {
        long hash = Hashing.mix(liveNodes) + receipts.stateHash();
        for (int node = 0; node < maxNodes; node++)
        {
            if (!live[node])
            {
                continue;
            }
            long h = Hashing.mix(node + 0x9E3779B97F4A7C15L * parent[node]);
            h = Hashing.mix(h + mambaSlot[node] * 0xC2B2AE3D27D4EB4FL + loadingOp[node]);
            h = Hashing.mix(h + fullLocks[node] + ((long)opLocks[node] << 16) + ((long)mambaLocks[node] << 32) +
                ((long)mambaOpLocks[node] << 48));
            h = Hashing.mix(h + lastAccess[node] * 0x165667B19E3779F9L + mambaAccess[node]);
            int page = firstPage[node];
            while (NIL != page)
            {
                h = Hashing.mix(h * 31 + page + Hashing.mix(pageHi[page]) +
                    Hashing.mix(pageLo[page] ^ 0x27D4EB2F165667C5L));
                page = nextPage[page];
            }
            hash += h;
        }
        return hash;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Package-private views for the verifier
    // ------------------------------------------------------------------------------------------------------------

    /** @return the FULL LRU of all non-root nodes. */
    IndexList nodeLru()
    {
        return nodeLru;
    }

    /** @return the MAMBA LRU of the nodes holding a Mamba state. */
    IndexList mambaLru()
    {
        return mambaLru;
    }

    /** @return the child index. */
    ChildIndex childIndex()
    {
        return children;
    }

    /** @return the lock receipt table. */
    LockReceipts receipts()
    {
        return receipts;
    }

    /** @return the device KV pool. */
    SlotPool kvPool()
    {
        return kvPool;
    }

    /** @return the device Mamba pool, or null. */
    SlotPool mambaPool()
    {
        return mambaPool;
    }

    /** @param index 0 .. freeNodeCount() - 1. @return that entry of the free node stack. */
    int freeNodeAt(final int index)
    {
        return freeNodes[index];
    }

    /** @param node any node id, live or not. @return its Mamba slot field. */
    int rawMambaSlot(final int node)
    {
        return mambaSlot[node];
    }

    /** @param node any node id, live or not. @return its loading op field. */
    long rawLoadingOp(final int node)
    {
        return loadingOp[node];
    }
}
