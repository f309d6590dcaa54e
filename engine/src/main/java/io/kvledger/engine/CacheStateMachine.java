package io.kvledger.engine;

import io.kvledger.engine.slot.MambaCursors;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

/**
 * The controller: one pure, deterministic {@link #apply(InputRecord)} that turns an input into a result code and
 * an ordered list of effects, changing state only through those effects (every structure records its change in
 * the same call that makes it). The live loop and replay both call it; it has no threads, clocks, I/O or
 * randomness: time is the input's timestamp.
 * <p>
 * The read path (buffer-only host mode) and the write path follow shared/DESIGN.md; component specifics sit
 * behind {@link TreeComponent}. Engine thread only; allocation-free in steady state.
 * <p>
 * Decisions where the design is silent, taken as the domain reference implies:
 * <ul>
 * <li>Storage ops (query, fetch, store) and backups launch as they are queued; loads and copy-on-write wait for
 * PassEnd, like SGLang's load queue.</li>
 * <li>A request stays ADMITTED after PassEnd until its first Chunk or Finish, so a Retract can still reach it
 * while its load is launched (the PENDING_FREE path).</li>
 * <li>Chunk and Finish of a request whose own load or copy is not yet acked are refused (REQUEST_STATE): the
 * server reports progress only after the forward that waited for that data.</li>
 * <li>An Admit waits (PREFETCH_PENDING, not counted) while the request's L3 existence query is unanswered, for
 * at most 5 ms of event time under best_effort: without the answer the controller cannot know what it gives up.
 * The fetch itself follows the prefetch policy.</li>
 * <li>Copy-on-write is decided at admission, never at match time, so a staged load has no pending copy to
 * cancel; the slots it hands out get their cursors reset there instead.</li>
 * <li>Loaded data on an existing node (a state-only load) is attached at the ack, so a visible node never shows
 * a state that is not there yet; a new node filled by a load is invisible to matching until the ack.</li>
 * </ul>
 */
public final class CacheStateMachine
{
    private static final int NONE = -1;
    /** How long an Admit waits for an L3 existence query before giving up on it (event time). */
    private static final long QUERY_GRACE_NS = 5_000_000L;

    private final EngineConfig config;
    private final EffectList effectList;
    private final Effects effects;
    private final SlotPool kvPool;
    private final SlotPool mambaPool;
    private final SlotPool hostKvPool;
    private final SlotPool hostMambaPool;
    private final MambaCursors cursors;
    private final RadixTree tree;
    private final RequestTable requests;
    private final OpTable ops;
    private final TreeComponent[] components;
    private final AdmissionPlan plan = new AdmissionPlan();
    private final MatchResult match = new MatchResult();
    private final MatchResult scratchMatch = new MatchResult();
    private final int[] queuedLaunch;
    private int queuedLaunchCount;
    private final long[] parked;
    private int parkedHead;
    private int parkedCount;
    private final int[] pageScratch;
    private final int[] canonicalScratch;
    private final int[] backlogNode;
    private final int[] backlogFrom;
    private int backlogHead;
    private int backlogCount;
    private final boolean ignoreOpLocks;

    private long sequence;
    private long nowNs;
    private boolean passOpen;
    private long passMaxRunning;
    private long passTokens;
    private long passInputTokens;
    private long passChunkTokens;
    private int passAdmitted;
    private int running;

    private final EngineCounters counters = new EngineCounters();

    /**
     * @param config engine configuration.
     * @throws IllegalArgumentException when a component refuses the configuration (buffer-only fence).
     */
    public CacheStateMachine(final EngineConfig config)
    {
        this.config = config;
        effectList = new EffectList(256);
        effects = new Effects(effectList);
        kvPool = new SlotPool(Pool.DEVICE_KV, config.deviceKvPages(), effects);
        hostKvPool = new SlotPool(Pool.HOST_KV, config.hostKvPages(), effects);
        if (config.hybrid())
        {
            mambaPool = new SlotPool(Pool.DEVICE_MAMBA, config.deviceMambaSlots(), effects);
            hostMambaPool = new SlotPool(Pool.HOST_MAMBA, Math.max(1, config.hostMambaSlots()), effects);
            cursors = new MambaCursors(config.deviceMambaSlots(), effects);
        }
        else
        {
            mambaPool = null;
            hostMambaPool = null;
            cursors = null;
        }
        tree = new RadixTree(config.maxNodes(), config.maxNodes() + config.maxRequests() * 2 + config.maxOps(),
            kvPool, mambaPool, effects);
        requests = new RequestTable(config.maxRequests(), config.maxRequestPages());
        ops = new OpTable(config.maxOps(), config.maxRequestPages() + 4);
        ignoreOpLocks = config.fault(FaultSwitch.EVICT_NODE_WITH_INFLIGHT_LOAD);
        final KvComponent kv = new KvComponent(config, tree, kvPool, hostKvPool, requests, ops, ignoreOpLocks);
        if (config.hybrid())
        {
            components = new TreeComponent[]{
                kv,
                new MambaComponent(config, tree, mambaPool, hostMambaPool, cursors, effects, requests, ops)};
        }
        else
        {
            components = new TreeComponent[]{kv};
        }
        for (final TreeComponent c : components)
        {
            c.validate(config);
        }
        queuedLaunch = new int[config.maxOps()];
        parked = new long[config.maxRequests()];
        pageScratch = new int[config.maxRequestPages()];
        canonicalScratch = new int[config.maxRequestPages()];
        backlogNode = new int[config.maxNodes()];
        backlogFrom = new int[config.maxNodes()];
    }

    /** @return the configuration. */
    public EngineConfig config()
    {
        return config;
    }

    /** @return the effects of the last applied input (reused; valid until the next apply). */
    public EffectList effects()
    {
        return effectList;
    }

    /** @return the in-flight operation table (for the dispatcher, on the engine thread). */
    public OpTable ops()
    {
        return ops;
    }

    /** @return plain counters for summaries. */
    public EngineCounters counters()
    {
        return counters;
    }

    /** @return sequence of the last applied input. */
    public long sequence()
    {
        return sequence;
    }

    /** @return the radix tree (read-only use by tools and tests). */
    public RadixTree tree()
    {
        return tree;
    }

    /**
     * @param pool which pool.
     * @return the pool, or null when the configuration has none.
     */
    public SlotPool pool(final Pool pool)
    {
        switch (pool)
        {
            case DEVICE_KV: return kvPool;
            case DEVICE_MAMBA: return mambaPool;
            case HOST_KV: return hostKvPool;
            case HOST_MAMBA: return hostMambaPool;
            default: return null;
        }
    }

    /** @return ReplaySSM cursors of the device Mamba slots, or null for a pure-attention configuration. */
    public MambaCursors cursors()
    {
        return cursors;
    }

    /** @return live requests. */
    public int liveRequests()
    {
        return requests.size();
    }

