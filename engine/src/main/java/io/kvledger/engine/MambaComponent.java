package io.kvledger.engine;

import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.effect.EngineBugException;

import io.kvledger.engine.slot.MambaCursors;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.engine.util.Hashing;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.SlotState;

/**
 * The MAMBA component: one recurrent-state slot per checkpoint node, a working slot S and tracking slot(s) per
 * running request, one host staging slot per staged hit. A prefix without its recurrent state cannot be
 * resumed, so device matches and L3 hits are cut back to the deepest checkpoint.
 * <p>
 * Admission counts every slot the request will hold: S, its tracking slots and, for a staged load, the node
 * slot N (the "node copy"). A staged load writes the one host state into both S and N. N is attached to a node
 * the load created at once (that node is invisible until the ack); for a node that already existed it is
 * attached at the ack, or, when that node already has a state, freed at the ack (never before: the copy still
 * targets it). Every slot handed out gets its ReplaySSM cursors reset. Engine thread only.
 */
final class MambaComponent implements TreeComponent
{
    private static final int NONE = -1;
    private static final byte DEVICE_MAMBA = 1;
    private static final byte HOST_MAMBA = 3;

    private final EngineConfig config;
    private final RadixTree tree;
    private final SlotPool pool;
    private final SlotPool hostPool;
    private final MambaCursors cursors;
    private final RequestTable requests;
    private final OpTable ops;
    private final int trackingSlots;
    private final boolean ignoreOpLocks;
    private final boolean reserveRequestSlotOnly;
    private final boolean skipCursorResetOnStagedLoad;
    private final boolean doubleFreeOnAbort;

    private final int[] working;
    private final int[] tracking;
    /**
     * Per request: the depth at which its tracking slot holds a state a chunk could not place (no slot for its
     * replacement, rules 3), or -1. Forgotten once the request reports another tracked depth.
     */
    private final int[] keptDepth;
    /** Rules 3 on: a kept-back checkpoint is placed later ({@link #keptDepth}); under 1 and 2 it is lost. */
    private final boolean placesKeptCheckpoint;
    private final boolean keepsTrackingSlot;
    private final int[] attachNode;
    private final int[] attachSlot;
    private final long[] cowReceipt;
    private final int[] allocated = new int[4];
    private int allocatedCount;

    MambaComponent(final EngineConfig config, final RadixTree tree, final SlotPool pool, final SlotPool hostPool,
        final MambaCursors cursors, final Effects effects, final RequestTable requests, final OpTable ops)
    {
        this.config = config;
        this.tree = tree;
        this.pool = pool;
        this.hostPool = hostPool;
        this.cursors = cursors;
        this.requests = requests;
        this.ops = ops;
        trackingSlots = config.trackingSlots();
        ignoreOpLocks = config.fault(FaultSwitch.EVICT_NODE_WITH_INFLIGHT_LOAD);
        reserveRequestSlotOnly = config.fault(FaultSwitch.RESERVE_REQUEST_SLOT_ONLY);
        skipCursorResetOnStagedLoad = config.fault(FaultSwitch.SKIP_CURSOR_RESET_ON_STAGED_LOAD);
        doubleFreeOnAbort = config.fault(FaultSwitch.DOUBLE_FREE_ON_ABORT);
        working = new int[config.maxRequests()];
        tracking = new int[config.maxRequests() * 2];
        keptDepth = new int[config.maxRequests()];
        placesKeptCheckpoint = config.rules().placesKeptCheckpoint();
        keepsTrackingSlot = config.rules().chunkKeepsTrackingSlot();
        java.util.Arrays.fill(working, NONE);
        java.util.Arrays.fill(tracking, NONE);
        java.util.Arrays.fill(keptDepth, NONE);
        attachNode = new int[config.maxOps()];
        attachSlot = new int[config.maxOps()];
        cowReceipt = new long[config.maxOps()];
        java.util.Arrays.fill(attachNode, NONE);
        java.util.Arrays.fill(attachSlot, NONE);
        java.util.Arrays.fill(cowReceipt, NONE);
    }

