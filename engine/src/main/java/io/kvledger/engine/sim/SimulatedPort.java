package io.kvledger.engine.sim;

import io.kvledger.engine.api.DataPlane;
import io.kvledger.engine.api.Decision;
import io.kvledger.engine.api.DecisionFiller;
import io.kvledger.engine.api.EnginePort;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.OpTable;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;

import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * The deterministic mode: the controller, the device and the L3 store in one thread on a virtual clock. Each
 * launched operation completes after a seeded delay, moving content tags exactly as the real data plane moves
 * bytes, and its completion is applied as an input like any other. The same seed gives the same journal.
 * <p>
 * Optionally verifies every structure after every input ({@link #verifyEachInput}), which is what the seeded
 * tests do.
 */
public final class SimulatedPort implements EnginePort
{
    private static final long STEP_NS = 250_000L;

    private static final class Completion implements Comparable<Completion>
    {
        final long dueNs;
        final long order;
        final long op;
        final OpKind kind;
        final boolean ok;

        Completion(final long dueNs, final long order, final long op, final OpKind kind, final boolean ok)
        {
            this.dueNs = dueNs;
            this.order = order;
            this.op = op;
            this.kind = kind;
            this.ok = ok;
        }

        @Override
        public int compareTo(final Completion o)
        {
            final int c = Long.compare(dueNs, o.dueNs);
            return c != 0 ? c : Long.compare(order, o.order);
        }
    }

    private final CacheStateMachine engine;
    private final DocumentSink sink;
    private final TagDataPlane data;
    private final SplittableRandom random;
    private final double failureRate;
    private final double[] failureRates = new double[OpKind.values().length];
    private double slowRate;
    private long burstNs;
    private final PriorityQueue<Completion> pending = new PriorityQueue<>();
    private final L3Tags store;
    private final InputRecord completionInput;
    private final Decision scratchDecision;
    private long order;
    private long sequence;
    private long nowNs;
    private long completions;
    private long writeBacks;
    private boolean verifyEachInput;
    private long movedBytes;
    private final EngineConfig config;

    /**
     * @param engine      the controller.
     * @param sink        where documents go (the journal).
     * @param seed        seed of delays and failures.
     * @param failureRate probability that a copy or storage op fails.
     * @param store       the simulated L3 content (shared between runs to model a store that outlives them), or null
     *                    for an empty one.
     */
    public SimulatedPort(final CacheStateMachine engine, final DocumentSink sink, final long seed,
        final double failureRate, final L3Tags store)
    {
        this.engine = engine;
        this.sink = sink;
        this.config = engine.config();
        this.random = new SplittableRandom(seed ^ 0xD15C_0000L);
        this.failureRate = failureRate;
        java.util.Arrays.fill(failureRates, failureRate);
        this.store = null != store ? store : new L3Tags();
        data = new TagDataPlane(config.deviceKvPages(), config.deviceMambaSlots(), config.hostKvPages(),
            config.hostMambaSlots());
        completionInput = new InputRecord(1);
        scratchDecision = new Decision(config.maxRequestPages());
    }

    /**
     * @param verify whether to run every structure's verify() after each input (tests).
     * @return this.
     */
    public SimulatedPort verifyEachInput(final boolean verify)
    {
        this.verifyEachInput = verify;
        return this;
    }

    /**
     * @param kind op kind (a query never fails).
     * @param rate probability that an op of this kind completes with an error (replaces the common rate).
     * @return this.
     */
    public SimulatedPort failureRate(final OpKind kind, final double rate)
    {
        failureRates[kind.ordinal()] = rate;
        return this;
    }

    /**
     * @param rate probability that an op takes 20 times its usual delay (a slow copy or a slow store); 0 draws
     *             nothing, so the delays are those of a run without it.
     * @return this.
     */
    public SimulatedPort slowRate(final double rate)
    {
        this.slowRate = rate;
        return this;
    }

    /**
     * @param ns completions are due at the next multiple of this (0: each at its own time); a device or store that
     *           completes in batches, so several loads and fetches finish in the same step and race in one pass.
     * @return this.
     */
    public SimulatedPort burstNs(final long ns)
    {
        this.burstNs = ns;
        return this;
    }

    /** @return bytes the simulated data plane moved. */
    public long movedBytes()
    {
        return movedBytes;
    }

    /** @return the controller. */
    public CacheStateMachine engine()
    {
        return engine;
    }

    @Override
    public int submit(final InputRecord in, final Decision decision)
    {
        in.sequence(++sequence).timestampNs(nowNs);
        final int result = engine.apply(in);
        sink.append(in, result, engine.effects());
        if (verifyEachInput)
        {
            try
            {
                engine.verify();
            }
            catch (final IllegalStateException ex)
            {
                throw new IllegalStateException("after input #" + in.sequence() + " " + in.type() + ": " +
                    ex.getMessage(), ex);
            }
        }
        DecisionFiller.fill(engine, in, result, decision);
        scheduleLaunched(engine.effects());
        return result;
    }

    private void scheduleLaunched(final EffectList effects)
    {
        for (int i = 0; i < effects.size(); i++)
        {
            if (effects.type(i) == EffectType.OP_LAUNCHED)
            {
                final OpKind kind = effects.opKind(i);
                final long delay = slowRate > 0 && random.nextDouble() < slowRate ? 20 * delayNs(kind) : delayNs(kind);
                final double rate = failureRates[kind.ordinal()];
                final boolean ok = kind == OpKind.QUERY || rate <= 0 || random.nextDouble() >= rate;
                final long due = burstNs > 0 ? ((nowNs + delay) / burstNs + 1) * burstNs : nowNs + delay;
                pending.add(new Completion(due, order++, effects.id(i), kind, ok));
            }
        }
    }

    private long delayNs(final OpKind kind)
    {
        switch (kind)
        {
            case QUERY: return 200_000 + random.nextLong(600_000);
            case FETCH: return 1_000_000 + random.nextLong(3_000_000);
            case LOAD: return 100_000 + random.nextLong(500_000);
            case COW: return 20_000 + random.nextLong(60_000);
            case BACKUP: return 100_000 + random.nextLong(400_000);
            default: return 1_000_000 + random.nextLong(4_000_000);
        }
    }

    @Override
    public long completions()
    {
        return completions;
    }

    @Override
    public long writeBacks()
    {
        return writeBacks;
    }

    @Override
    public void pump(final OpListener listener)
    {
        nowNs += STEP_NS;
        while (!pending.isEmpty() && pending.peek().dueNs <= nowNs)
        {
            final Completion c = pending.poll();
            complete(c, listener);
        }
    }

    private void complete(final Completion c, final OpListener listener)
    {
        final OpTable ops = engine.ops();
        final int o = ops.slotOf(c.op);
        if (o < 0)
        {
            return;
        }
        final InputRecord in = completionInput.reset();
        switch (c.kind)
        {
            case QUERY:
                query(ops, o, in, c.op);
                break;
            case FETCH:
                fetch(ops, o, c.ok, in, c.op);
                break;
            case STORE:
                if (c.ok)
                {
                    for (int m = 0; m < ops.moveCount(o); m++)
                    {
                        final boolean state = ops.srcPool(o, m) == Pool.HOST_MAMBA.value();
                        store.put(ops.keyHi(o, m), ops.keyLo(o, m), state,
                            data.tag(ops.srcPool(o, m), ops.srcSlot(o, m)));
                        movedBytes += state ? config.mambaStateBytes() : config.kvPageBytes();
                    }
                }
                Inputs.ack(in, c.op, c.ok);
                break;
            default:
                if (c.ok)
                {
                    for (int m = 0; m < ops.moveCount(o); m++)
                    {
                        data.copy(ops.srcPool(o, m), ops.srcSlot(o, m), ops.dstPool(o, m), ops.dstSlot(o, m));
                        movedBytes += ops.dstPool(o, m) == Pool.DEVICE_MAMBA.value() ||
                            ops.dstPool(o, m) == Pool.HOST_MAMBA.value() ?
                            config.mambaStateBytes() : config.kvPageBytes();
                    }
                }
                Inputs.ack(in, c.op, c.ok);
                break;
        }
        submit(in, scratchDecision);
        completions++;
        if (c.kind == OpKind.BACKUP || c.kind == OpKind.STORE)
        {
            writeBacks++;
        }
        if (c.kind == OpKind.LOAD || c.kind == OpKind.COW)
        {
            listener.onOpDone(c.op, c.ok);
        }
    }

    private void query(final OpTable ops, final int o, final InputRecord in, final long op)
    {
        int present = 0;
        int statePages = 0;
        for (int m = 0; m < ops.moveCount(o); m++)
        {
            final long hi = ops.keyHi(o, m);
            final long lo = ops.keyLo(o, m);
            if (!store.contains(hi, lo, false))
            {
                break;
            }
            present++;
            if (!config.hybrid() || store.contains(hi, lo, true))
            {
                statePages = present;
            }
        }
        Inputs.storageHit(in, op, present, statePages);
    }

    private void fetch(final OpTable ops, final int o, final boolean ok, final InputRecord in, final long op)
    {
        int pages = 0;
        boolean state = false;
        boolean broken = false;
        if (ok)
        {
            for (int m = 0; m < ops.moveCount(o); m++)
            {
                final boolean isState = ops.dstPool(o, m) == Pool.HOST_MAMBA.value();
                final int slot = store.find(ops.keyHi(o, m), ops.keyLo(o, m), isState);
                if (slot < 0)
                {
                    broken |= !isState;
                    continue;
                }
                data.tag(ops.dstPool(o, m), ops.dstSlot(o, m), store.tagAt(slot, isState));
                movedBytes += isState ? config.mambaStateBytes() : config.kvPageBytes();
                if (isState)
                {
                    state = true;
                }
                else if (!broken)
                {
                    pages++;
                }
            }
        }
        Inputs.fetchDone(in, op, ok, pages, state);
    }

    @Override
    public long nowNs()
    {
        return nowNs;
    }

    @Override
    public DataPlane dataPlane()
    {
        return data;
    }

    @Override
    public boolean busy()
    {
        return !pending.isEmpty();
    }
}
