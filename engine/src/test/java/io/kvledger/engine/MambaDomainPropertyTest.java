package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.RadixTree;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hybrid (Mamba) behaviour and the admission gates as the domain reference and DESIGN.md state them, checked after
 * every input of well-formed random serving sequences (shared prefixes, L3 hits with and without states, retracts,
 * aborts, failed loads, chunks and evictions) over many seeds and configurations, from scarce Mamba slots to the
 * domain's realistic sizes (page size 64, 16 to 160 Mamba slots). {@code verify()} runs after every input too.
 * <p>
 * Properties (domain §6, §7, DESIGN read path):
 * <ul>
 * <li>bug 1 / I18: an admission reserves exactly the slots it hands out: working, tracking and, for a staged load,
 * the node slot N; once RESERVED, nothing fails for want of a slot;</li>
 * <li>the Mamba gate refuses only when free slots fall short, a staged request is DEFERRED (counted, +1 each time,
 * dropped at the limit), any other request only waits, and a budget wait neither counts nor touches the hold;</li>
 * <li>a Mamba gate refusal leaves free plus evictable slots short of the need, recounted from the domain's definition
 * of evictable rather than the engine's LRU walk (rules 3; bb-mamba2 finding 2);</li>
 * <li>I13 / I7: no slot an in-flight op reads or writes is free or another request's; a load's node and a copy's
 * checkpoint stay locked by the op;</li>
 * <li>I17: every Mamba slot handed out is reset in the same input;</li>
 * <li>I12: an admitted or running request owns exactly one working and its tracking slots; a waiting or staged one,
 * and a finished, aborted or retracted one, owns no device slot;</li>
 * <li>I4 / I14: every node state is a NODE slot owned by that node; a split leaves the state with the deeper half.</li>
 * </ul>
 */
class MambaDomainPropertyTest
{
    private static final int SEEDS = 300;
    private static final int INPUTS = 700;

    @Test
    void shouldKeepTheDomainsMambaAndAdmissionRulesUnderRandomServing()
    {
        long admitted = 0;
        long staged = 0;
        long deferred = 0;
        long mambaWaits = 0;
        long copies = 0;
        for (long seed = 1; seed <= SEEDS; seed++)
        {
            final Run run = new Run(seed);
            run.go();
            admitted += run.admitted;
            staged += run.stagedLoads;
            deferred += run.deferred;
            mambaWaits += run.mambaRefusals;
            copies += run.copies;
        }
        // The sequences must reach the paths the properties are about.
        assertTrue(admitted > 3_000 && staged > 500 && deferred > 500 && mambaWaits > 500 && copies > 300,
            admitted + " admitted, " + staged + " staged loads, " + deferred + " defers, " + mambaWaits +
            " Mamba gate refusals");
    }

    /** One seed: a configuration and a random but well-formed input sequence. */
    private static final class Run
    {
        private final long seed;
        private final SplittableRandom random;
        private final EngineConfig config;
        private final Driver d;
        private final List<Long> live = new ArrayList<>();
        private final Map<Long, Integer> pagesByRequest = new HashMap<>();
        private final int[] families;
        private long nextRequest = 1;
        private boolean passOpen;

        long admitted;
        long stagedLoads;
        long deferred;
        long mambaRefusals;
        long copies;

        Run(final long seed)
        {
            this.seed = seed;
            random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 17);
            config = config(random, seed);
            d = new Driver(config, true);
            families = new int[3 + random.nextInt(4)];
            for (int i = 0; i < families.length; i++)
            {
                families[i] = 1 + random.nextInt(config.maxRequestPages());
            }
        }