    /** @return in-flight ops. */
    public int inFlightOps()
    {
        return ops.size();
    }

    /** @return nodes waiting in the backup backlog; a liveness probe for the explorer. */
    public int backupBacklog()
    {
        return backlogCount;
    }

    /**
     * @param requestId request id.
     * @return its state, or null when not live.
     */
    public RequestState requestState(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? null : requests.state[r];
    }

    /**
     * @param requestId request id.
     * @return the load op the request waits for, or -1.
     */
    public long loadOpOf(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? NONE : requests.loadOp[r];
    }

    /**
     * @param requestId request id.
     * @return the copy-on-write op the request waits for, or -1.
     */
    public long cowOpOf(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? NONE : requests.cowOp[r];
    }

    /**
     * Device page id of page {@code page} of a live request (valid once admitted).
     *
     * @param requestId request id.
     * @param page      page index.
     * @return the device KV page, or -1.
     */
    public int requestPage(final long requestId, final int page)
    {
        final int r = requests.slotOf(requestId);
        if (r == NONE || page >= requests.validPages[r])
        {
            return NONE;
        }
        return requests.pageIds[requests.offset(r) + page];
    }

    /**
     * Mamba slot a live request computes with (its working slot), for the data plane.
     *
     * @param requestId request id.
     * @return the slot, or -1.
     */
    public int requestStateSlot(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? NONE : requestSlot(r, false);
    }

    /**
     * Tracking slot a live request checkpoints into, for the data plane.
     *
     * @param requestId request id.
     * @return the slot, or -1.
     */
    public int requestTrackingSlot(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? NONE : requestSlot(r, true);
    }

    private int requestSlot(final int r, final boolean tracking)
    {
        for (final TreeComponent c : components)
        {
            final int slot = c.requestSlot(r, tracking);
            if (slot != NONE)
            {
                return slot;
            }
        }
        return NONE;
    }

    /**
     * Apply one input. Clears and refills {@link #effects()}.
     *
     * @param in the input; its sequence must follow the last one.
     * @return result code ({@link ResultCode}).
     */
    public int apply(final InputRecord in)
    {
        effectList.clear();
        sequence = in.sequence();
        nowNs = in.timestampNs();
        final int result;
        switch (in.type())
        {
            case ARRIVE: result = onArrive(in); break;
            case STORAGE_HIT: result = onStorageHit(in); break;
            case FETCH_DONE: result = onFetchDone(in); break;
            case PASS_BEGIN: result = onPassBegin(in); break;
            case ADMIT: result = onAdmit(in); break;
            case RETRACT: result = onRetract(in); break;
            case ABORT: result = onAbort(in); break;
            case PASS_END: result = onPassEnd(); break;
            case ACK: result = onAck(in); break;
            case CHUNK: result = onCache(in, false); break;
            case FINISH: result = onCache(in, true); break;
            case TICK: result = onTick(in); break;
            default: result = ResultCode.REQUEST_STATE;
        }
        counters.onApplied(in.type(), result, effectList);
        return result;
    }

    // ------------------------------------------------------------------------------------------------ arrive

    private int onArrive(final InputRecord in)
    {
        final long requestId = in.request();
        if (requestId < 0)
        {
            return ResultCode.UNKNOWN_REQUEST;
        }
        if (requests.slotOf(requestId) != NONE)
        {
            return ResultCode.DUPLICATE_REQUEST;
        }
        final int pages = in.fingerprintCount();
        if (pages > requests.maxPages() || in.value1() < 0 || in.value1() >= config.pageSize() || in.value2() < 0)
        {
            return ResultCode.BAD_REQUEST_SIZE;
        }
        if (requests.full())
        {
            return ResultCode.TOO_MANY_REQUESTS;
        }
        final int r = requests.add(requestId);
        final int off = requests.offset(r);
        for (int i = 0; i < pages; i++)
        {
            requests.fpHi[off + i] = in.fingerprintHi(i);
            requests.fpLo[off + i] = in.fingerprintLo(i);
        }
        requests.pages[r] = pages;
        requests.tailTokens[r] = (int)in.value1();
        requests.maxNewTokens[r] = in.value2();
        requests.arrivalNs[r] = nowNs;
        effects.requestState(requestId, RequestState.NULL_VAL, RequestState.WAITING);

        final int usable = usableDevicePrefix(r);
        requests.queryStart[r] = usable;
        if (pages - usable >= Math.max(1, config.prefetchThresholdPages()) && !ops.full())
        {
            final int o = ops.add(OpKind.QUERY, requestId);
            for (int i = usable; i < pages; i++)
            {
                ops.addMove(o, OpTable.L3, NONE, (byte)NONE, NONE, requests.fpHi[off + i], requests.fpLo[off + i]);
            }
            requests.queryOp[r] = ops.id[o];
            effects.opQueued(ops.id[o], OpKind.QUERY, requestId, 0, pages - usable);
            ops.state[o] = OpTable.LAUNCHED;
            effects.opEvent(EffectType.OP_LAUNCHED, ops.id[o], OpKind.QUERY);
            counters.queries++;
        }
        return ResultCode.OK;
    }

    private int usableDevicePrefix(final int r)
    {
        tree.match(requests.fpHi, requests.fpLo, requests.offset(r), requests.pages[r],
            config.fault(FaultSwitch.COW_FROM_LOADING_CHECKPOINT), match);
        int usable = match.pages;
        for (final TreeComponent c : components)
        {
            usable = Math.min(usable, c.usablePrefix(match));
        }
        return usable;
    }

    // ------------------------------------------------------------------------------------------------ storage

    private int onStorageHit(final InputRecord in)
    {
        final int o = ops.slotOf(in.op());
        final int check = checkOp(o, in.op(), OpKind.QUERY);
        if (check != ResultCode.OK)
        {
            return check;
        }
        final long requestId = ops.request[o];
        completeOp(o, true);
        final int r = requests.slotOf(requestId);
        if (r == NONE || requests.queryOp[r] != in.op() || requests.state[r] != RequestState.WAITING)
        {
            return ResultCode.OK;
        }
        requests.queryOp[r] = NONE;
        final int present = (int)Math.min(Math.max(0, in.value1()), requests.pages[r] - requests.queryStart[r]);
        int usable = present;
        for (final TreeComponent c : components)
        {
            usable = Math.min(usable, c.usableHit(present, (int)Math.min(Math.max(0, in.value2()), present)));
        }
        counters.hitPagesReported += present;
        if (usable <= 0)
        {
            if (present > 0)
            {
                effects.holdDropped(requestId, Reason.NO_CHECKPOINT, present);
            }
            return ResultCode.OK;
        }
        requests.parkStart[r] = requests.queryStart[r];
        requests.parkPages[r] = usable;
        if (parkedCount > 0 || !stagingAvailable(usable) || ops.full())
        {
            parkHit(r);
        }
        else
        {
            startFetch(r);
        }
        return ResultCode.OK;
    }

