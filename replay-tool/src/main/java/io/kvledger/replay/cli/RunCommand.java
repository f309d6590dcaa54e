package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.engine.device.CudaCopyPath;
import io.kvledger.engine.counters.MetricsServer;
import io.kvledger.engine.runtime.KvLedgerOptions;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.JournalException;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.PrefetchPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code kvledger run}: serve a workload through the real runtime (Disruptor loop, host-memory or CUDA device,
 * file or memory L3 store) and journal every decision; or, with {@code --deterministic}, through the simulated
 * device and store in one thread so the same seed gives the same journal.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Run a serving workload through the controller and journal it.",
    footer = {"", "Exit codes: 0 the run completed, 1 a copied page or state did not match its content's digest " +
        "(the data went wrong), 2 bad input, usage, or a run the controller stopped."})
final class RunCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--workload", converter = WorkloadConverter.class, paramLabel = "pr-bench|multi-turn|random",
        description = "Workload shape (default: ${DEFAULT-VALUE}).", defaultValue = "pr-bench")
    WorkloadKind workload;

    @Option(names = "--requests", description = "Prompts (pr-bench: each served in both rounds), requests after " +
        "8 warm-ups that write the shared prefixes (random), or conversation turns in all, rounded down to whole " +
        "conversations of 4 turns, at least one (multi-turn) (default: ${DEFAULT-VALUE}).", defaultValue = "256")
    int requests;

    @Option(names = "--prompt-tokens", description = "Tokens per prompt (default: ${DEFAULT-VALUE}).",
        defaultValue = "4096")
    int promptTokens;

    @Option(names = "--extend-tokens", description = "Tokens added in pr-bench's second round (default: " +
        "${DEFAULT-VALUE}).", defaultValue = "512")
    int extendTokens;

    @Option(names = "--page-size", description = "Tokens per page (default: ${DEFAULT-VALUE}).", defaultValue = "64")
    int pageSize;

    @Option(names = "--mamba-slots", description = "Device Mamba state slots (default: ${DEFAULT-VALUE}; a running " +
        "request holds 2, a checkpoint 1); 0 for a pure-attention model (no recurrent states).", defaultValue = "160")
    int mambaSlots;

    @Option(names = "--kv-pages", description = "Device KV pages (default: ${DEFAULT-VALUE}).", defaultValue = "4096")
    int kvPages;

    @Option(names = "--seed", description = "Seed of the workload and of the engine (default: ${DEFAULT-VALUE}).",
        defaultValue = "1")
    long seed;

    @Option(names = "--fault", converter = FaultSwitchConverter.class, paramLabel = "NAME",
        description = "Turn a fault switch on (repeatable; see kvledger faults).")
    List<FaultSwitch> faults = new ArrayList<>();

    @Option(names = "--device", converter = DeviceConverter.class, paramLabel = "host|cuda",
        description = "Device backend (default: ${DEFAULT-VALUE}); cuda falls back to host without a GPU.",
        defaultValue = "host")
    DeviceKind device;

    @Option(names = "--store", paramLabel = "file|memory|redis", description = "L3 store (default: " +
        "${DEFAULT-VALUE}); redis is shared between machines and needs --redis.", defaultValue = "file")
    String store;

    @Option(names = "--redis", paramLabel = "URI", description = "Redis of --store redis: redis://[:PASSWORD@]HOST:" +
        "PORT (repeatable: several seed URIs mean a Redis Cluster).")
    List<String> redis = new ArrayList<>();

    @Option(names = "--redis-namespace", paramLabel = "NAME", description = "Prefix of every Redis key, so " +
        "deployments can share one Redis (default: ${DEFAULT-VALUE}).", defaultValue = "kvledger")
    String redisNamespace;

    @Option(names = "--redis-timeout-ms", paramLabel = "MS", description = "How long a Redis operation waits " +
        "before it fails and the request recomputes, 1 to 3600000 (default: ${DEFAULT-VALUE}).", defaultValue = "2000")
    long redisTimeoutMs;

    @Option(names = "--store-dir", paramLabel = "DIR", description = "Directory of the file store (default: " +
        "${DEFAULT-VALUE}).", defaultValue = "kvledger-out/l3")
    Path storeDir;

    @Option(names = "--deterministic", description = "Simulate device and store in one thread: the same seed " +
        "gives the same journal.")
    boolean deterministic;

    @Option(names = "--journal", paramLabel = "DIR", description = "Journal directory (default: " +
        "kvledger-out/runs/<time>-<workload>).")
    Path journal;

    @Option(names = "--retract-rate", description = "Share of admitted staged loads the scheduler retracts " +
        "(default: ${DEFAULT-VALUE}).", defaultValue = "0")
    double retractRate;

    @Option(names = "--abort-rate", description = "Share of requests aborted mid-way (default: ${DEFAULT-VALUE}).",
        defaultValue = "0")
    double abortRate;

    @Option(names = "--prefetch", converter = PrefetchConverter.class,
        paramLabel = "best-effort|wait-complete|timeout",
        description = "What an admission does with an unfinished L3 fetch (default: ${DEFAULT-VALUE}).",
        defaultValue = "wait-complete")
    PrefetchPolicy prefetch;

    @Option(names = "--admission-rules", paramLabel = "N", description = "Admission rules version, 1 to 7 (default: " +
        "${DEFAULT-VALUE}); 6 checks an L3 hit against the device before fetching it; 7 (and 5, without that " +
        "check) computes the last page of a prompt that ends on a page boundary, as SGLang's scheduler does for " +
        "the last token's logits. The journal records it; replay applies it.",
        defaultValue = "" + EngineConfig.DEFAULT_ADMISSION_RULES)
    int admissionRules;

    @Option(names = "--copy-delay-us", description = "Extra delay per device copy, microseconds (default: " +
        "${DEFAULT-VALUE}).", defaultValue = "0")
    long copyDelayUs;

    @Option(names = "--kv-page-bytes", description = "Bytes of one KV page in device and host memory (default: " +
        "${DEFAULT-VALUE}).", defaultValue = "4096")
    int kvPageBytes;

    @Option(names = "--mamba-state-bytes", description = "Bytes of one Mamba state (default: ${DEFAULT-VALUE}).",
        defaultValue = "16384")
    int mambaStateBytes;

    @Option(names = "--json", description = "Print the summary as one JSON object.")
    boolean json;

    @Option(names = "--io-backend", converter = CopyPathConverter.class, paramLabel = "kernel|direct|resident",
        description = "How --device cuda copies: one copy kernel launch per batch, one cuMemcpyAsync per page, or " +
            "batches posted to a copy kernel left running on the GPU (default: ${DEFAULT-VALUE}).",
        defaultValue = "kernel")
    CudaCopyPath ioBackend;
    @Option(names = "--journal-thread", negatable = true,
        description = "Append the journal on its own thread, the engine applying the next input meanwhile; " +
        "--no-journal-thread appends on the engine thread (default: a journal thread with four or more " +
        "processors, the engine thread with fewer).")
    Boolean journalThread;

    @Option(names = "--metrics-port", paramLabel = "N", description = "Serve the live counters in the Prometheus " +
        "text format on http://127.0.0.1:N/metrics while the run lasts (kvledger stat reads them from the journal " +
        "directory either way).")
    Integer metricsPort;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        checkFlags();
        final KvLedgerOptions options = options(journalDir());
        final WorkloadOptions w = workloadOptions();
        final boolean terminal = System.console() != null && !json;
        if (!json)
        {
            out.println(describe());
            if (null != metricsPort)
            {
                out.println("  metrics on http://127.0.0.1:" + options.metricsPort + MetricsServer.PATH);
            }
            out.flush();
        }
        final WorkloadRunner.Result r;
        try
        {
            r = WorkloadRunner.run(options, w, deterministic, terminal ? err : null);
        }
        catch (final IllegalArgumentException | UncheckedIOException | JournalException ex)
        {
            throw new CliException(ex.getMessage(), ex);
        }
        finally
        {
            // the store made from it closed its connections already; a run that failed before made none
            if (null != options.storeFactory)
            {
                options.storeFactory.close();
            }
        }
        if (json)
        {
            out.println(Json.write(toJson(r)));
        }
        else
        {
            printSummary(out, r, pageSize);
        }
        return r.mismatches > 0 ? KvledgerMain.EXIT_FOUND : KvledgerMain.EXIT_CLEAN;
    }

    Path journalDir()
    {
        if (journal != null)
        {
            Flags.newDirectory("--journal", journal, "the journal");
            return journal;
        }
        final String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
        final Path dir = Path.of("kvledger-out", "runs", stamp + "-" + workload.cliName());
        Flags.newDirectory("--journal (default)", dir, "the journal");
        return dir;
    }

    KvLedgerOptions options(final Path journalDir)
    {
        final KvLedgerOptions o = new KvLedgerOptions();
        o.config = engineConfig();
        o.journalDir = journalDir;
        if (null != journalThread)
        {
            o.journalThread = journalThread;
        }
        o.device = device;
        // before Redis is connected and anything created: a port in use is refused here
        MetricsOption.apply(o, metricsPort, deterministic);
        o.store = storeKind(store);
        o.storeDir = storeDir;
        if (o.store == KvLedgerOptions.StoreKind.CUSTOM && !deterministic)
        {
            o.storeFactory = RedisStores.connect(redis, redisNamespace, redisTimeoutMs);
        }
        else if (!redis.isEmpty() && !deterministic)
        {
            throw new CliException("--redis is for --store redis (the store is " + store + ")");
        }
        o.copyDelayMinNs = copyDelayUs * 1_000;
        o.copyDelayMaxNs = copyDelayUs * 1_000;
        o.label = "kvledger run " + workload.cliName();
        o.cudaCopyPath = ioBackend;
        return o;
    }

    /** The engine configuration the flags describe (nothing connected or created). */
    private EngineConfig engineConfig()
    {
        final EngineConfig.Builder b = EngineConfig.builder().pageSize(pageSize).deviceKvPages(kvPages)
            .hybrid(mambaSlots > 0).deviceMambaSlots(mambaSlots).seed(seed).prefetchPolicy(prefetch)
            .kvPageBytes(kvPageBytes)
            .mambaStateBytes(mambaStateBytes)
            .maxRequestPages(Math.max(64, (promptTokens + extendTokens) / Math.max(1, pageSize) + 2))
            .admissionRules(admissionRules);
        for (final FaultSwitch f : faults)
        {
            b.fault(f);
        }
        try
        {
            return b.build();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException(ex.getMessage());
        }
    }

    WorkloadOptions workloadOptions()
    {
        final WorkloadOptions w = new WorkloadOptions();
        w.kind = workload;
        w.requests = requests;
        w.promptTokens = promptTokens;
        w.extendTokens = extendTokens;
        w.seed = seed;
        w.retractRate = retractRate;
        w.abortRate = abortRate;
        if (workload == WorkloadKind.RANDOM)
        {
            w.retractRate = retractRate > 0 ? retractRate : 0.1;
            w.abortRate = abortRate > 0 ? abortRate : 0.05;
            w.failureRate = deterministic ? 0.02 : 0;
        }
        if (!deterministic && "redis".equals(store))
        {
            // A stopped (not dead) Redis answers nothing until each operation's timeout: the serving loop then
            // steps without progress for up to a timeout per operation queued on the store's one I/O thread.
            w.minIdleNanos = TimeUnit.MILLISECONDS.toNanos(2 * redisTimeoutMs) + TimeUnit.SECONDS.toNanos(10);
        }
        return w;
    }

    private String describe()
    {
        return String.format(Locale.ROOT, "kvledger run: %s, %d requests of %d tokens (+%d), page %d, %d KV pages, " +
            "%d Mamba slots, device %s, store %s%s, faults %s", workload.cliName(), requests, promptTokens,
            extendTokens, pageSize, kvPages, mambaSlots,
            deterministic ? "simulated" : device.name().toLowerCase(Locale.ROOT),
            deterministic ? "simulated" : store, deterministic || !"file".equals(store) ? "" : " (" + storeDir + ")",
            faults.isEmpty() ? "none" : faults.toString());
    }

    static void printSummary(final PrintWriter out, final WorkloadRunner.Result r, final int pageSize)
    {
        if (!r.deviceNote.isEmpty())
        {
            out.println("  note              " + r.deviceNote);
        }
        // requests the engine refused (too large for the pools, too many at once) are named when there are any
        out.printf(Locale.ROOT, "  requests          %,d (%,d finished, %,d aborted, %s%,d retracts)%n", r.requests,
            r.finished, r.aborted, 0 == r.rejected ? "" : String.format(Locale.ROOT, "%,d rejected, ", r.rejected),
            r.retracts);
        out.printf(Locale.ROOT, "  L3 hit tokens     %,d (%,d pages in %,d loads)%n", r.hitTokens, r.loadedPages,
            r.loads);
        out.printf(Locale.ROOT, "  bytes moved       %,d%n", r.bytesMoved);
        out.printf(Locale.ROOT, "  deferrals         %,d%n", r.defers);
        out.printf(Locale.ROOT, "  drops             %,d%n", r.drops);
        out.printf(Locale.ROOT, "  digest mismatches %,d%s%n", r.mismatches,
            r.mismatches == 0 ? "" : " (first: " + r.mismatchList.get(0) + ")");
        out.printf(Locale.ROOT, "  inputs            %,d (%,.0f per second)%n", r.inputs, r.inputsPerSecond());
        if (!r.storeNote.isEmpty())
        {
            out.println("  L3 store          " + r.storeNote);
        }
        out.printf(Locale.ROOT, "  state hash        0x%016x%n", r.stateHash);
        out.printf(Locale.ROOT, "  journal           %s%n", r.journal);
    }

    static ObjectNode toJson(final WorkloadRunner.Result r)
    {
        final ObjectNode o = Json.object();
        o.put("requests", r.requests);
        o.put("finished", r.finished);
        o.put("aborted", r.aborted);
        o.put("rejected", r.rejected);
        o.put("inputs", r.inputs);
        o.put("hitTokens", r.hitTokens);
        o.put("loads", r.loads);
        o.put("bytesMoved", r.bytesMoved);
        o.put("defers", r.defers);
        o.put("drops", r.drops);
        o.put("retracts", r.retracts);
        o.put("digestMismatches", r.mismatches);
        o.put("inputsPerSecond", Math.round(r.inputsPerSecond()));
        if (!r.storeNote.isEmpty())
        {
            o.put("store", r.storeNote);
        }
        o.put("stateHash", String.format(Locale.ROOT, "0x%016x", r.stateHash));
        o.put("journal", r.journal.toString());
        return o;
    }

    /**
     * Refuse a bad value before anything is created (journal, device memory, store): each check names the flag,
     * its range and why; {@link RunLimits} holds the ranges and the memory estimate.
     */
    private void checkFlags()
    {
        final ParseResult given = spec.commandLine().getParseResult();
        for (final String redisFlag : new String[]{"--redis-namespace", "--redis-timeout-ms"})
        {
            if (given.hasMatchedOption(redisFlag) && !deterministic &&
                storeKind(store) != KvLedgerOptions.StoreKind.CUSTOM)
            {
                throw new CliException(redisFlag + " is for --store redis (the store is " + store + ")");
            }
        }
        if (given.hasMatchedOption("--store-dir") && !deterministic &&
            storeKind(store) != KvLedgerOptions.StoreKind.FILE)
        {
            throw new CliException("--store-dir is for --store file (the store is " + store + ")");
        }
        if (given.hasMatchedOption("--io-backend") && (deterministic || device != DeviceKind.CUDA))
        {
            throw new CliException("--io-backend is for --device cuda (the device is " +
                (deterministic ? "simulated" : device.name().toLowerCase(Locale.ROOT)) + ")");
        }
        if (deterministic)
        {
            // the simulated run has no device memory, store or journal thread: these would be ignored silently
            for (final String flag : new String[]{"--device", "--store", "--redis", "--redis-namespace",
                "--redis-timeout-ms", "--copy-delay-us", "--kv-page-bytes", "--mamba-state-bytes",
                "--journal-thread", "--store-dir"})
            {
                if (given.hasMatchedOption(flag))
                {
                    throw new CliException(flag + " is not used by --deterministic, which simulates the device and " +
                        "the L3 store in one thread");
                }
            }
        }
        RunLimits.checkWorkload(workload, requests, promptTokens, extendTokens, pageSize);
        RunLimits.checkPools(kvPages, mambaSlots, kvPageBytes, mambaStateBytes);
        Flags.range("--admission-rules", admissionRules, 1, JournalHeader.LATEST_ADMISSION_RULES, "",
            "the versions of the admission rules; the default is " + EngineConfig.DEFAULT_ADMISSION_RULES);
        Flags.rate("--retract-rate", retractRate, "the share of admitted staged loads retracted");
        Flags.rate("--abort-rate", abortRate, "the share of requests aborted mid-way");
        Flags.range("--copy-delay-us", copyDelayUs, 0, RunLimits.MAX_COPY_DELAY_US, "microseconds",
            "extra time per device copy; a run makes thousands of copies");
        // The configuration only: building the options would connect to Redis (a second connector, never closed).
        final EngineConfig config = engineConfig();
        final boolean directPools = !deterministic && device == DeviceKind.HOST;
        final RunLimits.HeldStore held = deterministic ? RunLimits.HeldStore.TAGS :
            storeKind(store) == KvLedgerOptions.StoreKind.MEMORY ? RunLimits.HeldStore.CONTENTS :
            RunLimits.HeldStore.NONE;
        RunLimits.checkMemory(config, workload, requests, promptTokens, extendTokens, held,
            directPools ? Flags.maxDirectMemory() : Long.MAX_VALUE, Runtime.getRuntime().maxMemory());
        if (!deterministic && "file".equalsIgnoreCase(store))
        {
            if (null != journal && storeDir.toAbsolutePath().normalize().startsWith(
                journal.toAbsolutePath().normalize()))
            {
                // The journal directory holds the journal alone: it is created new for each run and handed whole to
                // check, replay and compare; a persistent L3 store inside it would go wherever the journal goes.
                throw new CliException("--store-dir " + storeDir + " is inside the journal directory " + journal +
                    ": give the L3 store a directory of its own");
            }
            // an existing journal's directory is refused there too (what check, replay and compare read)
            Flags.writableDirectory("--store-dir", storeDir, "the L3 store");
        }
    }

    private static KvLedgerOptions.StoreKind storeKind(final String name)
    {
        switch (name.toLowerCase(Locale.ROOT))
        {
            case "file": return KvLedgerOptions.StoreKind.FILE;
            case "memory": return KvLedgerOptions.StoreKind.MEMORY;
            case "redis": return KvLedgerOptions.StoreKind.CUSTOM;
            default: throw new CliException("unknown store '" + name + "' (file, memory or redis)");
        }
    }

    /** Reads a workload name. */
    static final class WorkloadConverter implements ITypeConverter<WorkloadKind>
    {
        @Override
        public WorkloadKind convert(final String value)
        {
            final WorkloadKind kind = WorkloadKind.parse(value);
            if (kind == null)
            {
                throw new TypeConversionException("unknown workload '" + value + "' (pr-bench, multi-turn or random)");
            }
            return kind;
        }
    }

    /** Reads a device name. */
    static final class DeviceConverter implements ITypeConverter<DeviceKind>
    {
        @Override
        public DeviceKind convert(final String value)
        {
            switch (value.toLowerCase(Locale.ROOT))
            {
                case "host": return DeviceKind.HOST;
                case "cuda": return DeviceKind.CUDA;
                default: throw new TypeConversionException("unknown device '" + value + "' (host or cuda)");
            }
        }
    }

    /** Reads a cuda copy path. */
    static final class CopyPathConverter implements ITypeConverter<CudaCopyPath>
    {
        @Override
        public CudaCopyPath convert(final String value)
        {
            final CudaCopyPath path = CudaCopyPath.parse(value);
            if (path == null)
            {
                throw new TypeConversionException("unknown io backend '" + value + "' (kernel, direct or resident)");
            }
            return path;
        }
    }

    /** Reads a prefetch policy. */
    static final class PrefetchConverter implements ITypeConverter<PrefetchPolicy>
    {
        @Override
        public PrefetchPolicy convert(final String value)
        {
            switch (value.toLowerCase(Locale.ROOT).replace('_', '-'))
            {
                case "best-effort": return PrefetchPolicy.BEST_EFFORT;
                case "wait-complete": return PrefetchPolicy.WAIT_COMPLETE;
                case "timeout": return PrefetchPolicy.TIMEOUT;
                default: throw new TypeConversionException("unknown prefetch policy '" + value +
                    "' (best-effort, wait-complete or timeout)");
            }
        }
    }
}
