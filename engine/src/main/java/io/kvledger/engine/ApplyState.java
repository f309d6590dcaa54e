package io.kvledger.engine;

import io.kvledger.engine.util.IndexList;

import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.Effects;

import io.kvledger.engine.slot.MambaCursors;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.JournalFrame;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;

/**
 * The one state holder the flows of {@link CacheStateMachine} share, as Aeron's consensus module agent shares its
 * state with the election and the timer service: configuration, pools, tree, request and op tables, the effects
 * being recorded, counters, the input's sequence and time, the pass budgets, the running count and the scratch
 * structures of one apply. It also holds the few primitives every flow needs (journal a state change, journal a
 * queued op, release a request's lock or prefix pin, match a request's usable device prefix).
 * <p>
 * Engine thread only; allocation happens only at construction. (Named apart from the runtime's lifecycle enum
 * {@code io.kvledger.engine.counters.EngineState}.)
 */
final class ApplyState
{
    /** Value of a slot, node, op or request index that does not apply. */
    static final int NONE = -1;
    /** Effects of a backup or fetch besides its 3 a page: OP_QUEUED, OP_LAUNCHED, locks, a Mamba slot's. */
    private static final int OP_FIXED_EFFECTS = 64;
    /** How the messages of {@link #crossCheckWalks} start. */
    static final String CROSS_CHECK = "walk cross-check: ";

    final EngineConfig config;
    /**
     * Effects a drained backup or fetch may bring a document up to: what one holds, less an op's fixed effects,
     * a request's own work and the input's fixed effects ({@link #documentHolds}); fixed by the configuration.
     */
    private final long documentRoomForDrains;
    final EffectList effectList;
    final Effects effects;
    final SlotPool kvPool;
    final SlotPool mambaPool;
    final SlotPool hostKvPool;
    final SlotPool hostMambaPool;
    final MambaCursors cursors;
    final RadixTree tree;
    final RequestTable requests;
    final OpTable ops;
    final TreeComponent[] components;
    final IndexList parked;
    final EngineCounters counters = new EngineCounters();
    /** Whether eviction ignores op locks (the EVICT_NODE_WITH_INFLIGHT_LOAD fault switch). */
    final boolean ignoreOpLocks;

    /** Scratch of one apply: the admission being decided. */
    final AdmissionPlan plan = new AdmissionPlan();
    /** Scratch of one apply: the last device match of a request's pages. */
    final MatchResult match = new MatchResult();
    /** Scratch of one apply: a second match or an insert's result. */
    final MatchResult scratchMatch = new MatchResult();
    /** Scratch of one apply: page ids, one per request page. */
    final int[] pageScratch;
    /** Scratch of one apply: canonical page ids an insert returns. */
    final int[] canonicalScratch;
    /** Tests only: check each walk shortcut against the full walk it replaces ({@link #crossCheckWalks}). */
    private final MatchResult checkMatch = new MatchResult();
    private final int[] checkPages;

    /**
     * Tests only: when set, every match memo hit is compared with a new match, and every insert that starts at a
     * request's locked node first checks that the node lies on the request's path with the request's page ids;
     * a difference throws {@link EngineBugException}. Off in production.
     */
    boolean crossCheckWalks;
    /** Tests only: memo hits checked against a new match. */
    long memoChecks;
    /** Tests only: locked nodes checked to lie on their request's path before an insert from them. */
    long lockedPathChecks;
    /** Tests only: admissions whose prefix page ids came from an earlier walk's ids, checked. */
    long pathIdChecks;

    /** Sequence of the input being applied. */
    long sequence;
    /** Event time of the input being applied. */
    long nowNs;
    /** Requests admitted and not yet finished, aborted or retracted. */
    int running;

    /** Whether a scheduling pass is open (between PASS_BEGIN and PASS_END). */
    boolean passOpen;
    /** The open pass's running limit. */
    long passMaxRunning;
    /** The open pass's remaining total token budget (extend plus max new tokens). */
    long passTokens;
    /** The open pass's remaining input token budget. */
    long passInputTokens;
    /** The open pass's remaining chunk token budget. */
    long passChunkTokens;
    /** Requests the open pass admitted so far. */
    int passAdmitted;

