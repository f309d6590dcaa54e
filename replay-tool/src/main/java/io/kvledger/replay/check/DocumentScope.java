package io.kvledger.replay.check;

import io.kvledger.journal.InputRecord;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one document did that the end-of-document rules need: nodes touched, slots that must be clean, suspected
 * I13 breaks, ops queued, launched and ended, holds dropped, requests ended and splits.
 * Cleared at the start of every document.
 */
final class DocumentScope
{
    /** A WRITE (or launched READ) target that changed hands; a violation if its op is still live at the end. */
    record Suspicion(OpTarget target, ShadowSlot slot, String explanation)
    {
    }

    /** A node split in this document and the new parent that took its first pages. */
    record SplitPair(long node, long newParent)
    {
    }

    long sequence;
    InputRecord input;
    final OrderedLongSet touchedNodes = new OrderedLongSet();
    final Set<Integer> ownerChangedMamba = new LinkedHashSet<>();
    final Map<Integer, ShadowOp> loadWrittenMamba = new LinkedHashMap<>();
    final List<Suspicion> suspicions = new ArrayList<>();
    final List<ShadowOp> queued = new ArrayList<>();
    final List<ShadowOp> launchedSameDocument = new ArrayList<>();
    final List<ShadowOp> ended = new ArrayList<>();
    /** Locks an op released in this document: a violation (I7) if the op is still live at the end. */
    final List<LockReceipt> opUnlocks = new ArrayList<>();
    /** Slots handed to a request or an op in this document: that owner must exist at the end. */
    final List<ShadowSlot> handedOver = new ArrayList<>();
    final OrderedLongSet droppedHolds = new OrderedLongSet();
    final OrderedLongSet endedRequests = new OrderedLongSet();
    /** Requests with an ADMITTED decision in this document. */
    final OrderedLongSet admittedDecisions = new OrderedLongSet();
    /** Requests moved to ADMITTED by a REQUEST_STATE in this document. */
    final OrderedLongSet admittedStates = new OrderedLongSet();
    /** Ops named by an OP_ACKED, OP_FAILED or OP_CANCELLED in this document (legal or not). */
    final OrderedLongSet completedOps = new OrderedLongSet();
    /** Whether this document's REQUEST_STATE effects created the request its ARRIVE names. */
    boolean arrivalStated;
    final Set<SplitPair> splitPairs = new HashSet<>();
    ShadowOp expectingTargets;
    long targetsRemaining;

    void begin(final long sequence, final InputRecord input)
    {
        this.sequence = sequence;
        this.input = input;
        touchedNodes.clear();
        if (!ownerChangedMamba.isEmpty())
        {
            ownerChangedMamba.clear();
        }
        if (!loadWrittenMamba.isEmpty())
        {
            loadWrittenMamba.clear();
        }
        suspicions.clear();
        queued.clear();
        launchedSameDocument.clear();
        ended.clear();
        if (!opUnlocks.isEmpty())
        {
            opUnlocks.clear();
        }
        if (!handedOver.isEmpty())
        {
            handedOver.clear();
        }
        droppedHolds.clear();
        endedRequests.clear();
        admittedDecisions.clear();
        admittedStates.clear();
        arrivalStated = false;
        completedOps.clear();
        if (!splitPairs.isEmpty())
        {
            splitPairs.clear();
        }
        expectingTargets = null;
        targetsRemaining = 0;
    }

    void split(final long node, final long newParent)
    {
        splitPairs.add(new SplitPair(node, newParent));
    }

    boolean splitMove(final long fromNode, final long toNode)
    {
        return splitPairs.contains(new SplitPair(fromNode, toNode));
    }

    void touch(final long node)
    {
        if (node >= 0)
        {
            touchedNodes.add(node);
        }
    }
}
