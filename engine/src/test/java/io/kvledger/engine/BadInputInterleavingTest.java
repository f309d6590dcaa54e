package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.SimulatedPort;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bad-input contract, black box, in the middle of real serving: a well-formed serving run (chaos: retracts and
 * aborts at every point of a request's life, failed copies, ticks) is recorded, then replayed into two engines; one
 * of them also gets, between the recorded inputs, inputs a caller must not send in the state the engine is in
 * (unknown or negative ids, double acks, acks of ops not launched or of the wrong kind, FINISH and CHUNK of requests
 * not running or with out-of-range page counts, a pass opened twice or ended when none is open, admits outside a
 * pass, untyped inputs, ...). Each of those must answer a negative result code, record no effect, leave the state
 * hash as it was and every structure valid, and the run afterwards must be exactly the twin's (same results, same
 * effects, same state hash). A third engine gets the recorded stream plus inputs of every type with extreme values in
 * every field: nothing may escape {@code apply}, every structure stays valid, and a refused one changes nothing.
 */
class BadInputInterleavingTest
{
    private static final long FRESH_ID = 7_000_000_000L;
    private static final InputType[] TYPES =
        Arrays.stream(InputType.values()).filter(t -> t != InputType.NULL_VAL).toArray(InputType[]::new);

    static Stream<Arguments> runs()
    {
        final List<Arguments> runs = new ArrayList<>();
        for (final long seed : new long[] {3, 17, 4242})
        {
            for (final boolean hybrid : new boolean[] {true, false})
            {
                for (final int rules : new int[] {2, 3})
                {
                    runs.add(Arguments.of(seed, hybrid, rules));
                }
            }
        }
        return runs.stream();
    }

    static EngineConfig config(final long seed, final boolean hybrid, final int rules)
    {
        return EngineConfig.builder().pageSize(4).hybrid(hybrid).admissionRules(rules).deviceKvPages(120)
            .deviceMambaSlots(20).hostKvPages(48).hostMambaSlots(6).maxRequests(24).maxRequestPages(16).maxOps(96)
            .prefetchThresholdPages(1).maxStagedDefers(6).prefetchPolicy(PrefetchPolicy.values()[(int)(seed % 3)])
            .seed(seed).build();
    }

