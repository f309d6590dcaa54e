package io.kvledger.engine.tree;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RadixTree#insertFrom} against {@link RadixTree#insert} on twin trees: the same random operations (inserts,
 * evictions, locks, splits, deletions, loading marks, Mamba states) on both, every insert made from the root on one
 * and from a node on the sequence's path on the other, as the engine does from a request's locked node (remembered
 * with its incarnation, possibly long before, possibly deleted and its id reused since). After every operation the
 * results, the canonical page ids, the effects and the state hashes must be identical. The same random trees check
 * {@link RadixTree#collectPagesFrom} against {@link RadixTree#collectPages}.
 */
class RadixTreeInsertFromTest
{
    private static final long[] SEEDS = {3L, 77L, 2_026L, 0xC0FFEEL};
    private static final int OPERATIONS = 40_000;
    private static final int SYMBOLS = 4;
    private static final int MAX_LENGTH = 14;

    /** A node seen on a sequence's path, as a request remembers its locked node. */
    private record Seen(int[] symbols, int node, long incarnation, int depth)
    {
    }

    @Test
    void shouldChangeAndReturnExactlyWhatAnInsertFromTheRootDoes()
    {
        long shortcuts = 0;
        long fallbacks = 0;
        long collected = 0;
        for (final long seed : SEEDS)
        {
            final Run run = new Run(seed);
            run.run(OPERATIONS);
            shortcuts += run.shortcuts;
            fallbacks += run.fallbacks;
            collected += run.collected;
        }
        assertTrue(collected > 10_000, "partial page collections checked: " + collected);
        assertTrue(shortcuts > 20_000, "inserts walked from their start node: " + shortcuts);
        assertTrue(fallbacks > 1_000, "inserts that had to walk from the root: " + fallbacks);
    }

    private static final class Run
    {
        private final long seed;
        private final Random random;
        private final TreeFixture from = new TreeFixture(200, 16, 64, 128);
        private final TreeFixture root = new TreeFixture(200, 16, 64, 128);
        private final List<Seen> seen = new ArrayList<>();
        private final List<Long> receipts = new ArrayList<>();
        private final int[] expected = new int[64];
        private long sequence;
        private long opId = 1_000;
        private int step;
        long shortcuts;
        long fallbacks;
        long collected;

        Run(final long seed)
        {
            this.seed = seed;
            this.random = new Random(seed);
        }

        void run(final int operations)
        {
            for (step = 0; step < operations; step++)
            {
                from.list.clear();
                root.list.clear();
                final int op = random.nextInt(100);
                if (op < 45)
                {
                    insert();
                }
                else if (op < 53)
                {
                    final int pages = 1 + random.nextInt(8);
                    same(from.tree.evictPages(pages, false), root.tree.evictPages(pages, false));
                }
                else if (op < 63)
                {
                    lock();
                }
                else if (op < 73)
                {
                    unlock();
                }
                else if (op < 79)
                {
                    attachMamba();
                }
                else if (op < 82)
                {
                    final int slots = 1 + random.nextInt(3);
                    same(from.tree.evictMamba(slots, false), root.tree.evictMamba(slots, false));
                }
                else if (op < 90)
                {
                    loading();
                }
                else if (op < 95)
                {
                    split();
                }
                else
                {
                    final int node = liveNode();
                    if (node > RadixTree.ROOT)
                    {
                        same(from.tree.deleteLeaf(node), root.tree.deleteLeaf(node));
                    }
                }
                compare();
            }
        }

        private void insert()
        {
            final int[] symbols;
            int start;
            long incarnation;
            if (!seen.isEmpty() && random.nextInt(3) > 0)
            {
                // A remembered node: the sequence extends the one it was seen on, past the node's depth then.
                final Seen s = seen.get(random.nextInt(seen.size()));
                final int length = Math.min(MAX_LENGTH, s.depth() + random.nextInt(6));
                symbols = Arrays.copyOf(s.symbols(), Math.max(length, s.depth()));
                for (int i = s.depth(); i < symbols.length; i++)
                {
                    symbols[i] = random.nextInt(SYMBOLS);
                }
                start = s.node();
                incarnation = s.incarnation();
                if (from.tree.live(start) && from.tree.incarnation(start) == incarnation)
                {
                    assertEquals(s.depth(), from.tree.depth(start), where("a live node kept its depth"));
                }
            }
            else
            {
                // A node on the sequence's current path: the matched node or one of its ancestors, or the root.
                symbols = randomSymbols();
                from.match(random.nextBoolean(), symbols);
                start = from.out.node;
                while (start != RadixTree.ROOT && random.nextInt(3) == 0)
                {
                    start = from.tree.parent(start);
                }
                incarnation = from.tree.incarnation(start);
                if (random.nextInt(20) == 0)
                {
                    start = RadixTree.NO_NODE;
                }
            }
            final boolean shortcut = walksFrom(start, incarnation, symbols.length);

            // Both: pages the tree lacks come from the pool as the request's own.
            from.match(false, symbols);
            root.match(false, symbols);
            same(from.out.pages, root.out.pages);
            final int cached = from.out.pages;
            if (from.kvPool.freeCount() < symbols.length - cached)
            {
                final int wanted = symbols.length - cached - from.kvPool.freeCount();
                same(from.tree.evictPages(wanted, false), root.tree.evictPages(wanted, false));
                if (from.kvPool.freeCount() < symbols.length - cached)
                {
                    return;
                }
            }
            for (int i = 0; i < symbols.length; i++)
            {
                from.kvPages[i] = i < cached ? -1 : from.kvPool.allocate(SlotState.REQUEST, TreeFixture.REQUEST);
                root.kvPages[i] = i < cached ? -1 : root.kvPool.allocate(SlotState.REQUEST, TreeFixture.REQUEST);
            }
            Arrays.fill(from.canonical, -7);
            if (from.tree.live(start) && from.tree.incarnation(start) == incarnation)
            {
                // What the caller holds: the tree's ids of the path to its node.
                from.tree.collectPages(start, from.canonical);
            }
            final long seq = ++sequence;
            final int a = from.tree.insertFrom(start, incarnation, from.hi(), from.lo(), 0, symbols.length,
                from.kvPages, from.canonical, seq, from.out);
            final int b = root.tree.insert(root.hi(), root.lo(), 0, symbols.length, root.kvPages, root.canonical, seq,
                root.out);
            same(a, b);
            same(from.out.pages, root.out.pages);
            same(from.out.node, root.out.node);
            same(from.out.nodePages, root.out.nodePages);
            same(from.out.partialNode, root.out.partialNode);
            same(from.out.mambaNode, root.out.mambaNode);
            same(from.out.mambaPages, root.out.mambaPages);
            same(from.out.existingPages, root.out.existingPages);
            if (ResultCode.OK == a)
            {
                System.arraycopy(root.canonical, 0, expected, 0, root.out.pages);
                assertArrayEquals(Arrays.copyOf(expected, root.out.pages),
                    Arrays.copyOf(from.canonical, from.out.pages), where("canonical page ids"));
                if (root.out.node != RadixTree.ROOT)
                {
                    seen.add(new Seen(symbols, root.out.node, root.tree.incarnation(root.out.node),
                        root.tree.depth(root.out.node)));
                    if (seen.size() > 200)
                    {
                        seen.remove(random.nextInt(seen.size()));
                    }
                }
            }
            for (int i = cached; i < symbols.length; i++)
            {
                if (SlotState.REQUEST == from.kvPool.state(from.kvPages[i]))
                {
                    from.kvPool.transition(from.kvPages[i], SlotState.FREE, -1);
                }
                if (SlotState.REQUEST == root.kvPool.state(root.kvPages[i]))
                {
                    root.kvPool.transition(root.kvPages[i], SlotState.FREE, -1);
                }
            }
            if (shortcut)
            {
                shortcuts++;
            }
            else
            {
                fallbacks++;
            }
        }

        /** Whether insertFrom may skip the walk from the root (its preconditions), computed from outside. */
        private boolean walksFrom(final int start, final long incarnation, final int count)
        {
            if (start <= RadixTree.ROOT || !from.tree.live(start) || from.tree.incarnation(start) != incarnation ||
                from.tree.depth(start) > count)
            {
                return false;
            }
            for (int n = start; n != RadixTree.ROOT; n = from.tree.parent(n))
            {
                if (from.tree.loadingOp(n) != RadixTree.NO_OP)
                {
                    return false;
                }
            }
            return true;
        }

        private int[] randomSymbols()
        {
            final int[] symbols = new int[1 + random.nextInt(MAX_LENGTH)];
            for (int i = 0; i < symbols.length; i++)
            {
                symbols[i] = random.nextInt(SYMBOLS);
            }
            return symbols;
        }

        private int liveNode()
        {
            final int node = random.nextInt(from.tree.maxNodes());
            return from.tree.live(node) ? node : RadixTree.NO_NODE;
        }

        private void lock()
        {
            final int node = liveNode();
            if (node < 0 || receipts.size() > 100)
            {
                return;
            }
            final Component component = random.nextInt(4) == 0 && node != RadixTree.ROOT ? Component.MAMBA :
                Component.FULL;
            final SlotState kind = random.nextBoolean() ? SlotState.REQUEST : SlotState.OP;
            final long a = from.tree.lock(node, component, kind, 5);
            final long b = root.tree.lock(node, component, kind, 5);
            same(a, b);
            if (a > 0)
            {
                receipts.add(a);
            }
        }

        private void unlock()
        {
            if (receipts.isEmpty())
            {
                return;
            }
            final long receipt = receipts.remove(random.nextInt(receipts.size()));
            same(from.tree.unlock(receipt), root.tree.unlock(receipt));
        }

        private void attachMamba()
        {
            final int node = liveNode();
            if (node <= RadixTree.ROOT)
            {
                return;
            }
            final int a = from.mambaPool.allocate(SlotState.REQUEST, TreeFixture.REQUEST);
            final int b = root.mambaPool.allocate(SlotState.REQUEST, TreeFixture.REQUEST);
            same(a, b);
            if (a < 0)
            {
                return;
            }
            final int result = from.tree.attachMamba(node, a);
            same(result, root.tree.attachMamba(node, b));
            if (ResultCode.OK != result)
            {
                from.mambaPool.transition(a, SlotState.FREE, -1);
                root.mambaPool.transition(b, SlotState.FREE, -1);
            }
        }

        private void loading()
        {
            final int node = liveNode();
            if (node <= RadixTree.ROOT)
            {
                return;
            }
            final long op = from.tree.loadingOp(node) != RadixTree.NO_OP || random.nextInt(3) > 0 ?
                RadixTree.NO_OP : ++opId;
            from.tree.markLoading(node, op);
            root.tree.markLoading(node, op);
        }

        private void split()
        {
            final int node = liveNode();
            if (node <= RadixTree.ROOT || from.tree.pageCount(node) < 2)
            {
                return;
            }
            final int at = 1 + random.nextInt(from.tree.pageCount(node) - 1);
            same(from.tree.split(node, at), root.tree.split(node, at));
        }

        private void compare()
        {
            assertEquals(-1, from.list.firstDifference(root.list), where("effects"));
            same(from.tree.stateHash(), root.tree.stateHash());
            same(from.kvPool.stateHash(), root.kvPool.stateHash());
            same(from.mambaPool.stateHash(), root.mambaPool.stateHash());
            if (step % 97 == 0)
            {
                from.verify();
                root.verify();
            }
            final int node = liveNode();
            if (node >= RadixTree.ROOT)
            {
                final int depth = from.tree.depth(node);
                final int start = random.nextInt(depth + 1);
                final int[] all = new int[depth];
                final int[] tail = new int[depth];
                Arrays.fill(tail, -7);
                same(depth, from.tree.collectPages(node, all));
                same(depth, from.tree.collectPagesFrom(node, start, tail));
                for (int i = 0; i < depth; i++)
                {
                    same(i < start ? -7 : all[i], tail[i]);
                }
                collected++;
            }
        }

        private void same(final long a, final long b)
        {
            assertEquals(b, a, where("twin trees differ"));
        }

        private String where(final String what)
        {
            return what + " (seed " + seed + ", step " + step + ")";
        }
    }
}
