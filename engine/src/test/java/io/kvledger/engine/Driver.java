package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.SlotState;

/**
 * Drives a {@link CacheStateMachine} input by input for scenario tests: stamps sequences and times, keeps a copy
 * of the last input's effects, and pulls op ids out of them.
 */
final class Driver
{
    final CacheStateMachine engine;
    final InputRecord in;
    final EffectList last = new EffectList(64);
    /** Time stamped on the next inputs; negative for one millisecond per sequence. */
    long nowNs = -1;
    private long sequence;
    private final boolean verify;

    Driver(final EngineConfig config, final boolean verify)
    {
        engine = new CacheStateMachine(config);
        in = new InputRecord(config.maxRequestPages());
        this.verify = verify;
    }

    int apply(final InputRecord input)
    {
        ++sequence;
        input.sequence(sequence).timestampNs(nowNs >= 0 ? nowNs : sequence * 1_000_000L);
        final int result = engine.apply(input);
        last.clear();
        for (int i = 0; i < engine.effects().size(); i++)
        {
            last.addCopy(engine.effects(), i);
        }
        if (verify)
        {
            engine.verify();
        }
        return result;
    }

    /** Arrive with {@code pages} distinct pages derived from {@code seed}; returns the query op id or -1. */
    long arrive(final long request, final long seed, final int pages)
    {
        return arrive(request, seed, pages, 0);
    }

    /** Arrive in a namespace; the fingerprints depend on {@code seed} only, as a caller passing its own would. */
    long arrive(final long request, final long seed, final int pages, final long namespace)
    {
        return arrive(request, seed, pages, 0, 8, namespace);
    }

    /** Arrive with a tail of tokens after the full pages and a max of new tokens. */
    long arrive(final long request, final long seed, final int pages, final long tail, final long maxNewTokens,
        final long namespace)
    {
        Inputs.arrive(in.reset(), request, tail, maxNewTokens, namespace);
        for (int i = 0; i < pages; i++)
        {
            in.addFingerprint(seed * 1_000_003L + i, (seed << 20) ^ (i * 0x9E3779B97F4A7C15L));
        }
        check(apply(in), ResultCode.OK);
        return opId(EffectType.OP_QUEUED, OpKind.QUERY);
    }

    /** Arrive with the first {@code shared} pages of {@code seed}'s run, then pages of {@code otherSeed}'s. */
    long arriveSharing(final long request, final long seed, final int shared, final long otherSeed, final int pages)
    {
        Inputs.arrive(in.reset(), request, 0, 8, 0);
        for (int i = 0; i < pages; i++)
        {
            final long s = i < shared ? seed : otherSeed;
            in.addFingerprint(s * 1_000_003L + i, (s << 20) ^ (i * 0x9E3779B97F4A7C15L));
        }
        check(apply(in), ResultCode.OK);
        return opId(EffectType.OP_QUEUED, OpKind.QUERY);
    }

    long storageHit(final long queryOp, final int present, final int statePages)
    {
        check(apply(Inputs.storageHit(in.reset(), queryOp, present, statePages)), ResultCode.OK);
        return opId(EffectType.OP_QUEUED, OpKind.FETCH);
    }

    void fetchDone(final long fetchOp, final int pages)
    {
        check(apply(Inputs.fetchDone(in.reset(), fetchOp, true, pages, true)), ResultCode.OK);
    }

    /** Arrive, hit L3 for every page with a state at the end, stage the hit. */
    void staged(final long request, final long seed, final int pages)
    {
        final long query = arrive(request, seed, pages);
        final long fetch = storageHit(query, pages, pages);
        fetchDone(fetch, pages);
    }

    /** Arrive and answer the query with no hit. */
    void cold(final long request, final long seed, final int pages)
    {
        final long query = arrive(request, seed, pages);
        if (query >= 0)
        {
            storageHit(query, 0, 0);
        }
    }

    /** Arrive cold, be admitted alone in a pass and finish: the request's pages are cached on the device. */
    void cached(final long request, final long seed, final int pages)
    {
        cold(request, seed, pages);
        passBegin();
        check(admit(request), ResultCode.OK);
        passEnd();
        check(finish(request, pages, 0, 0, 0), ResultCode.OK);
    }

    void fetchFailed(final long fetchOp)
    {
        check(apply(Inputs.fetchDone(in.reset(), fetchOp, false, 0, false)), ResultCode.OK);
    }

