package io.kvledger.engine.tree;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tree against a naive model: a map from fingerprint prefix (a chained 64-bit key of page symbols) to its KV
 * page, last access, Mamba slot and loading mark, plus the held receipts with the prefix each one locks. The
 * model never looks at node boundaries except to name a node; expected lock counts, match lengths, dedupe and
 * eviction safety are computed from prefixes alone.
 */
class RadixTreeModelTest
{
    private static final long[] SEEDS = { 7L, 1_234L, 0xDEADBEEFL, 20_260_505L };
    private static final int OPERATIONS = 100_000;
    private static final int KV_PAGES = 160;
    private static final int MAMBA_SLOTS = 24;
    private static final int NODES = 48;
    private static final int RECEIPTS = 64;
    private static final int SYMBOLS = 5;
    private static final int MAX_LENGTH = 10;
    private static final long ROOT_KEY = 1;

    @Test
    void shouldAgreeWithNaiveModelUnderRandomOperations()
    {
        for (final long seed : SEEDS)
        {
            new Run(seed).run(OPERATIONS);
        }
    }

    @Test
    void shouldBeDeterministicForASeed()
    {
        final Run a = new Run(99);
        final Run b = new Run(99);
        a.run(5_000);
        b.run(5_000);
        assertEquals(a.f.tree.stateHash(), b.f.tree.stateHash());
        assertEquals(a.f.kvPool.stateHash(), b.f.kvPool.stateHash());
        assertEquals(a.f.mambaPool.stateHash(), b.f.mambaPool.stateHash());
        assertTrue(a.effectCount > 0);
        assertEquals(a.effectCount, b.effectCount);
    }

    static long key(final long parentKey, final int symbol)
    {
        long h = parentKey * 0x9E3779B97F4A7C15L + symbol + 1;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }

    static long[] keys(final int[] symbols, final int count)
    {
        final long[] keys = new long[count + 1];
        keys[0] = ROOT_KEY;
        for (int j = 1; j <= count; j++)
        {
            keys[j] = key(keys[j - 1], symbols[j - 1]);
        }
        return keys;
    }

    private record Lock(long[] keys, Component component, boolean op)
    {
        boolean covers(final int depth, final long endKey)
        {
            return keys.length > depth && keys[depth] == endKey;
        }
    }

    private record Loading(int[] symbols, int start, long op)
    {
    }

    private static final class Run
    {
        final long seed;
        final Random random;
        final TreeFixture f = new TreeFixture(KV_PAGES, MAMBA_SLOTS, NODES, RECEIPTS);
        final RadixTree tree = f.tree;
        final EffectList list = f.list;
        final int[][] bases = new int[6][MAX_LENGTH];
        final int[] pageBuffer = new int[64];

        final Map<Long, Integer> pageOf = new HashMap<>();
        final Map<Long, Long> parentOf = new HashMap<>();
        final Map<Long, Long> accessOf = new HashMap<>();
        final Map<Long, Integer> mambaOf = new HashMap<>();
        final Map<Long, Loading> loadingOf = new HashMap<>();
        final List<Long> loadingKeys = new ArrayList<>();
        final Map<Long, Lock> locks = new HashMap<>();
        final List<Long> held = new ArrayList<>();
        final List<Long> released = new ArrayList<>();
        long clock;
        long nextOp = 1_000;
        long effectCount;
        int step;
        String operation = "";
        final Map<String, Integer> coverage = new HashMap<>();

        Run(final long seed)
        {
            this.seed = seed;
            random = new Random(seed);
            for (final int[] base : bases)
            {
                for (int i = 0; i < MAX_LENGTH; i++)
                {
                    base[i] = random.nextInt(SYMBOLS);
                }
            }
        }

