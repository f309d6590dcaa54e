package io.kvledger.replay.check;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks that run at the end of each document: the I19 short OP_TARGET block, I13 for targets queued FREE,
 * I12/I9 for what a backup, copy-on-write, load or storage write queued in it reads,
 * launches in the queuing document and confirmed suspicions, I17 stale cursors, I3 admitted prefixes, I16
 * undefined Mamba content at a request's first forward, I9/I12 slot leaks and I5 lock leaks of ended ops and
 * requests (and host staging past a HOLD_DROPPED), I2/I4/I14 node ownership, I18 pool conservation; then the
 * retirement of ended ops, requests and touched nodes.
 */
final class EndOfDocumentRules extends ShadowPart
{
    private final OpRules opRules;

    EndOfDocumentRules(final ShadowState state, final OpRules opRules)
    {
        super(state);
        this.opRules = opRules;
    }

    void endOfDocument()
    {
        if (scope.targetsRemaining > 0)
        {
            final ShadowOp op = scope.expectingTargets;
            opFinding(Invariant.I19, op.id, "OP_QUEUED declared " + op.declaredTargets + " targets but only " +
                (op.declaredTargets - scope.targetsRemaining) + " OP_TARGETs followed");
        }
        for (int opIndex = 0; opIndex < scope.queued.size(); opIndex++)
        {
            final ShadowOp op = scope.queued.get(opIndex);
            if (op.state.live())
            {
                settleQueuedTargets(op);
            }
        }
        for (int opIndex = 0; opIndex < scope.launchedSameDocument.size(); opIndex++)
        {
            final ShadowOp op = scope.launchedSameDocument.get(opIndex);
            if (op.state == ShadowOp.State.LAUNCHED)
            {
                opRules.checkLaunch(op);
            }
        }
        for (int suspicionIndex = 0; suspicionIndex < scope.suspicions.size(); suspicionIndex++)
        {
            final DocumentScope.Suspicion suspicion = scope.suspicions.get(suspicionIndex);
            if (suspicion.target().op.state.live() && !suspicion.target().reported)
            {
                suspicion.target().lapse();
                slotFinding(Invariant.I13, suspicion.slot(), suspicion.explanation());
            }
        }
        checkOpUnlocks();
        checkHandedOver();
        checkCursors();
        checkAdmittedPrefixes();
        checkStartedRequests();
        for (int opIndex = 0; opIndex < scope.ended.size(); opIndex++)
        {
            final ShadowOp op = scope.ended.get(opIndex);
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
    void checkAdmittedPrefixes()
    {
        for (int admittedIndex = 0; admittedIndex < admittedPrefixes.size(); admittedIndex++)
        {
            final long[] admitted = admittedPrefixes.get(admittedIndex);
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
            else if (pages >= 0)
            {
                checkPathLoaded(request, node);
            }
        }
        admittedPrefixes.clear();
    }

    /**
     * I3, the pages are present: no node on an admitted request's matched path still has a device KV page that
     * another request's queued or launched load writes (a node filled by a load is invisible to matching until its
     * ack, DESIGN "Admit"); the request would read pages the copy has not written yet.
     */
    private void checkPathLoaded(final long request, final long node)
    {
        for (long n = node; n != ROOT; n = tree.node(n).parent)
        {
            final OwnerIndex.SlotSet keys = owners.keys(SlotState.NODE, n);
            for (int k = 0, size = keys.size(); k < size; k++)
            {
                final long key = keys.key(k);
                if (OwnerIndex.pool(key) != Pool.DEVICE_KV)
                {
                    continue;
                }
                final ShadowSlot slot = slotAt(Pool.DEVICE_KV, OwnerIndex.slot(key));
                if (!slot.hasTargets())
                {
                    continue;
                }
                for (final OpTarget target : slot.liveTargets)
                {
                    final ShadowOp op = target.op;
                    if (op.kind == OpKind.LOAD && target.write() && op.state.live() && op.owner != request)
                    {
                        requestFinding(Invariant.I3, request, "admitted on node " + node + " whose path holds " +
                            slot.subject() + " of node " + n + ", which " + op.label() + " (" + op.state +
                            ") still writes: the matched pages are not loaded yet");
                        return;
                    }
                }
            }
        }
    }

    /** I16: a request's first forward reads only Mamba slots whose content is defined (reset or copied in). */
    void checkStartedRequests()
    {
        for (final long request : startedRequests)
        {
            final OwnerIndex.SlotSet keys = owners.keys(SlotState.REQUEST, request);
            for (int k = 0, size = keys.size(); k < size; k++)
            {
                final long key = keys.key(k);
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

    void settleQueuedTargets(final ShadowOp op)
    {
        boolean readReported = false;
        for (final OpTarget target : op.targets)
        {
            final ShadowSlot slot = slotAt(target.pool, target.slot);
            if (!target.write() && slot.state != SlotState.FREE && !readReported)
            {
                readReported = checkRead(op, slot);
            }
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

    /**
     * The data an op reads belongs to its declared source: a backup's to its node ({@link #backupMayRead}, I12), a
     * copy-on-write's Mamba source to the checkpoint node the copy locks (I12), and the host staging a load or a
     * storage write reads to the op itself, handed over by its request's hold or its backup (I9: host staging).
     *
     * @return whether a violation was reported.
     */
    private boolean checkRead(final ShadowOp op, final ShadowSlot slot)
    {
        if (op.kind == OpKind.BACKUP && !backupMayRead(op, slot))
        {
            slotFinding(Invariant.I12, slot, op.label() + " of node " + op.owner + " was queued to read it but " +
                "it is " + slot.label() + ": a backup copies " + (slot.pool == Pool.DEVICE_MAMBA ?
                "its node's own Mamba checkpoint" : "KV pages of its node's path") + " only");
            return true;
        }
        if (op.kind == OpKind.COW && slot.pool == Pool.DEVICE_MAMBA && !cowMayRead(op, slot))
        {
            slotFinding(Invariant.I12, slot, op.label() + " of request " + op.owner + " was queued to read it but " +
                "it is " + slot.label() + ": a copy-on-write copies the Mamba checkpoint of the node it locks " +
                "only");
            return true;
        }
        if ((op.kind == OpKind.LOAD || op.kind == OpKind.STORE) && isHost(slot.pool) &&
            (slot.state != SlotState.OP || slot.owner != op.id))
        {
            slotFinding(Invariant.I9, slot, op.label() + " was queued to read it but it is " + slot.label() + ": " +
                (op.kind == OpKind.LOAD ? "a load reads the staging its request's hold handed to it" :
                "a storage write reads the staging its backup handed to it") + " only");
            return true;
        }
        return false;
    }

    private static boolean isHost(final Pool pool)
    {
        return pool == Pool.HOST_KV || pool == Pool.HOST_MAMBA;
    }

    /**
     * I12: a copy-on-write reads the Mamba state of the checkpoint node it locks (DESIGN "Admit": the checkpoint is
     * locked until the copy's ack, and the copy holds that lock). A copy that holds no Mamba lock is judged by I7;
     * here it may read any node's checkpoint, never a request's slot.
     */
    private boolean cowMayRead(final ShadowOp op, final ShadowSlot slot)
    {
        if (slot.state != SlotState.NODE)
        {
            return false;
        }
        boolean locks = false;
        for (final LockReceipt receipt : tree.heldBy(SlotState.OP, op.id))
        {
            if (receipt.component() == Component.MAMBA)
            {
                if (receipt.node() == slot.owner)
                {
                    return true;
                }
                locks = true;
            }
        }
        return !locks;
    }

    /**
     * I12: the device data a backup reads belongs to its node, as DESIGN has it (the new pages of a cached node and
     * its checkpoint): a device Mamba slot owned by that node, KV pages owned by it or by an ancestor on its path.
     * A slot still owned by a request (a missing donation) is stored to L3 as the node's data while the request
     * keeps writing it.
     */
    private boolean backupMayRead(final ShadowOp op, final ShadowSlot slot)
    {
        if (slot.pool != Pool.DEVICE_KV && slot.pool != Pool.DEVICE_MAMBA)
        {
            return true;
        }
        if (slot.state != SlotState.NODE)
        {
            return false;
        }
        if (slot.pool == Pool.DEVICE_MAMBA)
        {
            return slot.owner == op.owner;
        }
        final ShadowNode node = tree.liveNode(op.owner);
        if (node == null)
        {
            return true;
        }
        return tree.onPath(node, slot.owner);
    }

    void checkCursors()
    {
        if (scope.ownerChangedMamba.isEmpty() && scope.loadWrittenMamba.isEmpty())
        {
            return;
        }
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

    /**
     * I7: a load, copy or backup holds its lock on the node it fills or reads until its ack or cancel (DESIGN); one
     * released in a document that leaves the op queued or launched exposes the node to eviction under the copy.
     */
    void checkOpUnlocks()
    {
        for (int i = 0; i < scope.opUnlocks.size(); i++)
        {
            final LockReceipt receipt = scope.opUnlocks.get(i);
            final ShadowOp op = ops.get(receipt.holder());
            if (op != null && op.state.live())
            {
                nodeFinding(Invariant.I7, receipt.node(), receipt.label() + " released while " + op.label() +
                    " is still " + op.state + " (since #" + op.stateSequence + "): the node can be evicted under " +
                    "the copy before its ack");
            }
        }
    }

    /**
     * I9 (host staging) / I12 (device): a slot handed to a request or an op in this document, and still held by it at
     * the end, has an owner that exists: a request that arrived, an op that was queued and has not ended (an op that
     * ended in this document is judged by the leak rules; a request already ended, and PENDING_FREE for an op not in
     * flight, are reported at the transition).
     */
    void checkHandedOver()
    {
        for (int i = 0; i < scope.handedOver.size(); i++)
        {
            final ShadowSlot slot = scope.handedOver.get(i);
            String dead = null;
            if (slot.state == SlotState.REQUEST && findRequest(slot.owner) == null)
            {
                dead = "request " + slot.owner + " never arrived";
            }
            else if (slot.state == SlotState.OP)
            {
                final ShadowOp op = ops.get(slot.owner);
                if (op == null || !op.state.live() && !scope.ended.contains(op))
                {
                    dead = "op " + slot.owner + " is not in flight (never queued, or ended before)";
                }
            }
            if (dead != null && scope.handedOver.indexOf(slot) == i)
            {
                final boolean host = slot.pool == Pool.HOST_KV || slot.pool == Pool.HOST_MAMBA;
                slotFinding(host ? Invariant.I9 : Invariant.I12, slot, "handed to " + slot.label() + " but " + dead +
                    ": the slot has no owner to free it");
            }
        }
    }

    void checkEndedOp(final ShadowOp op)
    {
        if (ops.get(op.id) != op)
        {
            return;
        }
        // The texts are built only for a leak: this runs for every op that ends.
        if (owners.owns(SlotState.OP, op.id))
        {
            leaks(owners.owned(SlotState.OP, op.id), "owned by " + op.label(), op.state + " at #" +
                op.stateSequence);
        }
        if (owners.owns(SlotState.PENDING_FREE, op.id))
        {
            leaks(owners.owned(SlotState.PENDING_FREE, op.id), "parked for " + op.label(),
                op.state + " at #" + op.stateSequence);
        }
        // Every kind: a backup holds its node's lock until its ack too (DESIGN, I7), and must release it there.
        for (final LockReceipt receipt : tree.heldBy(SlotState.OP, op.id))
        {
            nodeFinding(Invariant.I5, receipt.node(), receipt.label() + " still held after the op ended " +
                op.state + ": the lock leaks and the node can never be evicted");
        }
    }

    void checkEndedRequest(final long id)
    {
        final ShadowRequest request = requests.get(id);
        if (request == null || !request.terminal())
        {
            return;
        }
        if (owners.owns(SlotState.REQUEST, id))
        {
            checkHeld(id, true, true, "after it " + request.state);
        }
        for (final LockReceipt receipt : tree.heldBy(SlotState.REQUEST, id))
        {
            nodeFinding(Invariant.I5, receipt.node(), receipt.label() + " still held after request " + id + " " +
                request.state + ": the lock leaks and the node can never be evicted");
        }
    }

    void checkHeld(final long request, final boolean host, final boolean device, final String when)
    {
        if (!owners.owns(SlotState.REQUEST, request))
        {
            return;
        }
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
    void leaks(final Iterable<Long> keys, final String held, final String when)
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

    void checkNode(final long id)
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

    void checkConservation()
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

    void retire()
    {
        for (int opIndex = 0; opIndex < scope.ended.size(); opIndex++)
        {
            final ShadowOp op = scope.ended.get(opIndex);
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
}
