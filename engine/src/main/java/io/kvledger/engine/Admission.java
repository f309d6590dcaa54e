package io.kvledger.engine;

import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.ResultCode;

import io.kvledger.engine.util.Hashing;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;

/**
 * Admission: PASS_BEGIN opens a pass with its budgets (running limit, total, input and chunk tokens), ADMIT decides
 * one request against the gates (L3 answer, running limit, component slots, token budgets, device pages, op table,
 * tree nodes) and commits it as a staged load or a compute-only admission, PASS_END launches what the pass queued.
 * Owns the list of loads and copies queued for PASS_END; the pass budgets sit in the shared {@link ApplyState}.
 * <p>
 * Decisions:
 * <ul>
 * <li>Storage ops (query, fetch, store) and backups launch as they are queued; loads and copy-on-write wait for
 * PassEnd, like SGLang's load queue.</li>
 * <li>An Admit waits (PREFETCH_PENDING, not counted) while the request's L3 existence query is unanswered, for
 * at most 5 ms of event time under best_effort: without the answer the controller cannot know what it gives up.
 * The fetch itself follows the prefetch policy.</li>
 * <li>Copy-on-write is decided at admission, never at match time, so a staged load has no pending copy to
 * cancel; the slots it hands out get their cursors reset there instead.</li>
 * <li>Before any component allocates, the recurrent-state components evict what their allocation will need
 * ({@link TreeComponent#evictFor}); then the components allocate in order, KV pages first. KV eviction deletes
 * leaves, and a deleted leaf can turn its parent, an inner checkpoint the Mamba gate counted as evictable (a state
 * dropped, the node kept), into a leaf that a waiting request's prefix pin locks, which Mamba eviction must skip:
 * when the Mamba slots were evicted for after the KV pages, the allocation came up short of what RESERVED promised
 * and the staged request was deferred (explore seed 12473, I18). Mamba eviction never lowers what the KV gate
 * counted: a leaf it deletes was unlocked, so its pages only move from evictable to free, and dropping a state
 * leaves the node's pages and locks as they were. When no Mamba eviction is needed nothing changes.</li>
 * </ul>
 */
final class Admission extends Flow
{
    /** How long an Admit waits for an L3 existence query before giving up on it (event time). */
    private static final long QUERY_GRACE_NS = 5_000_000L;

    /** Loads and copies queued by the open pass, launched at PASS_END (op slots). */
    private final int[] queuedLaunch;
    private int queuedLaunchCount;

    private final AdmissionPlan plan;
    private final MatchResult match;
    private final MatchResult scratchMatch;
    private final int[] pageScratch;
    private final int[] canonicalScratch;
    private ReadPath read;
    private RequestLifecycle lifecycle;

    /**
     * @param state the state holder shared with the other flows.
     */
    Admission(final ApplyState state)
    {
        super(state);
        plan = state.plan;
        match = state.match;
        scratchMatch = state.scratchMatch;
        pageScratch = state.pageScratch;
        canonicalScratch = state.canonicalScratch;
        queuedLaunch = new int[state.config.maxOps()];
    }

    /** Wire the flows this one hands work to (once, at construction of the state machine). */
    void wire(final ReadPath read, final RequestLifecycle lifecycle)
    {
        this.read = read;
        this.lifecycle = lifecycle;
    }

    @Override
    void register(final InputHandlers handlers)
    {
        handlers.on(InputType.PASS_BEGIN, this::onPassBegin);
        handlers.on(InputType.ADMIT, this::onAdmit);
        handlers.on(InputType.PASS_END, this::onPassEnd);
    }

    // ------------------------------------------------------------------------------------------------ pass

    int onPassBegin(final InputRecord in)
    {
        if (state.passOpen)
        {
            return ResultCode.PASS_OPEN;
        }
        state.passOpen = true;
        state.passMaxRunning = Inputs.maxRunning(in);
        state.passTokens = Inputs.tokenBudget(in);
        state.passInputTokens = Inputs.inputTokenBudget(in);
        state.passChunkTokens = Inputs.chunkTokenBudget(in);
        state.passAdmitted = 0;
        // The scheduler's natural retry point: a hit parked while staging or the op table was short starts here at
        // the latest, even when what freed them (a query's answer, say) does not itself retry the FIFO.
        read.drainParkedHits();
        return ResultCode.OK;
    }