    /**
     * @param config engine configuration.
     * @throws IllegalArgumentException when a component refuses the configuration (buffer-only fence).
     */
    ApplyState(final EngineConfig config)
    {
        this.config = config;
        this.documentRoomForDrains = JournalFrame.MAX_GROUP_COUNT - OP_FIXED_EFFECTS -
            Math.min(config.maxRequestPages(), EngineConfig.MAX_REQUEST_PAGES) - EngineConfig.EFFECTS_PER_INPUT;
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
        // Rules 3: the Mamba gate and eviction take every state the domain calls evictable (RadixTree#exactMamba).
        tree.exactMamba(config.rules().exactMambaEvictable());
        requests = new RequestTable(config.maxRequests(), config.maxRequestPages());
        ops = new OpTable(config.maxOps(), config.maxRequestPages() + 4, effects);
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
        parked = new IndexList(config.maxRequests());
        pageScratch = new int[config.maxRequestPages()];
        canonicalScratch = new int[config.maxRequestPages()];
        checkPages = new int[config.maxRequestPages()];
    }

    /** Journal and make a request state change. */
    void setState(final int r, final RequestState to)
    {
        effects.requestState(requests.id[r], requests.state[r], to);
        requests.state[r] = to;
    }

    /** Release the request's own tree lock, if it holds one. */
    void unlockRequest(final int r)
    {
        if (requests.lockReceipt[r] != NONE)
        {
            tree.release(requests.lockReceipt[r]);
            requests.lockReceipt[r] = NONE;
            requests.lockedNode[r] = NONE;
        }
    }

    /** Release the pin on the device prefix under the request's L3 hit, if it holds one. */
    void unpinPrefix(final int r)
    {
        if (requests.prefixReceipt[r] != NONE)
        {
            tree.release(requests.prefixReceipt[r]);
            requests.prefixReceipt[r] = NONE;
        }
    }

    /** Release the lock an op holds on the node it fills or backs up, if it holds one. */
    void unlockOp(final int o)
    {
        if (ops.receipt[o] != NONE)
        {
            tree.release(ops.receipt[o]);
            ops.receipt[o] = NONE;
        }
    }

    /**
     * Match the request's pages on the device into {@link #match}; the prefix every component can use.
     * <p>
     * Memoized per request (ARRIVE matches, ADMIT matches again): the result depends on the request's fingerprints
     * and page count (fixed from its arrival on), the loading switch (fixed by the configuration), what the tree's
     * match reads (versioned by {@link RadixTree#matchVersion}) and the components' {@link TreeComponent#usablePrefix},
     * which read only the match. So while the tree's match version and the page count are those of the memo, the
     * memo is exactly what a new match would give, and the walk is skipped.
     * <p>
     * The walk also records the page ids it passes in {@link RequestTable#pathIds}: on return, pages
     * {@code [0, match.pages)} there are the tree's page ids of the matched path (on a memo hit too: the version
     * also moves on every change of which page sits where on a path, a node allocated or deleted).
     */
    int usableDevicePrefix(final int r)
    {
        return usableDevicePrefix(r, match);
    }

    /**
     * {@link #usableDevicePrefix(int)} with the match written into {@code into}: a flow that matches one request
     * while another's decision holds {@link #match} (a parked hit retried inside another request's input) keeps it.
     */
    int usableDevicePrefix(final int r, final MatchResult into)
    {
        final long version = tree.matchVersion();
        final int count = reusablePages(r);
        if (requests.memoValid(r, version, count))
        {
            final int usable = requests.loadMemo(r, into);
            if (crossCheckWalks)
            {
                checkMemo(r, usable, into);
            }
            return usable;
        }
        tree.matchPages(requests.fpHi, requests.fpLo, requests.offset(r), count,
            config.fault(FaultSwitch.COW_FROM_LOADING_CHECKPOINT), into, requests.pathIds, requests.offset(r));
        int usable = into.pages;
        for (final TreeComponent c : components)
        {
            usable = Math.min(usable, c.usablePrefix(into));
        }
        requests.storeMemo(r, version, count, into, usable);
        return usable;
    }

    /**
     * Pages of a request's prompt that may come from a cache (the device or L3): all of them, but the last when the
     * prompt ends on a page boundary under {@link AdmissionRules#computesLastPage()}, so that at least the last
     * token is computed.
     */
    int reusablePages(final int r)
    {
        final int pages = requests.pages[r];
        return pages > 0 && 0 == requests.tailTokens[r] && config.rules().computesLastPage() ? pages - 1 : pages;
    }

