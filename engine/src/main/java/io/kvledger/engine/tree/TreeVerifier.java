package io.kvledger.engine.tree;

import io.kvledger.engine.util.IndexList;

import io.kvledger.engine.slot.SlotPool;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.SlotState;

/**
 * Checks a {@link RadixTree} against its invariants from scratch, and recounts its evictable pages.
 * <p>
 * Owns only the scratch arrays the checks need (per-node flags, counters and positions, per-page marks), sized at
 * construction so a check allocates nothing but the exception that reports a broken invariant. Reads the tree
 * through its accessors and changes nothing in it. For tests and replay; never called by the engine loop.
 */
final class TreeVerifier
{
    private static final int NIL = -1;
    private static final byte FULL_CODE = (byte)Component.FULL.value();
    private static final byte OP_CODE = (byte)SlotState.OP.value();

    private final RadixTree tree;
    private final int maxNodes;
    private final boolean[] pageMark;
    private final boolean[] nodeFlag;
    private final boolean[] blockedBelow;
    private final int[] scratchA;
    private final int[] scratchB;
    private final int[] scratchC;
    private final int[] scratchD;
    private final int[] scratchE;

    /**
     * @param tree     tree to check.
     * @param maxNodes its node pool size.
     * @param pages    its KV pool size.
     */
    TreeVerifier(final RadixTree tree, final int maxNodes, final int pages)
    {
        this.tree = tree;
        this.maxNodes = maxNodes;
        pageMark = new boolean[pages];
        nodeFlag = new boolean[maxNodes];
        blockedBelow = new boolean[maxNodes];
        scratchA = new int[maxNodes];
        scratchB = new int[maxNodes];
        scratchC = new int[maxNodes];
        scratchD = new int[maxNodes];
        scratchE = new int[maxNodes];
    }

    /**
     * See {@link RadixTree#verify}.
     *
     * @throws IllegalStateException naming the node and the invariant.
     */
    void verify()
    {
        verifyRootAndPool();
        verifyNodes();
        verifyChildMap();
        verifyLruLists();
        verifyLocks();
        verifyEvictableCount();
    }

    /**
     * See {@link RadixTree#countEvictablePages}: one pass over the FULL LRU (children before parents).
     *
     * @return KV pages that {@link RadixTree#evictPages} could free now.
     */
    int countEvictablePages()
    {
        final IndexList lru = tree.nodeLru();
        int total = 0;
        int node = lru.head();
        while (NIL != node)
        {
            final boolean blocked = blockedBelow[node] || RadixTree.NO_OP != tree.rawLoadingOp(node) ||
                tree.fullLocks(node) > 0 || tree.mambaLocks(node) > 0;
            blockedBelow[node] = false;
            if (blocked)
            {
                blockedBelow[tree.parent(node)] = true;
            }
            else
            {
                total += tree.pageCount(node);
            }
            node = lru.next(node);
        }
        blockedBelow[RadixTree.ROOT] = false;
        return total;
    }

    private void verifyEvictableCount()
    {
        final int counted = countEvictablePages();
        if (counted != tree.evictablePages())
        {
            fail("I5", RadixTree.ROOT, "evictable page count " + tree.evictablePages() + " but " + counted +
                " recounted");
        }
    }

    private void verifyRootAndPool()
    {
        final int root = RadixTree.ROOT;
        if (!tree.live(root) || RadixTree.NO_NODE != tree.parent(root) || 0 != tree.pageCount(root) ||
            0 != tree.depth(root) || RadixTree.NO_SLOT != tree.rawMambaSlot(root) ||
            RadixTree.NO_OP != tree.rawLoadingOp(root))
        {
            fail("I1", root, "root must be live, parentless, empty, without Mamba state and not loading");
        }
        if (0 != tree.fullLocks(root) || 0 != tree.opLocks(root) || 0 != tree.mambaLocks(root) ||
            0 != tree.mambaOpLocks(root))
        {
            fail("I5", root, "root holds lock counts");
        }
        final int liveNodes = tree.nodeCount();
        final int freeNodeTop = tree.freeNodeCount();
        if (liveNodes + freeNodeTop != maxNodes)
        {
            fail("I1", root, "live " + liveNodes + " + free " + freeNodeTop + " != pool " + maxNodes);
        }
        int counted = 0;
        for (int node = 0; node < maxNodes; node++)
        {
            nodeFlag[node] = false;
            if (tree.live(node))
            {
                counted++;
            }
        }
        if (counted != liveNodes)
        {
            fail("I1", root, "live count " + liveNodes + " but " + counted + " live nodes");
        }
        for (int i = 0; i < freeNodeTop; i++)
        {
            final int node = tree.freeNodeAt(i);
            if (node <= root || node >= maxNodes || tree.live(node) || nodeFlag[node])
            {
                fail("I1", node, "bad or repeated entry on the free node stack");
            }
            nodeFlag[node] = true;
        }
        for (int i = 0; i < freeNodeTop; i++)
        {
            nodeFlag[tree.freeNodeAt(i)] = false;
        }
    }