        void run(final int operations)
        {
            for (step = 0; step < operations; step++)
            {
                try
                {
                    list.clear();
                    randomOperation();
                    effectCount += list.size();
                    f.verify();
                    if ((step & 3) == 0)
                    {
                        compareAll();
                    }
                }
                catch (final Throwable t)
                {
                    throw new AssertionError("seed=" + seed + " step=" + step + " op=" + operation + ": " + t, t);
                }
            }
            compareAll();
            if (operations >= OPERATIONS)
            {
                for (final String path : List.of("insert.split", "insert.leaf", "insert.dedupe", "insert.blocked",
                    "insert.exhausted", "evict.victims", "evict.lruChecked", "evictMamba.freed", "unlock.second",
                    "delete.ok", "delete.children", "delete.locked", "split.ok", "match.loadingHidden",
                    "compare.locked"))
                {
                    assertTrue(coverage.getOrDefault(path, 0) >= 20,
                        "seed=" + seed + " exercised " + path + " only " + coverage.get(path) + " times: " + coverage);
                }
            }
        }

        private void cover(final String path)
        {
            coverage.merge(path, 1, Integer::sum);
        }

        private void randomOperation()
        {
            final int r = random.nextInt(100);
            if (r < 28)
            {
                insert();
            }
            else if (r < 42)
            {
                match();
            }
            else if (r < 52)
            {
                lock();
            }
            else if (r < 64)
            {
                unlock();
            }
            else if (r < 69)
            {
                touch();
            }
            else if (r < 78)
            {
                attach();
            }
            else if (r < 83)
            {
                evictPages(1 + random.nextInt(16));
            }
            else if (r < 88)
            {
                evictMamba();
            }
            else if (r < 93)
            {
                deleteLeaf();
            }
            else if (r < 97)
            {
                markLoading();
            }
            else
            {
                split();
            }
        }

        // ---------------------------------------------------------------------------------------------- operations

        private void insert()
        {
            operation = "insert";
            if (random.nextInt(3) == 0 && (f.kvPool.freeCount() < MAX_LENGTH || tree.freeNodeCount() < 2))
            {
                evictPages(1 + random.nextInt(MAX_LENGTH));
                list.clear();
                operation = "insert";
            }
            final int[] symbols = sequence();
            f.load(symbols);
            tree.match(f.hi(), f.lo(), 0, symbols.length, false, f.out);
            final int cached = f.out.pages;
            assertEquals(expectedMatch(symbols, symbols.length, false), cached, "match before insert");
            final int count = Math.min(symbols.length, cached + f.kvPool.freeCount());
            final long[] keys = keys(symbols, count);
            final boolean blocked = cached < count && pageOf.containsKey(keys[cached + 1]);
            for (int i = 0; i < count; i++)
            {
                f.kvPages[i] = i < cached ? -1 : f.kvPool.allocate(SlotState.REQUEST, TreeFixture.REQUEST);
            }
            final long treeHash = tree.stateHash();
            final long kvHash = f.kvPool.stateHash();
            list.clear();
            clock++;

            final int result = tree.insert(f.hi(), f.lo(), 0, count, f.kvPages, f.canonical, clock, f.out);

            if (ResultCode.NODE_POOL_EXHAUSTED == result)
            {
                cover("insert.exhausted");
                assertTrue(tree.freeNodeCount() < 2, "exhausted with free nodes");
                assertEquals(0, list.size());
                assertEquals(treeHash, tree.stateHash());
                assertEquals(kvHash, f.kvPool.stateHash());
            }
            else
            {
                assertEquals(ResultCode.OK, result);
                final int pages = blocked ? cached : count;
                for (int i = 0; i < list.size(); i++)
                {
                    cover(EffectType.NODE_SPLIT == list.type(i) ? "insert.split" :
                        EffectType.NODE_INSERTED == list.type(i) ? "insert.leaf" : "insert.other");
                }
                if (blocked)
                {
                    cover("insert.blocked");
                }
                if (cached > 0)
                {
                    cover("insert.dedupe");
                }
                assertEquals(pages, f.out.pages, "pages inserted (blocked=" + blocked + ")");
                assertEquals(pages, tree.depth(f.out.node));
                assertEquals(expectedMambaPages(keys, pages), f.out.mambaPages);
                for (int j = 0; j < pages; j++)
                {
                    final Integer page = pageOf.get(keys[j + 1]);
                    if (null != page)
                    {
                        assertEquals(page.intValue(), f.canonical[j], "dedupe at " + j);
                    }
                    else
                    {
                        assertEquals(f.kvPages[j], f.canonical[j], "new page at " + j);
                        pageOf.put(keys[j + 1], f.kvPages[j]);
                        parentOf.put(keys[j + 1], keys[j]);
                    }
                    accessOf.put(keys[j + 1], clock);
                }
            }
            for (int i = cached; i < count; i++)
            {
                if (SlotState.REQUEST == f.kvPool.state(f.kvPages[i]))
                {
                    f.kvPool.transition(f.kvPages[i], SlotState.FREE, -1);
                }
            }
        }

