package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.List;

/**
 * The checker's own picture of the controller, folded from journaled effects only (never from engine code), so it
 * can judge journals written by older or buggy builds. It holds every slot of the four pools (state, owner,
 * ReplaySSM dirtiness, live op targets, recent history), the operations, the radix tree (parents, page counts,
 * lock counts, receipts) and the requests, and checks the invariants while it folds and at the end of every
 * document.
 * <p>
 * Rules (each names its {@link Invariant}; where the journal contract leaves a case open, the reading a correct
 * engine following DESIGN.md produces is chosen, so a clean journal never fires):
 * <ul>
 * <li><b>I12</b> SLOT_TRANSITION: {@code from} must equal the folded state (a release of a FREE slot is a double
 * free) and, unless {@code from} is FREE, {@code value1} must name the folded owner; FREE to FREE, FREE to
 * PENDING_FREE and PENDING_FREE to anything but FREE are illegal, and so is a no-op transition to the owner the
 * slot already has (the slot was handed out twice); a slot may not be handed to a request that has
 * FINISHED or ABORTED; PENDING_FREE must name a live op that targets the slot; an unknown pool or id is I12 too.
 * CURSORS_OBSERVED names a device Mamba slot owned by the document's request (the cursors a CHUNK, FINISH or ABORT
 * reports are those of the request's own working slot). A slot handed to a NODE goes to a node in the tree at that
 * point of the document (inserted before, not deleted).
 * At the end of a document, a device slot still owned by (or parked for) an op that ended in it, or still owned by
 * a request that ended in it, is a leak. KV pages move between nodes only from a node to the new parent of a
 * NODE_SPLIT of the same document. At the end of the document that queued it, a BACKUP reads only device data of
 * its node: the node's own Mamba slot, KV pages of nodes on its path (a slot still owned by a request, a missing
 * donation, is not the node's state).</li>
 * <li><b>I8</b> a host slot handed to a NODE.</li>
 * <li><b>I9</b> at the end of a document: a host slot still owned by a request that had HOLD_DROPPED or ended in
 * it, or owned by (parked for) an op that ended in it.</li>
 * <li><b>I13</b> a WRITE target of a live LOAD, FETCH, BACKUP or COW (or a READ target of a launched LOAD,
 * BACKUP, COW or STORE) that goes FREE or to an owner other than the one it had at the end of the document that
 * queued the op, the op itself, or PENDING_FREE for the op. The change is only suspected when it happens and
 * confirmed at the end of the document if the op is still QUEUED or LAUNCHED, because a correct cancel may free
 * destinations before or after its OP_CANCELLED. A page moved by a split of its node follows the node; a fetch's
 * staging may go to the fetch's request in the FETCH_DONE of that fetch. Also I13: a target FREE at the end of the
 * queuing document, and an op LAUNCHED while a target is held by somebody it was not queued for (checked at the
 * launch, or at the end of the document when queue and launch share it). One report per target for transitions,
 * one per target at the launch.</li>
 * <li><b>I14</b> a device Mamba slot moving from one node to another (a split keeps the state in the deeper
 * half, so a split never gives its new parent a state; a checkpoint donated to the new parent afterwards, when a
 * request's tracked depth ends exactly at the split point, is legitimate); at the end of a document a node owning
 * more than one device Mamba slot, or a deleted node still owning one; a COW reading a device Mamba slot that a
 * live LOAD writes.</li>
 * <li><b>I17</b> at the end of a document: a device Mamba slot that changed owner to a REQUEST or NODE in it and
 * is still so owned, or that is a WRITE target of a LOAD or COW queued in it and still live, is dirty (its last
 * CURSORS_OBSERVED had a non-zero cursor and no CURSORS_RESET followed). A slot handed out and given back in the
 * same document (an admission rolled back) consumed nothing and is not judged.</li>
 * <li><b>I18</b> between a request's RESERVED and its next ADMITTED, DEFERRED or HOLD_DROPPED of the same
 * document: device Mamba FREE to REQUEST(that request), NODE or OP transitions are counted against
 * {@code value1}; exceeding it, a DEFERRED, or a HOLD_DROPPED (other than FETCH_ABANDONED or DEVICE_COVERED,
 * which do not end the admission) is a violation. Pool conservation holds by construction and is re-checked.</li>
 * <li><b>I19</b> op lifecycle QUEUED, LAUNCHED, ACKED|FAILED or QUEUED, CANCELLED; OP_QUEUED followed by exactly
 * {@code value1} OP_TARGETs of that op; an op id queued again while live; an accepted ACK, STORAGE_HIT or FETCH_DONE
 * whose document does not end the op it names (OP_ACKED when it says ok, OP_FAILED when not; a STORAGE_HIT says
 * failed when its query failed). Request lifecycle: REQUEST_STATE
 * {@code from} must equal the folded state (a request is WAITING from its accepted ARRIVE); an accepted ARRIVE
 * creates its request (REQUEST_STATE from none), once, and no other document creates one; an accepted FINISH or ABORT
 * ends its request (REQUEST_STATE to FINISHED or ABORTED); a REQUEST_STATE to ADMITTED
 * follows an ADMITTED decision for the request in its document, and every ADMITTED decision is followed by one.</li>
 * <li><b>I1</b> NODE_INSERTED under a live parent, of a node not live, with at least one page and depth = parent
 * depth + pages; NODE_SPLIT of a live non-root node into a new id, taking 1 .. pages-1 pages; NODE_DELETED of a
 * live non-root node without children; LOCKED or EVICTED of a node that is not live.</li>
 * <li><b>I2</b> at the end of a document, every node touched in it: live nodes own exactly their page count of
 * device KV pages, dead ones none.</li>
 * <li><b>I5</b> a receipt taken twice, an UNLOCKED of a receipt not held (double unlock) or naming another
 * node, component or holder, a count going negative, a node deleted while locked by requests only; at the end of
 * a document, receipts still held by a request that ended in it or by a LOAD or COW that ended in it. A node
 * deleted while locked is reported once (I7 when the eviction already was); its orphaned locks stop counting on
 * its ancestors and are not reported again as leaks. Receipts remember the node's incarnation: ids are reused.</li>
 * <li><b>I6</b> and <b>I11</b>: see {@link EvictionRule} (evictions take a node holding the component's data
 * and release it; a node is deleted only after its EVICTED(FULL) or by the rollback of a failed or cancelled op
 * that locked it; a TICK that got fewer pages than it asked leaves no unlocked leaf) and {@link SpliceRule} (a load
 * splices its request's staged hold whole, from a base inside it, and the tree slice it fills owns exactly the
 * load's device KV destinations).</li>
 * <li><b>I7</b> EVICTED(FULL) of a node whose FULL count (its subtree's locks) is above zero; EVICTED(MAMBA) of
 * a node with a MAMBA lock or a lock held by an op; NODE_DELETED while an op holds a lock on the node.</li>
 * </ul>
 * This class keeps the public API and the one fold, {@link #apply(InputRecord, int, EffectList)}, that dispatches
 * each effect; the rules live by subject in {@link SlotRules}, {@link OpRules}, {@link RequestRules} and
 * {@link EndOfDocumentRules}, the read-only queries in {@link ShadowQueries}, all over one {@link ShadowState}.
 * <p>
 * Not thread-safe; single reader thread.
 */
