package io.kvledger.bench;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.sim.RecordedRun;
import io.kvledger.engine.sim.WorkloadKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost of the engine's apply path: a recorded pr-bench or random serving run (every input a real decision:
 * admissions with loads, chunk and finish caching, acks) applied to a fresh engine. Score is per run; divide
 * by the input count printed at setup for the cost per input.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"})
public class ApplyBenchmark
{
    @Param({"PR_BENCH", "RANDOM"})
    public String workload;

    private RecordedRun run;
    private CacheStateMachine engine;

    @Setup(Level.Trial)
    public void record()
    {
        run = RecordedRun.record(WorkloadKind.valueOf(workload), 128, 7);
        System.out.println("\n" + workload + ": " + run.inputs.size() + " inputs per run");
    }

    @Setup(Level.Invocation)
    public void freshEngine()
    {
        engine = new CacheStateMachine(run.config);
    }

    @Benchmark
    public long applyRecordedRun()
    {
        return run.applyAll(engine);
    }
}