    /** Tests only: a memo hit must equal a new match. */
    private void checkMemo(final int r, final int usable, final MatchResult matched)
    {
        tree.match(requests.fpHi, requests.fpLo, requests.offset(r), reusablePages(r),
            config.fault(FaultSwitch.COW_FROM_LOADING_CHECKPOINT), checkMatch);
        int fresh = checkMatch.pages;
        for (final TreeComponent c : components)
        {
            fresh = Math.min(fresh, c.usablePrefix(checkMatch));
        }
        if (fresh != usable || checkMatch.pages != matched.pages || checkMatch.node != matched.node ||
            checkMatch.nodePages != matched.nodePages || checkMatch.partialNode != matched.partialNode ||
            checkMatch.mambaNode != matched.mambaNode || checkMatch.mambaPages != matched.mambaPages)
        {
            throw new EngineBugException(CROSS_CHECK + "match memo of request " + requests.id[r] + " at sequence " +
                sequence + " differs from a new match");
        }
        memoChecks++;
    }

    /**
     * Tests only: the request's locked node, when live in the incarnation it was locked in, lies on the request's
     * path (a match of its first depth(node) pages, loading nodes included, ends exactly there) and the request's
     * page ids up to its depth are the tree's.
     */
    void checkLockedPath(final int r)
    {
        final int node = requests.lockedNode[r];
        if (node == NONE || !tree.live(node) || tree.incarnation(node) != requests.lockedIncarnation[r])
        {
            return;
        }
        final int depth = tree.depth(node);
        final int off = requests.offset(r);
        tree.match(requests.fpHi, requests.fpLo, off, depth, true, checkMatch);
        if (checkMatch.pages != depth || checkMatch.node != node)
        {
            throw new EngineBugException(CROSS_CHECK + "locked node " + node + " of request " + requests.id[r] +
                " at sequence " + sequence + " is not on its path (match ends at node " + checkMatch.node + ", " +
                checkMatch.pages + " of " + depth + " pages)");
        }
        tree.collectPages(node, checkPages);
        for (int i = 0; i < depth; i++)
        {
            if (checkPages[i] != requests.pageIds[off + i])
            {
                throw new EngineBugException(CROSS_CHECK + "request " + requests.id[r] + " page " + i + " is " +
                    requests.pageIds[off + i] + ", the tree's is " + checkPages[i] + " at sequence " + sequence);
            }
        }
        if (node != RadixTree.ROOT)
        {
            lockedPathChecks++;
        }
    }

    /**
     * Tests only: page ids kept from an earlier walk ({@code ids[off, off + depth)}) are the tree's ids of the path
     * to {@code node}.
     */
    void checkPageIds(final int r, final int node, final int[] ids, final int off, final int depth)
    {
        tree.collectPages(node, checkPages);
        for (int i = 0; i < depth; i++)
        {
            if (checkPages[i] != ids[off + i])
            {
                throw new EngineBugException(CROSS_CHECK + "request " + requests.id[r] + " kept page " + i + " as " +
                    ids[off + i] + ", the tree's is " + checkPages[i] + " at sequence " + sequence);
            }
        }
        if (depth > 0)
        {
            pathIdChecks++;
        }
    }

    /**
     * Whether this input's journal document can still record a backup or fetch of {@code pages} pages (a staging
     * slot and a read and a write target a page, and its op's fixed effects) and then the rest of the input (what a
     * request's pages and the input's fixed effects may still add). The backlog and the parked hits are drained
     * until one does not fit; the rest waits for a later input (a PASS_BEGIN or TICK at the latest), instead of the
     * input passing what one document holds and stopping the engine.
     *
     * @param pages pages the backup or fetch moves.
     * @return whether it fits.
     */
    boolean documentHolds(final int pages)
    {
        return (long)effectList.size() + 3L * pages <= documentRoomForDrains;
    }

    /** The slot a request computes with (working) or checkpoints into (tracking), or -1. */
    int requestSlot(final int r, final boolean tracking)
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

    /** Journal an op: OP_QUEUED then one OP_TARGET per distinct slot it reads or writes. */
    void recordQueued(final int o, final long owner)
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

    /** The pool with a schema code (DEVICE_KV 0, DEVICE_MAMBA 1, HOST_KV 2, HOST_MAMBA 3). */
    SlotPool poolOf(final byte code)
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

    /** The pool of a schema value, or null when the configuration has none. */
    SlotPool pool(final Pool pool)
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
}