        private void match()
        {
            operation = "match";
            final int[] symbols = sequence();
            final boolean includeLoading = random.nextInt(10) == 0;
            f.load(symbols);
            final long hash = tree.stateHash();
            tree.match(f.hi(), f.lo(), 0, symbols.length, includeLoading, f.out);
            final MatchResult out = f.out;
            assertEquals(expectedMatch(symbols, symbols.length, includeLoading), out.pages, "match pages");
            if (!includeLoading && out.pages < expectedMatch(symbols, symbols.length, true))
            {
                cover("match.loadingHidden");
            }
            assertEquals(expectedMambaPages(keys(symbols, symbols.length), out.pages), out.mambaPages);
            assertEquals(out.mambaPages, tree.depth(out.mambaNode));
            assertEquals(out.nodePages, tree.depth(out.node));
            assertTrue(out.nodePages <= out.pages);
            if (out.pages > out.nodePages)
            {
                assertEquals(out.node, tree.parent(out.partialNode));
                assertTrue(out.pages - out.nodePages < tree.pageCount(out.partialNode));
            }
            else
            {
                assertEquals(RadixTree.NO_NODE, out.partialNode);
            }
            assertEquals(hash, tree.stateHash(), "match changed the tree");
            assertEquals(0, list.size());
        }

        private void lock()
        {
            operation = "lock";
            if (held.size() >= RECEIPTS)
            {
                return;
            }
            final int node = random.nextInt(10) == 0 ? RadixTree.ROOT : pickNode();
            if (RadixTree.NO_NODE == node)
            {
                return;
            }
            final Component component = random.nextInt(10) < 7 ? Component.FULL : Component.MAMBA;
            final SlotState kind = random.nextBoolean() ? SlotState.REQUEST : SlotState.OP;
            final long holder = random.nextInt(20);
            final long receipt = tree.lock(node, component, kind, holder);
            if (Component.MAMBA == component && RadixTree.ROOT == node)
            {
                assertEquals(ResultCode.NODE_UNKNOWN, receipt);
                assertEquals(0, list.size());
                return;
            }
            assertTrue(receipt > 0);
            assertEquals(1, list.size());
            assertEquals(EffectType.LOCKED, list.type(0));
            assertEquals(receipt, list.value1(0));
            assertEquals(node, list.id(0));
            final int[] symbols = pathSymbols(node);
            locks.put(receipt, new Lock(keys(symbols, symbols.length), component, SlotState.OP == kind));
            held.add(receipt);
        }

