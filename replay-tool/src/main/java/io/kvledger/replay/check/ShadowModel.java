package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 * At the end of a document, a device slot still owned by (or parked for) an op that ended in it, or still owned by
 * a request that ended in it, is a leak. KV pages move between nodes only from a node to the new parent of a
 * NODE_SPLIT of the same document.</li>
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
 * {@code value1} OP_TARGETs of that op; an op id queued again while live. Request lifecycle: REQUEST_STATE
 * {@code from} must equal the folded state (a request is WAITING from its accepted ARRIVE).</li>
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
 * <li><b>I7</b> EVICTED(FULL) of a node whose FULL count (its subtree's locks) is above zero; EVICTED(MAMBA) of
 * a node with a MAMBA lock or a lock held by an op; NODE_DELETED while an op holds a lock on the node.</li>
 * </ul>
 * Not thread-safe; single reader thread.
 */
public final class ShadowModel
{
    /** Effects kept per slot, node, op and request for violation histories. */
    public static final int DEFAULT_HISTORY_LIMIT = 32;
    /** The root node id; always live. */
    public static final long ROOT = 0;

    private static final int RETIRED_LIMIT = 4_096;
    private static final int POOLS = 4;
    private static final int STATES = 5;

    private final ViolationSink sink;
    private final int historyLimit;
    private ShadowObserver observer;
    private final ShadowSlot[][] slots = new ShadowSlot[POOLS][0];
    private final int[][] counts = new int[POOLS][STATES];
    private final OwnerIndex owners = new OwnerIndex();
    private final Map<Long, ShadowOp> ops = new HashMap<>();
    private final Map<Long, ShadowOp> retiredOps = retiredMap();
    private final Map<Long, ShadowRequest> requests = new HashMap<>();
    private final Map<Long, ShadowRequest> retiredRequests = retiredMap();
    private final DocumentScope scope = new DocumentScope();
    private final Findings findings = new Findings();
    private final ShadowTree tree;
    private final NamespaceRule namespaces = new NamespaceRule();
    /** Request of the document being folded (the input's request id). */
    private long documentRequest = InputRecord.NULL_ID;
    private final AdmissionWindows admission = new AdmissionWindows(findings);
    private final EffectList scratch = new EffectList(1);
    private final List<long[]> admittedPrefixes = new ArrayList<>();
    private final List<Long> startedRequests = new ArrayList<>();
    private boolean configured;
    private long documents;
    private long lastSequence = -1;
    private long lastTimestampNs;

    /**
     * @param sink         receives violations as they are found.
     * @param historyLimit effects kept per subject for histories; 0 keeps none (timelines and inspection).
     */
    public ShadowModel(final ViolationSink sink, final int historyLimit)
    {
        this.sink = sink;
        this.historyLimit = historyLimit;
        this.tree = new ShadowTree(findings, scope, historyLimit);
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
        this.observer = observer;
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
        if (documents > 0)
        {
            throw new IllegalStateException("configure before the first document");
        }
        size(Pool.DEVICE_KV, deviceKvPages);
        size(Pool.DEVICE_MAMBA, deviceMambaSlots);
        size(Pool.HOST_KV, hostKvPages);
        size(Pool.HOST_MAMBA, hostMambaSlots);
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
        documents++;
        lastSequence = sequence;
        lastTimestampNs = input.timestampNs();
        if (input.type() == InputType.ARRIVE && resultCode >= 0 && input.request() != InputRecord.NULL_ID)
        {
            arrive(input.request());
            namespaces.arrive(input.request(), input.value3());
        }
        documentRequest = input.request();
        final int size = effects.size();
        for (int i = 0; i < size; i++)
        {
            checkTargetBlock(effects, i);
            applyEffect(effects, i);
            flush();
        }
        endOfDocument();
        flush();
        retire();
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
                    nodeFinding(Invariant.I3, e.id(i), crossed);
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
                    tree.nodeDeleted(e, i);
                }
                else
                {
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
                        nodeFinding(Invariant.I3, e.id(i), crossed);
                    }
                }
                else
                {
                    tree.unlocked(e, i);
                }
                tree.record(e.id(i), e, i);
                recordHolder(e.toState(i), e.owner(i), e, i);
            }
            case SLOT_TRANSITION -> slotTransition(e, i);
            case CURSORS_RESET, CURSORS_OBSERVED -> cursors(e, i);
            case OP_QUEUED -> opQueued(e, i);
            case OP_TARGET -> opTarget(e, i);
            case OP_LAUNCHED -> opLaunched(e, i);
            case OP_ACKED -> opCompleted(e, i, ShadowOp.State.ACKED);
            case OP_FAILED -> opCompleted(e, i, ShadowOp.State.FAILED);
            case OP_CANCELLED -> opCancelled(e, i);
            case REQUEST_STATE -> requestState(e, i);
            case RESERVED ->
            {
                recordRequest(e.owner(i), e, i);
                admission.reserved(scope.sequence, e, i);
            }
            case ADMITTED, DEFERRED, HOLD_DROPPED, REJECTED ->
            {
                recordRequest(e.owner(i), e, i);
                if (type == EffectType.HOLD_DROPPED)
                {
                    scope.droppedHolds.add(e.owner(i));
                }
                if (type == EffectType.ADMITTED && e.value1(i) > 0)
                {
                    admittedPrefixes.add(new long[]{e.owner(i), e.value1(i)});
                }
                admission.outcome(scope.sequence, e, i, type);
            }
            case HOLD_STAGED, HIT_PARKED, WAITED -> recordRequest(e.owner(i), e, i);
            case PAGES_STORED -> recordOp(findOp(e.id(i)), e, i);
            default ->
            {
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // slots

    private void slotTransition(final EffectList e, final int i)
    {
        final ShadowSlot slot = slotOf(e, i, e.id(i));
        if (slot == null)
        {
            return;
        }
        final SlotState to = e.toState(i);
        if (to == null || to == SlotState.NULL_VAL)
        {
            recordSlot(slot, e, i);
            slotFinding(Invariant.I12, slot, "transition to an unknown state");
            return;
        }
        final long owner = to == SlotState.FREE ? -1 : e.owner(i);
        final SlotState prevState = slot.state;
        final long prevOwner = slot.owner;
        checkTransition(slot, e.fromState(i), to, owner, e.value1(i));
        move(slot, to, owner);
        recordSlot(slot, e, i);
        final boolean changed = prevState != to || prevOwner != owner;
        if (prevState == SlotState.NODE)
        {
            scope.touch(prevOwner);
            tree.record(prevOwner, e, i);
        }
        if (to == SlotState.NODE && changed)
        {
            scope.touch(owner);
            tree.record(owner, e, i);
        }
        if (prevState == SlotState.REQUEST)
        {
            recordRequest(prevOwner, e, i);
        }
        if (to == SlotState.REQUEST && changed)
        {
            recordRequest(owner, e, i);
        }
        if (slot.pool == Pool.DEVICE_MAMBA && changed && (to == SlotState.REQUEST || to == SlotState.NODE))
        {
            scope.ownerChangedMamba.add(slot.id);
        }
        if (slot.pool == Pool.DEVICE_MAMBA && changed)
        {
            slot.undefined = to == SlotState.REQUEST;
            if (prevState == SlotState.OP && to == SlotState.FREE)
            {
                checkRedundantRelease(slot, prevOwner);
            }
        }
        if (slot.liveTargets != null)
        {
            for (final OpTarget target : List.copyOf(slot.liveTargets))
            {
                checkTargetChange(target, slot, prevState, prevOwner);
            }
        }
        if (slot.pool == Pool.DEVICE_MAMBA && prevState == SlotState.FREE &&
            (to == SlotState.REQUEST || to == SlotState.NODE || to == SlotState.OP))
        {
            admission.allocated(scope.sequence, slot, to, owner, e, i);
        }
    }

    /** I15: a load's own (redundant node) Mamba destination goes back to the free list only at the load's end. */
    private void checkRedundantRelease(final ShadowSlot slot, final long opId)
    {
        final ShadowOp op = ops.get(opId);
        if (op != null && op.kind == OpKind.LOAD && op.state.live())
        {
            slotFinding(Invariant.I15, slot, "redundant node slot of " + op.label() + " released before the " +
                "load's ack or cancel, while the copy still writes it");
        }
    }

    private void checkTransition(final ShadowSlot slot, final SlotState from, final SlotState to, final long owner,
        final long recordedPrevious)
    {
        if (from != slot.state)
        {
            if (slot.state == SlotState.FREE && to == SlotState.FREE)
            {
                slotFinding(Invariant.I12, slot, "double free: released by " +
                    EffectText.owner(from, recordedPrevious) + " but the slot is already FREE (since #" +
                    slot.ownerSinceSequence + ")");
            }
            else
            {
                slotFinding(Invariant.I12, slot, "owner confusion: the transition starts from " +
                    EffectText.owner(from, recordedPrevious) + " but the slot is " + slot.label() + " (since #" +
                    slot.ownerSinceSequence + ")");
            }
        }
        else if (from != SlotState.FREE && recordedPrevious != slot.owner)
        {
            slotFinding(Invariant.I12, slot, "owner confusion: the transition names previous owner " +
                EffectText.owner(from, recordedPrevious) + " but the slot belongs to " + slot.label());
        }
        else if (from == SlotState.FREE && (to == SlotState.FREE || to == SlotState.PENDING_FREE))
        {
            slotFinding(Invariant.I12, slot, to == SlotState.FREE ? "double free: FREE -> FREE" :
                "a FREE slot cannot be parked as PENDING_FREE");
        }
        else if (from != SlotState.FREE && from == to && recordedPrevious == owner)
        {
            slotFinding(Invariant.I12, slot, "handed again to its owner " + slot.label() +
                ": a no-op transition, the slot was handed out twice");
        }
        else if (from == SlotState.PENDING_FREE && to != SlotState.FREE)
        {
            slotFinding(Invariant.I12, slot, "a PENDING_FREE slot may only become FREE (at its op's ack), not " +
                EffectText.owner(to, owner));
        }
        checkNewOwner(slot, to, owner);
    }

    private void checkNewOwner(final ShadowSlot slot, final SlotState to, final long owner)
    {
        final boolean host = slot.pool == Pool.HOST_KV || slot.pool == Pool.HOST_MAMBA;
        if (host && to == SlotState.NODE)
        {
            slotFinding(Invariant.I8, slot, "host staging handed to node " + owner +
                ": in buffer-only mode no node holds host data");
        }
        if (slot.state == SlotState.NODE && to == SlotState.NODE && slot.owner != owner)
        {
            if (slot.pool == Pool.DEVICE_MAMBA)
            {
                slotFinding(Invariant.I14, slot, "Mamba state moved from node " + slot.owner + " to node " + owner +
                    ": a split keeps the state with the deeper half and states never move between nodes");
            }
            else if (slot.pool == Pool.DEVICE_KV && !scope.splitMove(slot.owner, owner))
            {
                slotFinding(Invariant.I12, slot, "page moved from node " + slot.owner + " to node " + owner +
                    " without a NODE_SPLIT of node " + slot.owner + " into " + owner + " in this document");
            }
        }
        if (to == SlotState.REQUEST)
        {
            final ShadowRequest request = findRequest(owner);
            if (request != null && request.terminal())
            {
                slotFinding(Invariant.I12, slot, "handed to request " + owner + " which is " + request.state +
                    " (since #" + request.stateSequence + ")");
            }
        }
        if (to == SlotState.PENDING_FREE)
        {
            final ShadowOp op = ops.get(owner);
            if (op == null || !op.state.live())
            {
                slotFinding(Invariant.I12, slot, "parked as PENDING_FREE for op " + owner +
                    " which is not in flight: nothing will ever free it");
            }
            else if (!targets(op, slot))
            {
                slotFinding(Invariant.I12, slot, "parked as PENDING_FREE for " + op.label() +
                    " which does not target it");
            }
        }
    }

    private void checkTargetChange(final OpTarget target, final ShadowSlot slot, final SlotState prevState,
        final long prevOwner)
    {
        final ShadowOp op = target.op;
        if (!op.state.live() || target.reported || op.queuedSequence == scope.sequence)
        {
            return;
        }
        final boolean guarded = target.write() ? op.protectsWrites() :
            op.protectsReads() && op.state == ShadowOp.State.LAUNCHED;
        if (!guarded || target.permits(slot.state, slot.owner))
        {
            return;
        }
        if (slot.state == SlotState.NODE && prevState == SlotState.NODE && target.allowedState == SlotState.NODE &&
            target.allowedOwner == prevOwner && scope.splitMove(prevOwner, slot.owner))
        {
            target.allowedOwner = slot.owner;
            return;
        }
        if (op.kind == OpKind.FETCH && slot.state == SlotState.REQUEST && slot.owner == op.owner &&
            scope.input.type() == InputType.FETCH_DONE && scope.input.op() == op.id)
        {
            return;
        }
        final String what = slot.state == SlotState.FREE ? "freed" : "handed to " + slot.label();
        scope.suspicions.add(new DocumentScope.Suspicion(target, slot, what + " while " + op.label() + " (" +
            op.state + " since #" + op.stateSequence + ") still " + (target.write() ? "writes" : "reads") +
            " it; it was queued as " + target.allowedLabel()));
    }

    private void cursors(final EffectList e, final int i)
    {
        final ShadowSlot slot = slotOf(e, i, e.id(i));
        if (slot == null)
        {
            return;
        }
        if (e.type(i) == EffectType.CURSORS_RESET)
        {
            slot.dirty = false;
            slot.undefined = false;
        }
        else if (slot.pool == Pool.DEVICE_MAMBA)
        {
            slot.dirty = e.value1(i) != 0 || e.value2(i) != 0 || e.value3(i) != 0;
            if (slot.dirty)
            {
                slot.dirtySequence = scope.sequence;
            }
        }
        recordSlot(slot, e, i);
    }

    private void move(final ShadowSlot slot, final SlotState to, final long owner)
    {
        final int p = slot.pool.value();
        owners.remove(slot.state, slot.owner, slot.pool, slot.id);
        counts[p][slot.state.value()]--;
        slot.state = to;
        slot.owner = owner;
        slot.ownerSinceSequence = scope.sequence;
        counts[p][to.value()]++;
        owners.add(to, owner, slot.pool, slot.id);
    }

    // ---------------------------------------------------------------------------------------------------------
    // operations

    private void checkTargetBlock(final EffectList e, final int i)
    {
        if (scope.targetsRemaining > 0 &&
            (e.type(i) != EffectType.OP_TARGET || e.id(i) != scope.expectingTargets.id))
        {
            final ShadowOp op = scope.expectingTargets;
            opFinding(Invariant.I19, op.id, "OP_QUEUED declared " + op.declaredTargets + " targets but only " +
                (op.declaredTargets - scope.targetsRemaining) + " OP_TARGETs followed");
            scope.targetsRemaining = 0;
            scope.expectingTargets = null;
        }
    }

    private void opQueued(final EffectList e, final int i)
    {
        final long id = e.id(i);
        final ShadowOp existing = findOp(id);
        if (existing != null && existing.state.live())
        {
            opFinding(Invariant.I19, id, "op id " + id + " queued again while " + existing.label() + " is " +
                existing.state + " (since #" + existing.stateSequence + ")");
            end(existing, ShadowOp.State.CANCELLED);
            scope.ended.remove(existing);
        }
        final ShadowOp op = new ShadowOp(id, e.opKind(i), e.owner(i), scope.sequence, (int)e.value1(i));
        if (existing != null)
        {
            op.history = existing.history;
        }
        retiredOps.remove(id);
        ops.put(id, op);
        recordOp(op, e, i);
        scope.queued.add(op);
        if (e.value1(i) > 0)
        {
            scope.expectingTargets = op;
            scope.targetsRemaining = e.value1(i);
        }
        else if (e.value1(i) < 0)
        {
            opFinding(Invariant.I19, id, "OP_QUEUED with a negative target count " + e.value1(i));
        }
    }

    private void opTarget(final EffectList e, final int i)
    {
        final ShadowOp op = ops.get(e.id(i));
        if (op == null || !op.state.live())
        {
            recordOp(op, e, i);
            opFinding(Invariant.I19, e.id(i), "OP_TARGET for op " + e.id(i) + " which is not queued");
            return;
        }
        recordOp(op, e, i);
        if (scope.expectingTargets == op && scope.targetsRemaining > 0)
        {
            scope.targetsRemaining--;
        }
        else
        {
            opFinding(Invariant.I19, op.id, "OP_TARGET outside the OP_QUEUED block of " + op.label() + " (declared " +
                op.declaredTargets + " targets)");
        }
        final ShadowSlot slot = slotOf(e, i, e.value1(i));
        if (slot == null)
        {
            return;
        }
        final Role role = e.roleCode(i) == EffectList.NULL_CODE ? Role.READ : e.role(i);
        final OpTarget target = new OpTarget(op, slot.pool, role, slot.id);
        op.targets.add(target);
        slot.addTarget(target);
        recordSlot(slot, e, i);
        if (slot.pool == Pool.DEVICE_MAMBA && target.write() && (op.kind == OpKind.LOAD || op.kind == OpKind.COW))
        {
            scope.loadWrittenMamba.put(slot.id, op);
        }
        if (op.kind == OpKind.COW && !target.write() && slot.pool == Pool.DEVICE_MAMBA)
        {
            checkCowSource(op, slot);
        }
    }

    private void checkCowSource(final ShadowOp cow, final ShadowSlot slot)
    {
        for (final OpTarget other : slot.liveTargets)
        {
            if (other.op != cow && other.op.kind == OpKind.LOAD && other.write() && other.op.state.live())
            {
                slotFinding(Invariant.I14, slot, cow.label() + " copies from checkpoint " + slot.subject() +
                    " while " + other.op.label() + " (" + other.op.state + ") still loads it: a checkpoint whose " +
                    "load is in flight is not a copy-on-write source");
                return;
            }
        }
    }

    private void opLaunched(final EffectList e, final int i)
    {
        final ShadowOp op = findOp(e.id(i));
        if (op == null)
        {
            opFinding(Invariant.I19, e.id(i), "OP_LAUNCHED of op " + e.id(i) + " which was never queued");
            return;
        }
        recordOp(op, e, i);
        recordTargets(op, e, i);
        if (op.state != ShadowOp.State.QUEUED)
        {
            opFinding(Invariant.I19, op.id, op.label() + " launched while " + op.state + " (since #" +
                op.stateSequence + ")" + (op.state == ShadowOp.State.LAUNCHED ? ": launched twice" : ""));
            return;
        }
        op.state = ShadowOp.State.LAUNCHED;
        op.stateSequence = scope.sequence;
        if (op.queuedSequence == scope.sequence)
        {
            scope.launchedSameDocument.add(op);
        }
        else
        {
            checkLaunch(op);
        }
    }

    private void checkLaunch(final ShadowOp op)
    {
        for (final OpTarget target : op.targets)
        {
            final boolean guarded = target.write() ? op.protectsWrites() : op.protectsReads();
            final ShadowSlot slot = slotAt(target.pool, target.slot);
            if (!guarded || target.permits(slot.state, slot.owner))
            {
                continue;
            }
            final String consequence;
            if (target.write())
            {
                consequence = slot.state == SlotState.FREE ? "the copy writes a free slot" :
                    "the copy overwrites the data of " + slot.label();
            }
            else
            {
                consequence = "the copy reads data that is no longer there";
            }
            slotFinding(Invariant.I13, slot, op.label() + " launched while its " + target.role + " target is " +
                slot.label() + " (queued as " + target.allowedLabel() + "): " + consequence);
        }
    }

    private void opCompleted(final EffectList e, final int i, final ShadowOp.State terminal)
    {
        final ShadowOp op = findOp(e.id(i));
        if (op == null)
        {
            opFinding(Invariant.I19, e.id(i), e.type(i) + " of op " + e.id(i) + " which was never queued");
            return;
        }
        recordOp(op, e, i);
        recordTargets(op, e, i);
        if (terminal == ShadowOp.State.ACKED && op.state.live())
        {
            defineWrittenMamba(op);
        }
        if (op.state == ShadowOp.State.QUEUED)
        {
            opFinding(Invariant.I19, op.id, op.label() + " " + terminal + " while QUEUED: it was never launched");
        }
        else if (!op.state.live())
        {
            opFinding(Invariant.I19, op.id, "second completion of " + op.label() + ": already " + op.state +
                " at #" + op.stateSequence);
        }
        if (op.state.live())
        {
            end(op, terminal);
        }
    }

    /** An acked load or copy-on-write defined the content of the Mamba slots it wrote (I16). */
    private void defineWrittenMamba(final ShadowOp op)
    {
        for (final OpTarget target : op.targets)
        {
            if (target.write() && target.pool == Pool.DEVICE_MAMBA)
            {
                slotAt(Pool.DEVICE_MAMBA, target.slot).undefined = false;
            }
        }
    }

    private void opCancelled(final EffectList e, final int i)
    {
        final ShadowOp op = findOp(e.id(i));
        if (op == null)
        {
            opFinding(Invariant.I19, e.id(i), "OP_CANCELLED of op " + e.id(i) + " which was never queued");
            return;
        }
        recordOp(op, e, i);
        recordTargets(op, e, i);
        if (op.state == ShadowOp.State.LAUNCHED)
        {
            opFinding(Invariant.I19, op.id, op.label() + " cancelled after its launch (#" + op.stateSequence +
                "): a launched copy cannot be recalled, it must be acked");
        }
        else if (!op.state.live())
        {
            opFinding(Invariant.I19, op.id, op.label() + " cancelled but already " + op.state + " at #" +
                op.stateSequence);
        }
        if (op.state.live())
        {
            end(op, ShadowOp.State.CANCELLED);
        }
    }

    private void end(final ShadowOp op, final ShadowOp.State state)
    {
        op.state = state;
        op.stateSequence = scope.sequence;
        for (final OpTarget target : op.targets)
        {
            slotAt(target.pool, target.slot).removeTargetsOf(op);
        }
        scope.ended.add(op);
    }

    private void recordTargets(final ShadowOp op, final EffectList e, final int i)
    {
        ShadowSlot last = null;
        for (final OpTarget target : op.targets)
        {
            final ShadowSlot slot = slotAt(target.pool, target.slot);
            if (slot != last)
            {
                recordSlot(slot, e, i);
                last = slot;
            }
        }
    }

    private static boolean targets(final ShadowOp op, final ShadowSlot slot)
    {
        for (final OpTarget target : op.targets)
        {
            if (target.pool == slot.pool && target.slot == slot.id)
            {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------------------
    // requests and admission

    private void arrive(final long id)
    {
        final ShadowRequest existing = requests.get(id);
        if (existing != null && !existing.terminal())
        {
            requestFinding(Invariant.I19, id, "request " + id + " arrived again while " + existing.state);
            return;
        }
        final ShadowRequest old = existing != null ? existing : retiredRequests.remove(id);
        final ShadowRequest request = new ShadowRequest(id);
        request.stateSequence = scope.sequence;
        if (old != null)
        {
            request.history = old.history;
        }
        requests.put(id, request);
    }

    private void requestState(final EffectList e, final int i)
    {
        final long id = e.owner(i);
        final RequestState from = e.requestFromCode(i) == EffectList.NULL_CODE ? null : e.requestFrom(i);
        final RequestState to = e.requestToCode(i) == EffectList.NULL_CODE ? null : e.requestTo(i);
        ShadowRequest request = requests.get(id);
        if (from == null)
        {
            // creation (from "none"): accepted for a new id, or for the request this document's ARRIVE created
            if (request != null && !request.terminal() &&
                !(request.state == RequestState.WAITING && request.stateSequence == scope.sequence))
            {
                recordRequest(id, e, i);
                requestFinding(Invariant.I19, id, "created again while " + request.state + " (since #" +
                    request.stateSequence + ")");
            }
            else if (request == null || request.terminal())
            {
                arrive(id);
                request = requests.get(id);
            }
            recordRequest(id, e, i);
        }
        else if (request == null)
        {
            final ShadowRequest old = retiredRequests.remove(id);
            request = new ShadowRequest(id);
            if (old != null)
            {
                request.history = old.history;
            }
            requests.put(id, request);
            recordRequest(id, e, i);
            if (from != RequestState.WAITING)
            {
                requestFinding(Invariant.I19, id, "moves from " + from + " but " + (old == null ?
                    "it never arrived" : "it already ended " + old.state + " at #" + old.stateSequence));
            }
        }
        else
        {
            recordRequest(id, e, i);
            if (request.state != from)
            {
                requestFinding(Invariant.I19, id, "moves from " + from + " to " + to + " but it is " + request.state +
                    " (since #" + request.stateSequence + ")");
            }
        }
        if (from == RequestState.ADMITTED && to == RequestState.RUNNING)
        {
            startedRequests.add(id);
        }
        if (to != null && request != null)
        {
            request.state = to;
            request.stateSequence = scope.sequence;
            if (request.terminal())
            {
                scope.endedRequests.add(id);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // end of document

    private void endOfDocument()
    {
        if (scope.targetsRemaining > 0)
        {
            final ShadowOp op = scope.expectingTargets;
            opFinding(Invariant.I19, op.id, "OP_QUEUED declared " + op.declaredTargets + " targets but only " +
                (op.declaredTargets - scope.targetsRemaining) + " OP_TARGETs followed");
        }
        for (final ShadowOp op : scope.queued)
        {
            if (op.state.live())
            {
                settleQueuedTargets(op);
            }
        }
        for (final ShadowOp op : scope.launchedSameDocument)
        {
            if (op.state == ShadowOp.State.LAUNCHED)
            {
                checkLaunch(op);
            }
        }
        for (final DocumentScope.Suspicion suspicion : scope.suspicions)
        {
            if (suspicion.target().op.state.live() && !suspicion.target().reported)
            {
                suspicion.target().reported = true;
                slotFinding(Invariant.I13, suspicion.slot(), suspicion.explanation());
            }
        }
        checkCursors();
        checkAdmittedPrefixes();
        checkStartedRequests();
        for (final ShadowOp op : scope.ended)
        {
            checkEndedOp(op);
        }
        for (final long request : scope.droppedHolds)
        {
            checkHeld(request, true, false, "after its HOLD_DROPPED");
        }
        for (final long request : scope.endedRequests)
        {
            checkEndedRequest(request);
        }
        for (final long node : scope.touchedNodes)
        {
            checkNode(node);
        }
        checkConservation();
    }

    /**
     * I3: an admitted request's device prefix is an unbroken path of live nodes from the root, ending at the node
     * its FULL lock holds, exactly as deep as the prefix ADMITTED reports.
     */
    private void checkAdmittedPrefixes()
    {
        for (final long[] admitted : admittedPrefixes)
        {
            final long request = admitted[0];
            final long prefix = admitted[1];
            long node = -1;
            for (final LockReceipt receipt : tree.heldBy(SlotState.REQUEST, request))
            {
                final ShadowNode n = tree.node(receipt.node());
                if (receipt.component() == Component.FULL && n != null && n.live && n.depth == prefix)
                {
                    node = receipt.node();
                }
            }
            if (node < 0)
            {
                requestFinding(Invariant.I3, request, "admitted with a device prefix of " + prefix + " pages but " +
                    "it holds no FULL lock on a live node at that depth: the matched pages are not a locked path");
                continue;
            }
            long pages = 0;
            for (long n = node; n != ROOT; )
            {
                final ShadowNode at = tree.node(n);
                if (at == null || !at.live)
                {
                    requestFinding(Invariant.I3, request, "admitted on node " + node + " whose ancestor " + n +
                        " is not live: the matched path is broken");
                    pages = -1;
                    break;
                }
                pages += at.pages;
                n = at.parent;
            }
            if (pages >= 0 && pages != prefix)
            {
                requestFinding(Invariant.I3, request, "admitted with a device prefix of " + prefix + " pages but " +
                    "the path to node " + node + " holds " + pages + " pages");
            }
        }
        admittedPrefixes.clear();
    }

    /** I16: a request's first forward reads only Mamba slots whose content is defined (reset or copied in). */
    private void checkStartedRequests()
    {
        for (final long request : startedRequests)
        {
            for (final long key : owners.owned(SlotState.REQUEST, request))
            {
                if (OwnerIndex.pool(key) != Pool.DEVICE_MAMBA)
                {
                    continue;
                }
                final ShadowSlot slot = slotAt(Pool.DEVICE_MAMBA, OwnerIndex.slot(key));
                if (slot.undefined)
                {
                    slotFinding(Invariant.I16, slot, "request " + request + " runs with this Mamba slot but its " +
                        "content is undefined: no reset, copy-on-write or load wrote it since it was handed out");
                    break;
                }
            }
        }
        startedRequests.clear();
    }

    private void settleQueuedTargets(final ShadowOp op)
    {
        for (final OpTarget target : op.targets)
        {
            final ShadowSlot slot = slotAt(target.pool, target.slot);
            if (slot.state != SlotState.FREE)
            {
                target.allowedState = slot.state;
                target.allowedOwner = slot.owner;
                continue;
            }
            final boolean guarded = target.write() ? op.protectsWrites() : op.protectsReads();
            if (guarded)
            {
                target.reported = true;
                slotFinding(Invariant.I13, slot, op.label() + " was queued to " + (target.write() ? "write" : "read") +
                    " it but the slot is FREE at the end of the document: it can be handed to anyone before the " +
                    "copy runs");
            }
        }
    }

    private void checkCursors()
    {
        final Set<Integer> reported = new HashSet<>();
        for (final int id : scope.ownerChangedMamba)
        {
            final ShadowSlot slot = slotAt(Pool.DEVICE_MAMBA, id);
            if ((slot.state == SlotState.REQUEST || slot.state == SlotState.NODE) && slot.dirty && reported.add(id))
            {
                slotFinding(Invariant.I17, slot, "handed to " + slot.label() + " with stale ReplaySSM cursors " +
                    "(non-zero observed at #" + slot.dirtySequence + ", no CURSORS_RESET since)");
            }
        }
        for (final Map.Entry<Integer, ShadowOp> entry : scope.loadWrittenMamba.entrySet())
        {
            final ShadowSlot slot = slotAt(Pool.DEVICE_MAMBA, entry.getKey());
            final ShadowOp op = entry.getValue();
            if (op.state.live() && slot.dirty && reported.add(slot.id))
            {
                slotFinding(Invariant.I17, slot, "written by " + op.label() + " with stale ReplaySSM cursors " +
                    "(non-zero observed at #" + slot.dirtySequence + ", no CURSORS_RESET since): the first decode " +
                    "replays the previous tenant's ring entries");
            }
        }
    }

    private void checkEndedOp(final ShadowOp op)
    {
        if (ops.get(op.id) != op)
        {
            return;
        }
        leaks(owners.owned(SlotState.OP, op.id), "owned by " + op.label(), op.state + " at #" + op.stateSequence);
        leaks(owners.owned(SlotState.PENDING_FREE, op.id), "parked for " + op.label(),
            op.state + " at #" + op.stateSequence);
        if (op.kind == OpKind.LOAD || op.kind == OpKind.COW)
        {
            for (final LockReceipt receipt : tree.heldBy(SlotState.OP, op.id))
            {
                nodeFinding(Invariant.I5, receipt.node(), receipt.label() + " still held after the op ended " +
                    op.state + ": the lock leaks and the node can never be evicted");
            }
        }
    }

    private void checkEndedRequest(final long id)
    {
        final ShadowRequest request = requests.get(id);
        if (request == null || !request.terminal())
        {
            return;
        }
        checkHeld(id, true, true, "after it " + request.state);
        for (final LockReceipt receipt : tree.heldBy(SlotState.REQUEST, id))
        {
            nodeFinding(Invariant.I5, receipt.node(), receipt.label() + " still held after request " + id + " " +
                request.state + ": the lock leaks and the node can never be evicted");
        }
    }

    private void checkHeld(final long request, final boolean host, final boolean device, final String when)
    {
        final List<Long> hostSlots = new ArrayList<>();
        final List<Long> deviceSlots = new ArrayList<>();
        for (final long key : owners.owned(SlotState.REQUEST, request))
        {
            final Pool pool = OwnerIndex.pool(key);
            (pool == Pool.HOST_KV || pool == Pool.HOST_MAMBA ? hostSlots : deviceSlots).add(key);
        }
        if (host)
        {
            leaks(hostSlots, "owned by request " + request, when);
        }
        if (device)
        {
            leaks(deviceSlots, "owned by request " + request, when);
        }
    }

    /**
     * One violation per pool for slots still held past their owner's end: I9 for host staging, I12 for device.
     */
    private void leaks(final Iterable<Long> keys, final String held, final String when)
    {
        final Map<Pool, List<Long>> perPool = new LinkedHashMap<>();
        for (final long key : keys)
        {
            perPool.computeIfAbsent(OwnerIndex.pool(key), p -> new ArrayList<>()).add(key);
        }
        for (final Map.Entry<Pool, List<Long>> entry : perPool.entrySet())
        {
            final Pool pool = entry.getKey();
            final List<Long> leaked = entry.getValue();
            final boolean host = pool == Pool.HOST_KV || pool == Pool.HOST_MAMBA;
            final ShadowSlot first = slotAt(pool, OwnerIndex.slot(leaked.get(0)));
            slotFinding(host ? Invariant.I9 : Invariant.I12, first, (host ? "host staging" : "device slot") +
                " still " + held + " " + when + ": leaked" + (leaked.size() > 1 ? " (with " + (leaked.size() - 1) +
                " more " + pool + " slots)" : ""));
        }
    }

    private void checkNode(final long id)
    {
        final ShadowNode node = tree.node(id);
        final boolean live = node != null && node.live;
        final int kv = owners.count(SlotState.NODE, id, Pool.DEVICE_KV);
        final int mamba = owners.count(SlotState.NODE, id, Pool.DEVICE_MAMBA);
        if (live)
        {
            if (kv != node.pages)
            {
                nodeFinding(Invariant.I2, id, "holds " + node.pages + " pages but owns " + kv + " device KV pages");
            }
            if (mamba > 1)
            {
                nodeFinding(Invariant.I14, id, "owns " + mamba + " device Mamba slots: a node holds at most one state");
            }
            return;
        }
        if (kv > 0)
        {
            nodeFinding(Invariant.I2, id, "node " + id + " is not live but still owns " + kv + " device KV pages");
        }
        if (mamba > 0)
        {
            nodeFinding(Invariant.I4, id, "node " + id + " lost its FULL data but still owns a device Mamba slot: " +
                "FULL eviction must cascade to the node's Mamba state");
        }
    }

    private void checkConservation()
    {
        for (int p = 0; p < POOLS; p++)
        {
            int total = 0;
            for (int s = 0; s < STATES; s++)
            {
                total += counts[p][s];
            }
            if (total != slots[p].length || counts[p][SlotState.FREE.value()] < 0)
            {
                findings.add(new Findings.Finding(Invariant.I18, Findings.Kind.SLOT, Pool.get((short)p).name(), -1,
                    "pool not conserved: " + total + " slots accounted for, capacity " + slots[p].length, List.of()));
            }
        }
    }

    private void retire()
    {
        for (final ShadowOp op : scope.ended)
        {
            if (ops.get(op.id) == op)
            {
                ops.remove(op.id);
                op.targets.clear();
                retiredOps.put(op.id, op);
            }
        }
        for (final long id : scope.touchedNodes)
        {
            tree.retire(id);
        }
        for (final long id : scope.endedRequests)
        {
            final ShadowRequest request = requests.get(id);
            if (request != null && request.terminal())
            {
                requests.remove(id);
                retiredRequests.put(id, request);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // history and findings

    private void recordSlot(final ShadowSlot slot, final EffectList e, final int i)
    {
        if (historyLimit > 0)
        {
            if (slot.history == null)
            {
                slot.history = new HistoryRing(historyLimit);
            }
            slot.history.add(scope.sequence, e, i, slot.state, slot.owner);
        }
        if (observer != null)
        {
            observer.onSlotEffect(slot.pool, slot.id, scope.sequence, e, i, slot.state, slot.owner);
        }
    }

    private void recordOp(final ShadowOp op, final EffectList e, final int i)
    {
        if (op != null && historyLimit > 0)
        {
            if (op.history == null)
            {
                op.history = new HistoryRing(historyLimit);
            }
            op.history.add(scope.sequence, e, i, null, -1);
        }
    }

    private void recordRequest(final long id, final EffectList e, final int i)
    {
        final ShadowRequest request = findRequest(id);
        if (request != null && historyLimit > 0)
        {
            if (request.history == null)
            {
                request.history = new HistoryRing(historyLimit);
            }
            request.history.add(scope.sequence, e, i, null, -1);
        }
    }

    private void recordHolder(final SlotState kind, final long holder, final EffectList e, final int i)
    {
        if (kind == SlotState.REQUEST)
        {
            recordRequest(holder, e, i);
        }
        else if (kind == SlotState.OP)
        {
            recordOp(findOp(holder), e, i);
        }
    }

    private void slotFinding(final Invariant invariant, final ShadowSlot slot, final String explanation)
    {
        findings.slot(invariant, slot, explanation);
    }

    private void nodeFinding(final Invariant invariant, final long node, final String explanation)
    {
        findings.node(invariant, node, explanation);
    }

    private void requestFinding(final Invariant invariant, final long request, final String explanation)
    {
        findings.request(invariant, request, explanation);
    }

    private void opFinding(final Invariant invariant, final long op, final String explanation)
    {
        findings.op(invariant, op, explanation);
    }

    private void flush()
    {
        for (final Findings.Finding finding : findings.drain())
        {
            final List<HistoryEntry> history = finding.history() != null ? finding.history() : history(finding);
            sink.onViolation(new Violation(scope.sequence, finding.invariant(), finding.pool(), finding.id(),
                finding.explanation(), history));
        }
    }

    private List<HistoryEntry> history(final Findings.Finding finding)
    {
        final HistoryRing ring = switch (finding.kind())
        {
            case SLOT -> slotAt(Pool.valueOf(finding.pool()), (int)finding.id()).history;
            case NODE -> tree.history(finding.id());
            case REQUEST -> requestHistoryRing(finding.id());
            case OP -> opHistoryRing(finding.id());
        };
        return ring == null ? List.of() : ring.entries(scratch);
    }

    private HistoryRing requestHistoryRing(final long id)
    {
        final ShadowRequest request = findRequest(id);
        return request == null ? null : request.history;
    }

    private HistoryRing opHistoryRing(final long id)
    {
        final ShadowOp op = findOp(id);
        return op == null ? null : op.history;
    }

    // ---------------------------------------------------------------------------------------------------------
    // lookups

    private ShadowSlot slotOf(final EffectList e, final int i, final long id)
    {
        final short code = e.poolCode(i);
        if (code == EffectList.NULL_CODE || code < 0 || code >= POOLS)
        {
            findings.add(new Findings.Finding(Invariant.I12, Findings.Kind.SLOT, "pool?", id, "effect names no pool",
                List.of(new HistoryEntry(scope.sequence, EffectText.describe(e, i)))));
            return null;
        }
        final ShadowSlot[] pool = slots[code];
        if (id < 0 || id >= pool.length)
        {
            final String name = Pool.get(code).name();
            findings.add(new Findings.Finding(Invariant.I12, Findings.Kind.SLOT, name, id, pool.length == 0 ?
                "pool " + name + " is absent in this configuration" :
                "slot id outside the pool (capacity " + pool.length + ")",
                List.of(new HistoryEntry(scope.sequence, EffectText.describe(e, i)))));
            return null;
        }
        return pool[(int)id];
    }

    private ShadowSlot slotAt(final Pool pool, final int id)
    {
        return slots[pool.value()][id];
    }

    private ShadowOp findOp(final long id)
    {
        final ShadowOp op = ops.get(id);
        return op != null ? op : retiredOps.get(id);
    }

    private ShadowRequest findRequest(final long id)
    {
        final ShadowRequest request = requests.get(id);
        return request != null ? request : retiredRequests.get(id);
    }

    private void size(final Pool pool, final int capacity)
    {
        final ShadowSlot[] array = new ShadowSlot[Math.max(0, capacity)];
        for (int i = 0; i < array.length; i++)
        {
            array[i] = new ShadowSlot(pool, i);
        }
        slots[pool.value()] = array;
        java.util.Arrays.fill(counts[pool.value()], 0);
        counts[pool.value()][SlotState.FREE.value()] = array.length;
    }

    /**
     * @return an insertion-ordered map that forgets its oldest entries past a bound (ended ops, requests, nodes).
     */
    static <T> Map<Long, T> retiredMap()
    {
        return new LinkedHashMap<>(256, 0.75f, false)
        {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(final Map.Entry<Long, T> eldest)
            {
                return size() > RETIRED_LIMIT;
            }
        };
    }

    // ---------------------------------------------------------------------------------------------------------
    // queries (for inspect, timelines and tests)

    /**
     * @return documents folded so far.
     */
    public long documents()
    {
        return documents;
    }

    /**
     * @return sequence of the last document folded, or -1.
     */
    public long lastSequence()
    {
        return lastSequence;
    }

    /**
     * @return timestamp of the last document folded.
     */
    public long lastTimestampNs()
    {
        return lastTimestampNs;
    }

    /**
     * @param pool pool.
     * @return slots in the pool.
     */
    public int capacity(final Pool pool)
    {
        return slots[pool.value()].length;
    }

    /**
     * @param pool pool.
     * @return how its slots are held now.
     */
    public PoolOccupancy occupancy(final Pool pool)
    {
        final int[] c = counts[pool.value()];
        return new PoolOccupancy(pool.name(), slots[pool.value()].length, c[SlotState.FREE.value()],
            c[SlotState.REQUEST.value()], c[SlotState.NODE.value()], c[SlotState.OP.value()],
            c[SlotState.PENDING_FREE.value()]);
    }

    /**
     * @return occupancy of the four pools, in pool order.
     */
    public List<PoolOccupancy> occupancy()
    {
        final List<PoolOccupancy> out = new ArrayList<>(POOLS);
        for (int p = 0; p < POOLS; p++)
        {
            out.add(occupancy(Pool.get((short)p)));
        }
        return out;
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return the slot's state now.
     */
    public SlotState slotState(final Pool pool, final int id)
    {
        return slotAt(pool, id).state;
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return the slot's owner now (-1 when FREE).
     */
    public long slotOwner(final Pool pool, final int id)
    {
        return slotAt(pool, id).owner;
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return true when the slot's last observed ReplaySSM cursors were non-zero and no reset followed.
     */
    public boolean slotDirty(final Pool pool, final int id)
    {
        return slotAt(pool, id).dirty;
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return for example {@code REQUEST 7} or {@code FREE}.
     */
    public String slotLabel(final Pool pool, final int id)
    {
        return slotAt(pool, id).label();
    }

    /**
     * @param pool pool.
     * @param id   slot id.
     * @return the kept effects that touched the slot, oldest first.
     */
    public List<HistoryEntry> slotHistory(final Pool pool, final int id)
    {
        final HistoryRing ring = slotAt(pool, id).history;
        return ring == null ? List.of() : ring.entries(scratch);
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
        final HistoryRing ring = slotAt(pool, id).history;
        final List<SlotLane.Point> out = new ArrayList<>();
        if (ring != null)
        {
            for (int n = 0; n < ring.size(); n++)
            {
                out.add(new SlotLane.Point(ring.sequence(n), EffectText.owner(ring.stateAfter(n), ring.ownerAfter(n))));
            }
        }
        return out;
    }

    /**
     * @param id node id.
     * @return the kept effects that touched the node, oldest first.
     */
    public List<HistoryEntry> nodeHistory(final long id)
    {
        final HistoryRing ring = tree.history(id);
        return ring == null ? List.of() : ring.entries(scratch);
    }

    /**
     * @param id node id.
     * @return true when the node is in the tree now.
     */
    public boolean nodeLive(final long id)
    {
        return tree.liveNode(id) != null;
    }

    /**
     * @param id node id.
     * @return a one-line state of the node, for example {@code live parent 0 pages 3 depth 3 children 0 locks 1/0}.
     */
    public String nodeLabel(final long id)
    {
        final ShadowNode node = tree.liveNode(id);
        if (node == null)
        {
            return tree.known(id) ? "deleted" : "unknown";
        }
        final StringBuilder b = new StringBuilder("live parent ").append(node.parent).append(" pages ")
            .append(node.pages).append(" depth ").append(node.depth).append(" children ").append(node.children)
            .append(" locks ").append(node.fullLocks).append('/').append(node.mambaLocks);
        for (final long key : owners.owned(SlotState.NODE, id))
        {
            if (OwnerIndex.pool(key) == Pool.DEVICE_MAMBA)
            {
                b.append(" mamba ").append(OwnerIndex.slot(key));
            }
        }
        return b.toString();
    }

    /**
     * @return the shape of the tree now.
     */
    public TreeSummary treeSummary()
    {
        int count = 0;
        int leaves = 0;
        int withMamba = 0;
        int locked = 0;
        long maxDepth = 0;
        for (final ShadowNode node : tree.nodes())
        {
            if (!node.live)
            {
                continue;
            }
            count++;
            maxDepth = Math.max(maxDepth, node.depth);
            if (node.id != ROOT)
            {
                leaves += node.children == 0 ? 1 : 0;
                locked += node.fullLocks > 0 || node.mambaLocks > 0 ? 1 : 0;
            }
            withMamba += owners.count(SlotState.NODE, node.id, Pool.DEVICE_MAMBA) > 0 ? 1 : 0;
        }
        return new TreeSummary(count, maxDepth, leaves, withMamba, locked, tree.receiptCount());
    }

    /**
     * @return operations QUEUED or LAUNCHED now, by id.
     */
    public List<OpView> inflightOps()
    {
        final List<OpView> out = new ArrayList<>();
        for (final ShadowOp op : ops.values())
        {
            if (!op.state.live())
            {
                continue;
            }
            final List<String> targets = new ArrayList<>(op.targets.size());
            for (final OpTarget target : op.targets)
            {
                final ShadowSlot slot = slotAt(target.pool, target.slot);
                targets.add(target.role + " " + slot.subject() + " (" + slot.label() + ")");
            }
            out.add(new OpView(op.id, op.kind == null ? "?" : op.kind.name(), op.state.name(), op.owner,
                op.queuedSequence, targets));
        }
        out.sort(Comparator.comparingLong(OpView::id));
        return out;
    }

    /**
     * @return requests that have not FINISHED or ABORTED, by id, with the slots they own.
     */
    public List<RequestView> liveRequests()
    {
        final List<RequestView> out = new ArrayList<>();
        for (final ShadowRequest request : requests.values())
        {
            if (request.terminal())
            {
                continue;
            }
            final List<String> held = new ArrayList<>();
            for (final long key : owners.owned(SlotState.REQUEST, request.id))
            {
                held.add(OwnerIndex.pool(key).name() + ":" + OwnerIndex.slot(key));
            }
            out.add(new RequestView(request.id, request.state.name(), request.stateSequence, held));
        }
        out.sort(Comparator.comparingLong(RequestView::id));
        return out;
    }
}