public final class ShadowModel
{
    /** Effects kept per slot, node, op and request for violation histories. */
    public static final int DEFAULT_HISTORY_LIMIT = 32;
    /** The root node id; always live. */
    public static final long ROOT = 0;

    private static final int RETIRED_LIMIT = 4_096;

    private final ShadowState state;
    private final ShadowTree tree;
    private final DocumentScope scope;
    private final AdmissionWindows admission;
    private final List<long[]> admittedPrefixes;
    private final SlotRules slotRules;
    private final OpRules opRules;
    private final RequestRules requestRules;
    private final EndOfDocumentRules endOfDocumentRules;
    private final SpliceRule spliceRule;
    private final EvictionRule evictionRule;
    private final ShadowQueries queries;
    private final NamespaceRule namespaces = new NamespaceRule();
    /** Request of the document being folded (the input's request id). */
    private long documentRequest = InputRecord.NULL_ID;
    private boolean configured;

    /**
     * @param sink         receives violations as they are found.
     * @param historyLimit effects kept per subject for histories; 0 keeps none (timelines and inspection).
     */
    public ShadowModel(final ViolationSink sink, final int historyLimit)
    {
        this.state = new ShadowState(sink, historyLimit);
        this.tree = state.tree;
        this.scope = state.scope;
        this.admission = state.admission;
        this.admittedPrefixes = state.admittedPrefixes;
        this.slotRules = new SlotRules(state);
        this.opRules = new OpRules(state);
        this.requestRules = new RequestRules(state);
        this.endOfDocumentRules = new EndOfDocumentRules(state, opRules);
        this.spliceRule = new SpliceRule(state);
        this.evictionRule = new EvictionRule(state);
        this.queries = new ShadowQueries(state);
    }