        private static EngineConfig config(final SplittableRandom random, final long seed)
        {
            final int tracking = 1 + random.nextInt(2);
            final EngineConfig.Builder b = EngineConfig.builder().trackingSlots(tracking)
                .maxStagedDefers(1 + random.nextInt(32)).prefetchThresholdPages(1 + random.nextInt(3))
                .prefetchPolicy(PrefetchPolicy.values()[random.nextInt(3)]).seed(seed);
            if (random.nextInt(4) == 0)
            {
                // The domain's realistic shape (§8): page size 64, 4,096-token prompts (64 pages), 16 to 160 Mamba
                // slots, a 65,536-token KV pool (1,024 pages).
                final int[] mamba = {16, 24, 40, 160};
                b.pageSize(64).deviceKvPages(1024).deviceMambaSlots(mamba[random.nextInt(mamba.length)])
                    .hostKvPages(256 + random.nextInt(512)).hostMambaSlots(2 + random.nextInt(16))
                    .maxRequests(16 + random.nextInt(16)).maxRequestPages(72).maxOps(128);
            }
            else
            {
                b.pageSize(1 << (2 * random.nextInt(3))).deviceKvPages(24 + random.nextInt(160))
                    .deviceMambaSlots(2 + tracking + random.nextInt(10)).hostKvPages(8 + random.nextInt(64))
                    .hostMambaSlots(2 + random.nextInt(5)).maxRequests(4 + random.nextInt(12))
                    .maxRequestPages(8 + random.nextInt(16)).maxOps(16 + random.nextInt(40));
            }
            return b.build();
        }

        void go()
        {
            for (int step = 0; step < INPUTS; step++)
            {
                step();
            }
            if (passOpen)
            {
                apply(Inputs.passEnd(d.in.reset()), -1);
            }
        }

        private void step()
        {
            if (passOpen)
            {
                final int k = random.nextInt(10);
                if (k < 6 && !live.isEmpty())
                {
                    admit(pick());
                }
                else if (k < 7 && !live.isEmpty())
                {
                    final long r = pick();
                    if (d.engine.requestState(r) == RequestState.ADMITTED)
                    {
                        apply(Inputs.retract(d.in.reset(), r), r);
                    }
                }
                else
                {
                    apply(Inputs.passEnd(d.in.reset()), -1);
                    passOpen = false;
                }
                return;
            }
            final int k = random.nextInt(20);
            if (k < 4 && d.engine.liveRequests() < config.maxRequests())
            {
                arrive();
            }
            else if (k < 7)
            {
                answerStorage();
            }
            else if (k < 10)
            {
                final long budget = random.nextInt(4) == 0 ? random.nextInt(2_000) : 1L << 30;
                apply(Inputs.passBegin(d.in.reset(), 1 + random.nextInt(8), budget,
                    random.nextInt(4) == 0 ? random.nextInt(600) : 1L << 30,
                    random.nextInt(6) == 0 ? random.nextInt(3) : 1L << 30), -1);
                passOpen = true;
            }
            else if (k < 13)
            {
                ack();
            }
            else if (k < 17 && !live.isEmpty())
            {
                progress(pick());
            }
            else if (k < 18 && !live.isEmpty())
            {
                final long r = pick();
                apply(Inputs.abort(d.in.reset(), r, random.nextInt(6), random.nextInt(6), random.nextInt(2)), r);
            }
            else
            {
                apply(Inputs.tick(d.in.reset(), random.nextInt(3) == 0 ? random.nextInt(64) : 0), -1);
            }
        }

        private long pick()
        {
            return live.get(random.nextInt(live.size()));
        }

        private void arrive()
        {
            final long id = nextRequest++;
            final int family = random.nextInt(families.length);
            final int pages = Math.min(config.maxRequestPages(), 1 + random.nextInt(config.maxRequestPages()));
            final int shared = Math.min(pages, random.nextInt(4) == 0 ? random.nextInt(pages + 1) :
                Math.min(families[family], pages));
            Inputs.arrive(d.in.reset(), id, random.nextInt(config.pageSize()), random.nextInt(600), 0);
            for (int i = 0; i < pages; i++)
            {
                final long s = i < shared ? family + 1 : 1_000 + id;
                d.in.addFingerprint(s * 1_000_003L + i, (s << 20) ^ (i * 0x9E3779B97F4A7C15L));
            }
            if (d.in.fingerprintCount() == 0 && d.in.value1() == 0)
            {
                d.in.addFingerprint(id, id);
            }
            pagesByRequest.put(id, d.in.fingerprintCount());
            apply(d.in, id);
            live.add(id);
        }

