package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.ingress.Fingerprinter;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.RadixTree;

import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Black-box audit of the radix tree and cache semantics against the domain reference (§2.1 to §2.5, §3.1, §3.3,
 * §3.5, §3.6), its corrections and DESIGN.md, through the engine's inputs only: page-granular prefix matches and
 * chained page keys, splits (pages, owners, locks and the Mamba state), dedupe on insert, lock protection, LRU
 * eviction, the write path and Mamba donation. Slot conservation and the tree/pool cross-check run after every
 * input ({@link #conserve}).
 */
class TreeCacheSemanticsTest
{
    private static final int PAGE = 4;
    private static final int KV = 64;
    private static final int MAMBA = 16;
    private static final int HOST_KV = 32;
    private static final int HOST_MAMBA = 4;

    private static EngineConfig.Builder base()
    {
        return EngineConfig.builder().pageSize(PAGE).deviceKvPages(KV).deviceMambaSlots(MAMBA).hostKvPages(HOST_KV)
            .hostMambaSlots(HOST_MAMBA).maxRequests(16).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1);
    }

    /** A driver that checks conservation after every input. */
    private static final class Checked
    {
        final Driver d;
        final Fingerprinter fp = new Fingerprinter(PAGE);
        final Map<Long, Long> sources = new HashMap<>();

        Checked(final EngineConfig config)
        {
            d = new Driver(config, true);
        }

        int apply(final InputRecord in)
        {
            final int result = d.apply(in);
            conserve(d, sources);
            return result;
        }

        /** Arrive with token ids (fingerprinted at ingress); answers the L3 query with no hit. */
        void arriveTokens(final long request, final long namespace, final int[] tokens)
        {
            final int tail = tokens.length % PAGE;
            Inputs.arrive(d.in.reset(), request, tail, 8, namespace);
            fp.fingerprint(namespace, tokens, tokens.length, d.in);
            assertEquals(ResultCode.OK, apply(d.in));
            final long query = d.opId(EffectType.OP_QUEUED, OpKind.QUERY);
            if (query >= 0)
            {
                assertEquals(ResultCode.OK, apply(Inputs.storageHit(d.in.reset(), query, 0, 0)));
            }
        }

        /** Arrive with pages of a seed run (Driver's fingerprints), no L3 hit. */
        void cold(final long request, final long seed, final int pages)
        {
            Inputs.arrive(d.in.reset(), request, 0, 8, 0);
            addPages(d.in, seed, 0, pages);
            assertEquals(ResultCode.OK, apply(d.in));
            answerNoHit();
        }

        /** Arrive with the first {@code shared} pages of {@code seed} and the rest of {@code other}. */
        void sharing(final long request, final long seed, final int shared, final long other, final int pages)
        {
            Inputs.arrive(d.in.reset(), request, 0, 8, 0);
            addPages(d.in, seed, 0, shared);
            addPages(d.in, other, shared, pages - shared);
            assertEquals(ResultCode.OK, apply(d.in));
            answerNoHit();
        }

        private void answerNoHit()
        {
            final long query = d.opId(EffectType.OP_QUEUED, OpKind.QUERY);
            if (query >= 0)
            {
                assertEquals(ResultCode.OK, apply(Inputs.storageHit(d.in.reset(), query, 0, 0)));
            }
        }

        /** Admit alone in a pass; returns the admitted prefix pages. */
        long admit(final long request)
        {
            assertEquals(ResultCode.OK, apply(Inputs.passBegin(d.in.reset(), 64, 1 << 30, 1 << 30, 1 << 30)));
            assertEquals(ResultCode.OK, apply(Inputs.admit(d.in.reset(), request)));
            final long prefix = d.admittedPrefix();
            assertEquals(ResultCode.OK, apply(Inputs.passEnd(d.in.reset())));
            return prefix;
        }

        /** Ack the request's copy-on-write or load, if any. */
        void ackOwnOps(final long request)
        {
            final long cow = d.engine.cowOpOf(request);
            if (cow >= 0)
            {
                assertEquals(ResultCode.OK, apply(Inputs.ack(d.in.reset(), cow, true)));
            }
            final long load = d.engine.loadOpOf(request);
            if (load >= 0)
            {
                assertEquals(ResultCode.OK, apply(Inputs.ack(d.in.reset(), load, true)));
            }
        }

        int finish(final long request, final int pages, final int tracked)
        {
            return apply(Inputs.finish(d.in.reset(), request, pages, tracked, 0, 0, 0));
        }

        /** Ack every launched backup and store until none is in flight. */
        void drainWrites()
        {
            for (int guard = 0; guard < 256; guard++)
            {
                final long op = launched(d, OpKind.BACKUP, OpKind.STORE);
                if (op < 0)
                {
                    return;
                }
                assertEquals(ResultCode.OK, apply(Inputs.ack(d.in.reset(), op, true)));
            }
            throw new AssertionError("writes never drained");
        }

        void evictAll()
        {
            for (int guard = 0; guard < 64 && d.engine.tree().nodeCount() > 1; guard++)
            {
                assertEquals(ResultCode.OK, apply(Inputs.tick(d.in.reset(), Long.MAX_VALUE)));
            }
        }

        /** Every pool back to all free and the tree back to its root. */
        void assertAllFree()
        {
            for (final Pool p : pools(d))
            {
                final SlotPool pool = d.engine.pool(p);
                assertEquals(pool.capacity(), pool.freeCount(), p + " all free at the end");
            }
            assertEquals(1, d.engine.tree().nodeCount(), "only the root is left");
            assertEquals(0, d.engine.tree().receiptCount(), "no lock receipt is left");
        }

        int node(final long request)
        {
            return d.engine.lockedNodeOf(request);
        }
    }

    static void addPages(final InputRecord in, final long seed, final int from, final int count)
    {
        for (int i = from; i < from + count; i++)
        {
            in.addFingerprint(seed * 1_000_003L + i, (seed << 20) ^ (i * 0x9E3779B97F4A7C15L));
        }
    }

    private static Pool[] pools(final Driver d)
    {
        return d.engine.config().hybrid() ?
            new Pool[] {Pool.DEVICE_KV, Pool.DEVICE_MAMBA, Pool.HOST_KV, Pool.HOST_MAMBA} :
            new Pool[] {Pool.DEVICE_KV, Pool.HOST_KV};
    }

    private static long launched(final Driver d, final OpKind a, final OpKind b)
    {
        final OpTable ops = d.engine.ops();
        for (int o = 0; o < d.engine.config().maxOps(); o++)
        {
            if ((ops.kind(o) == a || ops.kind(o) == b) && ops.state(o) == OpTable.LAUNCHED)
            {
                return ops.id(o);
            }
        }
        return -1;
    }

    /**
     * Slot conservation and the tree/pool cross-check, recounted from the pools' per-slot states: free + used ==
     * capacity for every pool; the free list holds exactly the FREE slots; every device KV page a live node lists is
     * a NODE slot owned by that node, and the NODE slots are exactly those; every node state is a NODE Mamba slot
     * owned by that node, and those are all of them; no slot an in-flight op reads or writes is FREE; a device slot a
     * backup or copy reads is never handed to a request or freed while the op is in flight (its source is
     * remembered in {@code sources}: slot key -> owner at first sight; a split may move a page to the new parent).
     */
    static void conserve(final Driver d, final Map<Long, Long> sources)
    {
        final CacheStateMachine e = d.engine;
        for (final Pool p : pools(d))
        {
            final SlotPool pool = e.pool(p);
            final int[] counts = new int[SlotState.values().length];
            for (int id = 0; id < pool.capacity(); id++)
            {
                counts[pool.state(id).ordinal()]++;
            }
            int used = 0;
            for (final SlotState s : SlotState.values())
            {
                if (s == SlotState.NULL_VAL)
                {
                    continue;
                }
                assertEquals(counts[s.ordinal()], pool.count(s), p + " " + s + " count at sequence " + e.sequence());
                if (s != SlotState.FREE)
                {
                    used += counts[s.ordinal()];
                }
            }
            assertEquals(counts[SlotState.FREE.ordinal()], pool.freeCount(), p + " free list at " + e.sequence());
            assertEquals(pool.capacity(), pool.freeCount() + used, p + " free + used == size at " + e.sequence());
        }

        final RadixTree tree = e.tree();
        final SlotPool kv = e.pool(Pool.DEVICE_KV);
        final boolean hybrid = e.config().hybrid();
        int nodePages = 0;
        int nodeStates = 0;
        int liveNodes = 0;
        for (int n = 1; n < tree.maxNodes(); n++)
        {
            if (!tree.live(n))
            {
                continue;
            }
            liveNodes++;
            int page = tree.firstPage(n);
            for (int i = 0; i < tree.pageCount(n); i++)
            {
                assertEquals(SlotState.NODE, kv.state(page), "page " + page + " of node " + n + " at " + e.sequence());
                assertEquals(n, kv.owner(page), "owner of page " + page + " of node " + n + " at " + e.sequence());
                page = tree.nextPage(page);
                nodePages++;
            }
            assertEquals(tree.depth(tree.parent(n)) + tree.pageCount(n), tree.depth(n), "depth of node " + n);
            assertTrue(tree.fullLocks(n) >= 0 && tree.mambaLocks(n) >= 0, "lock counts of node " + n);
            if (tree.parent(n) != RadixTree.ROOT)
            {
                assertTrue(tree.fullLocks(tree.parent(n)) >= tree.fullLocks(n),
                    "a FULL lock counts on every ancestor: node " + n + " at " + e.sequence());
            }
            if (hybrid && tree.mambaSlot(n) >= 0)
            {
                final SlotPool m = e.pool(Pool.DEVICE_MAMBA);
                assertEquals(SlotState.NODE, m.state(tree.mambaSlot(n)), "state of node " + n);
                assertEquals(n, m.owner(tree.mambaSlot(n)), "owner of the state of node " + n);
                nodeStates++;
            }
        }
        assertEquals(liveNodes + 1, tree.nodeCount(), "live nodes at " + e.sequence());
        assertEquals(kv.count(SlotState.NODE), nodePages, "NODE pages == pages the tree lists at " + e.sequence());
        if (hybrid)
        {
            assertEquals(e.pool(Pool.DEVICE_MAMBA).count(SlotState.NODE), nodeStates,
                "NODE Mamba slots == node states at " + e.sequence());
        }

        final OpTable ops = e.ops();
        final Map<Long, Long> seen = new HashMap<>();
        for (int o = 0; o < e.config().maxOps(); o++)
        {
            if (ops.kind(o) == null || (ops.state(o) != OpTable.QUEUED && ops.state(o) != OpTable.LAUNCHED))
            {
                continue;
            }
            for (int m = 0; m < ops.moveCount(o); m++)
            {
                checkTarget(e, ops, o, ops.srcPool(o, m), ops.srcSlot(o, m), "reads");
                checkTarget(e, ops, o, ops.dstPool(o, m), ops.dstSlot(o, m), "writes");
                final byte sp = ops.srcPool(o, m);
                if ((ops.kind(o) == OpKind.BACKUP || ops.kind(o) == OpKind.COW) &&
                    (sp == Pool.DEVICE_KV.value() || sp == Pool.DEVICE_MAMBA.value()))
                {
                    final Pool pool = Pool.get(sp);
                    final int slot = ops.srcSlot(o, m);
                    final long key = ops.id(o) << 20 | (long)sp << 16 | slot;
                    final SlotPool sPool = e.pool(pool);
                    assertEquals(SlotState.NODE, sPool.state(slot), ops.kind(o) + " " + ops.id(o) + " reads " +
                        pool + ":" + slot + " no longer a node's at " + e.sequence());
                    final long owner = sPool.owner(slot);
                    final Long first = sources.get(key);
                    if (first != null && first != owner)
                    {
                        // A split moves a page to the new parent: that parent is live and an ancestor of the old
                        // owner, if the old one still lives.
                        assertTrue(tree.live((int)owner), "source moved to a dead node at " + e.sequence());
                    }
                    seen.put(key, owner);
                }
            }
        }
        sources.clear();
        sources.putAll(seen);
    }

    private static void checkTarget(final CacheStateMachine e, final OpTable ops, final int o, final byte poolCode,
        final int slot, final String role)
    {
        if (poolCode < 0)
        {
            return;
        }
        final Pool pool = Pool.get(poolCode);
        if (!e.config().hybrid() && (pool == Pool.DEVICE_MAMBA || pool == Pool.HOST_MAMBA))
        {
            return;
        }
        assertNotEquals(SlotState.FREE, e.pool(pool).state(slot), ops.kind(o) + " " + ops.id(o) + " " + role + " " +
            pool + ":" + slot + " which is FREE at sequence " + e.sequence());
    }

    private static int[] tokens(final int count, final int base)
    {
        final int[] t = new int[count];
        for (int i = 0; i < count; i++)
        {
            t[i] = base + i;
        }
        return t;
    }

    private static int[] pagesOf(final Driver d, final int node)
    {
        final int[] out = new int[d.engine.tree().depth(node)];
        d.engine.tree().collectPages(node, out);
        return out;
    }

    // -------------------------------------------------------------------------------------------- prefix match

    @Test
    void shouldMatchWholePagesOnlyNeverTheTail()
    {
        final Checked c = new Checked(base().hybrid(false).build());
        final int[] a = tokens(3 * PAGE + 2, 100);
        c.arriveTokens(1, 0, a);
        assertEquals(0, c.admit(1));
        assertTrue(c.d.engine.requestTailPage(1) >= 0, "the partial page gets a device page");
        assertEquals(ResultCode.OK, c.finish(1, 3, 3));
        c.drainWrites();
        assertEquals(KV - 3, c.d.engine.pool(Pool.DEVICE_KV).freeCount(), "3 whole pages cached, the tail freed");

        // Same prompt: the 3 whole pages match, the tail never does.
        c.arriveTokens(2, 0, a.clone());
        assertEquals(3, c.admit(2));
        // Same 3 pages, another tail.
        final int[] b = a.clone();
        b[b.length - 1] = 999;
        c.arriveTokens(3, 0, b);
        assertEquals(3, c.admit(3));
        // A difference inside page 2 (index 1 of page 2): only pages 0 and 1 match.
        final int[] x = a.clone();
        x[2 * PAGE + 1] = 999;
        c.arriveTokens(4, 0, x);
        assertEquals(2, c.admit(4));
        // A shorter prompt whose last page is partial: its cut page never matches as a whole page.
        c.arriveTokens(5, 0, java.util.Arrays.copyOf(a, 2 * PAGE + 3));
        assertEquals(2, c.admit(5));
        for (long r = 2; r <= 5; r++)
        {
            assertEquals(ResultCode.OK, c.finish(r, r == 5 ? 2 : 3, r == 5 ? 2 : 3));
        }
        c.drainWrites();
        c.evictAll();
        c.assertAllFree();
    }

    @Test
    void shouldChainPageKeysFromTheParentsKey()
    {
        final Fingerprinter fp = new Fingerprinter(PAGE);
        final long[] hi1 = new long[2];
        final long[] lo1 = new long[2];
        final long[] hi2 = new long[2];
        final long[] lo2 = new long[2];
        final int[] ab = tokens(2 * PAGE, 0);
        final int[] cb = ab.clone();
        cb[0] = 77;
        fp.fingerprint(0, ab, ab.length, hi1, lo1);
        fp.fingerprint(0, cb, cb.length, hi2, lo2);
        assertFalse(hi1[1] == hi2[1] && lo1[1] == lo2[1], "page 2's key depends on page 1");

        final Checked c = new Checked(base().hybrid(false).build());
        c.arriveTokens(1, 0, ab);
        c.admit(1);
        assertEquals(ResultCode.OK, c.finish(1, 2, 2));
        c.drainWrites();
        // The same second page under another first page matches nothing.
        c.arriveTokens(2, 0, cb);
        assertEquals(0, c.admit(2));
        // The same tokens in another namespace match nothing.
        c.arriveTokens(3, 7, ab.clone());
        assertEquals(0, c.admit(3));
        c.arriveTokens(4, 0, ab.clone());
        assertEquals(2, c.admit(4));
        for (long r = 2; r <= 4; r++)
        {
            assertEquals(ResultCode.OK, c.finish(r, 2, 2));
        }
        c.drainWrites();
        c.evictAll();
        c.assertAllFree();
    }

    // -------------------------------------------------------------------------------------------- split

    @Test
    void shouldKeepPagesOwnersLocksAndTheStateOfANodeItSplits()
    {
        final Checked c = new Checked(base().build());
        final Driver d = c.d;
        c.cold(1, 11, 4);
        c.admit(1);
        assertEquals(ResultCode.OK, c.finish(1, 4, 4));
        c.drainWrites();
        final int n = d.engine.tree().nodeCount() == 2 ? findLeaf(d) : -1;
        assertTrue(n > 0);
        final int[] original = pagesOf(d, n);
        final int state = d.engine.tree().mambaSlot(n);
        assertTrue(state >= 0, "the tracking slot became the checkpoint");

        // Request 2 runs on the whole node: its copy-on-write (in flight) holds the state, it holds the path.
        c.cold(2, 11, 4);
        assertEquals(4, c.admit(2));
        assertTrue(d.engine.cowOpOf(2) >= 0);
        final int fullBefore = d.engine.tree().fullLocks(n);
        final int mambaBefore = d.engine.tree().mambaLocks(n);
        assertTrue(fullBefore >= 1 && mambaBefore >= 1, "request and copy lock the node");

        // Request 3 shares 2 pages, then diverges; it caches 4 pages: the node splits after page 2.
        c.sharing(3, 11, 2, 33, 4);
        c.admit(3);
        assertEquals(ResultCode.OK, c.finish(3, 4, 4));
        assertTrue(d.has(EffectType.NODE_SPLIT), "the insert splits the node");
        final int parent = d.engine.tree().parent(n);
        assertNotEquals(RadixTree.ROOT, parent);
        assertEquals(2, d.engine.tree().pageCount(parent));
        assertEquals(2, d.engine.tree().pageCount(n));
        assertArrayEquals(original, pagesOf(d, n), "the split keeps every page id in place");
        for (int i = 0; i < 2; i++)
        {
            assertEquals(parent, d.engine.pool(Pool.DEVICE_KV).owner(original[i]), "the new parent owns page " + i);
            assertEquals(n, d.engine.pool(Pool.DEVICE_KV).owner(original[2 + i]), "the node keeps page " + (2 + i));
        }
        assertEquals(state, d.engine.tree().mambaSlot(n), "the state stays with the deeper half");
        assertEquals(-1, d.engine.tree().mambaSlot(parent), "the new parent gets no state");
        assertEquals(mambaBefore, d.engine.tree().mambaLocks(n), "the Mamba locks stay on the deeper half");
        assertEquals(0, d.engine.tree().mambaLocks(parent), "the new parent gets no Mamba lock");
        assertEquals(fullBefore, d.engine.tree().fullLocks(n));
        assertTrue(d.engine.tree().fullLocks(parent) >= fullBefore, "the path locks count on the new parent");

        // Eviction cannot take the locked path, only request 3's unlocked leaf.
        c.drainWrites();
        assertEquals(ResultCode.OK, c.apply(Inputs.tick(d.in.reset(), Long.MAX_VALUE)));
        assertTrue(d.engine.tree().live(n) && d.engine.tree().live(parent));

        // A match across the split returns the same pages.
        c.ackOwnOps(2);
        c.cold(4, 11, 4);
        assertEquals(4, c.admit(4));
        for (int i = 0; i < 4; i++)
        {
            assertEquals(original[i], d.engine.requestPage(4, i), "page " + i + " across the split");
        }
        c.ackOwnOps(4);
        assertEquals(ResultCode.OK, c.finish(2, 4, 4));
        assertEquals(ResultCode.OK, c.finish(4, 4, 4));
        c.drainWrites();
        c.evictAll();
        c.assertAllFree();
    }

    private static int findLeaf(final Driver d)
    {
        final RadixTree tree = d.engine.tree();
        for (int n = 1; n < tree.maxNodes(); n++)
        {
            if (tree.live(n) && tree.childCount(n) == 0)
            {
                return n;
            }
        }
        return -1;
    }

    // -------------------------------------------------------------------------------------------- dedupe

    @Test
    void shouldNotDuplicatePagesWhenTwoRequestsCacheTheSamePrefix()
    {
        final Checked c = new Checked(base().build());
        final Driver d = c.d;
        c.cold(1, 11, 4);
        c.cold(2, 11, 6);
        c.cold(3, 11, 4);
        c.admit(1);
        c.admit(2);
        c.admit(3);
        final int freeMambaRunning = d.engine.pool(Pool.DEVICE_MAMBA).freeCount();
        assertEquals(ResultCode.OK, c.finish(1, 4, 4));
        assertEquals(ResultCode.OK, c.finish(3, 4, 4));
        assertEquals(ResultCode.OK, c.finish(2, 6, 6));
        c.drainWrites();
        assertEquals(KV - 6, d.engine.pool(Pool.DEVICE_KV).freeCount(), "6 distinct pages cached once");
        assertEquals(MAMBA - 2, d.engine.pool(Pool.DEVICE_MAMBA).freeCount(),
            "one checkpoint at 4, one at 6; the duplicate tracking slot and every working slot freed (was " +
                freeMambaRunning + " free while running)");
        assertEquals(3, d.engine.tree().nodeCount(), "root, the 4-page node, the 2-page leaf");
        c.evictAll();
        c.assertAllFree();
    }

    // -------------------------------------------------------------------------------------------- locks

    @Test
    void shouldProtectTheWholeLockedPathAndReleaseEachLockOnce()
    {
        final Checked c = new Checked(base().build());
        final Driver d = c.d;
        c.cold(1, 11, 2);
        c.admit(1);
        assertEquals(ResultCode.OK, c.finish(1, 2, 2));
        c.cold(2, 11, 4);
        assertEquals(2, c.admit(2));
        c.ackOwnOps(2);
        assertEquals(ResultCode.OK, c.finish(2, 4, 4));
        c.cold(3, 11, 4);
        assertEquals(4, c.admit(3));
        c.ackOwnOps(3);
        final int leaf = c.node(3);
        final int internal = d.engine.tree().parent(leaf);
        assertNotEquals(RadixTree.ROOT, internal);
        c.drainWrites();
        assertEquals(ResultCode.OK, c.apply(Inputs.tick(d.in.reset(), Long.MAX_VALUE)));
        assertFalse(d.has(EffectType.EVICTED), "a running request's path is never evicted");
        assertTrue(d.engine.tree().fullLocks(internal) >= 1);
        assertEquals(ResultCode.OK, c.finish(3, 4, 4));
        assertEquals(ResultCode.UNKNOWN_REQUEST, c.finish(3, 4, 4));
        for (int n = 1; n < d.engine.tree().maxNodes(); n++)
        {
            if (d.engine.tree().live(n))
            {
                assertEquals(0, d.engine.tree().fullLocks(n), "node " + n + " FULL locks after every finish");
                assertEquals(0, d.engine.tree().mambaLocks(n), "node " + n + " Mamba locks after every finish");
            }
        }
        c.evictAll();
        c.assertAllFree();
    }

    // -------------------------------------------------------------------------------------------- eviction

    @Test
    void shouldEvictLeavesFirstInAccessOrderWhateverTheTimestamps()
    {
        final Checked c = new Checked(base().hybrid(false).build());
        final Driver d = c.d;
        d.nowNs = 5; // every input carries the same time: the order comes from the event sequence
        c.cold(1, 11, 2);
        c.admit(1);
        assertEquals(ResultCode.OK, c.finish(1, 2, 2));
        final int a = findLeaf(d);
        c.cold(2, 22, 2);
        c.admit(2);
        assertEquals(ResultCode.OK, c.finish(2, 2, 2));
        c.cold(3, 11, 4);
        assertEquals(2, c.admit(3));
        assertEquals(ResultCode.OK, c.finish(3, 4, 4));
        c.drainWrites();
        final int b = d.engine.tree().parent(a) == RadixTree.ROOT ? leafUnder(d, a) : -1;
        assertTrue(b > 0);
        assertEquals(ResultCode.OK, c.apply(Inputs.tick(d.in.reset(), 2)));
        assertTrue(d.engine.tree().live(a) && d.engine.tree().live(b), "request 2's node is the least recent");
        assertEquals(ResultCode.OK, c.apply(Inputs.tick(d.in.reset(), 2)));
        assertTrue(d.engine.tree().live(a), "the leaf goes before its parent");
        assertFalse(d.engine.tree().live(b));
        assertEquals(ResultCode.OK, c.apply(Inputs.tick(d.in.reset(), 2)));
        c.assertAllFree();
    }

    private static int leafUnder(final Driver d, final int parent)
    {
        final RadixTree tree = d.engine.tree();
        for (int n = 1; n < tree.maxNodes(); n++)
        {
            if (tree.live(n) && tree.parent(n) == parent)
            {
                return n;
            }
        }
        return -1;
    }

    @Test
    void shouldNeverFreeAPageABackupStillReadsWhileItWaitsForStaging()
    {
        // Host staging for one 3-page write at a time (4 pages less the loads margin of one).
        final Checked c = new Checked(base().hostKvPages(4).build());
        final Driver d = c.d;
        c.cold(1, 11, 3);
        c.admit(1);
        assertEquals(ResultCode.OK, c.finish(1, 3, 3));
        final long firstBackup = launched(d, OpKind.BACKUP, OpKind.BACKUP);
        assertTrue(firstBackup >= 0);
        c.cold(2, 22, 3);
        c.admit(2);
        assertEquals(ResultCode.OK, c.finish(2, 3, 3));
        assertTrue(d.engine.backupBacklog() > 0, "the second backup waits for staging");
        // Evict whatever can go: the second node's backup has no op yet.
        assertEquals(ResultCode.OK, c.apply(Inputs.tick(d.in.reset(), Long.MAX_VALUE)));
        // Then let staging free up: the waiting backup must not read pages that left the tree.
        c.drainWrites();
        c.drainWrites();
        c.evictAll();
        c.assertAllFree();
    }

    @Test
    void shouldSplitANodeWhoseBackupWaitsForStagingAndBackUpEachPieceOnce()
    {
        final Checked c = new Checked(base().hostKvPages(5).build());
        final Driver d = c.d;
        c.cold(1, 11, 4);
        c.admit(1);
        assertEquals(ResultCode.OK, c.finish(1, 4, 4));
        c.cold(2, 22, 4);
        c.admit(2);
        assertEquals(ResultCode.OK, c.finish(2, 4, 4));
        assertTrue(d.engine.backupBacklog() > 0, "request 2's backup waits");
        // Request 3 splits request 2's waiting node.
        c.sharing(3, 22, 2, 44, 4);
        c.admit(3);
        assertEquals(ResultCode.OK, c.finish(3, 4, 4));
        assertTrue(d.has(EffectType.NODE_SPLIT));
        int stored = 0;
        for (int guard = 0; guard < 64; guard++)
        {
            final long op = launched(d, OpKind.BACKUP, OpKind.STORE);
            if (op < 0)
            {
                break;
            }
            assertEquals(ResultCode.OK, c.apply(Inputs.ack(d.in.reset(), op, true)));
            for (int i = 0; i < d.last.size(); i++)
            {
                if (d.last.type(i) == EffectType.PAGES_STORED)
                {
                    stored += (int)d.last.value1(i);
                }
            }
        }
        assertEquals(4 + 4 + 2, stored, "every page new to the tree is stored exactly once");
        c.evictAll();
        c.assertAllFree();
    }

    /** Request {@code r} arrives for 4 pages of seed 11 stored in L3 and is admitted with a load; returns it. */
    private static long stagedLoad(final Checked c, final long r, final int pages)
    {
        final Driver d = c.d;
        Inputs.arrive(d.in.reset(), r, 0, 8, 0);
        addPages(d.in, 11, 0, pages);
        assertEquals(ResultCode.OK, c.apply(d.in));
        final long query = d.opId(EffectType.OP_QUEUED, OpKind.QUERY);
        assertEquals(ResultCode.OK, c.apply(Inputs.storageHit(d.in.reset(), query, pages, pages)));
        final long fetch = d.opId(EffectType.OP_QUEUED, OpKind.FETCH);
        assertEquals(ResultCode.OK, c.apply(Inputs.fetchDone(d.in.reset(), fetch, true, pages, true)));
        assertEquals(pages, c.admit(r));
        final long load = d.engine.loadOpOf(r);
        assertTrue(load >= 0);
        return load;
    }

    @Test
    void shouldNeitherSplitNorMatchANodeALaunchedLoadStillFills()
    {
        for (final boolean hybrid : new boolean[] {false, true})
        {
            for (final boolean ok : new boolean[] {true, false})
            {
                final Checked c = new Checked(base().hybrid(hybrid).build());
                final Driver d = c.d;
                // Request 9 computes 2 pages of seed 11 and 2 of its own, cold, while request 1 loads 4 pages of
                // seed 11 from L3.
                c.sharing(9, 11, 2, 33, 4);
                c.admit(9);
                final long load = stagedLoad(c, 1, 4);
                final int[] loading = new int[4];
                for (int i = 0; i < 4; i++)
                {
                    loading[i] = d.engine.requestPage(1, i);
                }
                // Request 9 caches its pages: its insert stops in front of the loading node (RadixTree's contract),
                // which neither splits nor gets a child; request 9's pages are freed.
                assertEquals(ResultCode.OK, c.finish(9, 4, 4));
                assertFalse(d.has(EffectType.NODE_SPLIT) || d.has(EffectType.NODE_INSERTED));
                assertEquals(2, d.engine.tree().nodeCount());
                // Request 5 wants request 9's 4 pages: the first 2 are being written by the launched load.
                c.cold(5, 11, 2);
                c.sharing(6, 11, 2, 33, 4);
                final long p5 = c.admit(5);
                final long p6 = c.admit(6);
                for (final long r : new long[] {5, 6})
                {
                    for (int i = 0; i < 2; i++)
                    {
                        final int page = d.engine.requestPage(r, i);
                        assertFalse(page >= 0 && page == loading[i] && d.engine.ops().slotOf(load) >= 0,
                            "hybrid=" + hybrid + ": request " + r + " (prefix " + (r == 5 ? p5 : p6) + ") reads page " +
                                i + " while load " + load + " still writes it");
                    }
                }
                assertEquals(ResultCode.OK, c.apply(Inputs.ack(d.in.reset(), load, ok)));
                c.ackOwnOps(5);
                c.ackOwnOps(6);
                for (final long r : new long[] {1, 5, 6})
                {
                    if (d.engine.requestState(r) != null)
                    {
                        c.finish(r, r == 5 ? 2 : 4, r == 5 ? 2 : 4);
                    }
                }
                c.drainWrites();
                c.evictAll();
                c.assertAllFree();
            }
        }
    }

    @Test
    void shouldServeTwoStagedRequestsForTheSamePrefixWhileTheFirstLoadIsInFlight()
    {
        for (final boolean hybrid : new boolean[] {false, true})
        {
            for (final boolean ok : new boolean[] {true, false})
            {
                final Checked c = new Checked(base().hybrid(hybrid).build());
                final Driver d = c.d;
                final long load1 = stagedLoad(c, 1, 4);
                // Request 2 stages the same 4 pages (plus 2) while load 1 is launched.
                Inputs.arrive(d.in.reset(), 2, 0, 8, 0);
                addPages(d.in, 11, 0, 6);
                assertEquals(ResultCode.OK, c.apply(d.in));
                final long query = d.opId(EffectType.OP_QUEUED, OpKind.QUERY);
                assertEquals(ResultCode.OK, c.apply(Inputs.storageHit(d.in.reset(), query, 6, 6)));
                final long fetch = d.opId(EffectType.OP_QUEUED, OpKind.FETCH);
                assertEquals(ResultCode.OK, c.apply(Inputs.fetchDone(d.in.reset(), fetch, true, 6, true)));
                assertEquals(ResultCode.OK, c.apply(Inputs.passBegin(d.in.reset(), 64, 1 << 30, 1 << 30, 1 << 30)));
                final int admitted = c.apply(Inputs.admit(d.in.reset(), 2));
                assertEquals(ResultCode.NOT_ADMITTED, admitted, "request 2 waits for load 1");
                assertEquals(ResultCode.OK, c.apply(Inputs.passEnd(d.in.reset())));
                assertEquals(ResultCode.OK, c.apply(Inputs.ack(d.in.reset(), load1, ok)));
                final long load2 = d.engine.loadOpOf(2);
                if (load2 >= 0)
                {
                    assertEquals(ResultCode.OK, c.apply(Inputs.ack(d.in.reset(), load2, true)));
                }
                for (final long r : new long[] {1, 2})
                {
                    if (d.engine.requestState(r) == RequestState.WAITING || d.engine.requestState(r) ==
                        RequestState.STAGED)
                    {
                        c.admit(r);
                        c.ackOwnOps(r);
                    }
                    if (d.engine.requestState(r) != null)
                    {
                        assertEquals(ResultCode.OK, c.finish(r, r == 1 ? 4 : 6, r == 1 ? 4 : 6));
                    }
                }
                c.drainWrites();
                c.evictAll();
                c.assertAllFree();
            }
        }
    }

    @Test
    void shouldTombstoneTheLeastRecentlyUsedInternalStateAndKeepItsPages()
    {
        final Checked c = new Checked(base().deviceMambaSlots(6).build());
        final Driver d = c.d;
        c.cold(1, 11, 2);
        c.admit(1);
        assertEquals(ResultCode.OK, c.finish(1, 2, 2));
        final int a = findLeaf(d);
        c.cold(2, 11, 4);
        assertEquals(2, c.admit(2));
        c.ackOwnOps(2);
        assertEquals(ResultCode.OK, c.finish(2, 4, 4));
        final int b = leafUnder(d, a);
        c.cold(3, 22, 2);
        c.admit(3);
        assertEquals(ResultCode.OK, c.finish(3, 2, 2));
        c.drainWrites();
        // Request 4 runs on b's checkpoint: the Mamba LRU refreshes b only, not its ancestor a.
        c.cold(4, 11, 4);
        assertEquals(4, c.admit(4));
        c.ackOwnOps(4);
        // Request 5 needs 2 slots with 1 free: one state goes, the least recently used: a's.
        c.cold(5, 33, 2);
        final int cNode = findLeafExcept(d, b);
        assertEquals(1, d.engine.pool(Pool.DEVICE_MAMBA).freeCount());
        c.admit(5);
        assertTrue(d.engine.tree().live(a), "an internal state's eviction keeps the node and its pages");
        assertEquals(2, d.engine.tree().pageCount(a));
        assertEquals(-1, d.engine.tree().mambaSlot(a), "the least recently used state (a's) is dropped");
        assertTrue(d.engine.tree().mambaSlot(b) >= 0 && d.engine.tree().mambaSlot(cNode) >= 0);
        // Without a's checkpoint a 2-page prompt resumes from nothing; b's 4 pages still match.
        c.cold(6, 11, 2);
        c.cold(7, 11, 4);
        assertEquals(ResultCode.OK, c.finish(4, 4, 4));
        assertEquals(ResultCode.OK, c.finish(5, 2, 2));
        assertEquals(0, c.admit(6));
        assertEquals(4, c.admit(7));
        c.ackOwnOps(7);
        assertEquals(ResultCode.OK, c.finish(6, 2, 2));
        assertEquals(ResultCode.OK, c.finish(7, 4, 4));
        c.drainWrites();
        c.evictAll();
        c.assertAllFree();
    }

    private static int findLeafExcept(final Driver d, final int except)
    {
        final RadixTree tree = d.engine.tree();
        for (int n = 1; n < tree.maxNodes(); n++)
        {
            if (tree.live(n) && tree.childCount(n) == 0 && n != except)
            {
                return n;
            }
        }
        return -1;
    }

    @Test
    void shouldGiveAStateOnlyLoadsNodeOneStateWhenARequestDonatesOneBeforeTheAck()
    {
        for (final boolean ok : new boolean[] {true, false})
        {
            final Checked c = new Checked(base().deviceMambaSlots(6).build());
            final Driver d = c.d;
            c.cold(1, 11, 2);
            c.admit(1);
            assertEquals(ResultCode.OK, c.finish(1, 2, 2));
            c.cold(2, 11, 4);
            assertEquals(2, c.admit(2));
            c.ackOwnOps(2);
            assertEquals(ResultCode.OK, c.finish(2, 4, 4));
            c.cold(3, 11, 6);
            assertEquals(4, c.admit(3));
            c.ackOwnOps(3);
            assertEquals(ResultCode.OK, c.finish(3, 6, 6));
            final int b = findLeaf(d);
            final int a = d.engine.tree().parent(b);
            final int x = d.engine.tree().parent(a);
            assertNotEquals(RadixTree.ROOT, x);
            // Refresh x's and b's states, not a's.
            for (final long r : new long[] {4, 5})
            {
                c.cold(r, 11, r == 4 ? 2 : 6);
                c.admit(r);
                c.ackOwnOps(r);
                assertEquals(ResultCode.OK, c.finish(r, r == 4 ? 2 : 6, r == 4 ? 2 : 6));
            }
            c.drainWrites();
            // Mamba pressure: two cold requests take 4 of the 3 free slots: a's state (least recent) goes.
            c.cold(6, 33, 1);
            c.cold(7, 44, 1);
            c.admit(6);
            c.admit(7);
            assertEquals(-1, d.engine.tree().mambaSlot(a), "a's state was the least recently used");
            assertTrue(d.engine.tree().live(a));
            assertEquals(ResultCode.OK, c.apply(Inputs.abort(d.in.reset(), 6, 0, 0, 0)));
            assertEquals(ResultCode.OK, c.apply(Inputs.abort(d.in.reset(), 7, 0, 0, 0)));

            // Request 8 loads a's state from L3 (the device holds its pages); request 9 computes a's pages and
            // would donate a state there before the load's ack.
            c.cold(9, 11, 4);
            assertEquals(2, c.admit(9));
            c.ackOwnOps(9);
            final long load = stagedLoad(c, 8, 4);
            assertEquals(ResultCode.OK, c.finish(9, 4, 4));
            assertTrue(d.engine.tree().mambaSlot(a) >= 0, "request 9 donated a state to a before the load's ack");
            final int donated = d.engine.tree().mambaSlot(a);
            assertEquals(ResultCode.OK, c.apply(Inputs.ack(d.in.reset(), load, ok)));
            assertEquals(donated, d.engine.tree().mambaSlot(a), "the node keeps its one state; the load's is freed");
            if (d.engine.requestState(8) != null)
            {
                if (!ok)
                {
                    c.admit(8);
                    c.ackOwnOps(8);
                }
                assertEquals(ResultCode.OK, c.finish(8, 4, 4));
            }
            c.drainWrites();
            c.evictAll();
            c.assertAllFree();
        }
    }

    // -------------------------------------------------------------------------------------------- write path

    @Test
    void shouldWriteThroughStagingToL3AndLoadItBack()
    {
        final Checked c = new Checked(base().build());
        final Driver d = c.d;
        c.cold(1, 11, 4);
        c.admit(1);
        assertEquals(ResultCode.OK, c.finish(1, 4, 4));
        final int node = findLeaf(d);
        final long backup = d.opId(EffectType.OP_QUEUED, OpKind.BACKUP);
        assertTrue(backup >= 0);
        assertEquals(4, d.engine.pool(Pool.HOST_KV).count(SlotState.OP), "D2H into 4 staging pages");
        assertEquals(1, d.engine.pool(Pool.HOST_MAMBA).count(SlotState.OP), "and one staging state");
        assertTrue(d.opWrites(backup, Pool.HOST_MAMBA, firstOp(d, Pool.HOST_MAMBA)));
        assertEquals(ResultCode.OK, c.apply(Inputs.ack(d.in.reset(), backup, true)));
        final long store = d.opId(EffectType.OP_QUEUED, OpKind.STORE);
        assertTrue(store >= 0, "the D2H ack queues the storage write");
        assertEquals(ResultCode.OK, c.apply(Inputs.tick(d.in.reset(), Long.MAX_VALUE)));
        assertFalse(d.engine.tree().live(node), "after the D2H ack the device copy may go");
        assertEquals(4, d.engine.pool(Pool.HOST_KV).count(SlotState.OP), "the write still reads staging");
        assertEquals(ResultCode.OK, c.apply(Inputs.ack(d.in.reset(), store, true)));
        assertTrue(d.has(EffectType.PAGES_STORED));
        c.assertAllFree();

        // Read back: the hit ends at the stored state; stage, admit, load, ack.
        Inputs.arrive(d.in.reset(), 2, 0, 8, 0);
        addPages(d.in, 11, 0, 4);
        assertEquals(ResultCode.OK, c.apply(d.in));
        final long query = d.opId(EffectType.OP_QUEUED, OpKind.QUERY);
        assertEquals(ResultCode.OK, c.apply(Inputs.storageHit(d.in.reset(), query, 4, 4)));
        final long fetch = d.opId(EffectType.OP_QUEUED, OpKind.FETCH);
        assertEquals(ResultCode.OK, c.apply(Inputs.fetchDone(d.in.reset(), fetch, true, 4, true)));
        assertEquals(4, d.engine.holdPagesOf(2));
        assertEquals(4, c.admit(2));
        final long load = d.engine.loadOpOf(2);
        assertTrue(load >= 0);
        assertEquals(ResultCode.OK, c.apply(Inputs.ack(d.in.reset(), load, true)));
        assertEquals(HOST_KV, d.engine.pool(Pool.HOST_KV).freeCount(), "the load's ack frees staging");
        assertEquals(HOST_MAMBA, d.engine.pool(Pool.HOST_MAMBA).freeCount());
        final int loaded = c.node(2);
        assertTrue(d.engine.tree().mambaSlot(loaded) >= 0, "the loaded node has its state");
        // Another request matches the loaded checkpoint and copies from it.
        c.cold(3, 11, 4);
        assertEquals(4, c.admit(3));
        assertTrue(d.engine.cowOpOf(3) >= 0);
        c.ackOwnOps(3);
        assertEquals(ResultCode.OK, c.finish(2, 4, 4));
        assertEquals(ResultCode.OK, c.finish(3, 4, 4));
        c.drainWrites();
        c.evictAll();
        c.assertAllFree();
    }

    private static int firstOp(final Driver d, final Pool p)
    {
        final SlotPool pool = d.engine.pool(p);
        for (int id = 0; id < pool.capacity(); id++)
        {
            if (pool.state(id) == SlotState.OP)
            {
                return id;
            }
        }
        return -1;
    }

    @Test
    void shouldDonateTheTrackingSlotOrFreeItWhenTheNodeHasAState()
    {
        final Checked c = new Checked(base().build());
        final Driver d = c.d;
        c.cold(1, 11, 4);
        c.cold(2, 11, 4);
        c.admit(1);
        c.admit(2);
        final int working1 = d.engine.requestStateSlot(1);
        final int tracking1 = d.engine.requestTrackingSlot(1);
        final int working2 = d.engine.requestStateSlot(2);
        final int tracking2 = d.engine.requestTrackingSlot(2);
        assertEquals(ResultCode.OK, c.finish(1, 4, 4));
        final int node = findLeaf(d);
        assertEquals(tracking1, d.engine.tree().mambaSlot(node), "the tracking slot becomes the checkpoint");
        assertEquals(SlotState.FREE, d.mambaState(working1), "the working slot is freed");
        assertEquals(ResultCode.OK, c.finish(2, 4, 4));
        assertEquals(tracking1, d.engine.tree().mambaSlot(node), "the node keeps its canonical state");
        assertEquals(SlotState.FREE, d.mambaState(tracking2), "a second state for the same node is freed");
        assertEquals(SlotState.FREE, d.mambaState(working2));
        c.drainWrites();
        c.evictAll();
        c.assertAllFree();
    }

    // -------------------------------------------------------------------------------------------- random

    @Test
    void shouldConserveEverySlotUnderRandomServing()
    {
        int checked = 0;
        for (int seed = 1; seed <= 60; seed++)
        {
            final boolean hybrid = seed % 3 != 0;
            final EngineConfig config = base().hybrid(hybrid).deviceKvPages(24 + seed % 5 * 8)
                .deviceMambaSlots(8 + seed % 4 * 2).hostKvPages(6 + seed % 4 * 4).hostMambaSlots(2 + seed % 3)
                .build();
            checked += randomRun(config, seed, 600);
        }
        assertTrue(checked > 100, "evictions checked against the LRU model: " + checked);
    }

    private static int randomRun(final EngineConfig config, final long seed, final int inputs)
    {
        final SplittableRandom rnd = new SplittableRandom(seed);
        final Checked c = new Checked(config);
        final Driver d = c.d;
        final List<Long> live = new ArrayList<>();
        final Map<Long, Integer> pagesOf = new HashMap<>();
        long next = 1;
        boolean inPass = false;
        int evictionsChecked = 0;
        final StringBuilder before = new StringBuilder();
        for (int step = 0; step < inputs; step++)
        {
            final int action = rnd.nextInt(15);
            final InputRecord in = d.in.reset();
            noForeignWrites(d, live);
            if (action <= 1 && live.size() < 10)
            {
                final long r = next++;
                final int pages = 1 + rnd.nextInt(6);
                final int shared = rnd.nextInt(pages + 1);
                Inputs.arrive(in, r, rnd.nextInt(PAGE), 8, rnd.nextInt(8) == 0 ? 1 : 0);
                addPages(in, 1 + rnd.nextInt(3), 0, shared);
                addPages(in, 100 + rnd.nextInt(4), shared, pages - shared);
                if (c.apply(in) == ResultCode.OK)
                {
                    live.add(r);
                    pagesOf.put(r, pages);
                }
            }
            else if (action == 2)
            {
                answerSomeStorageOp(c, rnd);
            }
            else if (action == 3)
            {
                c.apply(inPass ? Inputs.passEnd(in) :
                    Inputs.passBegin(in, 1 + rnd.nextInt(6), 1 << 20, 1 << 20, 1 << 20));
                inPass = !inPass;
            }
            else if (action >= 12 && !live.isEmpty())
            {
                final long r = live.get(rnd.nextInt(live.size()));
                c.apply(rnd.nextInt(5) == 0 ? Inputs.retract(in, r) : Inputs.admit(in, r));
            }
            else if (action <= 6)
            {
                ackSomeOp(c, rnd);
            }
            else if (action <= 8 && !live.isEmpty())
            {
                final long r = live.get(rnd.nextInt(live.size()));
                final int pages = pagesOf.get(r);
                final int tracked = rnd.nextInt(pages + 1);
                if (rnd.nextBoolean())
                {
                    final int computed = 1 + rnd.nextInt(pages);
                    c.apply(Inputs.chunk(in, r, computed, Math.min(tracked, computed), rnd.nextInt(2), 0, 0));
                }
                else if (c.apply(Inputs.finish(in, r, pages, tracked, rnd.nextInt(3), 0, 0)) == ResultCode.OK)
                {
                    live.remove(r);
                }
            }
            else if (action == 9 && !live.isEmpty())
            {
                final long r = live.get(rnd.nextInt(live.size()));
                if (c.apply(Inputs.abort(in, r, rnd.nextInt(3), 0, 0)) == ResultCode.OK)
                {
                    live.remove(r);
                }
            }
            else
            {
                final long pages = rnd.nextInt(4) == 0 ? Long.MAX_VALUE : rnd.nextInt(8);
                final List<Integer> expected = pages <= 16 ? greedyVictims(d.engine.tree(), (int)pages, before) : null;
                c.apply(Inputs.tick(in, pages));
                if (expected != null)
                {
                    final List<Integer> actual = new ArrayList<>();
                    for (int i = 0; i < d.last.size(); i++)
                    {
                        if (d.last.type(i) == EffectType.EVICTED)
                        {
                            actual.add((int)d.last.id(i));
                        }
                    }
                    evictionsChecked += actual.isEmpty() ? 0 : 1;
                    assertEquals(expected, actual, "seed " + seed + " step " + step + ": victims of TICK(" + pages +
                        ") in LRU order, leaves first; tree before: " + before);
                }
            }
        }
        // Wind down: abort everyone, settle every op, evict everything; every slot must come back.
        for (final long r : live)
        {
            c.apply(Inputs.abort(d.in.reset(), r, 0, 0, 0));
        }
        for (int guard = 0; guard < 400 && d.engine.inFlightOps() > 0; guard++)
        {
            c.apply(Inputs.passBegin(d.in.reset(), 1, 1, 1, 1));
            c.apply(Inputs.passEnd(d.in.reset()));
            answerSomeStorageOp(c, rnd);
            ackSomeOp(c, rnd);
        }
        assertEquals(0, d.engine.inFlightOps(), "seed " + seed + ": every op settles");
        c.evictAll();
        try
        {
            c.assertAllFree();
        }
        catch (final AssertionError ex)
        {
            throw new AssertionError("seed " + seed + ": " + ex.getMessage(), ex);
        }
        return evictionsChecked;
    }

    /**
     * No page or Mamba slot a live request holds is written by an in-flight op of another request (a match never
     * returns pages a load still fills; a copy writes only its own request's slot).
     */
    static void noForeignWrites(final Driver d, final List<Long> live)
    {
        final OpTable ops = d.engine.ops();
        final Map<Long, Long> writer = new HashMap<>();
        for (int o = 0; o < d.engine.config().maxOps(); o++)
        {
            if (ops.kind(o) != null && (ops.state(o) == OpTable.QUEUED || ops.state(o) == OpTable.LAUNCHED))
            {
                for (int m = 0; m < ops.moveCount(o); m++)
                {
                    final byte p = ops.dstPool(o, m);
                    if (p == Pool.DEVICE_KV.value() || p == Pool.DEVICE_MAMBA.value())
                    {
                        writer.put((long)p << 32 | ops.dstSlot(o, m), ops.request(o));
                    }
                }
            }
        }
        for (final long r : live)
        {
            for (int i = 0; i < d.engine.config().maxRequestPages(); i++)
            {
                final int page = d.engine.requestPage(r, i);
                if (page < 0)
                {
                    break;
                }
                final Long w = writer.get((long)Pool.DEVICE_KV.value() << 32 | page);
                assertTrue(w == null || w == r, "request " + r + " holds page " + page + " (index " + i +
                    ") that an op of request " + w + " writes, at " + d.engine.sequence());
            }
            for (final int slot : new int[] {d.engine.requestStateSlot(r), d.engine.requestTrackingSlot(r)})
            {
                final Long w = slot < 0 ? null : writer.get((long)Pool.DEVICE_MAMBA.value() << 32 | slot);
                assertTrue(w == null || w == r, "request " + r + " holds Mamba slot " + slot +
                    " that an op of request " + w + " writes, at " + d.engine.sequence());
            }
        }
    }


    /**
     * The victims of a FULL eviction of {@code pages} pages as the domain states it: repeatedly the least recently
     * used leaf whose FULL and MAMBA lock counts are 0 and which no load is filling; a parent left childless
     * becomes a candidate. Equal access times keep the deeper node first.
     */
    static List<Integer> greedyVictims(final RadixTree tree, final int pages, final StringBuilder dump)
    {
        final int max = tree.maxNodes();
        final int[] children = new int[max];
        final boolean[] gone = new boolean[max];
        dump.setLength(0);
        for (int n = 1; n < max; n++)
        {
            if (tree.live(n))
            {
                children[n] = tree.childCount(n);
                dump.append(n).append("(p").append(tree.parent(n)).append(",a").append(tree.lastAccess(n))
                    .append(",c").append(tree.childCount(n)).append(",f").append(tree.fullLocks(n)).append(",m")
                    .append(tree.mambaLocks(n)).append(",l").append(tree.loadingOp(n)).append(") ");
            }
        }
        final List<Integer> out = new ArrayList<>();
        int freed = 0;
        while (freed < pages)
        {
            int best = -1;
            for (int n = 1; n < max; n++)
            {
                if (tree.live(n) && !gone[n] && children[n] == 0 && tree.fullLocks(n) == 0 &&
                    tree.mambaLocks(n) == 0 && tree.loadingOp(n) == RadixTree.NO_OP &&
                    (best < 0 || tree.lastAccess(n) < tree.lastAccess(best) ||
                        tree.lastAccess(n) == tree.lastAccess(best) && tree.depth(n) > tree.depth(best)))
                {
                    best = n;
                }
            }
            if (best < 0)
            {
                break;
            }
            gone[best] = true;
            out.add(best);
            freed += tree.pageCount(best);
            if (tree.parent(best) != RadixTree.ROOT)
            {
                children[tree.parent(best)]--;
            }
        }
        return out;
    }

    private static void answerSomeStorageOp(final Checked c, final SplittableRandom rnd)
    {
        final OpTable ops = c.d.engine.ops();
        for (int o = 0; o < c.d.engine.config().maxOps(); o++)
        {
            if (ops.state(o) != OpTable.LAUNCHED)
            {
                continue;
            }
            if (ops.kind(o) == OpKind.QUERY)
            {
                final int present = rnd.nextInt(7);
                c.apply(Inputs.storageHit(c.d.in.reset(), ops.id(o), present, rnd.nextInt(present + 1)));
                return;
            }
            if (ops.kind(o) == OpKind.FETCH)
            {
                final boolean ok = rnd.nextInt(6) != 0;
                int pages = 0;
                for (int m = 0; m < ops.moveCount(o); m++)
                {
                    pages += ops.dstPool(o, m) == Pool.HOST_KV.value() ? 1 : 0;
                }
                c.apply(Inputs.fetchDone(c.d.in.reset(), ops.id(o), ok, ok ? pages : 0, ok));
                return;
            }
        }
    }

    private static void ackSomeOp(final Checked c, final SplittableRandom rnd)
    {
        final OpTable ops = c.d.engine.ops();
        final int start = rnd.nextInt(c.d.engine.config().maxOps());
        for (int k = 0; k < c.d.engine.config().maxOps(); k++)
        {
            final int o = (start + k) % c.d.engine.config().maxOps();
            if (ops.state(o) == OpTable.LAUNCHED && ops.kind(o) != OpKind.QUERY && ops.kind(o) != OpKind.FETCH &&
                ops.kind(o) != null)
            {
                c.apply(Inputs.ack(c.d.in.reset(), ops.id(o), rnd.nextInt(8) != 0));
                return;
            }
        }
    }
}