    private void verifyNodes()
    {
        final SlotPool kvPool = tree.kvPool();
        final SlotPool mambaPool = tree.mambaPool();
        final int[] children = scratchA;
        for (int node = 0; node < maxNodes; node++)
        {
            children[node] = 0;
        }
        long pages = 0;
        int withMamba = 0;
        for (int node = 1; node < maxNodes; node++)
        {
            if (!tree.live(node))
            {
                continue;
            }
            final int p = tree.parent(node);
            if (p < 0 || p >= maxNodes || !tree.live(p) || p == node)
            {
                fail("I1", node, "parent " + p + " is not a live node");
            }
            children[p]++;
            final int pageCount = tree.pageCount(node);
            if (pageCount <= 0)
            {
                fail("I1", node, "empty key");
            }
            if (tree.depth(node) != tree.depth(p) + pageCount)
            {
                fail("I1", node, "depth " + tree.depth(node) + " != parent depth " + tree.depth(p) + " + " +
                    pageCount);
            }
            verifyPages(node, kvPool);
            pages += pageCount;
            final int slot = tree.rawMambaSlot(node);
            if (RadixTree.NO_SLOT != slot)
            {
                withMamba++;
                if (null == mambaPool || slot < 0 || slot >= mambaPool.capacity())
                {
                    fail("I14", node, "Mamba slot " + slot + " outside the pool");
                }
                if (SlotState.NODE != mambaPool.state(slot) || mambaPool.owner(slot) != node)
                {
                    fail("I14", node, "Mamba slot " + slot + " is " + mambaPool.state(slot) + " owned by " +
                        mambaPool.owner(slot));
                }
            }
            final int full = tree.fullLocks(node);
            final int op = tree.opLocks(node);
            final int mamba = tree.mambaLocks(node);
            final int mambaOp = tree.mambaOpLocks(node);
            if (full < 0 || op < 0 || mamba < 0 || mambaOp < 0 || op > full || mambaOp > mamba)
            {
                fail("I5", node, "lock counts full=" + full + " op=" + op + " mamba=" + mamba + " mambaOp=" +
                    mambaOp);
            }
        }
        for (int node = 0; node < maxNodes; node++)
        {
            final boolean live = tree.live(node);
            if (live && children[node] != tree.childCount(node))
            {
                fail("I1", node, "child count " + tree.childCount(node) + " but " + children[node] + " children");
            }
            if (!live && (RadixTree.NO_SLOT != tree.rawMambaSlot(node) ||
                RadixTree.NO_OP != tree.rawLoadingOp(node)))
            {
                fail("I14", node, "dead node keeps a Mamba slot or a loading mark");
            }
        }
        clearPageMarks();
        if (kvPool.count(SlotState.NODE) != pages)
        {
            fail("I2", RadixTree.ROOT, "the KV pool has " + kvPool.count(SlotState.NODE) + " NODE pages, the tree " +
                pages);
        }
        if (null != mambaPool && mambaPool.count(SlotState.NODE) != withMamba)
        {
            fail("I14", RadixTree.ROOT, "the Mamba pool has " + mambaPool.count(SlotState.NODE) +
                " NODE slots, the tree " + withMamba);
        }
        final int mambaNodes = tree.mambaLru().size();
        if (withMamba != mambaNodes)
        {
            fail("I6", RadixTree.ROOT, "Mamba node count " + mambaNodes + " but " + withMamba +
                " nodes hold a state");
        }
    }

