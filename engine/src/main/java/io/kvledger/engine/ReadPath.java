package io.kvledger.engine;

import io.kvledger.engine.util.IndexList;

import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.ResultCode;

import io.kvledger.engine.util.Hashing;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalFrame;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;

/**
 * The L3 read path: an ARRIVE queries L3 for the pages past the usable device prefix, a STORAGE_HIT either starts
 * the fetch into host staging or parks the hit, a FETCH_DONE turns the staging into the request's hold (STAGED);
 * a TICK evicts unlocked device pages (which may free staging) and retries the parked hits.
 * Owns the parked-hit FIFO (an {@link IndexList} over request slots, in the shared {@link ApplyState}) and the
 * retry of parked hits whenever staging frees ({@link #drainParkedHits()}, which then lets the write path flush its
 * backlog).
 * <p>
 * Decisions:
 * <ul>
 * <li>Parked hits wait in a FIFO over request slots that holds them all; a request that gives
 * its hit up leaves it at once; the head is retried whenever staging frees.</li>
 * <li>The device prefix under an L3 hit is locked from the query until admission or until the hit is given up, so
 * a staged hold's prefix cannot shrink (the PREFIX_SHRUNK drop remains only as a guard).</li>
 * <li>Namespaces: page keys are the caller's fingerprints XOR a per-namespace salt (none for namespace 0), so
 * tenants never share a node or an L3 key whatever fingerprints they pass.</li>
 * </ul>
 */
final class ReadPath extends Flow
{
    private final IndexList parked;
    private final MatchResult match;
    /** The match of a hit checked against the device, apart from {@link #match}, which another input may hold. */
    private final MatchResult hitMatch = new MatchResult();
    private OpCompletion completion;
    private WritePath write;

    /**
     * @param state the state holder shared with the other flows.
     */
    ReadPath(final ApplyState state)
    {
        super(state);
        parked = state.parked;
        match = state.match;
    }

    /** Wire the flows this one hands work to (once, at construction of the state machine). */
    void wire(final OpCompletion completion, final WritePath write)
    {
        this.completion = completion;
        this.write = write;
    }

    @Override
    void register(final InputHandlers handlers)
    {
        handlers.on(InputType.ARRIVE, this::onArrive);
        handlers.on(InputType.STORAGE_HIT, this::onStorageHit);
        handlers.on(InputType.FETCH_DONE, this::onFetchDone);
        handlers.on(InputType.TICK, this::onTick);
    }

    int onArrive(final InputRecord in)
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
        final long tailTokens = Inputs.tailTokens(in);
        final long maxNewTokens = Inputs.maxNewTokens(in);
        if (pages > requests.maxPages() || tailTokens < 0 || tailTokens >= config.pageSize() || maxNewTokens < 0 ||
            (0 == pages && 0 == tailTokens))
        {
            // an empty prompt (no page, no tail token) has nothing to look up, compute or cache
            return ResultCode.BAD_REQUEST_SIZE;
        }
        if (requests.full())
        {
            return ResultCode.TOO_MANY_REQUESTS;
        }
        final int r = requests.add(requestId);
        final int off = requests.offset(r);
        final long namespace = Inputs.namespace(in);
        final long saltHi = namespaceSalt(namespace, 0);
        final long saltLo = namespaceSalt(namespace, 1);
        for (int i = 0; i < pages; i++)
        {
            requests.fpHi[off + i] = in.fingerprintHi(i) ^ saltHi;
            requests.fpLo[off + i] = in.fingerprintLo(i) ^ saltLo;
        }
        requests.namespace[r] = namespace;
        requests.pages[r] = pages;
        requests.tailTokens[r] = (int)tailTokens;
        requests.maxNewTokens[r] = maxNewTokens;
        requests.arrivalNs[r] = state.nowNs;
        effects.requestState(requestId, RequestState.NULL_VAL, RequestState.WAITING);