    @Override
    public Component component()
    {
        return Component.MAMBA;
    }

    @Override
    public void validate(final EngineConfig config)
    {
        if (config.hostMambaSlots() < 2)
        {
            throw new IllegalArgumentException("buffer-only host mode with Mamba needs at least 2 host Mamba slots " +
                "(one staging write, one reserved for loads), got " + config.hostMambaSlots());
        }
        if (config.deviceMambaSlots() < 2 + config.trackingSlots())
        {
            throw new IllegalArgumentException("deviceMambaSlots must hold at least one request's working slot, " +
                config.trackingSlots() + " tracking slot(s) and a node slot, got " + config.deviceMambaSlots());
        }
    }

    @Override
    public int usablePrefix(final MatchResult match)
    {
        return match.mambaPages;
    }

    @Override
    public int usableHit(final int presentPages, final int statePages)
    {
        return statePages;
    }

    @Override
    public int stagingNeeded(final int hitPages)
    {
        return 1;
    }

    @Override
    public SlotPool hostPool()
    {
        return hostPool;
    }

    @Override
    public void stage(final int opSlot, final int request, final int hitStart, final int hitPages)
    {
        final int off = requests.offset(request);
        final int last = off + hitStart + hitPages - 1;
        final int slot = hostPool.take(SlotState.OP, ops.id(opSlot));
        ops.addMove(opSlot, OpTable.L3, NONE, HOST_MAMBA, slot, requests.fpHi[last], requests.fpLo[last]);
    }

    @Override
    public void pin(final AdmissionPlan plan)
    {
        if (!plan.hasHold && plan.prefixPages > 0 && tree.mambaSlot(plan.baseNode) != NONE)
        {
            plan.checkpointNode = plan.baseNode;
            plan.checkpointReceipt = tree.acquire(plan.baseNode, Component.MAMBA, SlotState.REQUEST, plan.requestId);
        }
    }

    @Override
    public void unpin(final AdmissionPlan plan)
    {
        if (plan.checkpointReceipt != NONE)
        {
            tree.release(plan.checkpointReceipt);
            plan.checkpointReceipt = NONE;
            plan.checkpointNode = NONE;
        }
    }

    private int slotsFor(final AdmissionPlan plan)
    {
        return 1 + trackingSlots + (plan.hasHold ? 1 : 0);
    }

    @Override
    public int gateNeed(final AdmissionPlan plan)
    {
        if (reserveRequestSlotOnly)
        {
            return 1 + trackingSlots;
        }
        return slotsFor(plan);
    }

    @Override
    public int gateAvailable()
    {
        return pool.freeCount() + tree.evictableMambaSlots();
    }

    /**
     * Free slots first; the evictable count (a walk of the Mamba list) only when they fall short, and only as far
     * as needed.
     */
    @Override
    public boolean gateCovers(final int need)
    {
        final int free = pool.freeCount();
        return need <= free || tree.evictableMambaSlotsAtLeast(need - free);
    }

    @Override
    public Reason gateReason()
    {
        return Reason.MAMBA_SLOTS;
    }

    @Override
    public void evictFor(final AdmissionPlan plan)
    {
        final int need = slotsFor(plan);
        if (pool.freeCount() < need)
        {
            tree.evictMamba(need - pool.freeCount(), ignoreOpLocks);
        }
    }

    @Override
    public boolean allocate(final AdmissionPlan plan)
    {
        final int need = slotsFor(plan);
        if (pool.freeCount() < need)
        {
            tree.evictMamba(need - pool.freeCount(), ignoreOpLocks);
        }
        allocatedCount = 0;
        for (int i = 0; i < need; i++)
        {
            final boolean nodeCopy = plan.hasHold && i == need - 1;
            final int slot = nodeCopy ?
                pool.allocate(SlotState.OP, ops.id(plan.loadOpSlot)) :
                pool.allocate(SlotState.REQUEST, plan.requestId);
            if (slot == SlotPool.NO_SLOT)
            {
                undoAllocate(plan);
                return false;
            }
            allocated[allocatedCount++] = slot;
        }
        return true;
    }

