package io.kvledger.engine.sim;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.PrefetchPolicy;

import java.util.ArrayList;
import java.util.List;

/**
 * A deterministic serving run recorded as its input sequence (and effects), to feed benchmarks ({@code kvledger
 * bench}, JMH) and the allocation check the same realistic stream of inputs. Single-threaded.
 */
public final class RecordedRun
{
    public final EngineConfig config;
    public final List<InputRecord> inputs = new ArrayList<>();
    public final List<EffectList> effects = new ArrayList<>();

    private RecordedRun(final EngineConfig config)
    {
        this.config = config;
    }

    /**
     * @param kind     workload.
     * @param requests requests.
     * @param seed     seed.
     * @return the recorded run.
     */
    public static RecordedRun record(final WorkloadKind kind, final int requests, final long seed)
    {
        final EngineConfig config = EngineConfig.builder().pageSize(64).deviceKvPages(4096).deviceMambaSlots(64)
            .hostKvPages(8192).hostMambaSlots(256).maxRequests(1024).maxRequestPages(80).maxOps(2048)
            .prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE).seed(seed).build();
        final RecordedRun run = new RecordedRun(config);
        final WorkloadOptions o = new WorkloadOptions();
        o.kind = kind;
        o.requests = requests;
        o.promptTokens = 4096;
        o.extendTokens = 512;
        o.seed = seed;
        o.retractRate = kind == WorkloadKind.RANDOM ? 0.1 : 0;
        final SimulatedPort port = new SimulatedPort(new CacheStateMachine(config), (in, result, list) ->
        {
            run.inputs.add(new InputRecord(Math.max(1, in.fingerprintCount())).copyFrom(in));
            final EffectList copy = new EffectList(Math.max(1, list.size()));
            for (int i = 0; i < list.size(); i++)
            {
                copy.addCopy(list, i);
            }
            run.effects.add(copy);
        }, seed, 0, null);
        new ServingLoop(port, config, Workload.build(o)).run();
        return run;
    }

    /**
     * Apply every recorded input to an engine.
     *
     * @param engine a fresh engine with {@link #config}.
     * @return a value depending on every result, so the work cannot be optimised away.
     */
    public long applyAll(final CacheStateMachine engine)
    {
        long sum = 0;
        for (int i = 0; i < inputs.size(); i++)
        {
            sum += engine.apply(inputs.get(i)) + engine.effects().size();
        }
        return sum;
    }
}