    static WorkloadOptions workload(final long seed)
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.kind = WorkloadKind.RANDOM;
        o.requests = 140;
        o.promptTokens = 48;
        o.extendTokens = 12;
        o.prefixes = 3;
        o.seed = seed;
        o.chunkPages = 3;
        o.admitsPerPass = 6;
        o.failureRate = 0.05;
        o.abortWaitingRate = 0.03;
        o.abortQueuedRate = 0.1;
        o.abortLaunchedRate = 0.2;
        o.abortRunningRate = 0.05;
        o.retractQueuedRate = 0.1;
        o.retractLaunchedRate = 0.2;
        o.retractReadyRate = 0.1;
        o.tickRate = 0.2;
        o.tickPages = 6;
        return o;
    }

    /** A recorded serving run: its inputs, results and effects. */
    static final class Recording
    {
        final List<InputRecord> inputs = new ArrayList<>();
        final List<Integer> results = new ArrayList<>();
        final List<EffectList> effects = new ArrayList<>();
    }

    static Recording record(final EngineConfig config, final WorkloadOptions o)
    {
        final Recording rec = new Recording();
        final CacheStateMachine engine = new CacheStateMachine(config);
        final SimulatedPort port = new SimulatedPort(engine, (in, result, list) ->
        {
            rec.inputs.add(new InputRecord(config.maxRequestPages()).copyFrom(in));
            rec.results.add(result);
            final EffectList copy = new EffectList(Math.max(1, list.size()));
            for (int i = 0; i < list.size(); i++)
            {
                copy.addCopy(list, i);
            }
            rec.effects.add(copy);
        }, o.seed, o.failureRate, null);
        new ServingLoop(port, config, Workload.build(o)).run();
        return rec;
    }

    @ParameterizedTest(name = "seed {0} hybrid {1} rules {2}")
    @MethodSource("runs")
    void shouldRefuseBadInputsWithoutChangingAnythingInTheMiddleOfServing(final long seed, final boolean hybrid,
        final int rules)
    {
        final EngineConfig config = config(seed, hybrid, rules);
        final Recording rec = record(config, workload(seed));
        final CacheStateMachine twin = new CacheStateMachine(config);
        final CacheStateMachine subject = new CacheStateMachine(config);
        final World world = new World(config, subject);
        final SplittableRandom random = new SplittableRandom(seed * 31 + rules + (hybrid ? 7 : 0));
        final Map<String, Integer> covered = new TreeMap<>();
        for (int i = 0; i < rec.inputs.size(); i++)
        {
            final InputRecord next = rec.inputs.get(i);
            if (random.nextInt(3) == 0)
            {
                for (int k = 1 + random.nextInt(3); k > 0; k--)
                {
                    final BadInput bad = world.pick(random);
                    bad.in.sequence(next.sequence()).timestampNs(next.timestampNs());
                    final String what = "seed " + seed + " hybrid " + hybrid + " rules " + rules + " before #" +
                        next.sequence() + ": " + bad.name + " " + describe(bad.in);
                    final long before = subject.stateHash();
                    final int result;
                    try
                    {
                        result = subject.apply(bad.in);
                    }
                    catch (final RuntimeException ex)
                    {
                        throw new AssertionError(what + " threw " + ex, ex);
                    }
                    assertEquals(ResultCode.name(bad.expected), ResultCode.name(result), what);
                    assertEquals(0, subject.effects().size(), what + ": a refused input records no effect");
                    assertEquals(before, subject.stateHash(), what + ": a refused input changes nothing");
                    subject.verify();
                    covered.merge(bad.name, 1, Integer::sum);
                }
            }
            final int expected = twin.apply(next);
            final int actual = subject.apply(next);
            final String at = "seed " + seed + " hybrid " + hybrid + " rules " + rules + " recorded #" +
                next.sequence() + " " + next.type();
            assertEquals(rec.results.get(i).intValue(), expected, at + ": the twin replays the recording");
            assertEquals(expected, actual, at + ": the run goes on as without the bad inputs");
            assertEquals(-1, rec.effects.get(i).firstDifference(subject.effects()), at + ": same effects");
            world.learn(next, actual, subject.effects());
            if (i % 16 == 0 || i == rec.inputs.size() - 1)
            {
                assertEquals(twin.stateHash(), subject.stateHash(), at + ": same state as the twin");
                subject.verify();
            }
        }
        for (final String name : World.NAMES)
        {
            covered.putIfAbsent(name, 0);
        }
        final long reached = covered.values().stream().filter(n -> n > 0).count();
        assertTrue(reached >= World.NAMES.size() - 3, "variants reached: " + covered);
    }

    @ParameterizedTest(name = "seed {0} hybrid {1} rules {2}")
    @MethodSource("runs")
    void shouldNeverThrowOnAnyFieldValues(final long seed, final boolean hybrid, final int rules)
    {
        final EngineConfig config = config(seed, hybrid, rules);
        final Recording rec = record(config, workload(seed));
        final CacheStateMachine engine = new CacheStateMachine(config);
        final World world = new World(config, engine);
        final SplittableRandom random = new SplittableRandom(seed * 131 + rules + (hybrid ? 5 : 0));
        final InputRecord scratch = new InputRecord(config.maxRequestPages() + 4);
        long sequence = 0;
        for (int i = 0; i < rec.inputs.size(); i++)
        {
            final InputRecord next = rec.inputs.get(i);
            if (random.nextInt(4) == 0)
            {
                world.extreme(random, scratch.reset());
                scratch.sequence(++sequence).timestampNs(next.timestampNs());
                final int result = applyAnything(engine, scratch, "seed " + seed + " hybrid " + hybrid + " rules " +
                    rules);
                world.learn(scratch, result, engine.effects());
            }
            scratch.reset().copyFrom(next).sequence(++sequence);
            final int result = applyAnything(engine, scratch, "seed " + seed + " hybrid " + hybrid + " rules " +
                rules + " (recorded)");
            world.learn(scratch, result, engine.effects());
        }
    }

    private static int applyAnything(final CacheStateMachine engine, final InputRecord in, final String run)
    {
        final long before = engine.stateHash();
        final int result;
        try
        {
            result = engine.apply(in);
            engine.verify();
        }
        catch (final RuntimeException ex)
        {
            throw new AssertionError(run + " #" + in.sequence() + " " + describe(in) + " threw " + ex, ex);
        }
        if (result < 0)
        {
            assertEquals(0, engine.effects().size(), run + " " + describe(in) + " refused but left effects");
            assertEquals(before, engine.stateHash(), run + " " + describe(in) + " refused but changed the state");
        }
        return result;
    }

    static String describe(final InputRecord in)
    {
        return in.type() + "(request " + in.request() + ", op " + in.op() + ", ok " + in.ok() + ", " + in.value1() +
            ", " + in.value2() + ", " + in.value3() + ", " + in.value4() + ", " + in.value5() + ", " +
            in.fingerprintCount() + " pages)";
    }

    /** One input the caller must not send now, and the code the engine must answer. */
    static final class BadInput
    {
        final String name;
        final InputRecord in;
        final int expected;

        BadInput(final String name, final InputRecord in, final int expected)
        {
            this.name = name;
            this.in = in;
            this.expected = expected;
        }
    }

    /**
     * What a caller knows from the journal so far (request ids and their page counts, op ids and kinds), and the
     * engine's public view of them, to build inputs that are wrong for the state the engine is in.
     */
    static final class World
    {
        static final List<String> NAMES = List.of(
            "arrive-duplicate", "arrive-negative-id", "arrive-too-many-pages", "arrive-tail-negative",
            "arrive-tail-too-big", "arrive-max-new-negative", "arrive-empty",
            "storage-hit-unknown-op", "storage-hit-done-op", "storage-hit-wrong-kind",
            "fetch-done-unknown-op", "fetch-done-done-op", "fetch-done-wrong-kind",
            "pass-begin-twice", "pass-end-outside", "admit-outside-pass", "admit-unknown", "admit-admitted",
            "retract-unknown", "retract-not-admitted", "abort-unknown",
            "ack-unknown-op", "ack-double", "ack-query-or-fetch", "ack-not-launched",
            "progress-unknown", "progress-not-admitted", "progress-waiting-for-load", "progress-bad-pages",
            "untyped");

        private final EngineConfig config;
        private final CacheStateMachine engine;
        private final Set<Long> requests = new LinkedHashSet<>();
        private final Map<Long, Integer> pagesOf = new HashMap<>();
        private final List<Long> ended = new ArrayList<>();
        private final List<Long> opIds = new ArrayList<>();
        private final Map<Long, OpKind> kindOf = new HashMap<>();
        private final long[] extremes;
        private boolean passOpen;

        World(final EngineConfig config, final CacheStateMachine engine)
        {
            this.config = config;
            this.engine = engine;
            extremes = new long[] {0, 1, -1, 2, -2, config.pageSize() - 1, config.pageSize(), config.pageSize() + 1,
                config.maxRequestPages(), config.maxRequestPages() + 1, Integer.MAX_VALUE, Integer.MIN_VALUE,
                Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1,
                Long.MIN_VALUE + 1, 1L << 40, -(1L << 40)};
        }

        /** Follow an applied input: arrivals, ended requests, queued ops, the pass. */
        void learn(final InputRecord in, final int result, final EffectList effects)
        {
            if (in.type() == InputType.ARRIVE && result == ResultCode.OK)
            {
                requests.add(in.request());
                pagesOf.put(in.request(), in.fingerprintCount());
            }
            if (in.type() == InputType.PASS_BEGIN && result == ResultCode.OK)
            {
                passOpen = true;
            }
            if (in.type() == InputType.PASS_END && result == ResultCode.OK)
            {
                passOpen = false;
            }
            for (int i = 0; i < effects.size(); i++)
            {
                if (effects.type(i) == EffectType.OP_QUEUED)
                {
                    opIds.add(effects.id(i));
                    kindOf.put(effects.id(i), effects.opKind(i));
                }
            }
            if (requests.size() > 64)
            {
                for (final Long id : new ArrayList<>(requests))
                {
                    if (engine.requestState(id) == null)
                    {
                        requests.remove(id);
                        ended.add(id);
                    }
                }
            }
            if (opIds.size() > 256)
            {
                opIds.subList(0, 128).clear();
            }
        }

        private List<Long> live(final RequestState... states)
        {
            final List<Long> out = new ArrayList<>();
            for (final Long id : requests)
            {
                final RequestState s = engine.requestState(id);
                if (s != null && (states.length == 0 || Arrays.asList(states).contains(s)))
                {
                    out.add(id);
                }
            }
            return out;
        }

        private long endedId(final SplittableRandom random)
        {
            for (final Long id : requests)
            {
                if (engine.requestState(id) == null)
                {
                    return id;
                }
            }
            return ended.isEmpty() ? FRESH_ID + random.nextInt(1000) : ended.get(random.nextInt(ended.size()));
        }

        private long unknownRequest(final SplittableRandom random)
        {
            switch (random.nextInt(4))
            {
                case 0: return -1 - random.nextInt(3);
                case 1: return Long.MIN_VALUE;
                case 2: return FRESH_ID + random.nextInt(1000);
                default: return endedId(random);
            }
        }

        private long unknownOp(final SplittableRandom random)
        {
            switch (random.nextInt(5))
            {
                case 0: return 0;
                case 1: return -1 - random.nextInt(3);
                case 2: return Long.MIN_VALUE;
                case 3: return Long.MAX_VALUE;
                default: return engine.ops().nextId() + random.nextInt(50);
            }
        }

        private long pickExtreme(final SplittableRandom random)
        {
            return random.nextInt(4) == 0 ? random.nextLong() : extremes[random.nextInt(extremes.length)];
        }

        private InputRecord fresh()
        {
            return new InputRecord(config.maxRequestPages() + 4);
        }

        private void addPages(final InputRecord in, final SplittableRandom random, final int pages)
        {
            final long prompt = random.nextLong();
            for (int p = 0; p < pages; p++)
            {
                in.addFingerprint(prompt + p, prompt * 31 + p);
            }
        }

        /** Ops in flight of the given kinds and op state, from what the journal queued. */
        private List<Long> ops(final byte opState, final OpKind... kinds)
        {
            final List<Long> out = new ArrayList<>();
            final OpTable table = engine.ops();
            for (final Long id : opIds)
            {
                final int o = table.slotOf(id);
                if (o >= 0 && Arrays.asList(kinds).contains(table.kind(o)) &&
                    (opState < 0 || table.state(o) == opState))
                {
                    out.add(id);
                }
            }
            return out;
        }

        private List<Long> doneOps()
        {
            final List<Long> out = new ArrayList<>();
            for (final Long id : opIds)
            {
                if (engine.ops().slotOf(id) < 0)
                {
                    out.add(id);
                }
            }
            return out;
        }

        private static long any(final SplittableRandom random, final List<Long> ids)
        {
            return ids.get(random.nextInt(ids.size()));
        }

        /** A bad input that applies to the engine's state now (tries variants until one applies). */
        BadInput pick(final SplittableRandom random)
        {
            for (int attempt = 0; ; attempt++)
            {
                final BadInput bad = variant(NAMES.get(random.nextInt(NAMES.size())), random);
                if (bad != null)
                {
                    return bad;
                }
                if (attempt > 200)
                {
                    throw new IllegalStateException("no bad input applies");
                }
            }
        }

        private BadInput variant(final String name, final SplittableRandom random)
        {
            if (name.startsWith("arrive"))
            {
                return arriveVariant(name, random);
            }
            if (name.startsWith("storage") || name.startsWith("fetch") || name.startsWith("ack"))
            {
                return opVariant(name, random);
            }
            if (name.startsWith("progress") || name.equals("untyped"))
            {
                return progressVariant(name, random);
            }
            return flowVariant(name, random);
        }

        private BadInput arriveVariant(final String name, final SplittableRandom random)
        {
            final InputRecord in = fresh();
            final int page = config.pageSize();
            switch (name)
            {
                case "arrive-duplicate":
                {
                    final List<Long> live = live();
                    if (live.isEmpty())
                    {
                        return null;
                    }
                    Inputs.arrive(in, any(random, live), random.nextInt(page), random.nextInt(64), random.nextInt(3));
                    addPages(in, random, 1 + random.nextInt(config.maxRequestPages()));
                    return new BadInput(name, in, ResultCode.DUPLICATE_REQUEST);
                }
                case "arrive-negative-id":
                    Inputs.arrive(in, random.nextBoolean() ? -1 : Long.MIN_VALUE, 1, 8, 0);
                    addPages(in, random, random.nextInt(4));
                    return new BadInput(name, in, ResultCode.UNKNOWN_REQUEST);
                case "arrive-too-many-pages":
                    Inputs.arrive(in, FRESH_ID + random.nextInt(1000), random.nextInt(page), 8, 0);
                    addPages(in, random, config.maxRequestPages() + 1 + random.nextInt(4));
                    return new BadInput(name, in, ResultCode.BAD_REQUEST_SIZE);
                case "arrive-tail-negative":
                    Inputs.arrive(in, FRESH_ID + random.nextInt(1000), random.nextBoolean() ? -1 : Long.MIN_VALUE, 8,
                        0);
                    addPages(in, random, random.nextInt(4));
                    return new BadInput(name, in, ResultCode.BAD_REQUEST_SIZE);
                case "arrive-tail-too-big":
                    Inputs.arrive(in, FRESH_ID + random.nextInt(1000),
                        random.nextBoolean() ? page + random.nextInt(3) : Long.MAX_VALUE, 8, 0);
                    addPages(in, random, random.nextInt(4));
                    return new BadInput(name, in, ResultCode.BAD_REQUEST_SIZE);
                case "arrive-max-new-negative":
                    Inputs.arrive(in, FRESH_ID + random.nextInt(1000), 1, random.nextBoolean() ? -1 : Long.MIN_VALUE,
                        0);
                    addPages(in, random, random.nextInt(4));
                    return new BadInput(name, in, ResultCode.BAD_REQUEST_SIZE);
                case "arrive-empty":
                    Inputs.arrive(in, FRESH_ID + random.nextInt(1000), 0, 8, random.nextInt(3));
                    return new BadInput(name, in, ResultCode.BAD_REQUEST_SIZE);
                default:
                    throw new IllegalArgumentException(name);
            }
        }

        private BadInput opVariant(final String name, final SplittableRandom random)
        {
            final InputRecord in = fresh();
            switch (name)
            {
                case "storage-hit-unknown-op":
                    Inputs.storageHit(in, unknownOp(random), pickExtreme(random), pickExtreme(random));
                    return new BadInput(name, in, ResultCode.UNKNOWN_OP);
                case "storage-hit-done-op":
                case "fetch-done-done-op":
                case "ack-double":
                {
                    final List<Long> done = doneOps();
                    if (done.isEmpty())
                    {
                        return null;
                    }
                    final long op = any(random, done);
                    if (name.startsWith("storage"))
                    {
                        Inputs.storageHit(in, op, pickExtreme(random), pickExtreme(random));
                    }
                    else if (name.startsWith("fetch"))
                    {
                        Inputs.fetchDone(in, op, random.nextBoolean(), pickExtreme(random), random.nextBoolean());
                    }
                    else
                    {
                        Inputs.ack(in, op, random.nextBoolean());
                    }
                    return new BadInput(name, in, ResultCode.OP_ALREADY_DONE);
                }
                case "storage-hit-wrong-kind":
                {
                    final List<Long> other = ops((byte)-1, OpKind.FETCH, OpKind.LOAD, OpKind.COW, OpKind.BACKUP,
                        OpKind.STORE);
                    if (other.isEmpty())
                    {
                        return null;
                    }
                    Inputs.storageHit(in, any(random, other), pickExtreme(random), pickExtreme(random));
                    return new BadInput(name, in, ResultCode.OP_KIND_MISMATCH);
                }
                case "fetch-done-unknown-op":
                    Inputs.fetchDone(in, unknownOp(random), random.nextBoolean(), pickExtreme(random),
                        random.nextBoolean());
                    return new BadInput(name, in, ResultCode.UNKNOWN_OP);
                case "fetch-done-wrong-kind":
                {
                    final List<Long> other = ops((byte)-1, OpKind.QUERY, OpKind.LOAD, OpKind.COW, OpKind.BACKUP,
                        OpKind.STORE);
                    if (other.isEmpty())
                    {
                        return null;
                    }
                    Inputs.fetchDone(in, any(random, other), random.nextBoolean(), pickExtreme(random),
                        random.nextBoolean());
                    return new BadInput(name, in, ResultCode.OP_KIND_MISMATCH);
                }
                case "ack-unknown-op":
                    Inputs.ack(in, unknownOp(random), random.nextBoolean());
                    return new BadInput(name, in, ResultCode.UNKNOWN_OP);
                case "ack-query-or-fetch":
                {
                    final List<Long> reads = ops((byte)-1, OpKind.QUERY, OpKind.FETCH);
                    if (reads.isEmpty())
                    {
                        return null;
                    }
                    Inputs.ack(in, any(random, reads), random.nextBoolean());
                    return new BadInput(name, in, ResultCode.OP_KIND_MISMATCH);
                }
                case "ack-not-launched":
                {
                    final List<Long> queued = ops(OpTable.QUEUED, OpKind.LOAD, OpKind.COW, OpKind.BACKUP,
                        OpKind.STORE);
                    if (queued.isEmpty())
                    {
                        return null;
                    }
                    Inputs.ack(in, any(random, queued), random.nextBoolean());
                    return new BadInput(name, in, ResultCode.OP_NOT_LAUNCHED);
                }
                default:
                    throw new IllegalArgumentException(name);
            }
        }

        private BadInput flowVariant(final String name, final SplittableRandom random)
        {
            final InputRecord in = fresh();
            switch (name)
            {
                case "pass-begin-twice":
                    if (!passOpen)
                    {
                        return null;
                    }
                    Inputs.passBegin(in, pickExtreme(random), pickExtreme(random), pickExtreme(random),
                        pickExtreme(random));
                    return new BadInput(name, in, ResultCode.PASS_OPEN);
                case "pass-end-outside":
                    if (passOpen)
                    {
                        return null;
                    }
                    Inputs.passEnd(in);
                    return new BadInput(name, in, ResultCode.NOT_IN_PASS);
                case "admit-outside-pass":
                {
                    if (passOpen)
                    {
                        return null;
                    }
                    final List<Long> live = live(RequestState.WAITING, RequestState.STAGED);
                    Inputs.admit(in, live.isEmpty() ? unknownRequest(random) : any(random, live));
                    return new BadInput(name, in, ResultCode.NOT_IN_PASS);
                }
                case "admit-unknown":
                    if (!passOpen)
                    {
                        return null;
                    }
                    Inputs.admit(in, unknownRequest(random));
                    return new BadInput(name, in, ResultCode.UNKNOWN_REQUEST);
                case "admit-admitted":
                {
                    final List<Long> admitted = live(RequestState.ADMITTED, RequestState.RUNNING);
                    if (!passOpen || admitted.isEmpty())
                    {
                        return null;
                    }
                    Inputs.admit(in, any(random, admitted));
                    return new BadInput(name, in, ResultCode.REQUEST_STATE);
                }
                case "retract-unknown":
                    Inputs.retract(in, unknownRequest(random));
                    return new BadInput(name, in, ResultCode.UNKNOWN_REQUEST);
                case "retract-not-admitted":
                {
                    final List<Long> others = live(RequestState.WAITING, RequestState.STAGED, RequestState.RUNNING);
                    if (others.isEmpty())
                    {
                        return null;
                    }
                    Inputs.retract(in, any(random, others));
                    return new BadInput(name, in, ResultCode.REQUEST_STATE);
                }
                case "abort-unknown":
                    Inputs.abort(in, unknownRequest(random), pickExtreme(random), pickExtreme(random),
                        pickExtreme(random));
                    return new BadInput(name, in, ResultCode.UNKNOWN_REQUEST);
                default:
                    throw new IllegalArgumentException(name);
            }
        }

        private BadInput progressVariant(final String name, final SplittableRandom random)
        {
            final InputRecord in = fresh();
            switch (name)
            {
                case "progress-unknown":
                    progress(in, random, unknownRequest(random), pickExtreme(random), pickExtreme(random));
                    return new BadInput(name, in, ResultCode.UNKNOWN_REQUEST);
                case "progress-not-admitted":
                {
                    final List<Long> waiting = live(RequestState.WAITING, RequestState.STAGED);
                    if (waiting.isEmpty())
                    {
                        return null;
                    }
                    final long id = any(random, waiting);
                    progress(in, random, id, pagesOf.get(id), pagesOf.get(id));
                    return new BadInput(name, in, ResultCode.REQUEST_STATE);
                }
                case "progress-waiting-for-load":
                {
                    final List<Long> loading = new ArrayList<>();
                    for (final Long id : live(RequestState.ADMITTED, RequestState.RUNNING))
                    {
                        if (engine.loadOpOf(id) >= 0 || engine.cowOpOf(id) >= 0)
                        {
                            loading.add(id);
                        }
                    }
                    if (loading.isEmpty())
                    {
                        return null;
                    }
                    final long id = any(random, loading);
                    progress(in, random, id, pagesOf.get(id), pagesOf.get(id));
                    return new BadInput(name, in, ResultCode.REQUEST_STATE);
                }
                case "progress-bad-pages":
                {
                    final List<Long> ready = new ArrayList<>();
                    for (final Long id : live(RequestState.ADMITTED, RequestState.RUNNING))
                    {
                        if (engine.loadOpOf(id) < 0 && engine.cowOpOf(id) < 0)
                        {
                            ready.add(id);
                        }
                    }
                    if (ready.isEmpty())
                    {
                        return null;
                    }
                    final long id = any(random, ready);
                    final long pages = pagesOf.get(id);
                    final long computed;
                    final long tracked;
                    switch (random.nextInt(6))
                    {
                        case 0:
                            computed = -1 - random.nextInt(3);
                            tracked = 0;
                            break;
                        case 1:
                            computed = pages + 1 + random.nextInt(3);
                            tracked = random.nextInt((int)pages + 1);
                            break;
                        case 2:
                            computed = random.nextInt((int)pages + 1);
                            tracked = -1;
                            break;
                        case 3:
                            computed = random.nextInt((int)pages + 1);
                            tracked = computed + 1 + random.nextInt(3);
                            break;
                        case 4:
                            computed = random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
                            tracked = random.nextBoolean() ? Long.MAX_VALUE : 0;
                            break;
                        default:
                            computed = Integer.MAX_VALUE + 1L + pages;
                            tracked = pages;
                            break;
                    }
                    progress(in, random, id, computed, tracked);
                    return new BadInput(name, in, ResultCode.BAD_REQUEST_SIZE);
                }
                case "untyped":
                    in.type(InputType.NULL_VAL).request(any(random, new ArrayList<>(requestsOrFresh(random))))
                        .op(random.nextBoolean() ? unknownOp(random) : opIds.isEmpty() ? 1 : any(random, opIds))
                        .value1(pickExtreme(random)).value2(pickExtreme(random)).value3(pickExtreme(random))
                        .ok(random.nextBoolean());
                    return new BadInput(name, in, ResultCode.REQUEST_STATE);
                default:
                    throw new IllegalArgumentException(name);
            }
        }

        private Set<Long> requestsOrFresh(final SplittableRandom random)
        {
            return requests.isEmpty() ? Set.of(FRESH_ID + random.nextInt(1000)) : requests;
        }

        private void progress(final InputRecord in, final SplittableRandom random, final long request,
            final long computed, final long tracked)
        {
            if (random.nextBoolean())
            {
                Inputs.chunk(in, request, computed, tracked, pickExtreme(random), pickExtreme(random),
                    pickExtreme(random));
            }
            else
            {
                Inputs.finish(in, request, computed, tracked, pickExtreme(random), pickExtreme(random),
                    pickExtreme(random));
            }
        }

        /** Any input type with ids from what the journal showed and extreme values in every field. */
        void extreme(final SplittableRandom random, final InputRecord in)
        {
            final List<Long> live = live();
            final long request = random.nextInt(3) == 0 || live.isEmpty() ? pickExtreme(random) : any(random, live);
            final long op = random.nextInt(3) == 0 || opIds.isEmpty() ? pickExtreme(random) : any(random, opIds);
            final InputType type = TYPES[random.nextInt(TYPES.length)];
            in.type(type).request(type == InputType.ARRIVE && random.nextBoolean() ? FRESH_ID + random.nextInt(1000) :
                request).op(op).ok(random.nextBoolean()).value1(small(random)).value2(small(random))
                .value3(small(random)).value4(small(random)).value5(small(random));
            if (type == InputType.ARRIVE)
            {
                addPages(in, random, random.nextInt(config.maxRequestPages() + 3));
            }
            else if (random.nextInt(4) == 0)
            {
                addPages(in, random, random.nextInt(4));
            }
        }

        private long small(final SplittableRandom random)
        {
            return random.nextBoolean() ? pickExtreme(random) : random.nextInt(config.maxRequestPages() + 2);
        }
    }
}