    private void verifyPages(final int node, final SlotPool kvPool)
    {
        final int pageCount = tree.pageCount(node);
        int page = tree.firstPage(node);
        int previous = NIL;
        for (int i = 0; i < pageCount; i++)
        {
            if (page < 0 || page >= pageMark.length)
            {
                fail("I2", node, "page list entry " + i + " is " + page + " (page count " + pageCount + ")");
            }
            if (pageMark[page])
            {
                fail("I2", node, "page " + page + " is listed twice in the tree");
            }
            pageMark[page] = true;
            if (SlotState.NODE != kvPool.state(page) || kvPool.owner(page) != node)
            {
                fail("I2", node, "page " + page + " is " + kvPool.state(page) + " owned by " + kvPool.owner(page));
            }
            previous = page;
            page = tree.nextPage(page);
        }
        if (NIL != page || tree.lastPage(node) != previous)
        {
            fail("I2", node, "page list does not end at last page " + tree.lastPage(node));
        }
    }

    private void clearPageMarks()
    {
        for (int node = 1; node < maxNodes; node++)
        {
            if (tree.live(node))
            {
                int page = tree.firstPage(node);
                while (NIL != page)
                {
                    pageMark[page] = false;
                    page = tree.nextPage(page);
                }
            }
        }
    }

    private void verifyChildMap()
    {
        final ChildIndex index = tree.childIndex();
        final int liveNodes = tree.nodeCount();
        int entries = 0;
        for (int slot = 0; slot < index.capacity(); slot++)
        {
            if (!index.occupied(slot))
            {
                continue;
            }
            final int p = index.parentAt(slot);
            entries++;
            final int child = index.childAt(slot);
            if (child <= RadixTree.ROOT || child >= maxNodes || !tree.live(child) || tree.parent(child) != p)
            {
                fail("I1", child, "child map entry under " + p + " names a dead node or another parent");
            }
            final int first = tree.firstPage(child);
            if (tree.pageHi(first) != index.hiAt(slot) || tree.pageLo(first) != index.loAt(slot))
            {
                fail("I1", child, "child map key is not the node's first page fingerprint");
            }
        }
        if (entries != index.size() || entries != liveNodes - 1)
        {
            fail("I1", RadixTree.ROOT, "child map holds " + entries + " entries (size " + index.size() + ") for " +
                (liveNodes - 1) + " nodes");
        }
        for (int node = 1; node < maxNodes; node++)
        {
            if (tree.live(node))
            {
                final int first = tree.firstPage(node);
                if (index.find(tree.parent(node), tree.pageHi(first), tree.pageLo(first)) != node)
                {
                    fail("I1", node, "not found under its parent by its first page (duplicate first page?)");
                }
            }
        }
    }

    private void verifyLruLists()
    {
        final IndexList lru = tree.nodeLru();
        final int liveNodes = tree.nodeCount();
        final int[] position = scratchB;
        int count = 0;
        int previous = NIL;
        int node = lru.head();
        while (NIL != node)
        {
            if (count >= liveNodes - 1 || node <= RadixTree.ROOT || node >= maxNodes || !tree.live(node))
            {
                fail("I6", node, "FULL LRU holds a dead node, the root or a cycle");
            }
            if (lru.prev(node) != previous)
            {
                fail("I6", node, "FULL LRU back link " + lru.prev(node) + " != " + previous);
            }
            if (NIL != previous && tree.lastAccess(previous) > tree.lastAccess(node))
            {
                fail("I6", node, "FULL LRU out of access order after node " + previous);
            }
            position[node] = count++;
            previous = node;
            node = lru.next(node);
        }
        if (count != liveNodes - 1 || lru.tail() != previous)
        {
            fail("I6", RadixTree.ROOT, "FULL LRU holds " + count + " of " + (liveNodes - 1) + " nodes");
        }
        for (int n = 1; n < maxNodes; n++)
        {
            if (tree.live(n) && RadixTree.ROOT != tree.parent(n) && position[n] > position[tree.parent(n)])
            {
                fail("I6", n, "FULL LRU places node after its parent " + tree.parent(n));
            }
        }

        final IndexList mambaLru = tree.mambaLru();
        final int mambaNodes = mambaLru.size();
        count = 0;
        previous = NIL;
        node = mambaLru.head();
        while (NIL != node)
        {
            if (count >= mambaNodes || node <= RadixTree.ROOT || node >= maxNodes || !tree.live(node) ||
                RadixTree.NO_SLOT == tree.rawMambaSlot(node))
            {
                fail("I6", node, "MAMBA LRU holds a node without a Mamba state or a cycle");
            }
            if (mambaLru.prev(node) != previous)
            {
                fail("I6", node, "MAMBA LRU back link " + mambaLru.prev(node) + " != " + previous);
            }
            if (NIL != previous && tree.mambaAccess(previous) > tree.mambaAccess(node))
            {
                fail("I6", node, "MAMBA LRU out of access order after node " + previous);
            }
            count++;
            previous = node;
            node = mambaLru.next(node);
        }
        if (count != mambaNodes || mambaLru.tail() != previous)
        {
            fail("I6", RadixTree.ROOT, "MAMBA LRU holds " + count + " of " + mambaNodes + " nodes");
        }
    }