        /** Answer a launched query or fetch. */
        private void answerStorage()
        {
            final OpTable ops = d.engine.ops();
            final int o = launched(OpKind.QUERY, OpKind.FETCH);
            if (o < 0)
            {
                return;
            }
            final long op = ops.id[o];
            if (ops.kind[o] == OpKind.QUERY)
            {
                final int present = random.nextInt(config.maxRequestPages() + 1);
                final int roll = random.nextInt(4);
                final int states = roll == 0 ? 0 : roll == 1 ? random.nextInt(present + 1) : present;
                apply(random.nextInt(30) == 0 ? Inputs.storageQueryFailed(d.in.reset(), op) :
                    Inputs.storageHit(d.in.reset(), op, present, states), -1);
            }
            else
            {
                final int pages = ops.pagesMoved[o];
                final int roll = random.nextInt(12);
                apply(Inputs.fetchDone(d.in.reset(), op, roll != 0, roll == 1 ? Math.max(0, pages - 1) : pages,
                    roll != 2), -1);
            }
        }

        private void ack()
        {
            final int o = launched(OpKind.LOAD, OpKind.COW, OpKind.BACKUP, OpKind.STORE);
            if (o >= 0)
            {
                apply(Inputs.ack(d.in.reset(), d.engine.ops().id[o], random.nextInt(10) != 0), -1);
            }
        }

        /** A random launched op of one of the kinds, or -1. */
        private int launched(final OpKind... kinds)
        {
            final OpTable ops = d.engine.ops();
            final int n = config.maxOps();
            final int start = random.nextInt(n);
            for (int i = 0; i < n; i++)
            {
                final int o = (start + i) % n;
                if (ops.kind[o] != null && ops.state[o] == OpTable.LAUNCHED)
                {
                    for (final OpKind kind : kinds)
                    {
                        if (ops.kind[o] == kind)
                        {
                            return o;
                        }
                    }
                }
            }
            return -1;
        }

        private void progress(final long r)
        {
            final RequestState state = d.engine.requestState(r);
            if ((state != RequestState.ADMITTED && state != RequestState.RUNNING) ||
                d.engine.loadOpOf(r) >= 0 || d.engine.cowOpOf(r) >= 0)
            {
                return;
            }
            final int pages = pagesOf(r);
            final boolean finish = random.nextInt(3) == 0;
            final int computed = finish ? pages : random.nextInt(pages + 1);
            final int tracked = random.nextInt(3) == 0 ? random.nextInt(computed + 1) : computed;
            final long writePos = random.nextInt(6);
            final InputRecord in = finish ?
                Inputs.finish(d.in.reset(), r, computed, tracked, writePos, random.nextInt(6), random.nextInt(2)) :
                Inputs.chunk(d.in.reset(), r, computed, tracked, writePos, random.nextInt(6), random.nextInt(2));
            apply(in, r);
        }

        private int pagesOf(final long r)
        {
            return pagesByRequest.get(r);
        }

        private void admit(final long r)
        {
            final RequestState before = d.engine.requestState(r);
            if (before != RequestState.WAITING && before != RequestState.STAGED)
            {
                return;
            }
            final int defersBefore = d.engine.deferCountOf(r);
            final int holdBefore = d.engine.holdPagesOf(r);
            final int freeBefore = d.engine.pool(Pool.DEVICE_MAMBA).freeCount();
            final int result = apply(Inputs.admit(d.in.reset(), r), r);
            checkAdmit(r, before, result, defersBefore, holdBefore, freeBefore);
        }

        // ------------------------------------------------------------------------------------------ properties

        private int apply(final InputRecord in, final long request)
        {
            final InputRecord copy = in;
            recordSplits();
            int loadNode = -1;
            if (in.type() == InputType.ACK)
            {
                final int o = d.engine.ops().slotOf(in.op());
                if (o >= 0 && d.engine.ops().kind[o] == OpKind.LOAD)
                {
                    loadNode = d.engine.ops().node[o];
                }
            }
            final String text = copy.type() + " request " + copy.request() + " op " + copy.op() + " v " +
                copy.value1() + "," + copy.value2();
            final int result = d.apply(copy);
            final String where = where(text + " -> " + ResultCode.name(result));
            history.add(where);
            if (history.size() > 400)
            {
                history.remove(0);
            }
            try
            {
                checkAfter(copy, request, result, loadNode, where);
            }
            catch (final AssertionError e)
            {
                if (System.getenv("MAMBA_DEBUG") != null)
                {
                    history.forEach(System.out::println);
                }
                throw e;
            }
            return result;
        }