        private void unlock()
        {
            operation = "unlock";
            final long hash = tree.stateHash();
            if (!released.isEmpty() && (held.isEmpty() || random.nextInt(5) == 0))
            {
                final long receipt = released.get(random.nextInt(released.size()));
                assertEquals(ResultCode.LOCK_RECEIPT_UNKNOWN, tree.unlock(receipt), "second unlock");
                cover("unlock.second");
                assertEquals(0, list.size());
                assertEquals(hash, tree.stateHash());
                return;
            }
            if (held.isEmpty())
            {
                return;
            }
            final int index = random.nextInt(held.size());
            final long receipt = held.get(index);
            held.set(index, held.get(held.size() - 1));
            held.remove(held.size() - 1);
            assertEquals(ResultCode.OK, tree.unlock(receipt));
            assertEquals(1, list.size());
            assertEquals(EffectType.UNLOCKED, list.type(0));
            assertEquals(receipt, list.value1(0));
            assertEquals(locks.remove(receipt).component(), list.component(0));
            released.add(receipt);
            if (released.size() > 64)
            {
                released.remove(0);
            }
        }

        private void touch()
        {
            operation = "touch";
            final int node = pickNode();
            if (RadixTree.NO_NODE == node)
            {
                return;
            }
            clock++;
            tree.touch(node, clock);
            final long[] keys = keys(pathSymbols(node), tree.depth(node));
            for (int j = 1; j < keys.length; j++)
            {
                accessOf.put(keys[j], clock);
            }
            assertEquals(0, list.size());
        }

        private void attach()
        {
            operation = "attach";
            if (0 == f.mambaPool.freeCount())
            {
                final int before = tree.evictableMambaSlots();
                final int freed = tree.evictMamba(1, false);
                assertEquals(Math.min(1, before), freed);
                afterRemoval(false);
                list.clear();
            }
            final int node = pickNode();
            if (RadixTree.NO_NODE == node)
            {
                return;
            }
            final int slot = f.mambaPool.allocate(SlotState.REQUEST, 5);
            if (SlotPool.NO_SLOT == slot)
            {
                return;
            }
            final long hash = tree.stateHash();
            list.clear();
            final int[] symbols = pathSymbols(node);
            final long endKey = keys(symbols, symbols.length)[symbols.length];
            final int result = tree.attachMamba(node, slot);
            if (mambaOf.containsKey(endKey))
            {
                assertEquals(ResultCode.SLOT_ILLEGAL_TRANSITION, result);
                assertEquals(0, list.size());
                assertEquals(hash, tree.stateHash());
                f.mambaPool.transition(slot, SlotState.FREE, -1);
            }
            else
            {
                assertEquals(ResultCode.OK, result);
                assertEquals(1, list.size());
                assertEquals(SlotState.NODE, list.toState(0));
                assertEquals(node, list.owner(0));
                mambaOf.put(endKey, slot);
            }
        }

        private void evictPages(final int want)
        {
            operation = "evictPages";
            final int before = tree.evictablePages();
            final int freeBefore = f.kvPool.freeCount();
            final int freed = tree.evictPages(want, false);
            assertTrue(freed <= before, "freed " + freed + " > evictable " + before);
            assertTrue(freed >= Math.min(want, before), "freed " + freed + " < min(" + want + ", " + before + ")");
            if (freed < want)
            {
                assertEquals(before, freed);
                assertEquals(0, tree.evictablePages());
            }
            assertEquals(freeBefore + freed, f.kvPool.freeCount());
            final long newestVictim = afterRemoval(true);
            if (freed > 0)
            {
                cover("evict.victims");
                for (int node = 1; node < NODES; node++)
                {
                    if (tree.live(node) && 0 == tree.childCount(node) && -1 == tree.loadingOp(node) &&
                        tree.fullLocks(node) <= 0 && tree.mambaLocks(node) <= 0)
                    {
                        cover("evict.lruChecked");
                        assertTrue(tree.lastAccess(node) >= newestVictim, "LRU: node " + node + " accessed at " +
                            tree.lastAccess(node) + " survived a victim accessed at " + newestVictim);
                    }
                }
            }
        }