    /**
     * @param sink receives violations as they are found.
     */
    public ShadowModel(final ViolationSink sink)
    {
        this(sink, DEFAULT_HISTORY_LIMIT);
    }

    /**
     * @param observer told about every effect attributed to a slot or node, or null.
     * @return this.
     */
    public ShadowModel observer(final ShadowObserver observer)
    {
        state.observer = observer;
        tree.observer(observer);
        return this;
    }

    /**
     * Size the pools from the journal header; Mamba pools are empty when the header says {@code hybrid=false}.
     *
     * @param header the journal's header.
     */
    public void configure(final JournalHeader header)
    {
        configure(header.deviceKvPages(), header.hybrid() ? header.deviceMambaSlots() : 0, header.hostKvPages(),
            header.hybrid() ? header.hostMambaSlots() : 0);
    }

    /**
     * Size the pools; every slot starts FREE and clean, the tree holds only the root.
     *
     * @param deviceKvPages    device KV pages.
     * @param deviceMambaSlots device Mamba slots (0 when not hybrid).
     * @param hostKvPages      host KV staging pages.
     * @param hostMambaSlots   host Mamba staging slots (0 when not hybrid).
     */
    public void configure(final int deviceKvPages, final int deviceMambaSlots, final int hostKvPages,
        final int hostMambaSlots)
    {
        if (state.documents > 0)
        {
            throw new IllegalStateException("configure before the first document");
        }
        state.size(Pool.DEVICE_KV, deviceKvPages);
        state.size(Pool.DEVICE_MAMBA, deviceMambaSlots);
        state.size(Pool.HOST_KV, hostKvPages);
        state.size(Pool.HOST_MAMBA, hostMambaSlots);
        tree.reset();
        namespaces.reset();
        configured = true;
    }

    /**
     * Fold one document and check every invariant; violations go to the sink in detection order.
     *
     * @param input      the document's input (its sequence is the document sequence).
     * @param resultCode result of applying it.
     * @param effects    its effects, in order.
     */
    public void apply(final InputRecord input, final int resultCode, final EffectList effects)
    {
        if (!configured)
        {
            throw new IllegalStateException("no journal header: call configure first");
        }
        final long sequence = input.sequence();
        scope.begin(sequence, input);
        tree.beginDocument();
        admission.begin();
        evictionRule.begin();
        state.documents++;
        state.lastSequence = sequence;
        state.lastTimestampNs = input.timestampNs();
        if (input.type() == InputType.ARRIVE && resultCode >= 0 && input.request() != InputRecord.NULL_ID)
        {
            requestRules.arrive(input.request());
            namespaces.arrive(input.request(), Inputs.namespace(input));
        }
        documentRequest = input.request();
        final int size = effects.size();
        for (int i = 0; i < size; i++)
        {
            opRules.checkTargetBlock(effects, i);
            applyEffect(effects, i);
            state.flush();
        }
        requestRules.endOfDocument(resultCode);
        opRules.checkAnswerEnded(input, resultCode);
        state.flush();
        endOfDocumentRules.endOfDocument();
        spliceRule.endOfDocument();
        evictionRule.endOfDocument(input);
        state.flush();
        endOfDocumentRules.retire();
    }