    private boolean stagingAvailable(final int hitPages)
    {
        for (final TreeComponent c : components)
        {
            if (c.stagingFree(false) < c.stagingNeeded(hitPages))
            {
                return false;
            }
        }
        return true;
    }

    private void parkHit(final int r)
    {
        parked[(parkedHead + parkedCount) % parked.length] = requests.id[r];
        parkedCount++;
        effects.hitParked(requests.id[r], requests.parkPages[r]);
    }

    private void startFetch(final int r)
    {
        final long requestId = requests.id[r];
        final int start = requests.parkStart[r];
        final int pages = requests.parkPages[r];
        requests.parkPages[r] = 0;
        final int o = ops.add(OpKind.FETCH, requestId);
        ops.pagesMoved[o] = pages;
        for (final TreeComponent c : components)
        {
            c.stage(o, r, start, pages);
        }
        requests.fetchOp[r] = ops.id[o];
        requests.holdStart[r] = start;
        recordQueued(o, requestId);
        ops.state[o] = OpTable.LAUNCHED;
        effects.opEvent(EffectType.OP_LAUNCHED, ops.id[o], OpKind.FETCH);
        counters.fetches++;
    }

    /** Staging was freed: retry parked hits (head first), then queued backups, while staging lasts. */
    private void drainParkedHits()
    {
        drainParkedReads();
        flushBackups();
    }

    private void drainParkedReads()
    {
        while (parkedCount > 0)
        {
            final long requestId = parked[parkedHead];
            final int r = requests.slotOf(requestId);
            if (r == NONE || requests.parkPages[r] == 0 || requests.state[r] != RequestState.WAITING)
            {
                parkedHead = (parkedHead + 1) % parked.length;
                parkedCount--;
                continue;
            }
            if (!stagingAvailable(requests.parkPages[r]) || ops.full())
            {
                return;
            }
            parkedHead = (parkedHead + 1) % parked.length;
            parkedCount--;
            startFetch(r);
        }
    }

    private int onFetchDone(final InputRecord in)
    {
        final int o = ops.slotOf(in.op());
        final int check = checkOp(o, in.op(), OpKind.FETCH);
        if (check != ResultCode.OK)
        {
            return check;
        }
        final long requestId = ops.request[o];
        final int r = requests.slotOf(requestId);
        final boolean wanted = r != NONE && requests.fetchOp[r] == in.op() &&
            requests.state[r] == RequestState.WAITING;
        final boolean complete = in.ok() && in.value1() >= ops.pagesMoved[o] && (!config.hybrid() || in.value2() != 0);
        if (!wanted || !complete)
        {
            final int pages = ops.pagesMoved[o];
            completeOp(o, in.ok());
            if (wanted)
            {
                requests.fetchOp[r] = NONE;
                effects.holdDropped(requestId, Reason.FETCH_SHORT, pages);
                counters.drops++;
            }
            drainParkedHits();
            return ResultCode.OK;
        }
        // The staging becomes the request's hold: visible to this request only.
        requests.fetchOp[r] = NONE;
        requests.holdPages[r] = ops.pagesMoved[o];
        final int moves = ops.moveCount[o];
        for (int m = 0; m < moves; m++)
        {
            poolOf(ops.dstPool(o, m)).transition(ops.dstSlot(o, m), SlotState.REQUEST, requestId);
            requests.holdSlotPool[requests.holdOffset(r) + m] = ops.dstPool(o, m);
            requests.holdSlot[requests.holdOffset(r) + m] = ops.dstSlot(o, m);
        }
        requests.holdSlotCount[r] = moves;
        effects.opEvent(EffectType.OP_ACKED, ops.id[o], OpKind.FETCH);
        ops.remove(o);
        effects.holdStaged(requestId, in.op(), requests.holdPages[r], requests.holdStart[r]);
        setState(r, RequestState.STAGED);
        counters.holdsStaged++;
        return ResultCode.OK;
    }

    // ------------------------------------------------------------------------------------------------ pass

    private int onPassBegin(final InputRecord in)
    {
        if (passOpen)
        {
            return ResultCode.PASS_OPEN;
        }
        passOpen = true;
        passMaxRunning = in.value1();
        passTokens = in.value2();
        passInputTokens = in.value3();
        passChunkTokens = in.value4();
        passAdmitted = 0;
        return ResultCode.OK;
    }

    private int onPassEnd()
    {
        if (!passOpen)
        {
            return ResultCode.NOT_IN_PASS;
        }
        for (int i = 0; i < queuedLaunchCount; i++)
        {
            final int o = queuedLaunch[i];
            if (ops.kind[o] != null && ops.state[o] == OpTable.QUEUED)
            {
                ops.state[o] = OpTable.LAUNCHED;
                effects.opEvent(EffectType.OP_LAUNCHED, ops.id[o], ops.kind[o]);
            }
        }
        queuedLaunchCount = 0;
        passOpen = false;
        return ResultCode.OK;
    }

    // ------------------------------------------------------------------------------------------------ admit

    private int onAdmit(final InputRecord in)
    {
        if (!passOpen)
        {
            return ResultCode.NOT_IN_PASS;
        }
        final int r = requests.slotOf(in.request());
        if (r == NONE)
        {
            return ResultCode.UNKNOWN_REQUEST;
        }
        final RequestState state = requests.state[r];
        if (state != RequestState.WAITING && state != RequestState.STAGED)
        {
            return ResultCode.REQUEST_STATE;
        }
        final long requestId = requests.id[r];

        if (state == RequestState.WAITING && requests.fetchOp[r] != NONE)
        {
            if (!fetchMayBeAbandoned(r))
            {
                effects.waited(requestId, Reason.PREFETCH_PENDING);
                return ResultCode.NOT_ADMITTED;
            }
            effects.holdDropped(requestId, Reason.FETCH_ABANDONED, 0);
            requests.fetchOp[r] = NONE;
        }
        if (state == RequestState.WAITING && (requests.queryOp[r] != NONE || requests.parkPages[r] > 0) &&
            !fetchMayBeAbandoned(r))
        {
            // Without the L3 answer (or with a hit parked for staging) the controller cannot know what it would
            // give up; the prefetch policy decides whether to wait for it.
            effects.waited(requestId, Reason.PREFETCH_PENDING);
            return ResultCode.NOT_ADMITTED;
        }
        if (state == RequestState.WAITING && requests.queryOp[r] != NONE && nowNs - requests.arrivalNs[r] < QUERY_GRACE_NS)
        {
            effects.waited(requestId, Reason.PREFETCH_PENDING);
            return ResultCode.NOT_ADMITTED;
        }
        requests.parkPages[r] = 0;
        requests.queryOp[r] = NONE;

        if (running >= passMaxRunning)
        {
            effects.waited(requestId, Reason.RUNNING_LIMIT);
            return ResultCode.NOT_ADMITTED;
        }

        plan.clear();
        plan.request = r;
        plan.requestId = requestId;
        if (!preparePlan(r))
        {
            return ResultCode.NOT_ADMITTED;
        }

        // Pin the base so it is not counted as evictable while deciding.
        plan.baseReceipt = plan.baseNode > RadixTree.ROOT ?
            tree.lock(plan.baseNode, Component.FULL, SlotState.REQUEST, requestId) : NONE;
        for (final TreeComponent c : components)
        {
            c.pin(plan);
        }

        final int result = admitGated(r);
        if (result != ResultCode.OK)
        {
            for (final TreeComponent c : components)
            {
                c.unpin(plan);
            }
            releaseBase();
            if (plan.rejected)
            {
                if (requests.state[r] == RequestState.STAGED)
                {
                    dropHold(r, Reason.TOO_LARGE);
                }
                finishRequest(r, RequestState.ABORTED);
            }
        }
        return result;
    }