        private void evictMamba()
        {
            operation = "evictMamba";
            final int want = 1 + random.nextInt(3);
            final int before = tree.evictableMambaSlots();
            for (int wanted = 0; wanted <= before + 1; wanted++)
            {
                assertEquals(before >= wanted, tree.evictableMambaSlotsAtLeast(wanted), "at least " + wanted);
            }
            assertEquals(before, tree.evictableMambaSlots(), "a stopped pass leaves the next count unchanged");
            final int freeBefore = f.mambaPool.freeCount();
            final int freed = tree.evictMamba(want, false);
            assertEquals(Math.min(want, before), freed, "Mamba slots freed");
            if (freed > 0)
            {
                cover("evictMamba.freed");
            }
            assertEquals(freeBefore + freed, f.mambaPool.freeCount());
            afterRemoval(true);
        }

        private void deleteLeaf()
        {
            operation = "deleteLeaf";
            final int node = random.nextInt(20) == 0 ? RadixTree.ROOT : pickNode();
            if (RadixTree.NO_NODE == node)
            {
                return;
            }
            final long hash = tree.stateHash();
            final int[] symbols = pathSymbols(node);
            final int result = tree.deleteLeaf(node);
            if (RadixTree.ROOT == node)
            {
                assertEquals(ResultCode.NODE_UNKNOWN, result);
                assertEquals(hash, tree.stateHash());
                return;
            }
            final int depth = symbols.length;
            final long[] keys = keys(symbols, depth);
            boolean children = false;
            for (int s = 0; s < SYMBOLS; s++)
            {
                children |= pageOf.containsKey(key(keys[depth], s));
            }
            boolean locked = false;
            for (final Lock lock : locks.values())
            {
                locked |= lock.covers(depth, keys[depth]);
            }
            final int expected = children ? ResultCode.NODE_HAS_CHILDREN :
                locked ? ResultCode.NODE_LOCKED : ResultCode.OK;
            assertEquals(expected, result);
            cover(children ? "delete.children" : locked ? "delete.locked" : "delete.ok");
            if (ResultCode.OK == result)
            {
                afterRemoval(false);
            }
            else
            {
                assertEquals(0, list.size());
                assertEquals(hash, tree.stateHash());
            }
        }

        private void markLoading()
        {
            operation = "markLoading";
            if (loadingKeys.size() < 3 && random.nextInt(10) < 6)
            {
                final int node = pickNode();
                if (RadixTree.NO_NODE == node || -1 != tree.loadingOp(node))
                {
                    return;
                }
                final long op = nextOp++;
                tree.markLoading(node, op);
                final int[] symbols = pathSymbols(node);
                final long endKey = keys(symbols, symbols.length)[symbols.length];
                loadingOf.put(endKey, new Loading(symbols, tree.depth(node) - tree.pageCount(node), op));
                loadingKeys.add(endKey);
            }
            else if (!loadingKeys.isEmpty())
            {
                final long endKey = loadingKeys.remove(random.nextInt(loadingKeys.size()));
                final Loading loading = loadingOf.remove(endKey);
                f.match(true, loading.symbols());
                assertEquals(loading.symbols().length, f.out.nodePages);
                assertEquals(loading.op(), tree.loadingOp(f.out.node));
                tree.markLoading(f.out.node, -1);
            }
            assertEquals(0, list.size());
        }

        private void split()
        {
            operation = "split";
            final int node = pickNode();
            if (RadixTree.NO_NODE == node || tree.pageCount(node) < 2 || -1 != tree.loadingOp(node))
            {
                return;
            }
            final int k = 1 + random.nextInt(tree.pageCount(node) - 1);
            final long hash = tree.stateHash();
            final int parent = tree.split(node, k);
            if (RadixTree.NO_NODE == parent)
            {
                assertEquals(0, tree.freeNodeCount());
                assertEquals(0, list.size());
                assertEquals(hash, tree.stateHash());
                return;
            }
            cover("split.ok");
            assertEquals(1 + k, list.size());
            assertEquals(EffectType.NODE_SPLIT, list.type(0));
            assertEquals(node, list.id(0));
            assertEquals(parent, list.owner(0));
            assertEquals(parent, tree.parent(node));
            assertEquals(tree.fullLocks(node), tree.fullLocks(parent));
            assertEquals(0, tree.mambaLocks(parent));
            assertEquals(-1, tree.mambaSlot(parent));
        }