        private final List<String> history = new ArrayList<>();

        private void checkAfter(final InputRecord copy, final long request, final int result, final int loadNode,
            final String where)
        {
            if (result < 0)
            {
                throw new AssertionError(where + ": a well-formed input was refused");
            }
            checkInFlightTargets(where);
            checkNodeStates(where);
            checkCursorResets(where);
            checkRequestSlots(where);
            checkSplits(where);
            checkPublished(copy, result, loadNode, where);
            if (result == ResultCode.OK && request >= 0 && d.engine.requestState(request) == null)
            {
                live.remove(request);
                checkOwnsNothing(request, where);
            }
            if (copy.type() == InputType.RETRACT && result == ResultCode.OK)
            {
                checkOwnsNothing(request, where);
            }
        }

        private String where(final String what)
        {
            final StringBuilder b = new StringBuilder("seed " + seed + " input #" + d.engine.sequence() + " " + what);
            b.append(" [");
            for (int i = 0; i < d.last.size(); i++)
            {
                b.append(d.last.type(i)).append('(').append(d.last.id(i)).append(',').append(d.last.owner(i));
                if (d.last.type(i) == EffectType.SLOT_TRANSITION)
                {
                    b.append(',').append(d.last.pool(i)).append(' ').append(d.last.fromState(i)).append("->")
                        .append(d.last.toState(i));
                }
                if (d.last.type(i) == EffectType.WAITED || d.last.type(i) == EffectType.DEFERRED ||
                    d.last.type(i) == EffectType.HOLD_DROPPED)
                {
                    b.append(',').append(d.last.reason(i));
                }
                b.append(") ");
            }
            return b.append(']').toString();
        }

        /** I13, I7: what an in-flight op reads or writes is held, by the op or its request; its nodes are locked. */
        private void checkInFlightTargets(final String where)
        {
            final OpTable ops = d.engine.ops();
            final RadixTree tree = d.engine.tree();
            for (int o = 0; o < config.maxOps(); o++)
            {
                if (ops.kind[o] == null || (ops.state[o] != OpTable.QUEUED && ops.state[o] != OpTable.LAUNCHED))
                {
                    continue;
                }
                for (int m = 0; m < ops.moveCount(o); m++)
                {
                    checkTarget(where, o, ops.dstPool(o, m), ops.dstSlot(o, m), "writes");
                    checkTarget(where, o, ops.srcPool(o, m), ops.srcSlot(o, m), "reads");
                }
                final int node = ops.node[o];
                if (ops.kind[o] == OpKind.LOAD && node >= 0)
                {
                    assertTrue(tree.live(node) && tree.opLocks(node) > 0,
                        where + ": load " + ops.id[o] + " node " + node + " not locked by the load (I7)");
                }
                if (ops.kind[o] == OpKind.COW)
                {
                    final int source = ops.srcSlot(o, 0);
                    final SlotPool mamba = d.engine.pool(Pool.DEVICE_MAMBA);
                    assertTrue(mamba.state(source) == SlotState.NODE &&
                        tree.mambaOpLocks((int)mamba.owner(source)) > 0,
                        where + ": copy " + ops.id[o] + " source " + source + " not a checkpoint it locks (I7, I14)");
                }
            }
        }

        private void checkTarget(final String where, final int o, final byte poolCode, final int slot,
            final String role)
        {
            if (poolCode < 0 || slot < 0)
            {
                return;
            }
            final OpTable ops = d.engine.ops();
            final SlotPool pool = d.engine.pool(Pool.get(poolCode));
            final SlotState state = pool.state(slot);
            final boolean ok = state == SlotState.NODE || state == SlotState.PENDING_FREE ||
                (state == SlotState.OP && pool.owner(slot) == ops.id[o]) ||
                (state == SlotState.REQUEST && pool.owner(slot) == ops.request[o]);
            assertTrue(ok, where + ": " + ops.kind[o] + " " + ops.id[o] + " " + role + " " + Pool.get(poolCode) + ":" +
                slot + " which is " + state + "(" + pool.owner(slot) + ") (I13)");
        }