    private boolean fetchMayBeAbandoned(final int r)
    {
        final PrefetchPolicy policy = config.prefetchPolicy();
        if (policy == PrefetchPolicy.WAIT_COMPLETE)
        {
            return false;
        }
        if (policy == PrefetchPolicy.TIMEOUT)
        {
            return nowNs - requests.arrivalNs[r] >= config.prefetchTimeoutNs();
        }
        return true;
    }

    /** Match the device, splice the hold if there is one, and fill the plan's depths. */
    private boolean preparePlan(final int r)
    {
        final long requestId = requests.id[r];
        final int pages = requests.pages[r];
        final int usable = usableDevicePrefix(r);
        final int fullPages = match.pages;
        plan.fullPages = fullPages;
        if (requests.state[r] == RequestState.STAGED)
        {
            final int holdStart = requests.holdStart[r];
            final int holdEnd = holdStart + requests.holdPages[r];
            if (fullPages < holdStart)
            {
                dropHold(r, Reason.PREFIX_SHRUNK);
            }
            else if (usable >= holdEnd)
            {
                dropHold(r, Reason.DEVICE_COVERED);
            }
            else
            {
                tree.match(requests.fpHi, requests.fpLo, requests.offset(r), holdEnd, true, scratchMatch);
                if (scratchMatch.pages > fullPages)
                {
                    effects.waited(requestId, Reason.LOAD_IN_FLIGHT);
                    return false;
                }
                plan.hasHold = true;
                plan.holdStart = holdStart;
                plan.holdEnd = holdEnd;
                plan.loadStart = Math.min(fullPages, holdEnd);
                plan.loadPages = holdEnd - plan.loadStart;
                plan.prefixPages = holdEnd;
                plan.computePages = pages - holdEnd;
                plan.baseNode = nodeAtDepth(fullPages);
                return plan.baseNode != NONE || fail(requestId, Reason.ALLOCATION);
            }
        }
        plan.prefixPages = usable;
        plan.computePages = pages - usable;
        plan.baseNode = nodeAtDepth(usable);
        return plan.baseNode != NONE || fail(requestId, Reason.ALLOCATION);
    }

    private boolean fail(final long requestId, final Reason reason)
    {
        effects.waited(requestId, reason);
        return false;
    }

    /** Node ending exactly at {@code depth} on the last match's path, splitting one if needed. */
    private int nodeAtDepth(final int depth)
    {
        if (depth == 0)
        {
            return RadixTree.ROOT;
        }
        if (depth == match.mambaPages)
        {
            return match.mambaNode;
        }
        if (depth == match.nodePages)
        {
            return match.node;
        }
        int node = match.node;
        int nodeEnd = match.nodePages;
        if (depth > nodeEnd && match.partialNode != RadixTree.NO_NODE)
        {
            return tree.split(match.partialNode, depth - nodeEnd);
        }
        while (node != RadixTree.ROOT && nodeEnd - tree.pageCount(node) >= depth)
        {
            nodeEnd -= tree.pageCount(node);
            node = tree.parent(node);
        }
        if (nodeEnd == depth)
        {
            return node;
        }
        return tree.split(node, tree.pageCount(node) - (nodeEnd - depth));
    }

    private int admitGated(final int r)
    {
        final long requestId = requests.id[r];
        final boolean staged = plan.hasHold;
        // Gate 2: recurrent-state slots (and every other component) against free plus evictable.
        for (final TreeComponent c : components)
        {
            if (c.component() == Component.FULL)
            {
                continue;
            }
            if (c.gateNeed(plan) > c.gateAvailable())
            {
                return staged ? defer(r, c.gateReason()) : waitFor(r, c.gateReason());
            }
        }
        final long extendTokens = (long)plan.computePages * config.pageSize() + requests.tailTokens[r];
        final long totalTokens = extendTokens + requests.maxNewTokens[r];
        if (totalTokens > passTokens)
        {
            return waitFor(r, Reason.TOKEN_BUDGET);
        }
        if (passAdmitted > 0 && extendTokens > passInputTokens)
        {
            return waitFor(r, Reason.INPUT_BUDGET);
        }
        if (passChunkTokens <= 0)
        {
            return waitFor(r, Reason.CHUNK_BUDGET);
        }
        final TreeComponent full = components[0];
        final int kvNeed = full.gateNeed(plan);
        if (kvNeed > config.deviceKvPages() - tree.depth(plan.baseNode))
        {
            effects.rejected(requestId, Reason.TOO_LARGE);
            plan.rejected = true;
            counters.rejects++;
            return ResultCode.NOT_ADMITTED;
        }
        if (kvNeed > full.gateAvailable())
        {
            return staged ? defer(r, full.gateReason()) : waitFor(r, full.gateReason());
        }
        if (ops.size() + 2 > config.maxOps())
        {
            return waitFor(r, Reason.ALLOCATION);
        }

        int mambaReserved = 0;
        for (final TreeComponent c : components)
        {
            if (c.component() != Component.FULL)
            {
                mambaReserved += c.gateNeed(plan);
            }
        }
        effects.reserved(requestId, mambaReserved, kvNeed);

        if (staged)
        {
            plan.loadOpSlot = ops.add(OpKind.LOAD, requestId);
        }
        for (int i = 0; i < components.length; i++)
        {
            if (!components[i].allocate(plan))
            {
                for (int j = i - 1; j >= 0; j--)
                {
                    components[j].undoAllocate(plan);
                }
                if (plan.loadOpSlot != NONE)
                {
                    ops.remove(plan.loadOpSlot);
                    plan.loadOpSlot = NONE;
                }
                return staged ? defer(r, Reason.ALLOCATION) : waitFor(r, Reason.ALLOCATION);
            }
        }
        if (staged)
        {
            commitStagedLoad(r);
        }
        else
        {
            commitComputeOnly(r);
        }
        return ResultCode.OK;
    }

    private int waitFor(final int r, final Reason reason)
    {
        effects.waited(requests.id[r], reason);
        counters.waits++;
        return ResultCode.NOT_ADMITTED;
    }