        // ---------------------------------------------------------------------------------------------- model

        /**
         * Bring the model in line after evictions or a deletion: prefixes whose page left NODE are gone, Mamba
         * states whose slot left NODE are gone; check none of them was locked or loading and the rest is still
         * prefix-closed.
         *
         * @return newest last access among the removed prefixes (0 when none).
         */
        private long afterRemoval(final boolean eviction)
        {
            final Set<Long> removed = new HashSet<>();
            long newest = 0;
            for (final Map.Entry<Long, Integer> e : pageOf.entrySet())
            {
                final SlotState state = f.kvPool.state(e.getValue());
                if (SlotState.NODE != state)
                {
                    assertEquals(SlotState.FREE, state);
                    removed.add(e.getKey());
                    newest = Math.max(newest, accessOf.get(e.getKey()));
                }
            }
            for (final Lock lock : locks.values())
            {
                if (Component.FULL == lock.component())
                {
                    for (final long k : lock.keys())
                    {
                        assertTrue(!removed.contains(k), "removed a FULL-locked prefix");
                    }
                }
            }
            for (final Loading loading : loadingOf.values())
            {
                final long[] keys = keys(loading.symbols(), loading.symbols().length);
                for (int j = 1; j < keys.length; j++)
                {
                    if (eviction && removed.contains(keys[j]))
                    {
                        throw new AssertionError("evicted a prefix under a loading node");
                    }
                }
            }
            for (final long k : removed)
            {
                pageOf.remove(k);
                accessOf.remove(k);
                parentOf.remove(k);
            }
            final List<Long> droppedStates = new ArrayList<>();
            for (final Map.Entry<Long, Integer> e : mambaOf.entrySet())
            {
                if (SlotState.NODE != f.mambaPool.state(e.getValue()))
                {
                    droppedStates.add(e.getKey());
                }
            }
            for (final long k : droppedStates)
            {
                mambaOf.remove(k);
                for (final Lock lock : locks.values())
                {
                    final boolean onNode = lock.keys()[lock.keys().length - 1] == k;
                    assertTrue(!(onNode && Component.MAMBA == lock.component()), "dropped a MAMBA-locked state");
                    if (eviction)
                    {
                        boolean opOnPath = false;
                        for (final long path : lock.keys())
                        {
                            opOnPath |= path == k;
                        }
                        assertTrue(!(opOnPath && lock.op() && Component.FULL == lock.component()),
                            "dropped a state under an op lock");
                    }
                }
            }
            for (int i = loadingKeys.size() - 1; i >= 0; i--)
            {
                if (!pageOf.containsKey(loadingKeys.get(i)))
                {
                    loadingOf.remove(loadingKeys.remove(i));
                }
            }
            for (final Map.Entry<Long, Long> e : parentOf.entrySet())
            {
                assertTrue(ROOT_KEY == e.getValue() || pageOf.containsKey(e.getValue()), "prefix closure");
            }
            return newest;
        }

        private int expectedMatch(final int[] symbols, final int count, final boolean includeLoading)
        {
            final long[] keys = keys(symbols, count);
            int pages = 0;
            while (pages < count && pageOf.containsKey(keys[pages + 1]))
            {
                pages++;
            }
            if (!includeLoading)
            {
                for (final Loading loading : loadingOf.values())
                {
                    final int start = loading.start();
                    if (start < pages && Arrays.equals(loading.symbols(), 0, start + 1, symbols, 0, start + 1))
                    {
                        pages = start;
                    }
                }
            }
            return pages;
        }

        private int expectedMambaPages(final long[] keys, final int pages)
        {
            for (int j = pages; j > 0; j--)
            {
                if (mambaOf.containsKey(keys[j]))
                {
                    return j;
                }
            }
            return 0;
        }

