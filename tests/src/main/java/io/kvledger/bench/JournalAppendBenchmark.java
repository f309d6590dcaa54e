package io.kvledger.bench;

import io.kvledger.engine.sim.RecordedRun;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Cost of journaling one decision: SBE encoding plus a Chronicle Queue append of real documents (inputs and
 * effects of a recorded pr-bench run, cycled), not synced.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "-Dchronicle.analytics.disable=true",
    "-Dchronicle.announcer.disable=true"})
public class JournalAppendBenchmark
{
    private RecordedRun run;
    private Path dir;
    private JournalWriter writer;
    private final InputRecord input = new InputRecord(128);
    private long sequence;
    private int next;

    /**
     * Record the pr-bench run whose documents are appended and open the journal in a temporary directory.
     *
     * @throws IOException when the temporary journal cannot be created.
     */
    @Setup(Level.Trial)
    public void open() throws IOException
    {
        run = RecordedRun.record(WorkloadKind.PR_BENCH, 64, 3);
        dir = Files.createTempDirectory("kvledger-bench-journal");
        writer = JournalWriter.open(dir.resolve("journal"), run.config.toHeader(new JournalHeader()), false);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        writer.close();
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /**
     * Append the next recorded document (its input, renumbered, and its effects) to the journal.
     *
     * @return the Chronicle index of the document, so the work is not dead code.
     */
    @Benchmark
    public long appendDocument()
    {
        final int i = next;
        next = next + 1 == run.inputs.size() ? 0 : next + 1;
        input.copyFrom(run.inputs.get(i)).sequence(++sequence);
        final EffectList effects = run.effects.get(i);
        return writer.append(input, 0, effects);
    }
}
