package io.kvledger.engine.sim;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.PrefetchPolicy;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Thousands of requests through arrive, storage, admit, launch, ack and finish with random delays, retracts,
 * aborts, op failures and memory pressure, verifying every structure after every input. Fixed seeds in CI;
 * {@code -Psoak} runs many more.
 */
class SeededSimulationTest
{
    static LongStream seeds()
    {
        final boolean soak = Boolean.getBoolean("kvledger.soak");
        return soak ? LongStream.rangeClosed(1, 200) : LongStream.of(1, 7, 42, 1825793762L);
    }

    static EngineConfig pressured(final long seed, final PrefetchPolicy policy)
    {
        return EngineConfig.builder().pageSize(8).deviceKvPages(384).deviceMambaSlots(20).hostKvPages(192)
            .hostMambaSlots(6).maxRequests(512).maxRequestPages(48).maxOps(512).prefetchThresholdPages(2)
            .maxStagedDefers(8).prefetchPolicy(policy).seed(seed).build();
    }

    static WorkloadOptions randomWorkload(final long seed)
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.kind = WorkloadKind.RANDOM;
        o.requests = 600;
        o.promptTokens = 256;
        o.extendTokens = 96;
        o.seed = seed;
        o.retractRate = 0.5;
        o.abortRate = 0.05;
        o.failureRate = 0.03;
        o.admitsPerPass = 12;
        o.chunkPages = 8;
        return o;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldKeepEveryInvariantUnderRandomServing(final long seed)
    {
        final PrefetchPolicy policy = PrefetchPolicy.values()[(int)(seed % 3)];
        final CacheStateMachine engine = new CacheStateMachine(pressured(seed, policy));
        final DebugSink debug = new DebugSink(6);
        final WorkloadOptions o = randomWorkload(seed);
        final SimulatedPort port = new SimulatedPort(engine, debug, seed, o.failureRate, null).verifyEachInput(true);
        final ServingLoop loop = new ServingLoop(port, engine.config(), Workload.build(o));
        final RunSummary summary;
        try
        {
            summary = loop.run();
        }
        catch (final RuntimeException ex)
        {
            throw new AssertionError("seed " + seed + ": " + ex.getMessage() + "\n" + debug.dump(), ex);
        }
        assertEquals(o.requests + 8, summary.finished + summary.aborted + summary.rejected, "seed " + seed);
        assertEquals(0, loop.mismatches().size(), () -> "seed " + seed + " " + loop.mismatches());
        assertEquals(0, engine.liveRequests(), "seed " + seed);
        assertEquals(0, engine.inFlightOps(), "seed " + seed);
        assertTrue(engine.counters().aborts > 0, "seed " + seed + " must exercise aborts");
        // Each staged load is retracted with probability 0.5: a seed with 8 loads and none retracted is a 1 in 256
        // chance (with 4 it was 1 in 16, and 3 of the 200 soak seeds had 4 loads and no retract once admission rules
        // 3 kept more checkpoints and so needed fewer loads).
        assertTrue(engine.counters().loads < 8 || engine.counters().retracts > 0,
            "seed " + seed + " must exercise retracts of staged loads (" + engine.counters().loads + " loads)");
    }

    /** Records every document of a run. */
    static final class Recorder implements DocumentSink
    {
        final List<InputRecord> inputs = new ArrayList<>();
        final List<EffectList> effects = new ArrayList<>();
        final List<Integer> results = new ArrayList<>();
        final int maxPages;

        Recorder(final int maxPages)
        {
            this.maxPages = maxPages;
        }

        @Override
        public void append(final InputRecord input, final int resultCode, final EffectList list)
        {
            inputs.add(new InputRecord(maxPages).copyFrom(input));
            final EffectList copy = new EffectList(Math.max(1, list.size()));
            for (int i = 0; i < list.size(); i++)
            {
                copy.addCopy(list, i);
            }
            effects.add(copy);
            results.add(resultCode);
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldReproduceEffectsAndStateHashFromRecordedInputs(final long seed)
    {
        final EngineConfig config = pressured(seed, PrefetchPolicy.WAIT_COMPLETE);
        final CacheStateMachine live = new CacheStateMachine(config);
        final Recorder recorder = new Recorder(config.maxRequestPages());
        final WorkloadOptions o = randomWorkload(seed);
        o.requests = 400;
        new ServingLoop(new SimulatedPort(live, recorder, seed, o.failureRate, null), config, Workload.build(o)).run();

        final CacheStateMachine replay = new CacheStateMachine(config);
        for (int i = 0; i < recorder.inputs.size(); i++)
        {
            final int result = replay.apply(recorder.inputs.get(i));
            assertEquals(recorder.results.get(i), result, "result of document " + (i + 1));
            assertEquals(-1, replay.effects().firstDifference(recorder.effects.get(i)),
                "effects of document " + (i + 1));
        }
        assertEquals(live.stateHash(), replay.stateHash());
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldWriteIdenticalDocumentsForTheSameSeed(final long seed)
    {
        final EngineConfig config = pressured(seed, PrefetchPolicy.BEST_EFFORT);
        final Recorder a = new Recorder(config.maxRequestPages());
        final Recorder b = new Recorder(config.maxRequestPages());
        final WorkloadOptions o = randomWorkload(seed);
        o.requests = 300;
        new ServingLoop(new SimulatedPort(new CacheStateMachine(config), a, seed, o.failureRate, null), config,
            Workload.build(o)).run();
        new ServingLoop(new SimulatedPort(new CacheStateMachine(config), b, seed, o.failureRate, null), config,
            Workload.build(o)).run();
        assertEquals(a.inputs.size(), b.inputs.size());
        for (int i = 0; i < a.inputs.size(); i++)
        {
            assertTrue(a.inputs.get(i).sameAs(b.inputs.get(i)), "input of document " + (i + 1));
            assertEquals(-1, a.effects.get(i).firstDifference(b.effects.get(i)), "effects of document " + (i + 1));
        }
    }
}