    private int defer(final int r, final Reason reason)
    {
        final int count = ++requests.deferCount[r];
        effects.deferred(requests.id[r], reason, count);
        counters.defers++;
        if (count >= config.maxStagedDefers())
        {
            dropHold(r, Reason.DEFER_LIMIT);
            requests.deferCount[r] = 0;
        }
        return ResultCode.NOT_ADMITTED;
    }

    private void releaseBase()
    {
        if (plan.baseReceipt != NONE)
        {
            tree.unlock(plan.baseReceipt);
            plan.baseReceipt = NONE;
        }
    }

    private void commitStagedLoad(final int r)
    {
        final long requestId = requests.id[r];
        final int o = plan.loadOpSlot;
        final long opId = ops.id[o];
        final int off = requests.offset(r);

        // Insert the nodes the load fills: [0, holdEnd) with fresh pages for the loaded span.
        for (int i = 0; i < plan.holdEnd; i++)
        {
            pageScratch[i] = i >= plan.loadStart ? requests.pageIds[off + i] : NONE;
        }
        final int depthBefore = tree.depth(plan.baseNode);
        tree.insert(requests.fpHi, requests.fpLo, off, plan.holdEnd, pageScratch, canonicalScratch, sequence, scratchMatch);
        plan.prefixNode = scratchMatch.node;
        plan.prefixNodeIsNew = plan.loadPages > 0 && depthBefore < plan.holdEnd;
        ops.node[o] = plan.prefixNode;
        ops.pagesMoved[o] = plan.loadPages;

        // The load holds its own lock on the nodes it fills until its ack or cancel.
        ops.receipt[o] = tree.lock(plan.prefixNode, Component.FULL, SlotState.OP, opId);
        if (plan.prefixNodeIsNew)
        {
            tree.markLoading(plan.prefixNode, opId);
        }
        // The hold's staging now belongs to the load; the trimmed head (pages already on the device) is not
        // copied, so it is freed now.
        final int hoff = requests.holdOffset(r);
        final int trimmed = plan.loadStart - plan.holdStart;
        for (int i = 0; i < requests.holdSlotCount[r]; i++)
        {
            final boolean head = i < trimmed && requests.holdSlotPool[hoff + i] == Pool.HOST_KV.value();
            poolOf(requests.holdSlotPool[hoff + i]).transition(requests.holdSlot[hoff + i],
                head ? SlotState.FREE : SlotState.OP, head ? NONE : opId);
        }
        for (final TreeComponent c : components)
        {
            c.commitLoad(plan);
        }
        requests.holdSlotCount[r] = 0;
        requests.holdPages[r] = 0;
        recordQueued(o, requestId);
        if (config.fault(FaultSwitch.FREE_REDUNDANT_SLOT_AT_QUEUE) && ops.ackFreePool[o] != NONE)
        {
            poolOf(ops.ackFreePool[o]).forceTransition(ops.ackFreeSlot[o], SlotState.FREE, NONE);
            ops.ackFreePool[o] = NONE;
        }
        queuedLaunch[queuedLaunchCount++] = o;
        requests.loadOp[r] = opId;

        // The request's own lock moves from the base to the node that ends its prefix.
        final long receipt = tree.lock(plan.prefixNode, Component.FULL, SlotState.REQUEST, requestId);
        releaseBase();
        requests.lockedNode[r] = plan.prefixNode;
        requests.lockReceipt[r] = receipt;
        fillRequestPages(r, plan.prefixNode);
        tree.touch(plan.prefixNode, sequence);
        requests.deferCount[r] = 0;
        effects.admitted(requestId, opId, plan.prefixPages, plan.loadPages, NONE);
        markAdmitted(r, RequestState.STAGED);
        counters.loads++;
        counters.loadedPages += plan.loadPages;
    }

    private void commitComputeOnly(final int r)
    {
        final long requestId = requests.id[r];
        plan.prefixNode = plan.baseNode;
        for (final TreeComponent c : components)
        {
            c.commitCompute(plan);
        }
        if (plan.cowOpSlot != NONE)
        {
            recordQueued(plan.cowOpSlot, requestId);
            queuedLaunch[queuedLaunchCount++] = plan.cowOpSlot;
            requests.cowOp[r] = ops.id[plan.cowOpSlot];
            counters.cows++;
        }
        requests.lockedNode[r] = plan.baseNode;
        requests.lockReceipt[r] = plan.baseReceipt;
        plan.baseReceipt = NONE;
        fillRequestPages(r, plan.baseNode);
        if (plan.baseNode != RadixTree.ROOT)
        {
            tree.touch(plan.baseNode, sequence);
        }
        effects.admitted(requestId, NONE, plan.prefixPages, 0,
            plan.cowOpSlot != NONE ? ops.id[plan.cowOpSlot] : NONE);
        markAdmitted(r, RequestState.WAITING);
    }

    /** Put the tree's pages of the prefix in front of the request's own pages. */
    private void fillRequestPages(final int r, final int node)
    {
        final int off = requests.offset(r);
        final int depth = tree.collectPages(node, pageScratch);
        System.arraycopy(pageScratch, 0, requests.pageIds, off, depth);
        requests.validPages[r] = requests.pages[r];
        requests.cachedPages[r] = depth;
    }

    private void markAdmitted(final int r, final RequestState from)
    {
        final long extendTokens = (long)plan.computePages * config.pageSize() + requests.tailTokens[r];
        passTokens -= extendTokens + requests.maxNewTokens[r];
        passInputTokens -= extendTokens;
        passChunkTokens -= extendTokens;
        passAdmitted++;
        running++;
        effects.requestState(requests.id[r], from, RequestState.ADMITTED);
        requests.state[r] = RequestState.ADMITTED;
        counters.admitted++;
        counters.prefixPages += plan.prefixPages;
    }

    // ------------------------------------------------------------------------------------------------ retract / abort

    private int onRetract(final InputRecord in)
    {
        final int r = requests.slotOf(in.request());
        if (r == NONE)
        {
            return ResultCode.UNKNOWN_REQUEST;
        }
        if (requests.state[r] != RequestState.ADMITTED)
        {
            return ResultCode.REQUEST_STATE;
        }
        if (config.fault(FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD) && queuedOp(requests.loadOp[r]))
        {
            // The upstream bug: the slots go back on the free list while the queued load still targets them.
            for (final TreeComponent c : components)
            {
                c.release(r, false);
            }
            requests.loadOp[r] = NONE;
            unlockRequest(r);
        }
        else
        {
            unwindAdmission(r, false);
        }
        running--;
        setState(r, RequestState.WAITING);
        requests.validPages[r] = 0;
        requests.cachedPages[r] = 0;
        counters.retracts++;
        return ResultCode.OK;
    }

    private boolean queuedOp(final long opId)
    {
        final int o = opId == NONE ? NONE : ops.slotOf(opId);
        return o != NONE && ops.state[o] == OpTable.QUEUED;
    }

