package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.sim.RecordedRun;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code kvledger bench}: the cost of one decision on this machine. A deterministic serving run is recorded, then
 * its inputs are applied again and again to fresh engines (the apply path alone) and appended to a journal (SBE
 * encode plus a Chronicle append), each timed individually into a histogram.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Measure the apply path and journal appends on a recorded serving run.")
final class BenchCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--workload", converter = RunCommand.WorkloadConverter.class,
        paramLabel = "pr-bench|multi-turn|random", defaultValue = "pr-bench",
        description = "Workload recorded (default: ${DEFAULT-VALUE}).")
    WorkloadKind workload;

    @Option(names = "--requests", defaultValue = "128", description = "Requests recorded (default: ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--iterations", defaultValue = "20", description = "Times the run is applied (default: " +
        "${DEFAULT-VALUE}; the first quarter warms up).")
    int iterations;

    @Option(names = "--counters", description = "Also measure what the live counters (kvledger stat) cost the " +
        "apply path and the journal append, and one idle publication.")
    boolean counters;

    @Override
    public Integer call() throws IOException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final RecordedRun run = RecordedRun.record(workload, requests, 1);
        final EngineConfig config = run.config;
        final List<InputRecord> inputs = run.inputs;
        final List<EffectList> effects = run.effects;
        long effectCount = 0;
        for (final EffectList e : effects)
        {
            effectCount += e.size();
        }
        out.printf(Locale.ROOT, "recorded %s: %,d inputs, %,d effects (%.1f per input)%n", workload.cliName(),
            inputs.size(), effectCount, (double)effectCount / inputs.size());

        final Histogram apply = new Histogram(3_600_000_000L, 3);
        final int warmup = Math.max(1, iterations / 4);
        long applied = 0;
        long applyNanos = 0;
        for (int it = 0; it < iterations; it++)
        {
            final CacheStateMachine engine = new CacheStateMachine(config);
            for (final InputRecord in : inputs)
            {
                final long start = System.nanoTime();
                engine.apply(in);
                final long took = System.nanoTime() - start;
                if (it >= warmup)
                {
                    apply.recordValue(took);
                    applyNanos += took;
                    applied++;
                }
            }
        }
        print(out, "apply", apply, applied, applyNanos);

        final Histogram append = new Histogram(3_600_000_000L, 3);
        final Path dir = Files.createTempDirectory("kvledger-bench");
        long appended = 0;
        long appendNanos = 0;
        try (JournalWriter writer = JournalWriter.open(dir.resolve("journal"), config.toHeader(new JournalHeader()),
            false))
        {
            final InputRecord scratch = new InputRecord(128);
            long sequence = 0;
            final int rounds = Math.max(2, iterations / 4);
            for (int round = 0; round < rounds; round++)
            {
                for (int i = 0; i < inputs.size(); i++)
                {
                    scratch.copyFrom(inputs.get(i)).sequence(++sequence);
                    final long start = System.nanoTime();
                    writer.append(scratch, 0, effects.get(i));
                    final long took = System.nanoTime() - start;
                    if (round > 0)
                    {
                        append.recordValue(took);
                        appendNanos += took;
                        appended++;
                    }
                }
            }
        }
        finally
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        print(out, "journal append (unsynced)", append, appended, appendNanos);
        if (counters)
        {
            CountersBench.run(out, run, iterations);
        }
        return KvledgerMain.EXIT_CLEAN;
    }

    private static void print(final PrintWriter out, final String what, final Histogram h, final long count,
        final long nanos)
    {
        out.printf(Locale.ROOT, "%-26s %,d samples: mean %.2f us, p50 %.2f us, p99 %.2f us, p99.9 %.2f us, max %.1f us;"
            + " %,.0f per second on one thread%n", what, count, nanos / 1e3 / count,
            h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
            h.getMaxValue() / 1e3, count * 1e9 / nanos);
    }
}
