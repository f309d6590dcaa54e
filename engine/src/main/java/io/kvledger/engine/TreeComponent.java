package io.kvledger.engine;

import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.Reason;

/**
 * One component of the cache tree (FULL attention KV now, MAMBA now, sliding-window attention later). The
 * pipeline in {@link CacheStateMachine} knows nothing of any component's specifics: it asks each component, in
 * order, through these hooks. Adding a component must not touch the pipeline. Engine thread only; no hook may
 * allocate after construction.
 */
interface TreeComponent
{
    /** @return which component this is. */
    Component component();

    /**
     * Start-up fence for buffer-only host mode.
     *
     * @param config engine configuration.
     * @throws IllegalArgumentException with a one-line reason when the pools cannot run in this mode.
     */
    void validate(EngineConfig config);

    /**
     * @param match a device match.
     * @return the deepest prefix (pages) from which this component's data lets a request resume.
     */
    int usablePrefix(MatchResult match);

    /**
     * @param presentPages consecutive pages the L3 store holds.
     * @param statePages   deepest page count at which the L3 store holds a recurrent state (0 if none).
     * @return pages of the hit this component can use.
     */
    int usableHit(int presentPages, int statePages);

    /**
     * @param hitPages pages of the hit.
     * @return host staging slots this component needs to stage it.
     */
    int stagingNeeded(int hitPages);

    /**
     * Host staging slots a backup leaves to loads: a write never takes the last free slot of a host pool, so a load
     * can always stage (the same margin for every component).
     */
    int LOADS_MARGIN = 1;

    /** @return this component's host staging pool. */
    SlotPool hostPool();

    /** @return free host staging slots of this component, less the {@link #LOADS_MARGIN} when {@code forWrite}. */
    default int stagingFree(final boolean forWrite)
    {
        return hostPool().freeCount() - (forWrite ? LOADS_MARGIN : 0);
    }

    /**
     * @param forWrite whether the staging is for a backup (less the {@link #LOADS_MARGIN}).
     * @return the most host staging slots of this component that one op may ever take: a backup needing more can
     * never start and is dropped rather than left blocking the backlog.
     */
    default int stagingLimit(final boolean forWrite)
    {
        return hostPool().capacity() - (forWrite ? LOADS_MARGIN : 0);
    }

    /**
     * Take host staging for a hit and add the fetch moves (L3 key to host slot) to the fetch op.
     *
     * @param opSlot   fetch op.
     * @param request  request slot (for its fingerprints).
     * @param hitStart first page of the hit.
     * @param hitPages pages in the hit.
     */
    void stage(int opSlot, int request, int hitStart, int hitPages);

    /**
     * @param plan admission being decided.
     * @return device slots this component must newly hand out if the request is admitted (as the gate counts them).
     */
    int gateNeed(AdmissionPlan plan);

    /** @return free plus evictable device slots of this component. */
    int gateAvailable();

    /**
     * Whether free plus evictable device slots cover {@code need}; a component may stop counting once they do.
     *
     * @param need slots the admission needs ({@link #gateNeed}).
     * @return {@code need <= gateAvailable()}.
     */
    default boolean gateCovers(final int need)
    {
        return need <= gateAvailable();
    }

    /** @return the reason a staged request is deferred when {@link #gateNeed} exceeds {@link #gateAvailable}. */
    Reason gateReason();

    /**
     * Evict what {@link #allocate} will need, before any component allocates (the admission calls it for every
     * component but FULL, whose own allocation evicts leaves: see {@code Admission}). Nothing by default.
     *
     * @param plan admission.
     */
    default void evictFor(final AdmissionPlan plan)
    {
    }

    /**
     * Evict to make room, then allocate every device destination the admission needs.
     *
     * @param plan admission.
     * @return true when all were allocated; false after undoing this component's allocations.
     */
    boolean allocate(AdmissionPlan plan);

    /**
     * Undo {@link #allocate} when a later component failed.
     *
     * @param plan admission.
     */
    void undoAllocate(AdmissionPlan plan);

    /**
     * Add this component's moves to the load (host staging to device) and hand its destinations to their owners;
     * called after the load's nodes were inserted ({@link AdmissionPlan#prefixNode}).
     *
     * @param plan admission.
     */
    void commitLoad(AdmissionPlan plan);

    /**
     * Admission without a hold: set up what the request computes from (e.g. copy-on-write from a checkpoint).
     *
     * @param plan admission.
     */
    void commitCompute(AdmissionPlan plan);

    /**
     * @param request       request slot.
     * @param computedPages pages the request computed.
     * @param trackedPages  pages at which the request tracked a recurrent state.
     * @return pages this component can cache (FULL: all computed; MAMBA: up to the tracked state).
     */
    int cacheLength(int request, int computedPages, int trackedPages);

    /**
     * Cache the request's data at {@code node} (chunk or finish): donate a checkpoint, refresh what the request
     * keeps computing with.
     *
     * @param request request slot.
     * @param node    node ending at the cached length (or -1 when nothing was cached).
     * @param finish  true on finish (release everything), false on a chunk.
     * @param cursor1 server cursor value 1 (write_pos).
     * @param cursor2 server cursor value 2 (cache_base).
     * @param cursor3 server cursor value 3 (is_flush).
     */
    void cache(int request, int node, boolean finish, long cursor1, long cursor2, long cursor3);

    /**
     * Release every device slot the request owns in this component. A slot still written by a launched op goes
     * PENDING_FREE for that op; one written by a queued op is freed only after the caller cancelled the op.
     *
     * @param request request slot.
     * @param abort   true for an abort (the fault switch of a double free applies there).
     */
    void release(int request, boolean abort);

    /**
     * Protect what the admission resumes from (e.g. the checkpoint a copy-on-write will read) before the gates
     * count evictable slots.
     *
     * @param plan admission being decided.
     */
    void pin(AdmissionPlan plan);

    /**
     * Undo {@link #pin} when the admission does not go ahead.
     *
     * @param plan admission.
     */
    void unpin(AdmissionPlan plan);

    /**
     * Record the cursor values the server last saw for the request's working state (abort of a running request).
     *
     * @param request request slot.
     * @param cursor1 write_pos.
     * @param cursor2 cache_base.
     * @param cursor3 is_flush.
     */
    void observe(int request, long cursor1, long cursor2, long cursor3);

    /**
     * Add this component's moves to the backup of cached pages (device to host staging, keyed for the L3 store),
     * taking staging.
     *
     * @param opSlot    backup op.
     * @param node      node ending at {@code to}.
     * @param pathPages device KV page ids of the path to the node's end, by page number; only those in
     *                  {@code [from, to)} are filled.
     * @param from      first page backed up.
     * @param to        end of the node (its depth).
     */
    void backup(int opSlot, int node, int[] pathPages, int from, int to);

    /**
     * @param request  request slot.
     * @param tracking the tracking slot rather than the working one.
     * @return the device slot the request computes with (or tracks into) in this component, or -1 when the
     * component keeps no per-request slot.
     */
    int requestSlot(int request, boolean tracking);

    /** @return backup staging this component needs for one node. */
    int backupStagingNeeded(int node, int pages);

    /**
     * An op this component took part in finished; release what it only held for the op.
     *
     * @param opSlot op.
     * @param ok     whether it succeeded.
     */
    void opDone(int opSlot, boolean ok);

    /** Verify this component's per-request bookkeeping against the pools. */
    void verify(RequestTable requests);

    /** @return hash of this component's bookkeeping. */
    long stateHash();
}