        /** I4, I14: a node's state is a NODE slot owned by that node. */
        private void checkNodeStates(final String where)
        {
            final RadixTree tree = d.engine.tree();
            final SlotPool mamba = d.engine.pool(Pool.DEVICE_MAMBA);
            for (int n = 1; n < tree.maxNodes(); n++)
            {
                final int s = tree.mambaSlot(n);
                if (tree.live(n) && s >= 0)
                {
                    assertTrue(mamba.state(s) == SlotState.NODE && mamba.owner(s) == n,
                        where + ": node " + n + " state " + s + " is " + mamba.state(s) + "(" + mamba.owner(s) + ")");
                }
            }
        }

        /** I17: every device Mamba slot handed to a request or an op in this input was reset in it. */
        private void checkCursorResets(final String where)
        {
            final EffectList e = d.last;
            for (int i = 0; i < e.size(); i++)
            {
                if (e.type(i) == EffectType.SLOT_TRANSITION && e.pool(i) == Pool.DEVICE_MAMBA &&
                    e.fromState(i) == SlotState.FREE &&
                    (e.toState(i) == SlotState.REQUEST || e.toState(i) == SlotState.OP))
                {
                    boolean reset = false;
                    for (int j = i + 1; j < e.size() && !reset; j++)
                    {
                        reset = e.type(j) == EffectType.CURSORS_RESET && e.id(j) == e.id(i);
                    }
                    assertTrue(reset, where + ": Mamba slot " + e.id(i) + " handed out without a reset (I17)");
                }
            }
        }

        /** I12: admitted and running requests own their working and tracking slots; others own no device slot. */
        private void checkRequestSlots(final String where)
        {
            for (final long r : live)
            {
                final RequestState state = d.engine.requestState(r);
                final int mambaOwned = owned(Pool.DEVICE_MAMBA, r);
                if (state == RequestState.ADMITTED || state == RequestState.RUNNING)
                {
                    assertTrue(mambaOwned == 1 + config.trackingSlots(), where + ": request " + r + " " + state +
                        " owns " + mambaOwned + " Mamba slots, expected " + (1 + config.trackingSlots()));
                    assertTrue(d.engine.requestStateSlot(r) >= 0, where + ": request " + r + " has no working slot");
                }
                else if (state != null)
                {
                    assertTrue(mambaOwned == 0 && owned(Pool.DEVICE_KV, r) == 0,
                        where + ": " + state + " request " + r + " owns device slots");
                }
            }
        }

        private void checkOwnsNothing(final long r, final String where)
        {
            for (final Pool p : new Pool[] {Pool.DEVICE_KV, Pool.DEVICE_MAMBA})
            {
                assertTrue(owned(p, r) == 0, where + ": request " + r + " still owns " + owned(p, r) + " " + p);
            }
            if (d.engine.requestState(r) == null)
            {
                for (final Pool p : new Pool[] {Pool.HOST_KV, Pool.HOST_MAMBA})
                {
                    assertTrue(owned(p, r) == 0, where + ": ended request " + r + " still owns " + p);
                }
            }
        }

        private int owned(final Pool p, final long r)
        {
            final SlotPool pool = d.engine.pool(p);
            int n = 0;
            for (int s = 0; s < pool.capacity(); s++)
            {
                if (pool.state(s) == SlotState.REQUEST && pool.owner(s) == r)
                {
                    n++;
                }
            }
            return n;
        }

        /** Before an input: the state of every node (a split in the input must leave it on the deeper half). */
        private void recordSplits()
        {
            final RadixTree tree = d.engine.tree();
            if (nodeSlots == null)
            {
                nodeSlots = new int[tree.maxNodes()];
            }
            for (int n = 0; n < tree.maxNodes(); n++)
            {
                nodeSlots[n] = tree.live(n) ? tree.mambaSlot(n) : -1;
            }
        }

        private int[] nodeSlots;

        /** I14: a split keeps the state on the node (the deeper half); the new parent gets none from the split. */
        private void checkSplits(final String where)
        {
            final EffectList e = d.last;
            final RadixTree tree = d.engine.tree();
            for (int i = 0; i < e.size(); i++)
            {
                if (e.type(i) != EffectType.NODE_SPLIT)
                {
                    continue;
                }
                final int node = (int)e.id(i);
                final int parent = (int)e.owner(i);
                final int before = nodeSlots[node];
                if (before >= 0 && !touched(e, node, i))
                {
                    assertTrue(tree.live(node) && tree.mambaSlot(node) == before,
                        where + ": split of node " + node + " moved its state " + before);
                    assertTrue(tree.mambaSlot(parent) != before,
                        where + ": split of node " + node + " gave its state to the upper half " + parent);
                }
            }
        }