    // ---------------------------------------------------------------------------------------------------------
    // dispatch

    private void applyEffect(final EffectList e, final int i)
    {
        final EffectType type = e.type(i);
        if (type == null)
        {
            return;
        }
        switch (type)
        {
            case NODE_INSERTED ->
            {
                tree.nodeInserted(e, i);
                final String crossed = namespaces.inserted(e, i, documentRequest);
                if (crossed != null)
                {
                    state.nodeFinding(Invariant.I3, e.id(i), crossed);
                }
            }
            case NODE_SPLIT ->
            {
                tree.nodeSplit(e, i);
                namespaces.split(e, i);
            }
            case NODE_DELETED, EVICTED ->
            {
                if (type == EffectType.NODE_DELETED)
                {
                    evictionRule.deleted(e, i);
                    tree.nodeDeleted(e, i);
                }
                else
                {
                    evictionRule.evicted(e, i);
                    tree.evicted(e, i);
                }
                tree.record(e.id(i), e, i);
            }
            case LOCKED, UNLOCKED ->
            {
                if (type == EffectType.LOCKED)
                {
                    tree.locked(e, i);
                    final String crossed = e.toState(i) == SlotState.REQUEST ?
                        namespaces.requestLocked(e.id(i), e.owner(i)) : null;
                    if (crossed != null)
                    {
                        state.nodeFinding(Invariant.I3, e.id(i), crossed);
                    }
                }
                else
                {
                    tree.unlocked(e, i);
                }
                tree.record(e.id(i), e, i);
                state.recordHolder(e.toState(i), e.owner(i), e, i);
            }
            case SLOT_TRANSITION -> slotRules.slotTransition(e, i);
            case CURSORS_RESET, CURSORS_OBSERVED -> slotRules.cursors(e, i);
            case OP_QUEUED -> opRules.opQueued(e, i);
            case OP_TARGET -> opRules.opTarget(e, i);
            case OP_LAUNCHED -> opRules.opLaunched(e, i);
            case OP_ACKED -> opRules.opCompleted(e, i, ShadowOp.State.ACKED);
            case OP_FAILED -> opRules.opCompleted(e, i, ShadowOp.State.FAILED);
            case OP_CANCELLED -> opRules.opCancelled(e, i);
            case REQUEST_STATE -> requestRules.requestState(e, i);
            case RESERVED ->
            {
                state.recordRequest(e.owner(i), e, i);
                admission.reserved(scope.sequence, e, i);
            }
            case ADMITTED, DEFERRED, HOLD_DROPPED, REJECTED ->
            {
                state.recordRequest(e.owner(i), e, i);
                if (type == EffectType.HOLD_DROPPED)
                {
                    scope.droppedHolds.add(e.owner(i));
                    spliceRule.dropped(e, i);
                }
                if (type == EffectType.ADMITTED)
                {
                    spliceRule.admitted(e, i);
                    requestRules.admittedDecision(e.owner(i));
                }
                if (type == EffectType.ADMITTED && e.value1(i) > 0)
                {
                    admittedPrefixes.add(new long[]{e.owner(i), e.value1(i)});
                }
                admission.outcome(scope.sequence, e, i, type);
            }
            case HOLD_STAGED, HIT_PARKED, WAITED ->
            {
                state.recordRequest(e.owner(i), e, i);
                if (type == EffectType.HOLD_STAGED)
                {
                    spliceRule.staged(e, i);
                }
            }
            case PAGES_STORED -> state.recordOp(state.findOp(e.id(i)), e, i);
            default ->
            {
            }
        }
    }