        private void compareAll()
        {
            final Map<Long, Integer> full = new HashMap<>();
            final Map<Long, Integer> op = new HashMap<>();
            final Map<Long, Integer> mamba = new HashMap<>();
            for (final Lock lock : locks.values())
            {
                final long[] keys = lock.keys();
                if (Component.FULL == lock.component())
                {
                    for (int j = 1; j < keys.length; j++)
                    {
                        full.merge(keys[j], 1, Integer::sum);
                        if (lock.op())
                        {
                            op.merge(keys[j], 1, Integer::sum);
                        }
                    }
                }
                else
                {
                    mamba.merge(keys[keys.length - 1], 1, Integer::sum);
                }
            }
            int pages = 0;
            int states = 0;
            int loading = 0;
            for (int node = 1; node < NODES; node++)
            {
                if (!tree.live(node))
                {
                    continue;
                }
                final int[] symbols = pathSymbols(node);
                final int depth = symbols.length;
                final long[] keys = keys(symbols, depth);
                tree.collectPages(node, pageBuffer);
                for (int j = depth - tree.pageCount(node) + 1; j <= depth; j++)
                {
                    final Integer page = pageOf.get(keys[j]);
                    assertEquals(page, Integer.valueOf(pageBuffer[j - 1]), "node " + node + " page " + j);
                    assertEquals(accessOf.get(keys[j]), Long.valueOf(tree.lastAccess(node)), "access of " + node);
                }
                final long end = keys[depth];
                assertEquals(mambaOf.getOrDefault(end, -1).intValue(), tree.mambaSlot(node), "Mamba of " + node);
                final Loading mark = loadingOf.get(end);
                assertEquals(null == mark ? -1 : mark.op(), tree.loadingOp(node), "loading of " + node);
                assertEquals(full.getOrDefault(end, 0).intValue(), tree.fullLocks(node), "FULL locks of " + node);
                assertEquals(op.getOrDefault(end, 0).intValue(), tree.opLocks(node), "op locks of " + node);
                assertEquals(mamba.getOrDefault(end, 0).intValue(), tree.mambaLocks(node), "MAMBA locks of " + node);
                if (tree.fullLocks(node) > 0)
                {
                    cover("compare.locked");
                }
                pages += tree.pageCount(node);
                states += -1 == tree.mambaSlot(node) ? 0 : 1;
                loading += null == mark ? 0 : 1;
            }
            assertEquals(pageOf.size(), pages, "cached pages");
            assertEquals(mambaOf.size(), states, "Mamba states");
            assertEquals(loadingOf.size(), loading, "loading marks");
            assertEquals(held.size(), tree.receiptCount(), "receipts");
        }

        // ---------------------------------------------------------------------------------------------- helpers

        private int[] sequence()
        {
            final int[] base = bases[random.nextInt(bases.length)];
            final int length = 1 + random.nextInt(MAX_LENGTH);
            final int[] symbols = Arrays.copyOf(base, length);
            if (random.nextBoolean())
            {
                for (int j = random.nextInt(length); j < length; j++)
                {
                    symbols[j] = random.nextInt(SYMBOLS);
                }
            }
            return symbols;
        }

        private int pickNode()
        {
            final int start = random.nextInt(NODES);
            for (int i = 0; i < NODES; i++)
            {
                final int node = (start + i) % NODES;
                if (RadixTree.ROOT != node && tree.live(node))
                {
                    return node;
                }
            }
            return RadixTree.NO_NODE;
        }

        private int[] pathSymbols(final int node)
        {
            final int depth = tree.collectPages(node, pageBuffer);
            final int[] symbols = new int[depth];
            for (int j = 0; j < depth; j++)
            {
                symbols[j] = TreeFixture.symbol(tree.pageHi(pageBuffer[j]), tree.pageLo(pageBuffer[j]));
            }
            return symbols;
        }
    }

}