    /**
     * Undo an admission: cancel its queued load or copy, or park its slots until the launched one is acked; free
     * what the request computed with; release its lock.
     */
    private void unwindAdmission(final int r, final boolean abort)
    {
        unlockRequest(r);
        cancelIfQueued(requests.loadOp[r]);
        cancelIfQueued(requests.cowOp[r]);
        for (final TreeComponent c : components)
        {
            c.release(r, abort);
        }
        requests.loadOp[r] = NONE;
        requests.cowOp[r] = NONE;
    }

    private void cancelIfQueued(final long opId)
    {
        final int o = opId == NONE ? NONE : ops.slotOf(opId);
        if (o == NONE || ops.state[o] != OpTable.QUEUED)
        {
            return;
        }
        effects.opEvent(EffectType.OP_CANCELLED, opId, ops.kind[o]);
        rollBackOp(o);
        ops.remove(o);
    }

    private void unlockRequest(final int r)
    {
        if (requests.lockReceipt[r] != NONE)
        {
            tree.unlock(requests.lockReceipt[r]);
            requests.lockReceipt[r] = NONE;
            requests.lockedNode[r] = NONE;
        }
    }

    private int onAbort(final InputRecord in)
    {
        final int r = requests.slotOf(in.request());
        if (r == NONE)
        {
            return ResultCode.UNKNOWN_REQUEST;
        }
        final RequestState state = requests.state[r];
        switch (state)
        {
            case WAITING:
                requests.parkPages[r] = 0;
                break;
            case STAGED:
                dropHold(r, Reason.ABORTED);
                break;
            case ADMITTED:
            case RUNNING:
                for (final TreeComponent c : components)
                {
                    c.observe(r, in.value1(), in.value2(), in.value3());
                }
                unwindAdmission(r, true);
                running--;
                break;
            default:
                return ResultCode.REQUEST_STATE;
        }
        finishRequest(r, RequestState.ABORTED);
        counters.aborts++;
        return ResultCode.OK;
    }

    private void dropHold(final int r, final Reason reason)
    {
        final int hoff = requests.holdOffset(r);
        int count = requests.holdSlotCount[r];
        if (config.fault(FaultSwitch.LEAK_STAGING_ON_DROP) && count > 0)
        {
            count--;
        }
        for (int i = 0; i < count; i++)
        {
            poolOf(requests.holdSlotPool[hoff + i]).transition(requests.holdSlot[hoff + i], SlotState.FREE, NONE);
        }
        effects.holdDropped(requests.id[r], reason, requests.holdPages[r]);
        requests.holdSlotCount[r] = 0;
        requests.holdPages[r] = 0;
        if (requests.state[r] == RequestState.STAGED)
        {
            setState(r, RequestState.WAITING);
        }
        counters.drops++;
        drainParkedHits();
    }

    private void finishRequest(final int r, final RequestState to)
    {
        setState(r, to);
        requests.remove(r);
    }

    private void setState(final int r, final RequestState to)
    {
        effects.requestState(requests.id[r], requests.state[r], to);
        requests.state[r] = to;
    }

    // ------------------------------------------------------------------------------------------------ ack

    private int onAck(final InputRecord in)
    {
        final int o = ops.slotOf(in.op());
        if (o == NONE)
        {
            return ops.issued(in.op()) ? ResultCode.OP_ALREADY_DONE : ResultCode.UNKNOWN_OP;
        }
        final OpKind kind = ops.kind[o];
        if (kind == OpKind.QUERY || kind == OpKind.FETCH)
        {
            return ResultCode.OP_KIND_MISMATCH;
        }
        if (ops.state[o] != OpTable.LAUNCHED)
        {
            return ResultCode.OP_NOT_LAUNCHED;
        }
        final boolean ok = in.ok();
        final long opId = ops.id[o];
        final int r = requests.slotOf(ops.request[o]);
        switch (kind)
        {
            case LOAD:
            case COW:
                final boolean current = r != NONE &&
                    (kind == OpKind.LOAD ? requests.loadOp[r] == opId : requests.cowOp[r] == opId);
                if (current)
                {
                    if (kind == OpKind.LOAD)
                    {
                        requests.loadOp[r] = NONE;
                    }
                    else
                    {
                        requests.cowOp[r] = NONE;
                    }
                }
                if (!ok && current)
                {
                    // The request recomputes: its admission is undone first so the load's nodes can go.
                    unlockRequest(r);
                    for (final TreeComponent c : components)
                    {
                        c.release(r, false);
                    }
                    running--;
                    setState(r, RequestState.WAITING);
                    requests.validPages[r] = 0;
                    requests.cachedPages[r] = 0;
                    effects.rejected(requests.id[r], kind == OpKind.LOAD ? Reason.LOAD_FAILED : Reason.COW_FAILED);
                }
                completeOp(o, ok);
                if (ok)
                {
                    counters.loadsAcked++;
                }
                drainParkedHits();
                break;
            case BACKUP:
                onBackupAck(o, ok);
                break;
            case STORE:
                effects.opEvent(ok ? EffectType.OP_ACKED : EffectType.OP_FAILED, opId, kind);
                final int pages = ops.pagesMoved[o];
                releaseOpSlots(o);
                ops.remove(o);
                if (ok)
                {
                    effects.pagesStored(opId, pages);
                    counters.storedPages += pages;
                }
                drainParkedHits();
                break;
            default:
                return ResultCode.OP_KIND_MISMATCH;
        }
        return ResultCode.OK;
    }

    private int checkOp(final int o, final long opId, final OpKind kind)
    {
        if (o == NONE)
        {
            return ops.issued(opId) ? ResultCode.OP_ALREADY_DONE : ResultCode.UNKNOWN_OP;
        }
        if (ops.kind[o] != kind)
        {
            return ResultCode.OP_KIND_MISMATCH;
        }
        if (ops.state[o] != OpTable.LAUNCHED)
        {
            return ResultCode.OP_NOT_LAUNCHED;
        }
        return ResultCode.OK;
    }

    /** Record an op's completion and release everything it held, then remove it. */
    private void completeOp(final int o, final boolean ok)
    {
        effects.opEvent(ok ? EffectType.OP_ACKED : EffectType.OP_FAILED, ops.id[o], ops.kind[o]);
        if (ok)
        {
            settleOp(o);
        }
        else
        {
            rollBackOp(o);
        }
        ops.remove(o);
    }

    /** A finished op: unlock its node, publish what it loaded, free its staging and parked slots. */
    private void settleOp(final int o)
    {
        if (ops.receipt[o] != NONE)
        {
            tree.unlock(ops.receipt[o]);
            ops.receipt[o] = NONE;
        }
        if (ops.node[o] != NONE && tree.live(ops.node[o]) && tree.loadingOp(ops.node[o]) == ops.id[o])
        {
            tree.markLoading(ops.node[o], NONE);
        }
        for (final TreeComponent c : components)
        {
            c.opDone(o, true);
        }
        releaseOpSlots(o);
    }