    private void verifyLocks()
    {
        final LockReceipts receipts = tree.receipts();
        final int[] full = scratchA;
        final int[] op = scratchC;
        final int[] mamba = scratchD;
        final int[] mambaOp = scratchE;
        final int[] ownOp = scratchB;
        for (int node = 0; node < maxNodes; node++)
        {
            ownOp[node] = 0;
            full[node] = 0;
            op[node] = 0;
            mamba[node] = 0;
            mambaOp[node] = 0;
        }
        int held = 0;
        for (int slot = 0; slot < receipts.capacity(); slot++)
        {
            final int node = receipts.nodeAt(slot);
            if (RadixTree.NO_NODE == node)
            {
                continue;
            }
            held++;
            final long receipt = receipts.receiptAt(slot);
            if (receipt <= 0 || receipt >= receipts.nextReceipt() || receipts.slotOf(receipt) != slot)
            {
                fail("I5", node, "receipt " + receipt + " is not mapped to its table slot " + slot);
            }
            if (!tree.live(node))
            {
                fail("I5", node, "receipt " + receipt + " locks a dead node");
            }
            final boolean isOp = OP_CODE == receipts.kindAt(slot);
            if (FULL_CODE == receipts.componentAt(slot))
            {
                if (RadixTree.ROOT != node)
                {
                    full[node]++;
                    op[node] += isOp ? 1 : 0;
                    ownOp[node] += isOp ? 1 : 0;
                }
            }
            else
            {
                mamba[node]++;
                mambaOp[node] += isOp ? 1 : 0;
            }
        }
        if (held != receipts.count() || held != receipts.mappedCount())
        {
            fail("I5", RadixTree.ROOT, held + " receipts held, table says " + receipts.count() + ", map " +
                receipts.mappedCount());
        }
        // Children precede parents on the FULL LRU (checked above), so one pass sums each subtree.
        final IndexList lru = tree.nodeLru();
        int node = lru.head();
        while (NIL != node)
        {
            if (full[node] != tree.fullLocks(node) || op[node] != tree.opLocks(node))
            {
                fail("I5", node, "FULL locks " + tree.fullLocks(node) + " (op " + tree.opLocks(node) +
                    ") but receipts give " + full[node] + " (op " + op[node] + ")");
            }
            if (ownOp[node] != tree.ownOpLocks(node))
            {
                fail("I5", node, "own op locks " + tree.ownOpLocks(node) + " but receipts give " + ownOp[node]);
            }
            if (mamba[node] != tree.mambaLocks(node) || mambaOp[node] != tree.mambaOpLocks(node))
            {
                fail("I5", node, "MAMBA locks " + tree.mambaLocks(node) + " (op " + tree.mambaOpLocks(node) +
                    ") but receipts give " + mamba[node] + " (op " + mambaOp[node] + ")");
            }
            final int p = tree.parent(node);
            if (RadixTree.ROOT != p)
            {
                full[p] += full[node];
                op[p] += op[node];
            }
            node = lru.next(node);
        }
    }

    private static void fail(final String invariant, final int node, final String detail)
    {
        throw new IllegalStateException(invariant + " node " + node + ": " + detail);
    }
}
