package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.device.CudaDataPathBench;
import io.kvledger.engine.device.CudaDeviceBackend;
import io.kvledger.engine.sim.PeerTrace;
import io.kvledger.engine.sim.RecordedRun;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.codec.DeviceKind;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code kvledger bench}: the cost of one decision on this machine. A deterministic serving run is recorded, then
 * its inputs are applied again and again to fresh engines (the apply path alone) and appended to a journal (SBE
 * encode plus a Chronicle append), each timed individually into a histogram. With {@code --trace} it serves the peer
 * traces of {@code shared/peer-traces.md} instead ({@link PeerBench}).
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Measure the apply path and journal appends on a recorded serving run.",
    footer = {"", "Exit codes: 0 measured, 1 a copy of --data-path failed or mismatched its digest, 2 bad input or " +
        "usage."})
final class BenchCommand implements Callable<Integer>
{
    /** Most requests recorded. */
    static final int MAX_REQUESTS = 1_024;
    /** Most iterations. */
    static final int MAX_ITERATIONS = 10_000;
    /** Most MiB per --store-bench cell: the four file-store cells keep 4 x this on disk until the end. */
    static final int MAX_STORE_MIB = 1_024;

    @Spec
    private CommandSpec spec;

    @Option(names = "--workload", converter = RunCommand.WorkloadConverter.class,
        paramLabel = "pr-bench|multi-turn|random", defaultValue = "pr-bench",
        description = "Workload recorded (default: ${DEFAULT-VALUE}).")
    WorkloadKind workload;

    @Option(names = "--requests", defaultValue = "128", description = "Requests recorded (default: ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--iterations", defaultValue = "20", description = "Times the run is applied (default: " +
        "${DEFAULT-VALUE}; the first quarter warms up, at least 10 runs with --trace).")
    int iterations;

    @Option(names = "--device", converter = RunCommand.DeviceConverter.class, paramLabel = "host|cuda",
        defaultValue = "host", description = "Device of --data-path (default: ${DEFAULT-VALUE}).")
    DeviceKind device;

    @Option(names = "--data-path", description = "Measure the GPU data path instead (needs --device cuda): " +
        "scattered page loads and backups by the copy kernel, per-page copies and one single copy, 4 KiB to 1 MiB " +
        "pages, digests checked; and a pr-bench load's launch-to-completion time.")
    boolean dataPath;

    @Option(names = "--repeats", defaultValue = "5", description = "Timed runs per --data-path measurement " +
        "(default: ${DEFAULT-VALUE}; the median is shown).")
    int repeats;

    @Option(names = "--store-bench", description = "Measure L3 writes and fetches instead (file store, and Redis " +
        "with --redis): pages/s and GB/s for 4 KiB and 64 KiB pages, batches of 1 and 64.")
    boolean storeBench;

    @Option(names = "--redis", paramLabel = "URI", description = "Redis measured by --store-bench (repeatable: " +
        "several seed URIs mean a Redis Cluster).")
    List<String> redis = new ArrayList<>();

    @Option(names = "--store-mib", defaultValue = "16", description = "MiB written and fetched per --store-bench " +
        "cell, 1 to 1,024 (default: ${DEFAULT-VALUE}).")
    int storeMib;

    @Option(names = "--store-dir", paramLabel = "DIR", description = "Where --store-bench puts the file store " +
        "(default: a temporary directory, removed afterwards).")
    Path storeDir;

    @Option(names = "--counters", description = "Also measure what the live counters (kvledger stat) cost the " +
        "apply path and the journal append, and one idle publication.")
    boolean counters;

    @Option(names = "--trace", converter = TraceConverter.class, type = TraceSet.class,
        paramLabel = "pr-bench|shared-prefix|multi-turn|all",
        description = "Serve a peer trace (shared/peer-traces.md) with the journal off and on, instead of a recorded " +
        "run.")
    TraceSet traces;

    @Option(names = "--json", description = "With --trace: one JSON object per line per trace and phase.")
    boolean json;

    @Option(names = "--pretouch", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "With --trace: pre-fault the journal's queue file from a background thread (default: " +
        "${DEFAULT-VALUE}).")
    boolean pretouch;