    void tick(final long evictPages)
    {
        check(apply(Inputs.tick(in.reset(), evictPages)), ResultCode.OK);
    }

    int abort(final long request)
    {
        return apply(Inputs.abort(in.reset(), request, 0, 0, 0));
    }

    /** Owner of the first OP_QUEUED of a kind in the last input, or -1. */
    long queuedOwner(final OpKind kind)
    {
        for (int i = 0; i < last.size(); i++)
        {
            if (last.type(i) == EffectType.OP_QUEUED && last.opKind(i) == kind)
            {
                return last.owner(i);
            }
        }
        return -1;
    }

    /** Prefix pages of the first ADMITTED in the last input, or -1. */
    long admittedPrefix()
    {
        return EffectLookup.firstValue1(last, EffectType.ADMITTED);
    }

    void passBegin()
    {
        passBegin(1 << 30, 1 << 30, 1 << 30);
    }

    /** Begin a pass with these token, input-token and chunk-token budgets. */
    void passBegin(final long tokens, final long inputTokens, final long chunkTokens)
    {
        check(apply(Inputs.passBegin(in.reset(), 64, tokens, inputTokens, chunkTokens)), ResultCode.OK);
    }

    void passEnd()
    {
        check(apply(Inputs.passEnd(in.reset())), ResultCode.OK);
    }

    int admit(final long request)
    {
        return apply(Inputs.admit(in.reset(), request));
    }

    int retract(final long request)
    {
        return apply(Inputs.retract(in.reset(), request));
    }

    int ack(final long op, final boolean ok)
    {
        return apply(Inputs.ack(in.reset(), op, ok));
    }

    int chunk(final long request, final int pages)
    {
        return apply(Inputs.chunk(in.reset(), request, pages, pages, 0, 0, 0));
    }

    int finish(final long request, final int pages, final long writePos, final long cacheBase, final long isFlush)
    {
        return apply(Inputs.finish(in.reset(), request, pages, pages, writePos, cacheBase, isFlush));
    }

    /**
     * Ack every launched backup and store, again and again, until none is in flight (at most 64 rounds): the nodes
     * they locked unlock and their staging is freed.
     */
    void drainWrites()
    {
        final OpTable ops = engine.ops();
        for (int round = 0; round < 64; round++)
        {
            long op = -1;
            for (int o = 0; o < engine.config().maxOps() && op < 0; o++)
            {
                if ((ops.kind(o) == OpKind.BACKUP || ops.kind(o) == OpKind.STORE) && ops.state(o) == OpTable.LAUNCHED)
                {
                    op = ops.id(o);
                }
            }
            if (op < 0)
            {
                return;
            }
            check(ack(op, true), ResultCode.OK);
        }
    }

    /** Id of the first effect of a type (and op kind) in the last input, or -1. */
    long opId(final EffectType type, final OpKind kind)
    {
        return EffectLookup.firstId(last, type, kind);
    }

    /** The load op the last Admit queued, or -1. */
    long admittedLoad()
    {
        return EffectLookup.firstId(last, EffectType.ADMITTED, null);
    }

    boolean has(final EffectType type)
    {
        return count(type) > 0;
    }

    int count(final EffectType type)
    {
        int n = 0;
        for (int i = 0; i < last.size(); i++)
        {
            if (last.type(i) == type)
            {
                n++;
            }
        }
        return n;
    }

    Reason reasonOf(final EffectType type)
    {
        for (int i = 0; i < last.size(); i++)
        {
            if (last.type(i) == type)
            {
                return last.reason(i);
            }
        }
        return null;
    }

    /** Whether the last input's effects list the op writing the slot. */
    boolean opWrites(final long op, final Pool pool, final int slot)
    {
        final OpTable ops = engine.ops();
        final int o = ops.slotOf(op);
        if (o < 0)
        {
            return false;
        }
        for (int m = 0; m < ops.moveCount(o); m++)
        {
            if (ops.dstPool(o, m) == pool.value() && ops.dstSlot(o, m) == slot)
            {
                return true;
            }
        }
        return false;
    }

    SlotState mambaState(final int slot)
    {
        return engine.pool(Pool.DEVICE_MAMBA).state(slot);
    }

    long mambaOwner(final int slot)
    {
        return engine.pool(Pool.DEVICE_MAMBA).owner(slot);
    }

    private static void check(final int actual, final int expected)
    {
        if (actual != expected)
        {
            throw new AssertionError("result " + ResultCode.name(actual) + ", expected " + ResultCode.name(expected));
        }
    }
}
