package io.kvledger.engine;

import io.kvledger.engine.util.IndexList;

import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.ResultCode;

import io.kvledger.engine.util.Hashing;
import io.kvledger.engine.slot.MambaCursors;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.RequestState;

/**
 * The controller: one pure, deterministic {@link #apply(InputRecord)} that turns an input into a result code and
 * an ordered list of effects, changing state only through those effects (every structure records its change in
 * the same call that makes it). The live loop and replay both call it; it has no threads, clocks, I/O or
 * randomness: time is the input's timestamp.
 * <p>
 * The read path (buffer-only host mode) and the write path follow shared/DESIGN.md; component specifics sit
 * behind {@link TreeComponent}. Engine thread only; allocation-free in steady state.
 * <p>
 * {@code apply} hands each input to the flow it concerns, as Aeron's consensus module agent hands work to its
 * election and timer service, through one table indexed by input type ({@link InputHandlers}) that each flow fills
 * with the types it handles ({@link Flow#register}) when the state machine is built; a type claimed twice fails the
 * construction, a type nobody claims is refused (REQUEST_STATE). The flows share one state holder
 * ({@link ApplyState}: configuration, pools, tree, request and op tables, effects, counters, sequence and time,
 * pass budgets, running count):
 * <ul>
 * <li>{@link ReadPath}: ARRIVE, STORAGE_HIT, FETCH_DONE, TICK (eviction, then the retry of what waits for
 * staging); the parked-hit FIFO.</li>
 * <li>{@link Admission}: PASS_BEGIN, ADMIT, PASS_END; the pass budgets and the loads queued for PASS_END.</li>
 * <li>{@link RequestLifecycle}: RETRACT, ABORT; dropping a hold, finishing a request.</li>
 * <li>{@link OpCompletion}: ACK; settling or rolling back an op.</li>
 * <li>{@link WritePath}: CHUNK, FINISH; the backup backlog.</li>
 * </ul>
 * Decisions where the design is silent, taken as the domain reference implies, each written on the flow it
 * concerns:
 * <ul>
 * <li>Loads and copy-on-write launch at PassEnd, storage ops as queued; an Admit waits at most 5 ms for the L3
 * query; copy-on-write is decided at admission ({@link Admission}).</li>
 * <li>A request stays ADMITTED after PassEnd until its first Chunk or Finish ({@link RequestLifecycle}).</li>
 * <li>Chunk and Finish wait for the request's own load or copy; only pages new to the tree are backed up, an
 * oversize backup is dropped ({@link WritePath}).</li>
 * <li>A state-only load attaches at the ack; a loading node is invisible until then ({@link OpCompletion}).</li>
 * <li>Parked hits wait in one FIFO; the prefix under an L3 hit is locked until admission; namespaces salt the
 * page keys ({@link ReadPath}).</li>
 * <li>Fail-stop: inputs are validated up front (a negative result, nothing changed); past that, every internal
 * mutator's result is checked and a refusal throws {@link EngineBugException} (the runtime stops). Op states move
 * only through {@link OpTable#advance}.</li>
 * </ul>
 */
public final class CacheStateMachine
{
    private static final int NONE = ApplyState.NONE;

    private final ApplyState state;
    private final EngineConfig config;
    private final EffectList effectList;
    private final RadixTree tree;
    private final RequestTable requests;
    private final OpTable ops;
    private final IndexList parked;
    private final EngineCounters counters;
    private final ReadPath read;
    private final Admission admission;
    private final RequestLifecycle lifecycle;
    private final OpCompletion completion;
    private final WritePath write;
    private final InputHandlers handlers = new InputHandlers();

    /**
     * @param config engine configuration.
     * @throws IllegalArgumentException when a component refuses the configuration (buffer-only fence).
     */
    public CacheStateMachine(final EngineConfig config)
    {
        this.config = config;
        state = new ApplyState(config);
        effectList = state.effectList;
        tree = state.tree;
        requests = state.requests;
        ops = state.ops;
        parked = state.parked;
        counters = state.counters;
        read = new ReadPath(state);
        admission = new Admission(state);
        lifecycle = new RequestLifecycle(state);
        completion = new OpCompletion(state);
        write = new WritePath(state);
        read.wire(completion, write);
        admission.wire(read, lifecycle);
        lifecycle.wire(read, completion);
        completion.wire(read, write, lifecycle);
        write.wire(read, completion, lifecycle);
        read.register(handlers);
        admission.register(handlers);
        lifecycle.register(handlers);
        completion.register(handlers);
        write.register(handlers);
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
        return state.sequence;
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
        return state.pool(pool);
    }