    int onPassEnd(final InputRecord in)
    {
        if (!state.passOpen)
        {
            return ResultCode.NOT_IN_PASS;
        }
        for (int i = 0; i < queuedLaunchCount; i++)
        {
            final int o = queuedLaunch[i];
            if (ops.kind[o] != null && ops.state[o] == OpTable.QUEUED)
            {
                ops.advance(o, OpTable.LAUNCHED);
            }
        }
        queuedLaunchCount = 0;
        state.passOpen = false;
        return ResultCode.OK;
    }

    // ------------------------------------------------------------------------------------------------ admit

    int onAdmit(final InputRecord in)
    {
        if (!state.passOpen)
        {
            return ResultCode.NOT_IN_PASS;
        }
        final int r = requests.slotOf(in.request());
        if (r == NONE)
        {
            return ResultCode.UNKNOWN_REQUEST;
        }
        final RequestState current = requests.state[r];
        if (current != RequestState.WAITING && current != RequestState.STAGED)
        {
            return ResultCode.REQUEST_STATE;
        }
        final long requestId = requests.id[r];

        if (current == RequestState.WAITING && (requests.fetchOp[r] != NONE || requests.queryOp[r] != NONE ||
            requests.parkPages[r] > 0) && !fetchMayBeAbandoned(r))
        {
            // Without the L3 answer (or with a hit parked for staging, or its fetch unfinished) the controller cannot
            // know what it would give up; the prefetch policy decides whether to wait for it.
            waited(requestId, Reason.PREFETCH_PENDING);
            return ResultCode.NOT_ADMITTED;
        }
        if (current == RequestState.WAITING && requests.queryOp[r] != NONE &&
            state.nowNs - requests.arrivalNs[r] < QUERY_GRACE_NS)
        {
            waited(requestId, Reason.PREFETCH_PENDING);
            return ResultCode.NOT_ADMITTED;
        }
        final boolean keepsHitAtRunningLimit = config.rules().keepsHitAtRunningLimit();
        if (keepsHitAtRunningLimit && state.running >= state.passMaxRunning)
        {
            // The first gate, and before the request gives anything up: an Admit refused here does not go ahead, so
            // its unfinished fetch, parked hit or unanswered query stays (DESIGN read path 2-3; SGLang's batch-full
            // check comes before it looks at a request's prefetch).
            waited(requestId, Reason.RUNNING_LIMIT);
            return ResultCode.NOT_ADMITTED;
        }
        if (current == RequestState.WAITING && requests.fetchOp[r] != NONE)
        {
            // Rules 2 say how many pages the abandoned fetch was bringing; rules 1 wrote 0.
            effects.holdDropped(requestId, Reason.FETCH_ABANDONED, config.rules().abandonedFetchCountsPages() ?
                ops.pagesMoved[ops.slotOf(requests.fetchOp[r])] : 0);
            counters.drops++;
            requests.fetchOp[r] = NONE;
        }
        if (requests.parkPages[r] > 0)
        {
            // Past the prefetch-policy gate with a hit still parked for staging (best_effort at once, timeout once
            // its deadline passed): the request goes on without it, and the journal says so.
            effects.holdDropped(requestId, Reason.FETCH_ABANDONED, requests.parkPages[r]);
            counters.drops++;
        }
        read.unpark(r);
        requests.queryOp[r] = NONE;
        if (current == RequestState.WAITING)
        {
            // A waiting request has given its L3 hit up by now (answered empty, abandoned or parked and dropped):
            // its prefix pin goes too, or waiting requests that cannot be admitted would pin the pages they wait for.
            state.unpinPrefix(r);
        }
        if (!keepsHitAtRunningLimit && state.running >= state.passMaxRunning)
        {
            // rules 1 to 3: the request gave its hit up above although it does not go ahead
            waited(requestId, Reason.RUNNING_LIMIT);
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
            tree.acquire(plan.baseNode, Component.FULL, SlotState.REQUEST, requestId) : NONE;
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
                    lifecycle.dropHold(r, Reason.TOO_LARGE);
                }
                lifecycle.finishRequest(r, RequestState.ABORTED);
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
            return state.nowNs - requests.arrivalNs[r] >= prefetchTimeoutNs(r);
        }
        return true;
    }

    /**
     * The timeout policy's limit for the request's prefetch: the base plus the time per 1,024 tokens of the hit being
     * fetched (or parked for staging; none while its L3 query is unanswered), as SGLang's
     * {@code prefetch_timeout_base + prefetch_timeout_per_ki_token * tokens / 1024}.
     */
    private long prefetchTimeoutNs(final int r)
    {
        final long perKi = config.prefetchTimeoutPerKiNs();
        if (perKi == 0)
        {
            return config.prefetchTimeoutNs();
        }
        final long fetch = requests.fetchOp[r];
        final long pages = fetch != NONE ? ops.pagesMoved[ops.slotOf(fetch)] : requests.parkPages[r];
        return config.prefetchTimeoutNs() + perKi * pages * config.pageSize() / 1024;
    }

    /** Match the device, splice the hold if there is one, and fill the plan's depths. */
    private boolean preparePlan(final int r)
    {
        final long requestId = requests.id[r];
        final int pages = requests.pages[r];
        final int usable = state.usableDevicePrefix(r);
        final int fullPages = match.pages;
        plan.fullPages = fullPages;
        if (requests.state[r] == RequestState.STAGED)
        {
            final int holdStart = requests.holdStart[r];
            final int holdEnd = holdStart + requests.holdPages[r];
            if (fullPages < holdStart)
            {
                lifecycle.dropHold(r, Reason.PREFIX_SHRUNK);
            }
            else if (usable >= holdEnd)
            {
                lifecycle.dropHold(r, Reason.DEVICE_COVERED);
            }
            else
            {
                tree.match(requests.fpHi, requests.fpLo, requests.offset(r), holdEnd, true, scratchMatch);
                if (scratchMatch.pages > fullPages)
                {
                    waited(requestId, Reason.LOAD_IN_FLIGHT);
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
        waited(requestId, reason);
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
            if (!c.gateCovers(c.gateNeed(plan)))
            {
                return staged ? defer(r, c.gateReason()) : waitFor(r, c.gateReason());
            }
        }
        if (config.rules().sglangBudgets())
        {
            // As SGLang's add_one_req: the total (a memory estimate) counts every token past the device prefix,
            // loaded ones included, the clipped max new tokens and a page; the input cap counts the tokens to
            // compute in whole pages; both wait at the budget, not only past it.
            final long inputTokens = pagedInputTokens(r);
            if (totalTokens(r, false) >= state.passTokens)
            {
                return waitFor(r, Reason.TOKEN_BUDGET);
            }
            if (state.passAdmitted > 0 && inputTokens >= state.passInputTokens)
            {
                return waitFor(r, Reason.INPUT_BUDGET);
            }
        }
        else
        {
            final long extendTokens = extendTokens(r);
            if (extendTokens + requests.maxNewTokens[r] > state.passTokens)
            {
                return waitFor(r, Reason.TOKEN_BUDGET);
            }
            if (state.passAdmitted > 0 && extendTokens > state.passInputTokens)
            {
                return waitFor(r, Reason.INPUT_BUDGET);
            }
        }
        if (state.passChunkTokens <= 0)
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
        if (staged && tree.freeNodeCount() < 2)
        {
            // The load inserts up to two nodes (a split and a leaf); past this gate its insert cannot fail.
            return defer(r, Reason.ALLOCATION);
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
        // Recurrent-state eviction before any allocation (see the class doc): KV eviction could strand a counted state.
        for (final TreeComponent c : components)
        {
            if (c.component() != Component.FULL)
            {
                c.evictFor(plan);
            }
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
                // short of room in the journal document, not of pages: wait, without counting a deferral
                return staged && !plan.documentFull ? defer(r, Reason.ALLOCATION) : waitFor(r, Reason.ALLOCATION);
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
        waited(requests.id[r], reason);
        return ResultCode.NOT_ADMITTED;
    }

    /** A WAITED effect, counted (every reason: the counter and the journal's WAITED effects agree). */
    private void waited(final long requestId, final Reason reason)
    {
        effects.waited(requestId, reason);
        counters.waits++;
    }

    private int defer(final int r, final Reason reason)
    {
        final int count = ++requests.deferCount[r];
        effects.deferred(requests.id[r], reason, count);
        counters.defers++;
        if (count >= config.maxStagedDefers())
        {
            lifecycle.dropHold(r, Reason.DEFER_LIMIT);
            requests.deferCount[r] = 0;
        }
        return ResultCode.NOT_ADMITTED;
    }

    private void releaseBase()
    {
        if (plan.baseReceipt != NONE)
        {
            tree.release(plan.baseReceipt);
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
        EngineBugException.check(
            tree.insert(requests.fpHi, requests.fpLo, off, plan.holdEnd, pageScratch, canonicalScratch, state.sequence,
            scratchMatch), "insert of the staged load's nodes for request", requestId, opId);
        plan.prefixNode = scratchMatch.node;
        plan.prefixNodeIsNew = plan.loadPages > 0 && depthBefore < plan.holdEnd;
        ops.node[o] = plan.prefixNode;
        ops.pagesMoved[o] = plan.loadPages;

        // The load holds its own lock on the nodes it fills until its ack or cancel.
        ops.receipt[o] = tree.acquire(plan.prefixNode, Component.FULL, SlotState.OP, opId);
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
            state.poolOf(requests.holdSlotPool[hoff + i]).move(requests.holdSlot[hoff + i],
                head ? SlotState.FREE : SlotState.OP, head ? NONE : opId);
        }
        for (final TreeComponent c : components)
        {
            c.commitLoad(plan);
        }
        requests.holdSlotCount[r] = 0;
        requests.holdPages[r] = 0;
        state.recordQueued(o, requestId);
        if (config.fault(FaultSwitch.FREE_REDUNDANT_SLOT_AT_QUEUE) && ops.ackFreePool[o] != NONE)
        {
            state.poolOf(ops.ackFreePool[o]).forceTransition(ops.ackFreeSlot[o], SlotState.FREE, NONE);
            ops.ackFreePool[o] = NONE;
        }
        queuedLaunch[queuedLaunchCount++] = o;
        requests.loadOp[r] = opId;

        // The request's own lock moves from the base to the node that ends its prefix.
        final long receipt = tree.acquire(plan.prefixNode, Component.FULL, SlotState.REQUEST, requestId);
        releaseBase();
        requests.lockedNode[r] = plan.prefixNode;
        requests.lockedIncarnation[r] = tree.incarnation(plan.prefixNode);
        requests.lockReceipt[r] = receipt;
        fillInsertedPages(r, plan.prefixNode);
        tree.touch(plan.prefixNode, state.sequence);
        requests.deferCount[r] = 0;
        effects.admitted(requestId, opId, plan.prefixPages, plan.loadPages, NONE);
        markAdmitted(r, RequestState.STAGED);
        counters.loads++;
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
            state.recordQueued(plan.cowOpSlot, requestId);
            queuedLaunch[queuedLaunchCount++] = plan.cowOpSlot;
            requests.cowOp[r] = ops.id[plan.cowOpSlot];
            counters.cows++;
        }
        requests.lockedNode[r] = plan.baseNode;
        requests.lockedIncarnation[r] = tree.incarnation(plan.baseNode);
        requests.lockReceipt[r] = plan.baseReceipt;
        plan.baseReceipt = NONE;
        fillMatchedPages(r, plan.baseNode);
        if (plan.baseNode != RadixTree.ROOT)
        {
            tree.touch(plan.baseNode, state.sequence);
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

    /**
     * {@link #fillRequestPages} for the base node of a compute-only admission, without walking the path again: the
     * base ends on the path of this admission's device match ({@code nodeAtDepth}, at most {@code plan.fullPages}
     * deep), whose page ids the match left in {@link RequestTable#pathIds}; since then the base was only split
     * (pages keep their ids) and locked (nothing on its path can be deleted), so those are still the tree's ids.
     * A base no longer live (possible only with a fault switch that corrupts lock counts) takes the walk, which
     * fails as it always did.
     */
    private void fillMatchedPages(final int r, final int node)
    {
        if (!tree.live(node) || tree.depth(node) > plan.fullPages)
        {
            fillRequestPages(r, node);
            return;
        }
        final int off = requests.offset(r);
        final int depth = tree.depth(node);
        if (state.crossCheckWalks)
        {
            state.checkPageIds(r, node, requests.pathIds, off, depth);
        }
        System.arraycopy(requests.pathIds, off, requests.pageIds, off, depth);
        requests.validPages[r] = requests.pages[r];
        requests.cachedPages[r] = depth;
    }

    /**
     * {@link #fillRequestPages} for the node a staged load's insert ended at, from the canonical ids that insert
     * returned rather than a second walk: the insert wrote {@code canonicalScratch[0, depth(node))} (the pages its
     * walk passed, then the new leaf's), and since then nodes were only locked, marked loading or given a Mamba
     * state, none of which moves a page.
     */
    private void fillInsertedPages(final int r, final int node)
    {
        final int off = requests.offset(r);
        final int depth = tree.depth(node);
        if (state.crossCheckWalks)
        {
            state.checkPageIds(r, node, canonicalScratch, 0, depth);
        }
        System.arraycopy(canonicalScratch, 0, requests.pageIds, off, depth);
        requests.validPages[r] = requests.pages[r];
        requests.cachedPages[r] = depth;
    }

    /** The request's uncached tokens: the pages it computes and its tail. */
    private long extendTokens(final int r)
    {
        return (long)plan.computePages * config.pageSize() + requests.tailTokens[r];
    }

    /** The uncached tokens rounded up to whole pages (SGLang's {@code ceil_paged_tokens}). */
    private long pagedInputTokens(final int r)
    {
        final long page = config.pageSize();
        return (extendTokens(r) + page - 1) / page * page;
    }

    /**
     * Rules 2: the tokens past the device prefix (loaded and computed; in whole pages when {@code paged}, as the
     * budget is debited), max new tokens clipped, and a page.
     */
    private long totalTokens(final int r, final boolean paged)
    {
        return (long)plan.loadPages * config.pageSize() + (paged ? pagedInputTokens(r) : extendTokens(r)) +
            Math.min(requests.maxNewTokens[r], EngineConfig.CLIP_MAX_NEW_TOKENS) + config.pageSize();
    }

    private void markAdmitted(final int r, final RequestState from)
    {
        if (config.rules().sglangBudgets())
        {
            final long inputTokens = pagedInputTokens(r);
            state.passTokens -= totalTokens(r, true);
            state.passInputTokens -= inputTokens;
            state.passChunkTokens -= inputTokens;
        }
        else
        {
            final long extendTokens = extendTokens(r);
            state.passTokens -= extendTokens + requests.maxNewTokens[r];
            state.passInputTokens -= extendTokens;
            state.passChunkTokens -= extendTokens;
        }
        state.passAdmitted++;
        state.running++;
        effects.requestState(requests.id[r], from, RequestState.ADMITTED);
        requests.state[r] = RequestState.ADMITTED;
        state.unpinPrefix(r);
        counters.admitted++;
        counters.admittedPages += requests.pages[r];
        counters.prefixPages += plan.prefixPages;
    }

    /**
     * Mix the loads and copies queued for PASS_END, in launch order, into a state hash (nothing when none wait).
     *
     * @param hash the hash so far.
     * @return the hash with the queue mixed in.
     */
    long hashQueued(final long hash)
    {
        long h = hash;
        for (int i = 0; i < queuedLaunchCount; i++)
        {
            h = Hashing.mixGamma(h ^ ops.id[queuedLaunch[i]]);
        }
        return h;
    }
}