        final int usable = state.usableDevicePrefix(r);
        final int reusable = state.reusablePages(r);
        requests.queryStart[r] = usable;
        final boolean wantsQuery = reusable - usable >= Math.max(1, config.prefetchThresholdPages());
        if (wantsQuery && ops.full())
        {
            // the decision follows from the journaled state (replay skips it too); the counter makes it visible
            counters.queriesSkipped++;
        }
        else if (wantsQuery)
        {
            final int o = ops.add(OpKind.QUERY, requestId);
            for (int i = usable; i < reusable; i++)
            {
                ops.addMove(o, OpTable.L3, NONE, (byte)NONE, NONE, requests.fpHi[off + i], requests.fpLo[off + i]);
            }
            requests.queryOp[r] = ops.id[o];
            effects.opQueued(ops.id[o], OpKind.QUERY, requestId, 0, reusable - usable);
            ops.advance(o, OpTable.LAUNCHED);
            counters.queries++;
            pinPrefix(r, usable, match);
        }
        return ResultCode.OK;
    }

    /**
     * The salt that keeps namespaces apart inside the engine, whatever fingerprints a caller passes: every page key
     * is the caller's fingerprint XOR a per-namespace constant (zero for namespace 0, so the default namespace keys
     * are the caller's own). Equal fingerprints in two namespaces are different keys, so their pages live in
     * disjoint subtrees under the root and never match across tenants; the L3 keys follow the same rule.
     */
    private static long namespaceSalt(final long namespace, final int word)
    {
        return namespace == 0 ? 0 : Hashing.mixGamma(namespace * 2 + word);
    }

    /**
     * Pin the device prefix an L3 hit will be spliced onto, from its query until the request is admitted or gives
     * the hit up, as SGLang pins it by default: eviction can then never shrink the prefix under a staged hold.
     */
    private void pinPrefix(final int r, final int usable, final MatchResult matched)
    {
        if (usable <= 0)
        {
            return;
        }
        int node = matched.node;
        int end = matched.nodePages;
        if (usable > end)
        {
            node = matched.partialNode;
        }
        else
        {
            while (node != RadixTree.ROOT && end - tree.pageCount(node) >= usable)
            {
                end -= tree.pageCount(node);
                node = tree.parent(node);
            }
        }
        requests.prefixReceipt[r] = tree.acquire(node, Component.FULL, SlotState.REQUEST, requests.id[r]);
    }

    // ------------------------------------------------------------------------------------------------ storage

    int onStorageHit(final InputRecord in)
    {
        final int o = ops.slotOf(in.op());
        final int check = completion.checkOp(o, in.op(), OpKind.QUERY);
        if (check != ResultCode.OK)
        {
            return check;
        }
        final long requestId = ops.request[o];
        final boolean failed = Inputs.queryFailed(in);
        completion.completeOp(o, !failed);
        final int r = requests.slotOf(requestId);
        if (r == NONE || requests.queryOp[r] != in.op() || requests.state[r] != RequestState.WAITING)
        {
            return ResultCode.OK;
        }
        requests.queryOp[r] = NONE;
        if (failed)
        {
            // The store could not answer (a timeout, a lost connection): journaled as a failed query; the request
            // goes on with its device prefix and recomputes the rest.
            counters.queriesFailed++;
            state.unpinPrefix(r);
            return ResultCode.OK;
        }
        final int present =
            (int)Math.min(Math.max(0, Inputs.presentPages(in)), state.reusablePages(r) - requests.queryStart[r]);
        final int mambaPresent = (int)Math.min(Math.max(0, Inputs.mambaPages(in)), present);
        int usable = present;
        for (final TreeComponent c : components)
        {
            usable = Math.min(usable, c.usableHit(present, mambaPresent));
        }
        counters.hitPagesReported += present;
        if (usable <= 0)
        {
            if (present > 0)
            {
                effects.holdDropped(requestId, Reason.NO_CHECKPOINT, present);
                counters.drops++;
            }
            state.unpinPrefix(r);
            return ResultCode.OK;
        }
        requests.parkStart[r] = requests.queryStart[r];
        requests.parkPages[r] = usable;
        if (config.rules().hitCommitChecksDevice() && !trimToDevice(r))
        {
            return ResultCode.OK;
        }
        if (!stagingEverFits(requests.parkPages[r]))
        {
            // More than host staging can ever hold (all-or-nothing, cut at a checkpoint): parked, it would sit at
            // the head of the FIFO for ever and starve every later hit. Dropped; the request recomputes.
            effects.holdDropped(requestId, Reason.STAGING_TOO_SMALL, requests.parkPages[r]);
            requests.parkPages[r] = 0;
            counters.drops++;
            state.unpinPrefix(r);
            return ResultCode.OK;
        }
        if (parked.size() > 0 || !stagingAvailable(requests.parkPages[r]) || ops.full())
        {
            parkHit(r);
        }
        else
        {
            startFetch(r);
        }
        return ResultCode.OK;
    }

    /**
     * The hit-commit gates on the device ({@link AdmissionRules#hitCommitChecksDevice()}), on the hit recorded in the
     * request's park fields: declined (HOLD_DROPPED DEVICE_COVERED, the prefix pin released) when the usable device
     * prefix now reaches the hit's end; started at the usable device prefix, the pin moved there, when the prefix
     * now ends inside the hit. The hit's end, a checkpoint in a hybrid model, is kept.
     *
     * @return false when the hit was declined (its park fields cleared).
     */
    private boolean trimToDevice(final int r)
    {
        final int start = requests.parkStart[r];
        final int end = start + requests.parkPages[r];
        // a parked hit is retried in the middle of other inputs (an admission that drops a hold, an ack), whose
        // decision holds the shared match: this one goes into its own
        final int usable = state.usableDevicePrefix(r, hitMatch);
        if (usable >= end)
        {
            effects.holdDropped(requests.id[r], Reason.DEVICE_COVERED, requests.parkPages[r]);
            requests.parkPages[r] = 0;
            counters.drops++;
            state.unpinPrefix(r);
            return false;
        }
        if (usable > start)
        {
            // the new pin is taken before the old one goes, so the prefix is never unpinned in between
            final long previous = requests.prefixReceipt[r];
            requests.prefixReceipt[r] = NONE;
            pinPrefix(r, usable, hitMatch);
            if (previous != NONE)
            {
                tree.release(previous);
            }
            requests.parkStart[r] = usable;
            requests.parkPages[r] = end - usable;
        }
        return true;
    }

    private boolean stagingEverFits(final int hitPages)
    {
        for (final TreeComponent c : components)
        {
            if (c.stagingLimit(false) < c.stagingNeeded(hitPages))
            {
                return false;
            }
        }
        return true;
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
        if (config.fault(FaultSwitch.PARKED_HIT_NEVER_SERVED) && parked.size() > 0)
        {
            // The bug this switch restores: a bounded ring that overwrote a live entry, so the hit is never served.
            effects.hitParked(requests.id[r], requests.parkPages[r]);
            return;
        }
        EngineBugException.require(!parked.contains(r), "request slot parked twice:", r, requests.id[r]);
        parked.append(r);
        effects.hitParked(requests.id[r], requests.parkPages[r]);
    }

    /** The request gives its parked hit up (admitted without it, aborted, finished). */
    void unpark(final int r)
    {
        requests.parkPages[r] = 0;
        if (parked.contains(r))
        {
            parked.remove(r);
        }
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
        state.recordQueued(o, requestId);
        ops.advance(o, OpTable.LAUNCHED);
        counters.fetches++;
    }

    /**
     * Time passes: a positive {@link Inputs#evictPages} evicts up to that many unlocked device pages, which may free
     * the staging parked hits wait for, so the FIFO (then the backup backlog) is retried.
     */
    int onTick(final InputRecord in)
    {
        final long evictPages = Inputs.evictPages(in);
        if (evictPages > 0)
        {
            // As many as one journal document can record the effects of (a flush of a larger tree takes more ticks).
            tree.evictPages((int)Math.min(evictPages, Integer.MAX_VALUE), state.ignoreOpLocks,
                JournalFrame.MAX_GROUP_COUNT);
        }
        drainParkedHits();
        return ResultCode.OK;
    }

    /** Staging was freed: retry parked hits (head first), then queued backups, while staging lasts. */
    void drainParkedHits()
    {
        drainParkedReads();
        write.flushBackups();
    }

    private void drainParkedReads()
    {
        int r = parked.head();
        while (r != NONE)
        {
            EngineBugException.require(requests.parkPages[r] > 0 && requests.state[r] == RequestState.WAITING,
                "parked hit of a request that gave it up:", requests.id[r], r);
            if (config.rules().hitCommitChecksDevice() && !trimToDevice(r))
            {
                parked.remove(r);
                r = parked.head();
                continue;
            }
            if (!stagingAvailable(requests.parkPages[r]) || ops.full() || !state.documentHolds(requests.parkPages[r]))
            {
                return;
            }
            parked.remove(r);
            startFetch(r);
            r = parked.head();
        }
    }

    int onFetchDone(final InputRecord in)
    {
        final int o = ops.slotOf(in.op());
        final int check = completion.checkOp(o, in.op(), OpKind.FETCH);
        if (check != ResultCode.OK)
        {
            return check;
        }
        final long requestId = ops.request[o];
        final int r = requests.slotOf(requestId);
        final boolean wanted = r != NONE && requests.fetchOp[r] == in.op() &&
            requests.state[r] == RequestState.WAITING;
        final boolean complete = in.ok() && Inputs.pagesRead(in) >= ops.pagesMoved[o] &&
            (!config.hybrid() || Inputs.mambaRead(in));
        if (!wanted || !complete)
        {
            final int pages = ops.pagesMoved[o];
            completion.completeOp(o, in.ok());
            if (wanted)
            {
                requests.fetchOp[r] = NONE;
                effects.holdDropped(requestId, Reason.FETCH_SHORT, pages);
                state.unpinPrefix(r);
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
            state.poolOf(ops.dstPool(o, m)).move(ops.dstSlot(o, m), SlotState.REQUEST, requestId);
            requests.holdSlotPool[requests.holdOffset(r) + m] = ops.dstPool(o, m);
            requests.holdSlot[requests.holdOffset(r) + m] = ops.dstSlot(o, m);
        }
        requests.holdSlotCount[r] = moves;
        ops.complete(o, true);
        ops.remove(o);
        effects.holdStaged(requestId, in.op(), requests.holdPages[r], requests.holdStart[r]);
        state.setState(r, RequestState.STAGED);
        counters.holdsStaged++;
        return ResultCode.OK;
    }
}