    @Override
    public Integer call() throws IOException
    {
        validate();
        if (dataPath || device != DeviceKind.HOST)
        {
            return dataPath();
        }
        if (null != traces)
        {
            final PeerBench bench = new PeerBench(spec.commandLine().getOut(), json, iterations, pretouch);
            for (final PeerTrace.Kind kind : traces.kinds)
            {
                bench.measure(kind);
            }
            return KvledgerMain.EXIT_CLEAN;
        }
        final PrintWriter out = spec.commandLine().getOut();
        if (storeBench)
        {
            return StoreBench.run(out, storeMib, redis, storeDir);
        }
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

    /**
     * Every flag checked before anything is measured or created: the ranges, whatever the mode, and the flags that
     * belong to another mode (--data-path, --trace, --store-bench) than the one chosen, instead of ignoring them.
     */
    private void validate()
    {
        Flags.range("--requests", requests, 1, MAX_REQUESTS, "requests", "the recorded run and its effects are " +
            "held in memory; its engine serves up to 1,024 requests at once");
        Flags.range("--iterations", iterations, 2, MAX_ITERATIONS, "iterations", "the first quarter, at least " +
            "one, warms up; each applies the whole recorded run");
        if (null != traces && storeBench)
        {
            throw new CliException("give --trace or --store-bench, not both");
        }
        if (dataPath && (null != traces || storeBench))
        {
            throw new CliException("give --data-path or " + (storeBench ? "--store-bench" : "--trace") + ", not both");
        }
        if (json && null == traces)
        {
            throw new CliException("--json needs --trace");
        }
        if (given("--no-pretouch") || given("--pretouch"))
        {
            if (null == traces)
            {
                throw new CliException((given("--no-pretouch") ? "--no-pretouch" : "--pretouch") + " needs --trace");
            }
        }
        final String mode = null != traces ? "--trace" : storeBench ? "--store-bench" : dataPath ? "--data-path" : null;
        if (given("--device") && !dataPath && DeviceKind.CUDA != device)
        {
            // --device cuda alone keeps its own hint (add --data-path); host chooses nothing outside the data path.
            throw new CliException("--device is for --data-path, not " + (null != mode ? mode : "the recorded run"));
        }
        for (final String recordedFlag : new String[]{"--workload", "--requests", "--counters"})
        {
            if (given(recordedFlag) && null != mode)
            {
                throw new CliException(recordedFlag + " is for the recorded run, not " + mode);
            }
        }
        if (given("--iterations") && (storeBench || dataPath))
        {
            throw new CliException("--iterations is for the recorded run and --trace, not " + mode);
        }
        if (given("--repeats") && !dataPath)
        {
            throw new CliException("--repeats needs --data-path");
        }
        Flags.atLeast("--repeats", repeats, 1, "runs", "timed runs per measurement; the median is shown");
        for (final String storeFlag : new String[]{"--store-mib", "--store-dir", "--redis"})
        {
            if (given(storeFlag) && !storeBench)
            {
                throw new CliException(storeFlag + " needs --store-bench");
            }
        }
        if (storeBench)
        {
            Flags.range("--store-mib", storeMib, 1, MAX_STORE_MIB, "MiB", "written then fetched per cell; the four " +
                "file-store cells keep up to 4 GiB on disk until the end");
            if (null != storeDir)
            {
                Flags.writableDirectory("--store-dir", storeDir, "the store bench's file store");
            }
        }
    }

    /** Whether the flag was typed on the command line (not only defaulted). */
    private boolean given(final String flag)
    {
        for (final String arg : spec.commandLine().getParseResult().originalArgs())
        {
            if (arg.equals(flag) || arg.startsWith(flag + "="))
            {
                return true;
            }
        }
        return false;
    }

    private int dataPath()
    {
        if (!dataPath || device != DeviceKind.CUDA)
        {
            throw new CliException(dataPath ? "bench --data-path needs --device cuda" :
                "bench --device cuda measures the data path: add --data-path");
        }
        final StringBuilder whyNot = new StringBuilder();
        if (!CudaDeviceBackend.available(whyNot))
        {
            throw new CliException("bench --data-path needs an NVIDIA GPU: " + whyNot);
        }
        return CudaDataPathBench.run(spec.commandLine().getOut(), spec.commandLine().getErr(), repeats, 1);
    }

    private static void print(final PrintWriter out, final String what, final Histogram h, final long count,
        final long nanos)
    {
        out.printf(Locale.ROOT, "%-26s %,d samples: mean %.2f us, p50 %.2f us, p99 %.2f us, p99.9 %.2f us, max %.1f us;"
            + " %,.0f per second on one thread%n", what, count, nanos / 1e3 / count,
            h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
            h.getMaxValue() / 1e3, count * 1e9 / nanos);
    }

    /** Reads a trace name; {@code all} means the three. */
    static final class TraceConverter implements ITypeConverter<TraceSet>
    {
        @Override
        public TraceSet convert(final String value)
        {
            if ("all".equals(value))
            {
                return new TraceSet(PeerTrace.Kind.values());
            }
            final PeerTrace.Kind kind = PeerTrace.Kind.fromCliName(value);
            if (null == kind)
            {
                throw new TypeConversionException("unknown trace '" + value + "' (pr-bench, shared-prefix, " +
                    "multi-turn or all)");
            }
            return new TraceSet(new PeerTrace.Kind[]{kind});
        }
    }

    /** The traces one {@code --trace} names. */
    static final class TraceSet
    {
        final PeerTrace.Kind[] kinds;

        TraceSet(final PeerTrace.Kind[] kinds)
        {
            this.kinds = kinds;
        }
    }
}