    @Override
    public void undoAllocate(final AdmissionPlan plan)
    {
        for (int i = 0; i < allocatedCount; i++)
        {
            pool.move(allocated[i], SlotState.FREE, NONE);
        }
        allocatedCount = 0;
    }

    private void bindRequestSlots(final int r)
    {
        keptDepth[r] = NONE;
        working[r] = allocated[0];
        for (int k = 0; k < trackingSlots; k++)
        {
            tracking[r * 2 + k] = allocated[1 + k];
            cursors.reset(allocated[1 + k]);
        }
    }

    @Override
    public void commitLoad(final AdmissionPlan plan)
    {
        final int r = plan.request;
        final int o = plan.loadOpSlot;
        final int s = allocated[0];
        final int n = allocated[1 + trackingSlots];
        bindRequestSlots(r);
        if (!skipCursorResetOnStagedLoad)
        {
            cursors.reset(s);
            cursors.reset(n);
        }
        final int hoff = requests.holdOffset(r);
        final int hostState = requests.holdSlot[hoff + requests.holdSlotCount[r] - 1];
        final int off = requests.offset(r);
        final int last = off + plan.holdEnd - 1;
        ops.addMove(o, HOST_MAMBA, hostState, DEVICE_MAMBA, s, requests.fpHi[last], requests.fpLo[last]);
        ops.addMove(o, HOST_MAMBA, hostState, DEVICE_MAMBA, n, requests.fpHi[last], requests.fpLo[last]);
        final int node = plan.prefixNode;
        if (plan.prefixNodeIsNew)
        {
            EngineBugException.check(tree.attachMamba(node, n), "attach of Mamba slot to node", node, n);
        }
        else if (tree.mambaSlot(node) != NONE)
        {
            ops.ackFreePool[o] = DEVICE_MAMBA;
            ops.ackFreeSlot[o] = n;
        }
        else
        {
            attachNode[o] = node;
            attachSlot[o] = n;
            if (attachPending(node, o))
            {
                // Another in-flight state-only load will attach its state to this node first (SGLang publishes it
                // at queue time, so there this is the mamba_exist case): this load's node slot is then redundant
                // and is released at its ack, never before (I15). It stays attachable in case that load fails.
                ops.ackFreePool[o] = DEVICE_MAMBA;
                ops.ackFreeSlot[o] = n;
            }
        }
        allocatedCount = 0;
    }