    /** @return ReplaySSM cursors of the device Mamba slots, or null for a pure-attention configuration. */
    public MambaCursors cursors()
    {
        return state.cursors;
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

    /** @return ops launched whose completion has not been applied (queued ones launch at the pass's end). */
    public int launchedOps()
    {
        return ops.launchedCount();
    }

    /** @return L3 hits parked until host staging frees (read-only, for live counters). */
    public int parkedHits()
    {
        return parked.size();
    }

    /** @return backups waiting for host staging (read-only, for live counters). */
    public int backupBacklog()
    {
        return write.backlogCount();
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
     * @param requestId request id.
     * @return the tree node the request holds its lock on (the end of its cached prefix), or -1.
     */
    public int lockedNodeOf(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? NONE : requests.lockedNode[r];
    }

    /**
     * @param requestId request id.
     * @return pages of the request's staged hold in host staging (0 when it holds none, or it is not live).
     */
    public int holdPagesOf(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? 0 : requests.holdPages[r];
    }

    /**
     * @param requestId request id.
     * @return index of the first page of the request's staged hold (meaningful while {@link #holdPagesOf} > 0), or
     * -1 when it is not live.
     */
    public int holdStartOf(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? NONE : requests.holdStart[r];
    }

    /**
     * @param requestId request id.
     * @return how many times in a row admission deferred the request's staged hold (0 when it is not live).
     */
    public int deferCountOf(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? 0 : requests.deferCount[r];
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
     * Device KV page of a live request's tail, the tokens after its last full page (admission rules 2, once
     * admitted).
     *
     * @param requestId request id.
     * @return the device KV page, or -1 (no tail, not admitted, or rules 1).
     */
    public int requestTailPage(final long requestId)
    {
        final int r = requests.slotOf(requestId);
        return r == NONE ? NONE : requests.tailPage[r];
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
        return r == NONE ? NONE : state.requestSlot(r, false);
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
        return r == NONE ? NONE : state.requestSlot(r, true);
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
        state.sequence = in.sequence();
        state.nowNs = in.timestampNs();
        final int result;
        try
        {
            result = handlers.dispatch(in);
        }
        catch (final RuntimeException ex)
        {
            throw EngineBugException.from(ex).at(in.sequence(), in.type(), in.request(), in.op());
        }
        counters.onApplied(in.type(), result, effectList);
        return result;
    }

    /** @return the dispatch table (tests check that every input type has its one handler). */
    InputHandlers handlers()
    {
        return handlers;
    }

    /**
     * Tests only: check the match memo and the inserts started at a locked node against full walks as they run.
     *
     * @param on whether to check.
     */
    void crossCheckWalks(final boolean on)
    {
        state.crossCheckWalks = on;
    }

    /**
     * Tests only: how many walk shortcuts {@link #crossCheckWalks} checked.
     *
     * @param kind 0: match memo hits; 1: inserts from a locked node; 2: admissions filled from the match's page ids.
     * @return the count.
     */
    long walkChecks(final int kind)
    {
        return kind == 0 ? state.memoChecks : kind == 1 ? state.lockedPathChecks : state.pathIdChecks;
    }

    /**
     * Check every structure's invariants (tests and replay only; O(n)).
     *
     * @throws IllegalStateException naming the broken rule.
     */
    public void verify()
    {
        tree.verify();
        state.kvPool.verify();
        state.hostKvPool.verify();
        if (state.mambaPool != null)
        {
            state.mambaPool.verify();
            state.hostMambaPool.verify();
        }
        for (final TreeComponent c : state.components)
        {
            c.verify(requests);
        }
        if (state.running < 0)
        {
            throw new IllegalStateException("running count " + state.running + " < 0 at sequence " + state.sequence);
        }
        verifyParkedHits();
    }

    /** Every parked hit belongs to a live, waiting request that still wants it, and every such request is parked. */
    private void verifyParkedHits()
    {
        int inList = 0;
        for (int r = parked.head(); r != NONE; r = parked.next(r))
        {
            if (!requests.live(r) || requests.state[r] != RequestState.WAITING || requests.parkPages[r] <= 0)
            {
                throw new IllegalStateException("parked hit of request slot " + r + " that gave it up, at sequence " +
                    state.sequence);
            }
            inList++;
        }
        int wanting = 0;
        for (int r = 0; r < requests.capacity(); r++)
        {
            if (requests.live(r) && requests.parkPages[r] > 0)
            {
                wanting++;
            }
        }
        if (inList != parked.size() || (wanting != inList && !config.fault(FaultSwitch.PARKED_HIT_NEVER_SERVED)))
        {
            throw new IllegalStateException(wanting + " requests wait for staging but " + inList +
                " hits are parked, at sequence " + state.sequence);
        }
    }

    /**
     * A hash of all state decisions depend on: tree, pools, cursors, requests (with their budgets, arrival time,
     * L3 query, fetch and hold, page keys), ops, components, the running count, the parked hits in order, the pass
     * budgets, the backup backlog and the loads queued for PASS_END.
     *
     * @return a hash of the whole state that two engines fed the same inputs agree on.
     */
    public long stateHash()
    {
        long h = tree.stateHash();
        h = Hashing.mixGamma(h ^ state.kvPool.stateHash());
        h = Hashing.mixGamma(h ^ state.hostKvPool.stateHash());
        if (state.mambaPool != null)
        {
            h = Hashing.mixGamma(h ^ state.mambaPool.stateHash());
            h = Hashing.mixGamma(h ^ state.hostMambaPool.stateHash());
            h = Hashing.mixGamma(h ^ state.cursors.stateHash());
        }
        h = Hashing.mixGamma(h ^ requests.stateHash());
        h = Hashing.mixGamma(h ^ ops.stateHash());
        for (final TreeComponent c : state.components)
        {
            h = Hashing.mixGamma(h ^ c.stateHash());
        }
        h = Hashing.mixGamma(h ^ state.running ^ ((long)parked.size() << 32) ^ ((long)write.backlogCount() << 48));
        for (int r = parked.head(); r != NONE; r = parked.next(r))
        {
            h = Hashing.mixGamma(h ^ requests.id[r] ^ ((long)requests.parkPages[r] << 40));
        }
        h = Hashing.mixGamma(h ^ (state.passOpen ? 1 : 0) ^ (state.passMaxRunning << 1) ^ (state.passAdmitted << 20));
        h = Hashing.mixGamma(h ^ state.passTokens);
        h = Hashing.mixGamma(h ^ state.passInputTokens);
        h = Hashing.mixGamma(h ^ state.passChunkTokens);
        return admission.hashQueued(write.hashBacklog(h));
    }
}
