package io.kvledger.engine.tree;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The evictable-page count that the tree keeps as nodes change, against a full recount after every operation of
 * a seeded random run. Unlike {@link RadixTreeModelTest} (whose {@code verify()} also compares the two), this run
 * includes the fault paths that leave lock counts {@code verify()} rejects: evictions that ignore op locks (a
 * locked leaf deleted), releases of a receipt a second time (counts going negative) and loads marked on split
 * nodes.
 */
class RadixTreeEvictableCountTest
{
    private static final long[] SEEDS = { 3L, 4_711L, 0xC0FFEEL, 20_261_130L };
    private static final int OPERATIONS = 40_000;
    private static final int SYMBOLS = 4;
    private static final int MAX_LENGTH = 12;

    private record Held(long receipt, int node, Component component, SlotState kind)
    {
    }

    @Test
    void shouldKeepTheEvictableCountEqualToARecount()
    {
        for (final long seed : SEEDS)
        {
            run(seed);
        }
    }

    @Test
    void shouldCountOnlyUnlockedNodesWithoutBlockedDescendants()
    {
        final TreeFixture f = new TreeFixture(64, 8, 32, 16);
        final RadixTree tree = f.tree;
        final int ab = f.node(1, 0, 1, 2, 3);
        final int ac = f.node(2, 0, 1, 3, 3, 3);
        assertEquals(7, tree.evictablePages());
        final int shared = tree.parent(ab);

        final long mamba = tree.lock(ac, Component.MAMBA, SlotState.REQUEST, 5);
        assertEquals(2, tree.evictablePages(), "ac and its ancestors are blocked, ab is not");
        final long full = tree.lock(ab, Component.FULL, SlotState.REQUEST, 6);
        assertEquals(0, tree.evictablePages());
        assertEquals(ResultCode.OK, tree.unlock(mamba));
        assertEquals(3, tree.evictablePages(), "only ac is free of locks");
        assertEquals(ResultCode.OK, tree.unlock(full));
        assertEquals(7, tree.evictablePages());

        tree.markLoading(ac, 77);
        assertEquals(2, tree.evictablePages());
        assertEquals(ResultCode.OK, tree.deleteLeaf(ac));
        assertEquals(4, tree.evictablePages(), "a cancelled load's leaf is gone, its path is free again");
        assertEquals(2, tree.depth(shared));
        f.verify();
    }

    private static void run(final long seed)
    {
        final Random random = new Random(seed);
        final TreeFixture f = new TreeFixture(96, 8, 40, 48);
        final RadixTree tree = f.tree;
        final List<Held> held = new ArrayList<>();
        final List<Held> released = new ArrayList<>();
        long clock = 0;
        long nextOp = 1;
        final int[] symbols = new int[MAX_LENGTH];
        int changes = 0;
        int blockedSteps = 0;
        int lastCount = 0;
        for (int step = 0; step < OPERATIONS; step++)
        {
            final int r = random.nextInt(100);
            String operation = "";
            f.list.clear();
            try
            {
                if (r < 30)
                {
                    operation = "insert";
                    if (f.kvPool.freeCount() < MAX_LENGTH || tree.freeNodeCount() < 2)
                    {
                        tree.evictPages(MAX_LENGTH, random.nextInt(4) == 0);
                    }
                    if (f.kvPool.freeCount() >= MAX_LENGTH && tree.freeNodeCount() >= 2)
                    {
                        final int length = 1 + random.nextInt(MAX_LENGTH);
                        for (int i = 0; i < length; i++)
                        {
                            symbols[i] = random.nextInt(SYMBOLS);
                        }
                        f.insert(++clock, Arrays.copyOf(symbols, length));
                    }
                }
                else if (r < 45)
                {
                    operation = "lock";
                    final int node = liveNode(random, tree);
                    final Component component = random.nextBoolean() || RadixTree.ROOT == node ?
                        Component.FULL : Component.MAMBA;
                    final SlotState kind = random.nextBoolean() ? SlotState.OP : SlotState.REQUEST;
                    if (held.size() < 40)
                    {
                        final long receipt = tree.lock(node, component, kind, step);
                        held.add(new Held(receipt, node, component, kind));
                    }
                }
                else if (r < 62)
                {
                    operation = "unlock";
                    if (!held.isEmpty())
                    {
                        final Held h = held.remove(random.nextInt(held.size()));
                        assertEquals(ResultCode.OK, tree.unlock(h.receipt()));
                        released.add(h);
                    }
                }
                else if (r < 64)
                {
                    operation = "unlockAgain";
                    if (!released.isEmpty())
                    {
                        final Held h = released.remove(random.nextInt(released.size()));
                        tree.unlockAgain(h.receipt(), h.node(), h.component(), h.kind(), 0);
                    }
                }
                else if (r < 74)
                {
                    operation = "evict";
                    tree.evictPages(1 + random.nextInt(8), random.nextInt(3) == 0);
                }
                else if (r < 82)
                {
                    operation = "delete";
                    tree.deleteLeaf(liveNode(random, tree));
                }
                else if (r < 90)
                {
                    operation = "markLoading";
                    final int node = liveNode(random, tree);
                    if (RadixTree.ROOT != node)
                    {
                        final boolean clear = NO_LOAD != tree.loadingOp(node) && random.nextBoolean();
                        tree.markLoading(node, clear ? RadixTree.NO_OP : nextOp++);
                    }
                }
                else if (r < 96)
                {
                    operation = "split";
                    final int node = liveNode(random, tree);
                    if (RadixTree.ROOT != node && tree.pageCount(node) > 1 && tree.freeNodeCount() > 0)
                    {
                        tree.split(node, 1 + random.nextInt(tree.pageCount(node) - 1));
                    }
                }
                else
                {
                    operation = "touch";
                    tree.touch(liveNode(random, tree), ++clock);
                }
                final int treePages = f.kvPool.capacity() - f.kvPool.freeCount();
                f.list.clear();
                assertEquals(tree.countEvictablePages(), tree.evictablePages(), "kept count against a recount");
                changes += tree.evictablePages() != lastCount ? 1 : 0;
                blockedSteps += tree.evictablePages() < treePages ? 1 : 0;
                lastCount = tree.evictablePages();
            }
            catch (final Throwable t)
            {
                throw new AssertionError("seed=" + seed + " step=" + step + " op=" + operation + ": " + t, t);
            }
        }
        assertTrue(changes > OPERATIONS / 10, "seed=" + seed + ": the count changed only " + changes + " times");
        assertTrue(blockedSteps > OPERATIONS / 10,
            "seed=" + seed + ": pages were blocked only " + blockedSteps + " times");
    }

    private static final long NO_LOAD = RadixTree.NO_OP;

    private static int liveNode(final Random random, final RadixTree tree)
    {
        for (int attempt = 0; attempt < 8; attempt++)
        {
            final int node = random.nextInt(40);
            if (tree.live(node))
            {
                return node;
            }
        }
        return RadixTree.ROOT;
    }
}