    /** @return whether an in-flight load other than {@code self} attaches a state to {@code node} at its ack. */
    private boolean attachPending(final int node, final int self)
    {
        for (int o = 0; o < attachNode.length; o++)
        {
            if (o != self && attachNode[o] == node)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public void commitCompute(final AdmissionPlan plan)
    {
        final int r = plan.request;
        final int s = allocated[0];
        bindRequestSlots(r);
        cursors.reset(s);
        if (plan.checkpointNode != NONE)
        {
            final int o = ops.add(io.kvledger.journal.codec.OpKind.COW, plan.requestId);
            final int source = tree.mambaSlot(plan.checkpointNode);
            ops.addMove(o, DEVICE_MAMBA, source, DEVICE_MAMBA, s, 0, 0);
            // The checkpoint stays locked until the copy's ack, and the copy holds that lock, not the request: an
            // abort or retract of the request while the copy is launched leaves it to the copy, and the journal says
            // so (a request lock outliving its request would read as a leak).
            cowReceipt[o] = tree.acquire(plan.checkpointNode, Component.MAMBA, SlotState.OP, ops.id(o));
            tree.release(plan.checkpointReceipt);
            plan.checkpointReceipt = NONE;
            plan.cowOpSlot = o;
        }
        allocatedCount = 0;
    }

    @Override
    public int cacheLength(final int request, final int computedPages, final int trackedPages)
    {
        if (keptDepth[request] != trackedPages)
        {
            // The request tracked elsewhere since: its tracking slot no longer holds the kept state.
            keptDepth[request] = NONE;
        }
        return tracking[request * 2] == NONE ? requests.cachedPages[request] : trackedPages;
    }

    @Override
    public void cache(final int request, final int node, final boolean finish, final long cursor1,
        final long cursor2, final long cursor3)
    {
        final long requestId = requests.id[request];
        observe(request, cursor1, cursor2, cursor3);
        final int t = tracking[request * 2];
        final int at = node != NONE ? node : keptCheckpointNode(request);
        if (at != NONE && t != NONE)
        {
            if (!finish && tree.mambaSlot(at) == NONE && keepsTrackingSlot && !ensureFreeSlot())
            {
                // Rules 2: donating the tracking slot would leave the request without one (no slot free or
                // evictable for its replacement); it keeps it and this chunk places no checkpoint. Rules 3: not
                // yet; a later Chunk or the Finish at the same tracked depth donates it (keptCheckpointNode).
                if (placesKeptCheckpoint)
                {
                    keptDepth[request] = tree.depth(at);
                }
                return;
            }
            keptDepth[request] = NONE;
            if (tree.mambaSlot(at) == NONE)
            {
                EngineBugException.check(tree.attachMamba(at, t), "attach of Mamba slot to node", at, t);
            }
            else
            {
                pool.move(t, SlotState.FREE, NONE);
            }
            tracking[request * 2] = tracking[request * 2 + 1];
            tracking[request * 2 + 1] = NONE;
            if (!finish)
            {
                ensureFreeSlot();
                final int fresh = pool.allocate(SlotState.REQUEST, requestId);
                if (fresh != SlotPool.NO_SLOT)
                {
                    cursors.reset(fresh);
                    final int k = tracking[request * 2] == NONE ? 0 : 1;
                    tracking[request * 2 + k] = fresh;
                }
            }
        }
        if (finish)
        {
            release(request, false);
        }
    }

    /**
     * The node a Chunk or Finish that cached no new page still checkpoints: the request's tracking slot holds the
     * state a chunk could not place (rules 3) at the depth the request reports again, and the request's locked node
     * ends there (the chunk moved the lock to it, and nothing was cached past it since). DESIGN's Finish donates the
     * tracking slot as the checkpoint there; SGLang's insert sets the state of an existing node that has none.
     *
     * @return that node, or -1.
     */
    private int keptCheckpointNode(final int request)
    {
        final int depth = keptDepth[request];
        if (depth == NONE)
        {
            return NONE;
        }
        final int node = requests.lockedNode[request];
        return node != NONE && tree.live(node) && tree.depth(node) == depth ? node : NONE;
    }

    /**
     * Make room for one slot: evict one unlocked Mamba state when none is free.
     *
     * @return whether a slot is free now.
     */
    private boolean ensureFreeSlot()
    {
        if (pool.freeCount() == 0)
        {
            tree.evictMamba(1, ignoreOpLocks);
        }
        return pool.freeCount() > 0;
    }

    @Override
    public void observe(final int request, final long cursor1, final long cursor2, final long cursor3)
    {
        if (working[request] != NONE)
        {
            cursors.observe(working[request], cursor1, cursor2, cursor3);
        }
    }

    @Override
    public void release(final int request, final boolean abort)
    {
        final long requestId = requests.id[request];
        for (int k = 1; k >= 0; k--)
        {
            final int t = tracking[request * 2 + k];
            if (t != NONE && pool.state(t) == SlotState.REQUEST && pool.owner(t) == requestId)
            {
                pool.move(t, SlotState.FREE, NONE);
            }
            tracking[request * 2 + k] = NONE;
        }
        keptDepth[request] = NONE;
        final int s = working[request];
        if (s != NONE && pool.state(s) == SlotState.REQUEST && pool.owner(s) == requestId)
        {
            final long writer = launchedWriter(request, s);
            if (writer != NONE)
            {
                pool.move(s, SlotState.PENDING_FREE, writer);
            }
            else
            {
                pool.move(s, SlotState.FREE, NONE);
                if (abort && doubleFreeOnAbort)
                {
                    pool.forceTransition(s, SlotState.FREE, NONE);
                }
            }
        }
        working[request] = NONE;
    }

    /** The launched load or copy of the request that writes {@code slot}, or -1. */
    private long launchedWriter(final int request, final int slot)
    {
        for (int k = 0; k < 2; k++)
        {
            final long opId = k == 0 ? requests.loadOp[request] : requests.cowOp[request];
            final int o = opId == NONE ? NONE : ops.slotOf(opId);
            if (o != NONE && ops.state[o] == OpTable.LAUNCHED)
            {
                for (int m = 0; m < ops.moveCount(o); m++)
                {
                    if (ops.dstPool(o, m) == DEVICE_MAMBA && ops.dstSlot(o, m) == slot)
                    {
                        return opId;
                    }
                }
            }
        }
        return NONE;
    }

    @Override
    public void backup(final int opSlot, final int node, final int[] pathPages, final int from, final int to)
    {
        final int state = tree.mambaSlot(node);
        if (state == NONE)
        {
            return;
        }
        final int last = pathPages[to - 1];
        final int hostSlot = hostPool.take(SlotState.OP, ops.id(opSlot));
        ops.addMove(opSlot, DEVICE_MAMBA, state, HOST_MAMBA, hostSlot, tree.pageHi(last), tree.pageLo(last));
    }

    @Override
    public int requestSlot(final int request, final boolean trackingSlot)
    {
        return trackingSlot ? tracking[request * 2] : working[request];
    }

    @Override
    public int backupStagingNeeded(final int node, final int pages)
    {
        return tree.mambaSlot(node) == NONE ? 0 : 1;
    }

    @Override
    public void opDone(final int opSlot, final boolean ok)
    {
        if (cowReceipt[opSlot] != NONE)
        {
            tree.release(cowReceipt[opSlot]);
            cowReceipt[opSlot] = NONE;
        }
        final int node = attachNode[opSlot];
        if (node != NONE)
        {
            if (ok && tree.live(node) && tree.mambaSlot(node) == NONE &&
                pool.state(attachSlot[opSlot]) == SlotState.OP)
            {
                EngineBugException.check(tree.attachMamba(node, attachSlot[opSlot]), "attach of Mamba slot to node",
                    node, attachSlot[opSlot]);
            }
            attachNode[opSlot] = NONE;
            attachSlot[opSlot] = NONE;
        }
    }

    @Override
    public void verify(final RequestTable table)
    {
        for (int r = 0; r < table.capacity(); r++)
        {
            if (!table.live(r))
            {
                if (working[r] != NONE)
                {
                    throw new IllegalStateException("I12 dead request slot " + r + " still names Mamba slot " +
                        working[r]);
                }
                continue;
            }
            final int s = working[r];
            if (s != NONE && !(pool.state(s) == SlotState.REQUEST && pool.owner(s) == table.id[r]))
            {
                throw new IllegalStateException("I12 request " + table.id[r] + " working Mamba slot " + s + " is " +
                    pool.state(s) + " owned by " + pool.owner(s));
            }
        }
    }

    @Override
    public long stateHash()
    {
        long h = 0;
        for (int r = 0; r < working.length; r++)
        {
            if (working[r] != NONE || tracking[r * 2] != NONE)
            {
                h += Hashing.mixGamma(r ^ ((long)working[r] << 20) ^ ((long)tracking[r * 2] << 40) ^
                    ((long)tracking[r * 2 + 1] << 52));
            }
            if (keptDepth[r] != NONE)
            {
                h += Hashing.mixGamma(~r ^ ((long)keptDepth[r] << 32));
            }
        }
        return h;
    }
}