    /** A cancelled or failed op: unlock, delete the node it filled, free everything it held. */
    private void rollBackOp(final int o)
    {
        if (ops.receipt[o] != NONE)
        {
            tree.unlock(ops.receipt[o]);
            ops.receipt[o] = NONE;
        }
        for (final TreeComponent c : components)
        {
            c.opDone(o, false);
        }
        final int node = ops.node[o];
        if (node != NONE && tree.live(node) && tree.loadingOp(node) == ops.id[o])
        {
            tree.markLoading(node, NONE);
            tree.deleteLeaf(node);
        }
        releaseOpSlots(o);
    }

    /** Free every slot the op owns or parked (staging, redundant destinations, PENDING_FREE slots). */
    private void releaseOpSlots(final int o)
    {
        final long opId = ops.id[o];
        final int moves = ops.moveCount[o];
        for (int m = 0; m < moves; m++)
        {
            freeIfHeldBy(ops.srcPool(o, m), ops.srcSlot(o, m), opId);
            freeIfHeldBy(ops.dstPool(o, m), ops.dstSlot(o, m), opId);
        }
        if (ops.ackFreePool[o] != NONE)
        {
            freeIfHeldBy(ops.ackFreePool[o], ops.ackFreeSlot[o], opId);
            ops.ackFreePool[o] = NONE;
        }
    }

    private void freeIfHeldBy(final byte poolCode, final int slot, final long opId)
    {
        if (poolCode < 0)
        {
            return;
        }
        final SlotPool pool = poolOf(poolCode);
        final SlotState state = pool.state(slot);
        if ((state == SlotState.OP || state == SlotState.PENDING_FREE) && pool.owner(slot) == opId)
        {
            pool.transition(slot, SlotState.FREE, NONE);
        }
    }

    // ------------------------------------------------------------------------------------------------ write path

    private int onCache(final InputRecord in, final boolean finish)
    {
        final int r = requests.slotOf(in.request());
        if (r == NONE)
        {
            return ResultCode.UNKNOWN_REQUEST;
        }
        final RequestState state = requests.state[r];
        if ((state != RequestState.ADMITTED && state != RequestState.RUNNING) ||
            requests.loadOp[r] != NONE || requests.cowOp[r] != NONE)
        {
            return ResultCode.REQUEST_STATE;
        }
        final long computed = in.value1();
        final long tracked = in.value2();
        if (computed < 0 || computed > requests.pages[r] || tracked < 0 || tracked > computed)
        {
            return ResultCode.BAD_REQUEST_SIZE;
        }
        final long requestId = requests.id[r];
        if (state == RequestState.ADMITTED)
        {
            setState(r, RequestState.RUNNING);
        }
        int length = (int)computed;
        for (final TreeComponent c : components)
        {
            length = Math.min(length, c.cacheLength(r, (int)computed, (int)tracked));
        }
        int node = NONE;
        final int before = requests.cachedPages[r];
        if (length > before)
        {
            node = insertRequestPages(r, length);
        }
        if (node != NONE)
        {
            // The request's lock moves to the node it just cached, so nothing it caches can be evicted under it.
            final long receipt = tree.lock(node, Component.FULL, SlotState.REQUEST, requestId);
            unlockRequest(r);
            requests.lockedNode[r] = node;
            requests.lockReceipt[r] = receipt;
        }
        for (final TreeComponent c : components)
        {
            c.cache(r, node != NONE && tree.depth(node) == length ? node : NONE, finish,
                in.value3(), in.value4(), in.value5());
        }
        if (node != NONE)
        {
            requestBackup(node, before);
        }
        if (finish)
        {
            freeOwnPages(r, requests.cachedPages[r]);
            final int lockedNode = requests.lockedNode[r];
            final long receipt = requests.lockReceipt[r];
            unlockRequest(r);
            if (config.fault(FaultSwitch.UNLOCK_TWICE_ON_FINISH) && receipt != NONE)
            {
                tree.unlockAgain(receipt, lockedNode, Component.FULL, SlotState.REQUEST, requestId);
            }
            running--;
            finishRequest(r, RequestState.FINISHED);
            counters.finished++;
        }
        return ResultCode.OK;
    }

    /**
     * Insert the request's pages up to {@code length}; duplicates of pages already cached are freed and the
     * request continues on the canonical pages.
     *
     * @return the node ending at the cached length, or -1 when nothing could be inserted.
     */
    private int insertRequestPages(final int r, final int length)
    {
        final int off = requests.offset(r);
        System.arraycopy(requests.pageIds, off, pageScratch, 0, length);
        final int code = tree.insert(requests.fpHi, requests.fpLo, off, length, pageScratch, canonicalScratch,
            sequence, scratchMatch);
        if (code != ResultCode.OK)
        {
            return NONE;
        }
        final int inserted = scratchMatch.pages;
        for (int i = 0; i < inserted; i++)
        {
            final int own = requests.pageIds[off + i];
            final int canonical = canonicalScratch[i];
            if (own != canonical)
            {
                if (own != NONE && kvPool.state(own) == SlotState.REQUEST && kvPool.owner(own) == requests.id[r])
                {
                    kvPool.transition(own, SlotState.FREE, NONE);
                    counters.dedupedPages++;
                }
                requests.pageIds[off + i] = canonical;
            }
        }
        requests.cachedPages[r] = Math.max(requests.cachedPages[r], inserted);
        return inserted > 0 ? scratchMatch.node : NONE;
    }

    /** Free the request's own KV pages from {@code from} on (not cacheable: no state can resume them). */
    private void freeOwnPages(final int r, final int from)
    {
        final int off = requests.offset(r);
        final long requestId = requests.id[r];
        for (int i = from; i < requests.validPages[r]; i++)
        {
            final int page = requests.pageIds[off + i];
            if (page != NONE && kvPool.state(page) == SlotState.REQUEST && kvPool.owner(page) == requestId)
            {
                kvPool.transition(page, SlotState.FREE, NONE);
            }
        }
        requests.validPages[r] = Math.min(requests.validPages[r], from);
    }

    /**
     * Queue the backup of what a request just cached (pages [from, end of node)) and write what staging allows.
     * Intents wait in a FIFO while host staging, past its loads margin, cannot take the head one (head-of-line,
     * as SGLang's pending write queue); a node evicted or shrunk below {@code from} before its turn is dropped.
     */
    private void requestBackup(final int node, final int from)
    {
        if (tree.depth(node) <= from)
        {
            return;
        }
        if (backlogCount == backlogNode.length)
        {
            counters.backupsSkipped++;
            return;
        }
        final int tail = (backlogHead + backlogCount) % backlogNode.length;
        backlogNode[tail] = node;
        backlogFrom[tail] = from;
        backlogCount++;
        flushBackups();
    }