        /** Whether an effect after {@code from} evicted or deleted the node (its state may then be gone). */
        private static boolean touched(final EffectList e, final int node, final int from)
        {
            for (int j = from + 1; j < e.size(); j++)
            {
                if ((e.type(j) == EffectType.EVICTED || e.type(j) == EffectType.NODE_DELETED) && e.id(j) == node)
                {
                    return true;
                }
            }
            return false;
        }

        /** Bug 1, I18 and the defer rules for one Admit. */
        private void checkAdmit(final long r, final RequestState before, final int result, final int defersBefore,
            final int holdBefore, final int freeBefore)
        {
            final EffectList e = d.last;
            final String where = where("ADMIT " + r + " (" + before + ") -> " + ResultCode.name(result));
            final int reserved = indexOf(e, EffectType.RESERVED);
            final int deferredAt = indexOf(e, EffectType.DEFERRED);
            final int waitedAt = indexOf(e, EffectType.WAITED);
            // A hold dropped by the plan (device covered, prefix shrunk) is gone before the gates run.
            final int gateAt = deferredAt >= 0 ? deferredAt : waitedAt >= 0 ? waitedAt : reserved;
            final int droppedAt = indexOf(e, EffectType.HOLD_DROPPED);
            final boolean hold = before == RequestState.STAGED && holdBefore > 0 &&
                (droppedAt < 0 || droppedAt > gateAt);
            if (reserved >= 0)
            {
                assertTrue(deferredAt < 0 && waitedAt < 0,
                    where + ": refused after RESERVED (something failed for want of a slot, I18)");
            }
            if (droppedAt >= 0 && d.engine.holdPagesOf(r) == 0)
            {
                assertTrue(d.engine.deferCountOf(r) == 0, where + ": hold dropped (" + e.reason(droppedAt) +
                    "), defer count " + d.engine.deferCountOf(r) + " kept (bb-mamba2 finding 1)");
            }
            if (result == ResultCode.OK)
            {
                admitted++;
                final int at = indexOf(e, EffectType.ADMITTED);
                final boolean load = e.id(at) >= 0;
                stagedLoads += load ? 1 : 0;
                final int need = 1 + config.trackingSlots() + (load ? 1 : 0);
                assertTrue(reserved >= 0 && e.value1(reserved) == need, where + ": RESERVED " +
                    (reserved >= 0 ? e.value1(reserved) : -1) + " Mamba slots, the admission needs " + need);
                assertTrue(!load || before == RequestState.STAGED, where + ": a load without a hold");
                int handed = 0;
                int pages = 0;
                for (int i = 0; i < e.size(); i++)
                {
                    if (e.type(i) == EffectType.SLOT_TRANSITION && e.fromState(i) == SlotState.FREE &&
                        (e.toState(i) == SlotState.REQUEST || e.toState(i) == SlotState.OP))
                    {
                        if (e.pool(i) == Pool.DEVICE_MAMBA)
                        {
                            handed++;
                        }
                        else if (e.pool(i) == Pool.DEVICE_KV)
                        {
                            pages++;
                        }
                    }
                }
                assertTrue(handed == need, where + ": handed out " + handed + " Mamba slots, reserved " + need);
                assertTrue(pages == e.value2(reserved), where + ": handed out " + pages + " KV pages, reserved " +
                    e.value2(reserved));
                assertTrue(!load || d.engine.deferCountOf(r) == 0, where + ": defer count kept after the load");
                checkResumePoint(r, e, at, load, where);
                return;
            }
            if (deferredAt >= 0)
            {
                deferred++;
                assertTrue(hold, where + ": deferred a request without a staged hold");
                final Reason reason = e.reason(deferredAt);
                assertTrue(e.value1(deferredAt) == defersBefore + 1,
                    where + ": defer count " + e.value1(deferredAt) + " after " + defersBefore);
                if (reason == Reason.MAMBA_SLOTS)
                {
                    mambaRefusals++;
                    assertTrue(freeBefore < 1 + config.trackingSlots() + 1,
                        where + ": Mamba gate deferred with " + freeBefore + " free slots");
                    checkRecount(r, e, deferredAt, 1 + config.trackingSlots() + 1, where);
                }
                final boolean dropped = hasReason(e, EffectType.HOLD_DROPPED, Reason.DEFER_LIMIT);
                assertTrue(dropped == (defersBefore + 1 >= config.maxStagedDefers()),
                    where + ": DEFER_LIMIT drop " + dropped + " at count " + (defersBefore + 1) + " of " +
                    config.maxStagedDefers());
                if (dropped)
                {
                    assertTrue(d.engine.holdPagesOf(r) == 0 && d.engine.deferCountOf(r) == 0 &&
                        d.engine.requestState(r) == RequestState.WAITING, where + ": drop left the hold");
                }
                return;
            }
            if (waitedAt >= 0)
            {
                final Reason reason = e.reason(waitedAt);
                if (reason == Reason.MAMBA_SLOTS)
                {
                    mambaRefusals++;
                    assertTrue(!hold, where + ": a staged request waited at the Mamba gate instead of a defer");
                    assertTrue(freeBefore < 1 + config.trackingSlots(),
                        where + ": Mamba gate refused with " + freeBefore + " free slots");
                    checkRecount(r, e, waitedAt, 1 + config.trackingSlots(), where);
                }
                if ((reason == Reason.TOKEN_BUDGET || reason == Reason.INPUT_BUDGET ||
                    reason == Reason.CHUNK_BUDGET || reason == Reason.RUNNING_LIMIT) && hold && droppedAt < 0)
                {
                    assertTrue(d.engine.deferCountOf(r) == defersBefore && d.engine.holdPagesOf(r) == holdBefore,
                        where + ": a " + reason + " wait counted or touched the hold");
                }
            }
        }