    /**
     * @return an insertion-ordered map that forgets its oldest entries past a bound (ended ops, requests, nodes).
     */
    static <T> RetiredMap<T> retiredMap()
    {
        return new RetiredMap<>(RETIRED_LIMIT);
    }

    // ---------------------------------------------------------------------------------------------------------
    // queries (for inspect, timelines and tests)

    /**
     * @return documents folded so far.
     */
    public long documents()
    {
        return queries.documents();
    }

    /**
     * @return sequence of the last document folded, or -1.
     */
    public long lastSequence()
    {
        return queries.lastSequence();
    }

    /**
     * @return timestamp of the last document folded.
     */
    public long lastTimestampNs()
    {
        return queries.lastTimestampNs();
    }

    /**
     * @param pool pool.
     * @return slots in the pool.
     */
    public int capacity(final Pool pool)
    {
        return queries.capacity(pool);
    }

    /**
     * @param pool pool.
     * @return how its slots are held now.
     */
    public PoolOccupancy occupancy(final Pool pool)
    {
        return queries.occupancy(pool);
    }

    /**
     * @return occupancy of the four pools, in pool order.
     */
    public List<PoolOccupancy> occupancy()
    {
        return queries.occupancy();
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return the slot's state now.
     */
    public SlotState slotState(final Pool pool, final int id)
    {
        return queries.slotState(pool, id);
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return the slot's owner now (-1 when FREE).
     */
    public long slotOwner(final Pool pool, final int id)
    {
        return queries.slotOwner(pool, id);
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return true when the slot's last observed ReplaySSM cursors were non-zero and no reset followed.
     */
    public boolean slotDirty(final Pool pool, final int id)
    {
        return queries.slotDirty(pool, id);
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return for example {@code REQUEST 7} or {@code FREE}.
     */
    public String slotLabel(final Pool pool, final int id)
    {
        return queries.slotLabel(pool, id);
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return the kept effects that touched the slot, oldest first.
     */
    public List<HistoryEntry> slotHistory(final Pool pool, final int id)
    {
        return queries.slotHistory(pool, id);
    }

    /**
     * The owner after each kept history entry of a slot, for timelines.
     *
     * @param pool pool.
     * @param id   slot id.
     * @return (sequence, owner label) pairs, oldest first.
     */
    public List<SlotLane.Point> slotOwnerHistory(final Pool pool, final int id)
    {
        return queries.slotOwnerHistory(pool, id);
    }

    /**
     * @param id node id.
     * @return the kept effects that touched the node, oldest first.
     */
    public List<HistoryEntry> nodeHistory(final long id)
    {
        return queries.nodeHistory(id);
    }

    /**
     * @param id node id.
     * @return true when the node is in the tree now.
     */
    public boolean nodeLive(final long id)
    {
        return queries.nodeLive(id);
    }

    /**
     * @param id node id.
     * @return a one-line state of the node, for example {@code live parent 0 pages 3 depth 3 children 0 locks 1/0}.
     */
    public String nodeLabel(final long id)
    {
        return queries.nodeLabel(id);
    }

    /**
     * @param id request id.
     * @return the request's state now ({@code ADMITTED}, ...), or {@code unknown}.
     */
    public String requestLabel(final long id)
    {
        return queries.requestLabel(id);
    }

    /**
     * @return the shape of the tree now.
     */
    public TreeSummary treeSummary()
    {
        return queries.treeSummary();
    }

    /**
     * @return operations QUEUED or LAUNCHED now, by id.
     */
    public List<OpView> inflightOps()
    {
        return queries.inflightOps();
    }

    /**
     * @return requests that have not FINISHED or ABORTED, by id, with the slots they own.
     */
    public List<RequestView> liveRequests()
    {
        return queries.liveRequests();
    }
}
