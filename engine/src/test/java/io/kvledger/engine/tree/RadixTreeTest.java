package io.kvledger.engine.tree;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RadixTreeTest
{
    private final TreeFixture f = new TreeFixture(64, 8, 16, 16);
    private final RadixTree tree = f.tree;
    private final EffectList list = f.list;

    @Test
    void shouldSplitKeepingMambaStateLocksAndChildrenWithTheDeeperHalf()
    {
        final int node = f.node(1, 1, 2, 3, 4);
        final int child = f.node(2, 1, 2, 3, 4, 5);
        final int slot = f.mambaPool.allocate(SlotState.REQUEST, 77);
        assertEquals(ResultCode.OK, tree.attachMamba(node, slot));
        final long receipt = tree.lock(child, Component.FULL, SlotState.OP, 5);
        final long mambaReceipt = tree.lock(node, Component.MAMBA, SlotState.REQUEST, 6);
        final int[] pagesBefore = f.pageIds(node);
        list.clear();

        final int parent = tree.split(node, 2);

        assertEquals(parent, tree.parent(node));
        assertEquals(RadixTree.ROOT, tree.parent(parent));
        assertArrayEquals(new int[] { 1, 2 }, f.pageSymbols(parent));
        assertArrayEquals(new int[] { 3, 4 }, f.pageSymbols(node));
        assertArrayEquals(new int[] { pagesBefore[0], pagesBefore[1] }, f.pageIds(parent));
        assertArrayEquals(new int[] { pagesBefore[2], pagesBefore[3] }, f.pageIds(node));
        assertEquals(2, tree.depth(parent));
        assertEquals(4, tree.depth(node));
        assertEquals(slot, tree.mambaSlot(node));
        assertEquals(RadixTree.NO_SLOT, tree.mambaSlot(parent));
        assertEquals(1, tree.fullLocks(parent));
        assertEquals(1, tree.opLocks(parent));
        assertEquals(0, tree.mambaLocks(parent));
        assertEquals(1, tree.mambaLocks(node));
        assertEquals(1, tree.childCount(parent));
        assertEquals(1, tree.childCount(node));
        assertEquals(child, tree.receiptNode(receipt));
        assertEquals(node, tree.parent(child));
        assertEquals(node, tree.receiptNode(mambaReceipt));

        assertEquals(3, list.size());
        assertEquals(EffectType.NODE_SPLIT, list.type(0));
        assertEquals(node, list.id(0));
        assertEquals(parent, list.owner(0));
        assertEquals(2, list.value1(0));
        for (int i = 1; i <= 2; i++)
        {
            assertEquals(EffectType.SLOT_TRANSITION, list.type(i));
            assertEquals(Pool.DEVICE_KV, list.pool(i));
            assertEquals(pagesBefore[i - 1], list.id(i));
            assertEquals(SlotState.NODE, list.fromState(i));
            assertEquals(SlotState.NODE, list.toState(i));
            assertEquals(parent, list.owner(i));
            assertEquals(node, list.value1(i));
            assertEquals(parent, f.kvPool.owner(pagesBefore[i - 1]));
        }

        f.match(false, 1, 2, 3, 4, 5);
        assertEquals(5, f.out.pages);
        assertEquals(child, f.out.node);
        assertEquals(node, f.out.mambaNode);
        assertEquals(4, f.out.mambaPages);
        f.match(false, 1, 2, 9);
        assertEquals(2, f.out.pages);
        assertEquals(parent, f.out.node);
        assertEquals(RadixTree.ROOT, f.out.mambaNode);
        f.verify();
    }

    @Test
    void shouldSplitAtDivergenceAndPutNewPagesInOneLeaf()
    {
        final int first = f.node(1, 1, 2, 3);
        final int[] oldPages = f.pageIds(first);
        list.clear();

        assertEquals(ResultCode.OK, f.insert(2, 1, 2, 5, 6, 7));

        final int leaf = f.out.node;
        final int parent = tree.parent(leaf);
        assertEquals(parent, tree.parent(first));
        assertArrayEquals(new int[] { 1, 2 }, f.pageSymbols(parent));
        assertArrayEquals(new int[] { 5, 6, 7 }, f.pageSymbols(leaf));
        assertEquals(5, f.out.pages);
        assertEquals(oldPages[0], f.canonical[0]);
        assertEquals(oldPages[1], f.canonical[1]);
        assertEquals(f.kvPages[2], f.canonical[2]);
        assertEquals(f.kvPages[4], f.canonical[4]);

        // The helper's three page allocations come first, then the insert's effects.
        final int split = 3;
        assertEquals(EffectType.NODE_SPLIT, list.type(split));
        assertEquals(first, list.id(split));
        assertEquals(parent, list.owner(split));
        assertEquals(2, list.value1(split));
        assertEquals(SlotState.NODE, list.fromState(split + 1));
        assertEquals(parent, list.owner(split + 2));
        final int inserted = split + 3;
        assertEquals(EffectType.NODE_INSERTED, list.type(inserted));
        assertEquals(leaf, list.id(inserted));
        assertEquals(parent, list.owner(inserted));
        assertEquals(3, list.value1(inserted));
        assertEquals(5, list.value2(inserted));
        for (int i = 1; i <= 3; i++)
        {
            assertEquals(EffectType.SLOT_TRANSITION, list.type(inserted + i));
            assertEquals(SlotState.REQUEST, list.fromState(inserted + i));
            assertEquals(SlotState.NODE, list.toState(inserted + i));
            assertEquals(leaf, list.owner(inserted + i));
        }
        f.verify();
    }

    @Test
    void shouldDedupeInsertAndReturnCanonicalPages()
    {
        final int node = f.node(1, 4, 5, 6);
        final int[] pages = f.pageIds(node);
        final int nodes = tree.nodeCount();
        final long freeBefore = f.kvPool.freeCount();
        final int[] mine = { f.kvPool.allocate(SlotState.REQUEST, 3), f.kvPool.allocate(SlotState.REQUEST, 3),
            f.kvPool.allocate(SlotState.REQUEST, 3) };
        list.clear();
        f.load(4, 5, 6);

        assertEquals(ResultCode.OK, tree.insert(f.hi(), f.lo(), 0, 3, mine, f.canonical, 2, f.out));

        assertArrayEquals(pages, new int[] { f.canonical[0], f.canonical[1], f.canonical[2] });
        assertEquals(0, list.size());
        assertEquals(nodes, tree.nodeCount());
        assertEquals(node, f.out.node);
        assertEquals(3, f.out.pages);
        assertEquals(2, tree.lastAccess(node));
        for (final int page : mine)
        {
            assertEquals(SlotState.REQUEST, f.kvPool.state(page));
        }
        assertEquals(freeBefore - 3, f.kvPool.freeCount());
        f.verify();
    }

    @Test
    void shouldSplitSoThatANodeEndsWhereTheInsertEnds()
    {
        final int node = f.node(1, 1, 2, 3, 4);
        list.clear();
        assertEquals(ResultCode.OK, f.insert(2, 1, 2));
        assertEquals(2, f.out.pages);
        assertEquals(2, tree.depth(f.out.node));
        assertEquals(f.out.node, tree.parent(node));
        assertEquals(EffectType.NODE_SPLIT, list.type(0));
        f.verify();
    }

    @Test
    void shouldOffsetFingerprintsOnlyAndIndexPagesFromZero()
    {
        f.load(9, 9, 1, 2, 3);
        final int[] pages = new int[3];
        for (int i = 0; i < 3; i++)
        {
            pages[i] = f.kvPool.allocate(SlotState.REQUEST, 1);
        }
        assertEquals(ResultCode.OK, tree.insert(f.hi(), f.lo(), 2, 3, pages, f.canonical, 1, f.out));
        assertArrayEquals(new int[] { 1, 2, 3 }, f.pageSymbols(f.out.node));
        assertArrayEquals(pages, f.pageIds(f.out.node));
        f.verify();
    }

    @Test
    void shouldNeverShareANodeBetweenDifferentFirstPageFingerprints()
    {
        // Symbols 2 and 3 share the high word and differ in the low word only, like two namespaces.
        final int a = f.node(1, 2, 5, 6);
        final int b = f.node(2, 3, 5, 6);
        assertNotEquals(a, b);
        assertEquals(RadixTree.ROOT, tree.parent(a));
        assertEquals(RadixTree.ROOT, tree.parent(b));
        assertEquals(2, tree.childCount(RadixTree.ROOT));
        final Set<Integer> pages = new HashSet<>();
        for (final int page : f.pageIds(a))
        {
            pages.add(page);
        }
        for (final int page : f.pageIds(b))
        {
            assertTrue(pages.add(page));
        }
        f.match(false, 2, 5, 6);
        assertEquals(a, f.out.node);
        f.match(false, 3, 5, 6);
        assertEquals(b, f.out.node);
        f.match(false, 3, 5, 7);
        assertEquals(b, f.out.partialNode);
        assertEquals(2, f.out.pages);
        f.verify();
    }

    @Test
    void shouldReleaseAReceiptExactlyOnce()
    {
        final int parent = f.node(1, 1, 2);
        final int leaf = f.node(2, 1, 2, 3);
        list.clear();
        final long receipt = tree.lock(leaf, Component.FULL, SlotState.OP, 44);
        assertTrue(receipt > 0);
        assertEquals(1, tree.fullLocks(leaf));
        assertEquals(1, tree.fullLocks(parent));
        assertEquals(1, tree.opLocks(parent));
        assertEquals(EffectType.LOCKED, list.type(0));
        assertEquals(leaf, list.id(0));
        assertEquals(Component.FULL, list.component(0));
        assertEquals(SlotState.OP, list.toState(0));
        assertEquals(44, list.owner(0));
        assertEquals(receipt, list.value1(0));
        f.verify();

        assertEquals(ResultCode.OK, tree.unlock(receipt));
        assertEquals(EffectType.UNLOCKED, list.type(1));
        assertEquals(receipt, list.value1(1));
        assertEquals(0, tree.fullLocks(parent));
        final long hash = tree.stateHash();
        list.clear();

        assertEquals(ResultCode.LOCK_RECEIPT_UNKNOWN, tree.unlock(receipt));
        assertEquals(ResultCode.LOCK_RECEIPT_UNKNOWN, tree.unlock(12_345));
        assertEquals(0, list.size());
        assertEquals(hash, tree.stateHash());
        f.verify();
    }

    @Test
    void shouldLockMambaOnTheNodeOnly()
    {
        final int parent = f.node(1, 1, 2);
        final int leaf = f.node(2, 1, 2, 3);
        final long receipt = tree.lock(leaf, Component.MAMBA, SlotState.REQUEST, 1);
        assertEquals(1, tree.mambaLocks(leaf));
        assertEquals(0, tree.mambaLocks(parent));
        assertEquals(0, tree.fullLocks(leaf));
        assertEquals(ResultCode.NODE_UNKNOWN, tree.lock(RadixTree.ROOT, Component.MAMBA, SlotState.REQUEST, 1));
        assertEquals(ResultCode.NODE_UNKNOWN, tree.lock(11, Component.FULL, SlotState.REQUEST, 1));
        assertEquals(ResultCode.NODE_LOCKED, tree.deleteLeaf(leaf));
        assertEquals(ResultCode.OK, tree.unlock(receipt));
        assertEquals(ResultCode.OK, tree.deleteLeaf(leaf));
        f.verify();
    }

    @Test
    void shouldDetectALockUnderflowInVerify()
    {
        final int leaf = f.node(1, 1, 2);
        final long receipt = tree.lock(leaf, Component.FULL, SlotState.REQUEST, 8);
        assertEquals(ResultCode.OK, tree.unlock(receipt));
        list.clear();
        tree.unlockAgain(receipt, leaf, Component.FULL, SlotState.REQUEST, 8);
        assertEquals(EffectType.UNLOCKED, list.type(0));
        assertEquals(-1, tree.fullLocks(leaf));
        final IllegalStateException e = assertThrows(IllegalStateException.class, tree::verify);
        assertTrue(e.getMessage().startsWith("I5 node " + leaf), e.getMessage());
    }

    @Test
    void shouldEvictInLeastRecentlyUsedOrder()
    {
        final int a = f.node(1, 1, 2);
        final int b = f.node(2, 3, 4);
        final int c = f.node(3, 5, 6);
        tree.touch(a, 4);
        list.clear();

        assertEquals(2, tree.evictPages(1, false));
        assertEquals(EffectType.EVICTED, list.type(0));
        assertEquals(b, list.id(0));
        assertEquals(Component.FULL, list.component(0));
        assertEquals(SlotState.FREE, list.toState(1));
        assertEquals(SlotState.FREE, list.toState(2));
        assertEquals(EffectType.NODE_DELETED, list.type(3));
        assertEquals(b, list.id(3));
        assertEquals(4, list.size());

        list.clear();
        assertEquals(2, tree.evictPages(2, false));
        assertEquals(c, list.id(0));
        list.clear();
        assertEquals(2, tree.evictPages(2, false));
        assertEquals(a, list.id(0));
        assertEquals(1, tree.nodeCount());
        f.verify();
    }

    @Test
    void shouldEvictAParentAfterItsChildrenInOnePass()
    {
        f.node(1, 1, 2);
        f.node(2, 1, 2, 3);
        f.node(3, 1, 2, 4);
        assertEquals(4, tree.evictablePages());
        assertEquals(4, tree.evictPages(100, false));
        assertEquals(1, tree.nodeCount());
        assertEquals(64, f.kvPool.freeCount());
        f.verify();
    }

    @Test
    void shouldSkipLockedLoadingAndInnerNodesWhenEvicting()
    {
        final int locked = f.node(1, 1, 2);
        final int loading = f.node(2, 3, 4);
        final int parent = f.node(3, 5);
        final int child = f.node(4, 5, 6);
        final long receipt = tree.lock(locked, Component.FULL, SlotState.REQUEST, 1);
        final long opReceipt = tree.lock(child, Component.FULL, SlotState.OP, 2);
        tree.markLoading(loading, 99);

        assertEquals(0, tree.evictablePages());
        assertEquals(0, tree.evictPages(10, false));
        // The fault path ignores the op lock on the child, then takes its parent too.
        assertEquals(2, tree.evictPages(10, true));
        assertTrue(!tree.live(child) && !tree.live(parent));
        assertThrows(IllegalStateException.class, tree::verify);
        assertEquals(ResultCode.OK, tree.unlock(receipt));
        assertEquals(ResultCode.OK, tree.unlock(opReceipt));
    }

    @Test
    void shouldCountEvictablePagesLikeEvictionFrees()
    {
        final int a = f.node(1, 1, 2, 3);
        final int b = f.node(2, 1, 2, 4);
        f.node(3, 1, 5);
        final long receipt = tree.lock(b, Component.FULL, SlotState.REQUEST, 1);
        // Nodes now: [1] -> [2] -> {[3] = a, [4] = b}, [1] -> [5]; b locks [4], [2] and [1].
        assertEquals(2, tree.evictablePages());
        tree.markLoading(a, 5);
        assertEquals(1, tree.evictablePages());
        tree.markLoading(a, -1);
        assertEquals(2, tree.evictPages(100, false));
        assertEquals(0, tree.evictablePages());
        assertEquals(ResultCode.OK, tree.unlock(receipt));
        f.verify();
    }

    @Test
    void shouldHideLoadingNodeFromMatchAndStopInsertInFrontOfIt()
    {
        final int top = f.node(1, 1, 2);
        final int loading = f.node(2, 1, 2, 3, 4);
        tree.markLoading(loading, 31);
        assertEquals(31, tree.loadingOp(loading));

        f.match(false, 1, 2, 3, 4);
        assertEquals(2, f.out.pages);
        assertEquals(top, f.out.node);
        assertEquals(RadixTree.NO_NODE, f.out.partialNode);
        f.match(true, 1, 2, 3, 4);
        assertEquals(4, f.out.pages);
        assertEquals(loading, f.out.node);

        final int nodes = tree.nodeCount();
        list.clear();
        assertEquals(ResultCode.OK, f.insert(3, 1, 2, 3, 4, 5));
        assertEquals(2, f.out.pages);
        assertEquals(top, f.out.node);
        assertEquals(nodes, tree.nodeCount());
        for (int i = 0; i < list.size(); i++)
        {
            assertTrue(EffectType.SLOT_TRANSITION == list.type(i), "only the helper's own page moves");
        }

        tree.markLoading(loading, -1);
        f.match(false, 1, 2, 3, 4);
        assertEquals(4, f.out.pages);
        f.verify();
    }

    @Test
    void shouldEvictMambaByTombstoningInnerNodesAndDeletingLeaves()
    {
        final int inner = f.node(1, 1, 2);
        final int leaf = f.node(2, 1, 2, 3);
        final int slotInner = f.mambaPool.allocate(SlotState.REQUEST, 1);
        final int slotLeaf = f.mambaPool.allocate(SlotState.REQUEST, 1);
        assertEquals(ResultCode.OK, tree.attachMamba(inner, slotInner));
        assertEquals(ResultCode.OK, tree.attachMamba(leaf, slotLeaf));
        tree.touch(leaf, 5);
        assertEquals(2, tree.evictableMambaSlots());
        list.clear();

        assertEquals(1, tree.evictMamba(1, false));
        assertEquals(EffectType.EVICTED, list.type(0));
        assertEquals(inner, list.id(0));
        assertEquals(Component.MAMBA, list.component(0));
        assertEquals(Pool.DEVICE_MAMBA, list.pool(1));
        assertEquals(slotInner, list.id(1));
        assertEquals(2, list.size());
        assertTrue(tree.live(inner));
        assertEquals(RadixTree.NO_SLOT, tree.mambaSlot(inner));

        list.clear();
        assertEquals(1, tree.evictMamba(1, false));
        assertEquals(leaf, list.id(0));
        assertEquals(Component.FULL, list.component(0));
        assertEquals(EffectType.NODE_DELETED, list.type(list.size() - 1));
        assertTrue(!tree.live(leaf));
        f.verify();
    }

    @Test
    void shouldNotEvictMambaOfLockedLeafOrOpLockedNode()
    {
        final int leaf = f.node(1, 1, 2);
        final int slot = f.mambaPool.allocate(SlotState.REQUEST, 1);
        assertEquals(ResultCode.OK, tree.attachMamba(leaf, slot));
        final long receipt = tree.lock(leaf, Component.FULL, SlotState.REQUEST, 1);
        assertEquals(0, tree.evictableMambaSlots());
        assertEquals(0, tree.evictMamba(1, false));
        assertEquals(ResultCode.OK, tree.unlock(receipt));
        final long opReceipt = tree.lock(leaf, Component.MAMBA, SlotState.OP, 3);
        assertEquals(0, tree.evictMamba(1, false));
        assertEquals(1, tree.evictMamba(1, true));
        assertTrue(!tree.live(leaf));
        final IllegalStateException e = assertThrows(IllegalStateException.class, tree::verify);
        assertTrue(e.getMessage().startsWith("I5"), e.getMessage());
    }

    /**
     * bb-mamba2 finding 2, first case: an operation on a leaf (a backup, a load) holds a FULL lock that is
     * path-wide, but it neither reads nor writes the Mamba state of the leaf's parent, which the domain calls
     * evictable (MAMBA lock 0, no op on that node). Rules 2 counted and evicted nothing; rules 3 drop the parent's
     * state and keep the node.
     */
    @Test
    void shouldEvictAnInnerStateWhoseDescendantAnOpHolds()
    {
        for (final boolean rules3 : new boolean[]{false, true})
        {
            final TreeFixture g = new TreeFixture(64, 8, 16, 16);
            g.tree.exactMamba(rules3);
            final int inner = g.node(1, 1, 2);
            final int leaf = g.node(2, 1, 2, 3);
            final int slot = g.mambaPool.allocate(SlotState.REQUEST, 1);
            assertEquals(ResultCode.OK, g.tree.attachMamba(inner, slot));
            final long opReceipt = g.tree.lock(leaf, Component.FULL, SlotState.OP, 7);
            assertEquals(rules3 ? 1 : 0, g.tree.evictableMambaSlots());
            assertEquals(rules3, g.tree.evictableMambaSlotsAtLeast(1));
            assertEquals(rules3 ? 1 : 0, g.tree.evictMamba(1, false));
            assertTrue(g.tree.live(inner) && g.tree.live(leaf));
            assertEquals(rules3 ? RadixTree.NO_SLOT : slot, g.tree.mambaSlot(inner));
            g.verify();
            assertEquals(ResultCode.OK, g.tree.unlock(opReceipt));
            g.verify();
        }
    }

    /**
     * bb-mamba2 finding 2, second case: the one LRU pass deletes an unlocked leaf first, which leaves its locked
     * parent a leaf, and a locked leaf is skipped, so its state (MAMBA lock 0: a request's lock is FULL only) was
     * neither counted nor evicted, although dropping it before the leaf frees both. Rules 3 count and free both.
     */
    @Test
    void shouldEvictTheStateOfALockedParentWhoseChildThePassDeleted()
    {
        for (final boolean rules3 : new boolean[]{false, true})
        {
            final TreeFixture g = new TreeFixture(64, 8, 16, 16);
            g.tree.exactMamba(rules3);
            final int parent = g.node(1, 1, 2);
            final int leaf = g.node(2, 1, 2, 3);
            final int slotParent = g.mambaPool.allocate(SlotState.REQUEST, 1);
            final int slotLeaf = g.mambaPool.allocate(SlotState.REQUEST, 1);
            assertEquals(ResultCode.OK, g.tree.attachMamba(parent, slotParent));
            assertEquals(ResultCode.OK, g.tree.attachMamba(leaf, slotLeaf));
            final long receipt = g.tree.lock(parent, Component.FULL, SlotState.REQUEST, 1);
            g.tree.touch(parent, 5);
            assertEquals(rules3 ? 2 : 1, g.tree.evictableMambaSlots());
            assertEquals(rules3, g.tree.evictableMambaSlotsAtLeast(2));
            assertEquals(rules3 ? 2 : 1, g.tree.evictMamba(2, false));
            assertTrue(!g.tree.live(leaf) && g.tree.live(parent));
            assertEquals(rules3 ? RadixTree.NO_SLOT : slotParent, g.tree.mambaSlot(parent));
            g.verify();
            // A leaf that was locked from the start is still skipped: its eviction would delete it.
            assertEquals(rules3 ? 0 : 1, g.mambaPool.capacity() - g.mambaPool.freeCount());
            assertEquals(0, g.tree.evictMamba(1, false));
            assertEquals(ResultCode.OK, g.tree.unlock(receipt));
            g.verify();
        }
    }

    @Test
    void shouldRefuseASecondMambaStateOnANode()
    {
        final int node = f.node(1, 1);
        final int first = f.mambaPool.allocate(SlotState.REQUEST, 1);
        final int second = f.mambaPool.allocate(SlotState.REQUEST, 1);
        assertEquals(ResultCode.OK, tree.attachMamba(node, first));
        list.clear();
        assertEquals(ResultCode.SLOT_ILLEGAL_TRANSITION, tree.attachMamba(node, second));
        assertEquals(ResultCode.NODE_UNKNOWN, tree.attachMamba(RadixTree.ROOT, second));
        assertEquals(ResultCode.SLOT_UNKNOWN, tree.attachMamba(node, 99));
        assertEquals(0, list.size());
        f.verify();
    }

    @Test
    void shouldDeleteOnlyUnlockedLeaves()
    {
        final int parent = f.node(1, 1, 2);
        final int leaf = f.node(2, 1, 2, 3);
        final int slot = f.mambaPool.allocate(SlotState.REQUEST, 1);
        assertEquals(ResultCode.OK, tree.attachMamba(leaf, slot));
        assertEquals(ResultCode.NODE_HAS_CHILDREN, tree.deleteLeaf(parent));
        assertEquals(ResultCode.NODE_UNKNOWN, tree.deleteLeaf(RadixTree.ROOT));
        assertEquals(ResultCode.NODE_UNKNOWN, tree.deleteLeaf(15));
        final long receipt = tree.lock(leaf, Component.FULL, SlotState.REQUEST, 1);
        assertEquals(ResultCode.NODE_LOCKED, tree.deleteLeaf(leaf));
        tree.unlock(receipt);
        final int page = tree.firstPage(leaf);
        list.clear();

        assertEquals(ResultCode.OK, tree.deleteLeaf(leaf));
        assertEquals(SlotState.FREE, f.kvPool.state(page));
        assertEquals(SlotState.FREE, f.mambaPool.state(slot));
        assertEquals(EffectType.NODE_DELETED, list.type(list.size() - 1));
        assertEquals(leaf, list.id(list.size() - 1));
        assertEquals(0, tree.childCount(parent));
        f.match(false, 1, 2, 3);
        assertEquals(2, f.out.pages);
        f.verify();
    }

    @Test
    void shouldRefuseInsertWhenNodePoolIsExhaustedWithoutChange()
    {
        final TreeFixture small = new TreeFixture(32, 2, 3, 4);
        small.node(1, 1, 2, 3);
        small.node(2, 5);
        final long hash = small.tree.stateHash();
        final long kvHash = small.kvPool.stateHash();
        small.load(1, 7);
        final int[] pages = { -1, small.kvPool.allocate(SlotState.REQUEST, 1) };
        final long kvHashAllocated = small.kvPool.stateHash();
        small.list.clear();

        assertEquals(ResultCode.NODE_POOL_EXHAUSTED,
            small.tree.insert(small.hi(), small.lo(), 0, 2, pages, small.canonical, 3, small.out));
        assertEquals(0, small.list.size());
        assertEquals(hash, small.tree.stateHash());
        assertEquals(kvHashAllocated, small.kvPool.stateHash());
        assertNotEquals(kvHash, kvHashAllocated);
        assertEquals(RadixTree.NO_NODE, small.tree.split(1, 1));
        small.verify();
    }

    @Test
    void shouldRefuseNewPagesThatATreeNodeAlreadyOwns()
    {
        final int node = f.node(1, 1, 2);
        f.load(7, 8);
        final int[] pages = { tree.firstPage(node), f.kvPool.allocate(SlotState.REQUEST, 1) };
        final long hash = tree.stateHash();
        list.clear();
        assertEquals(ResultCode.SLOT_ILLEGAL_TRANSITION,
            tree.insert(f.hi(), f.lo(), 0, 2, pages, f.canonical, 2, f.out));
        final int[] twice = { pages[1], pages[1] };
        assertEquals(ResultCode.SLOT_ILLEGAL_TRANSITION,
            tree.insert(f.hi(), f.lo(), 0, 2, twice, f.canonical, 2, f.out));
        assertEquals(0, list.size());
        assertEquals(hash, tree.stateHash());
        f.verify();
    }

    @Test
    void shouldDetectAForcedFreeOfATreePage()
    {
        final int node = f.node(1, 1, 2);
        f.kvPool.forceTransition(tree.firstPage(node), SlotState.FREE, -1);
        final IllegalStateException e = assertThrows(IllegalStateException.class, tree::verify);
        assertTrue(e.getMessage().startsWith("I2 node " + node), e.getMessage());
    }

    @Test
    void shouldCollectPagesFromTheRoot()
    {
        f.node(1, 1, 2);
        final int leaf = f.node(2, 1, 2, 3, 4);
        final int[] out = new int[8];
        assertEquals(4, tree.collectPages(leaf, out));
        final int parent = tree.parent(leaf);
        assertArrayEquals(f.pageIds(parent), new int[] { out[0], out[1] });
        assertArrayEquals(f.pageIds(leaf), new int[] { out[2], out[3] });
        assertEquals(0, tree.collectPages(RadixTree.ROOT, out));
    }

    @Test
    void shouldKeepMambaLruSeparateFromFullLru()
    {
        final int a = f.node(1, 1);
        final int b = f.node(2, 2);
        final int slotA = f.mambaPool.allocate(SlotState.REQUEST, 1);
        final int slotB = f.mambaPool.allocate(SlotState.REQUEST, 1);
        tree.attachMamba(a, slotA);
        tree.attachMamba(b, slotB);
        tree.touch(a, 3);
        list.clear();
        assertEquals(1, tree.evictMamba(1, false));
        assertEquals(b, list.id(0));
        f.verify();
    }

    @Test
    void shouldClearLoadingMarkOnSplitHalves()
    {
        final int node = f.node(1, 1, 2, 3);
        tree.markLoading(node, 9);
        final int parent = tree.split(node, 1);
        assertEquals(9, tree.loadingOp(parent));
        tree.markLoading(node, -1);
        assertEquals(-1, tree.loadingOp(parent));
        assertEquals(-1, tree.loadingOp(node));
        f.verify();
    }
}