        /**
         * A Mamba gate refusal, recounted independently of the engine's LRU walk: free slots plus the states the
         * domain calls evictable at the gate (a state on a node with MAMBA lock 0 and no in-flight op on that node,
         * not loading; an inner node loses its state, a leaf is deleted whole and so needs FULL lock 0), under the
         * locks the gate saw (the admission's own pins and whatever its refusal released after the gate). Inner
         * states are dropped before any leaf is deleted, so the count does not depend on the order of the LRU.
         */
        private void checkRecount(final long r, final EffectList e, final int gateAt, final int need,
            final String where)
        {
            final RadixTree tree = d.engine.tree();
            final OpTable ops = d.engine.ops();
            final boolean[] opOnNode = new boolean[tree.maxNodes()];
            for (int o = 0; o < config.maxOps(); o++)
            {
                if ((ops.kind[o] == OpKind.LOAD || ops.kind[o] == OpKind.BACKUP) && ops.node[o] >= 0 &&
                    (ops.state[o] == OpTable.QUEUED || ops.state[o] == OpTable.LAUNCHED))
                {
                    opOnNode[ops.node[o]] = true;
                }
            }
            // Locks released by the refusal itself (the pins, a dropped hold's prefix pin) were held at the gate.
            final boolean[] fullHeld = new boolean[tree.maxNodes()];
            final boolean[] mambaHeld = new boolean[tree.maxNodes()];
            for (int i = gateAt + 1; i < e.size(); i++)
            {
                if (e.type(i) == EffectType.UNLOCKED)
                {
                    (e.component(i) == Component.FULL ? fullHeld : mambaHeld)[(int)e.id(i)] = true;
                }
            }
            int evictable = 0;
            final StringBuilder diag = new StringBuilder();
            for (int n = 1; n < tree.maxNodes(); n++)
            {
                if (!tree.live(n) || tree.mambaSlot(n) < 0 || tree.mambaLocks(n) > 0 || mambaHeld[n] ||
                    tree.loadingOp(n) != RadixTree.NO_OP || opOnNode[n])
                {
                    continue;
                }
                if (tree.childCount(n) > 0 || (tree.fullLocks(n) == 0 && !fullHeld[n]))
                {
                    evictable++;
                    diag.append(" node ").append(n).append("(children ").append(tree.childCount(n))
                        .append(", FULL locks ").append(tree.fullLocks(n)).append(", op ").append(tree.opLocks(n))
                        .append(')');
                }
            }
            final int free = d.engine.pool(Pool.DEVICE_MAMBA).freeCount();
            assertTrue(free + evictable < need, where + ": Mamba gate refused " + need + " slots with " + free +
                " free and " + evictable + " evictable (domain recount:" + diag + "); the engine counts " +
                tree.evictableMambaSlots());
        }