    private void flushBackups()
    {
        while (backlogCount > 0)
        {
            final int node = backlogNode[backlogHead];
            final int from = backlogFrom[backlogHead];
            if (!tree.live(node) || tree.depth(node) <= from)
            {
                popBacklog();
                counters.backupsSkipped++;
                continue;
            }
            final int pages = tree.depth(node) - from;
            if (ops.full())
            {
                return;
            }
            for (final TreeComponent c : components)
            {
                if (c.stagingFree(true) < c.backupStagingNeeded(node, pages))
                {
                    return;
                }
            }
            popBacklog();
            startBackup(node, from);
        }
    }

    private void popBacklog()
    {
        backlogHead = (backlogHead + 1) % backlogNode.length;
        backlogCount--;
    }

    /** The D2H copy of pages [from, end of node) into host staging; it holds a lock on the node until its ack. */
    private void startBackup(final int node, final int from)
    {
        final int depth = tree.collectPages(node, pageScratch);
        final int o = ops.add(OpKind.BACKUP, node);
        final long opId = ops.id[o];
        ops.pagesMoved[o] = depth - from;
        for (final TreeComponent c : components)
        {
            c.backup(o, node, pageScratch, from, depth);
        }
        ops.node[o] = node;
        ops.receipt[o] = tree.lock(node, Component.FULL, SlotState.OP, opId);
        recordQueued(o, node);
        ops.state[o] = OpTable.LAUNCHED;
        effects.opEvent(EffectType.OP_LAUNCHED, opId, OpKind.BACKUP);
        counters.backups++;
    }

    private void onBackupAck(final int o, final boolean ok)
    {
        final long opId = ops.id[o];
        effects.opEvent(ok ? EffectType.OP_ACKED : EffectType.OP_FAILED, opId, OpKind.BACKUP);
        if (ops.receipt[o] != NONE)
        {
            tree.unlock(ops.receipt[o]);
            ops.receipt[o] = NONE;
        }
        if (!ok || ops.full())
        {
            releaseOpSlots(o);
            ops.remove(o);
            drainParkedHits();
            return;
        }
        // The staging now feeds the storage write: host slot -> L3 key.
        final int s = ops.add(OpKind.STORE, ops.request[o]);
        final long storeId = ops.id[s];
        ops.pagesMoved[s] = ops.pagesMoved[o];
        final int moves = ops.moveCount[o];
        for (int m = 0; m < moves; m++)
        {
            final byte hostPool = ops.dstPool(o, m);
            final int hostSlot = ops.dstSlot(o, m);
            poolOf(hostPool).transition(hostSlot, SlotState.OP, storeId);
            ops.addMove(s, hostPool, hostSlot, OpTable.L3, NONE, ops.keyHi(o, m), ops.keyLo(o, m));
        }
        ops.remove(o);
        recordQueued(s, ops.request[s]);
        ops.state[s] = OpTable.LAUNCHED;
        effects.opEvent(EffectType.OP_LAUNCHED, storeId, OpKind.STORE);
    }

    // ------------------------------------------------------------------------------------------------ tick

    /** Time passes: value1 > 0 asks to evict up to that many unlocked device pages (Long.MAX_VALUE: flush). */
    private int onTick(final InputRecord in)
    {
        if (in.value1() > 0)
        {
            tree.evictPages((int)Math.min(in.value1(), Integer.MAX_VALUE), ignoreOpLocks);
        }
        drainParkedHits();
        return ResultCode.OK;
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Journal an op: OP_QUEUED then one OP_TARGET per distinct slot it reads or writes. */
    private void recordQueued(final int o, final long owner)
    {
        final long opId = ops.id[o];
        final int moves = ops.moveCount[o];
        int targets = 0;
        for (int m = 0; m < moves; m++)
        {
            if (ops.srcPool(o, m) >= 0 && firstRead(o, m))
            {
                targets++;
            }
            if (ops.dstPool(o, m) >= 0)
            {
                targets++;
            }
        }
        effects.opQueued(opId, ops.kind[o], owner, targets, ops.pagesMoved[o]);
        for (int m = 0; m < moves; m++)
        {
            if (ops.srcPool(o, m) >= 0 && firstRead(o, m))
            {
                effects.opTarget(opId, Pool.get(ops.srcPool(o, m)), Role.READ, ops.srcSlot(o, m));
            }
        }
        for (int m = 0; m < moves; m++)
        {
            if (ops.dstPool(o, m) >= 0)
            {
                effects.opTarget(opId, Pool.get(ops.dstPool(o, m)), Role.WRITE, ops.dstSlot(o, m));
            }
        }
    }

    private boolean firstRead(final int o, final int m)
    {
        for (int k = 0; k < m; k++)
        {
            if (ops.srcPool(o, k) == ops.srcPool(o, m) && ops.srcSlot(o, k) == ops.srcSlot(o, m))
            {
                return false;
            }
        }
        return true;
    }

    private SlotPool poolOf(final byte code)
    {
        switch (code)
        {
            case 0: return kvPool;
            case 1: return mambaPool;
            case 2: return hostKvPool;
            case 3: return hostMambaPool;
            default: throw new IllegalStateException("no pool with code " + code + " at sequence " + sequence);
        }
    }

    /**
     * Check every structure's invariants (tests and replay only; O(n)).
     *
     * @throws IllegalStateException naming the broken rule.
     */
    public void verify()
    {
        tree.verify();
        kvPool.verify();
        hostKvPool.verify();
        if (mambaPool != null)
        {
            mambaPool.verify();
            hostMambaPool.verify();
        }
        for (final TreeComponent c : components)
        {
            c.verify(requests);
        }
        if (running < 0)
        {
            throw new IllegalStateException("running count " + running + " < 0 at sequence " + sequence);
        }
    }

    /**
     * @return a hash of the whole state that two engines fed the same inputs agree on.
     */
    public long stateHash()
    {
        long h = tree.stateHash();
        h = RequestTable.mix(h ^ kvPool.stateHash());
        h = RequestTable.mix(h ^ hostKvPool.stateHash());
        if (mambaPool != null)
        {
            h = RequestTable.mix(h ^ mambaPool.stateHash());
            h = RequestTable.mix(h ^ hostMambaPool.stateHash());
            h = RequestTable.mix(h ^ cursors.stateHash());
        }
        h = RequestTable.mix(h ^ requests.stateHash());
        h = RequestTable.mix(h ^ ops.stateHash());
        for (final TreeComponent c : components)
        {
            h = RequestTable.mix(h ^ c.stateHash());
        }
        h = RequestTable.mix(h ^ running ^ ((long)parkedCount << 32) ^ ((long)backlogCount << 48));
        for (int i = 0; i < backlogCount; i++)
        {
            final int b = (backlogHead + i) % backlogNode.length;
            h = RequestTable.mix(h ^ backlogNode[b] ^ ((long)backlogFrom[b] << 32));
        }
        return h;
    }
}