        /**
         * What an admitted request resumes from: its lock ends at its prefix; a compute-only admission with a prefix
         * copies the checkpoint there into its working slot, one without a prefix copies nothing.
         */
        private void checkResumePoint(final long r, final EffectList e, final int at, final boolean load,
            final String where)
        {
            final RadixTree tree = d.engine.tree();
            final int prefix = (int)e.value1(at);
            final int node = d.engine.lockedNodeOf(r);
            assertTrue(prefix == 0 ? node == RadixTree.ROOT : tree.live(node) && tree.depth(node) == prefix,
                where + ": locked node " + node + " does not end at the prefix " + prefix);
            final long cow = e.value3(at);
            if (load)
            {
                assertTrue(cow < 0, where + ": a staged load also copies");
                return;
            }
            assertTrue((prefix > 0) == (cow >= 0), where + ": prefix " + prefix + " but copy " + cow);
            if (cow >= 0)
            {
                copies++;
                final OpTable ops = d.engine.ops();
                final int o = ops.slotOf(cow);
                assertTrue(ops.moveCount(o) == 1 && ops.srcSlot(o, 0) == tree.mambaSlot(node) &&
                    ops.dstSlot(o, 0) == d.engine.requestStateSlot(r), where + ": copy " + cow + " reads " +
                    ops.srcSlot(o, 0) + " writes " + ops.dstSlot(o, 0) + ", checkpoint " + tree.mambaSlot(node) +
                    ", working slot " + d.engine.requestStateSlot(r));
            }
        }

        /** A load acked ok leaves a state on the node it filled; a chunk's checkpoint sits at its tracked depth. */
        private void checkPublished(final InputRecord in, final int result, final int loadNode, final String where)
        {
            final RadixTree tree = d.engine.tree();
            final EffectList e = d.last;
            if (in.type() == InputType.ACK && in.ok() && loadNode >= 0)
            {
                assertTrue(tree.live(loadNode) && tree.mambaSlot(loadNode) >= 0,
                    where + ": load acked, its node " + loadNode + " has no state");
            }
            if ((in.type() == InputType.CHUNK ||
                in.type() == InputType.FINISH) && result == ResultCode.OK)
            {
                final long tracked = Inputs.trackedPages(in);
                for (int i = 0; i < e.size(); i++)
                {
                    if (e.type(i) == EffectType.SLOT_TRANSITION && e.pool(i) == Pool.DEVICE_MAMBA &&
                        e.toState(i) == SlotState.NODE)
                    {
                        assertTrue(tree.depth((int)e.owner(i)) == tracked, where + ": checkpoint on node " +
                            e.owner(i) + " at depth " + tree.depth((int)e.owner(i)) + ", tracked " + tracked);
                    }
                }
            }
            final SlotPool mamba = d.engine.pool(Pool.DEVICE_MAMBA);
            for (int s = 0; s < mamba.capacity(); s++)
            {
                if (mamba.state(s) == SlotState.NODE)
                {
                    final int n = (int)mamba.owner(s);
                    assertTrue(tree.live(n) && tree.mambaSlot(n) == s,
                        where + ": Mamba slot " + s + " owned by node " + n + " which does not hold it (I4)");
                }
            }
        }

        private static int indexOf(final EffectList e, final EffectType type)
        {
            for (int i = 0; i < e.size(); i++)
            {
                if (e.type(i) == type)
                {
                    return i;
                }
            }
            return -1;
        }

        private static boolean hasReason(final EffectList e, final EffectType type, final Reason reason)
        {
            for (int i = 0; i < e.size(); i++)
            {
                if (e.type(i) == type && e.reason(i) == reason)
                {
                    return true;
                }
            }
            return false;
        }
    }
}
