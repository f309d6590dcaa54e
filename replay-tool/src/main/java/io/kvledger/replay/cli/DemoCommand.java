package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.engine.runtime.KvLedgerOptions;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.codec.PrefetchPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code kvledger demo}: a clean pr-bench-shaped run on the embedded parts (host-memory device, file L3 store,
 * journal in a local folder) and its clean check; then the same workload with the upstream retract race switched
 * on: the corrupted state seen at run time by the data-plane digest check, {@code check} naming the first event
 * that broke slot ownership with the slot's history, and {@code shrink} giving the minimal reproducer.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Show a clean run, then the retract race caught at run time, by check and by shrink.",
    footer = {"", "Exit codes: 0 the story was shown, 1 a step did not show it (the clean run was not clean, or the " +
        "race did not happen), 2 bad input or usage."})
final class DemoCommand implements Callable<Integer>
{
    /** Most prompts per round: the demo's engine tracks 512 live requests. */
    static final int MAX_REQUESTS = 512;

    private static final FaultSwitch FAULT = FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD;

    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where journals, stores and the report go " +
        "(default: kvledger-out/demo-<time>).")
    Path dir;

    @Option(names = "--requests", description = "Prompts per round (default: ${DEFAULT-VALUE}).", defaultValue = "48")
    int requests;

    @Option(names = "--seed", description = "Seed (default: ${DEFAULT-VALUE}).", defaultValue = "1")
    long seed;

    /**
     * The default demo directory, created here: {@code PARENT/demo-STAMP}, or {@code demo-STAMP-2}, {@code -3}, ...
     * when a demo started in the same second already took it (each name is claimed by creating it, so two demos never
     * share one, and neither is refused for a --dir it was not given).
     *
     * @param parent where demo directories go.
     * @param stamp  the start time.
     * @return the new, empty directory.
     * @throws IOException when it cannot be created.
     */
    static Path claimDirectory(final Path parent, final String stamp) throws IOException
    {
        Flags.writableDirectory("--dir (default)", parent, "the demo's journals, stores and report");
        Files.createDirectories(parent);
        for (int n = 1; n <= 1_000; n++)
        {
            final Path candidate = parent.resolve("demo-" + stamp + (1 == n ? "" : "-" + n));
            try
            {
                return Files.createDirectory(candidate);
            }
            catch (final FileAlreadyExistsException ex)
            {
                // Taken by another demo of the same second: try the next name.
            }
        }
        throw new CliException("--dir (default): " + parent.resolve("demo-" + stamp) + " and 999 more names are " +
            "taken; give --dir");
    }

    @Override
    public Integer call() throws IOException
    {
        final PrintWriter out = spec.commandLine().getOut();
        Flags.range("--requests", requests, 1, MAX_REQUESTS, "prompts", "the demo's engine is sized for " +
            MAX_REQUESTS + " live requests; kvledger run serves larger workloads");
        final Path base = dir != null ? dir : claimDirectory(Path.of("kvledger-out"),
            LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Flags.writableDirectory("--dir", base, "the demo's journals, stores and report");
        if (dir != null && Files.isDirectory(base))
        {
            try (Stream<Path> entries = Files.list(base))
            {
                if (entries.findAny().isPresent())
                {
                    throw new CliException("--dir " + base + " is not empty; the demo needs a new or empty directory");
                }
            }
        }
        Files.createDirectories(base);
        out.println("kvledger demo: SGLang HiCache's buffer-only Mamba read path, journaled, and its retract race " +
            "caught three ways.");
        out.println("Everything goes to " + base + " (host-memory device, file L3 store, Chronicle journals).");
        out.println();

        final WorkloadOptions w = workload();
        out.printf(Locale.ROOT, "1. A clean run of the upstream benchmark's shape: %d prompts of %d tokens " +
            "written to L3,%n   the device flushed, the same prompts extended by %d tokens and loaded back; the " +
            "scheduler%n   retracts a quarter of the admitted staged loads before their batch runs.%n", w.requests,
            w.promptTokens, w.extendTokens);
        out.flush();
        final WorkloadRunner.Result clean = WorkloadRunner.run(options(base.resolve("clean"), false), w, false, null);
        out.printf(Locale.ROOT, "   %,d requests, %,d L3 hit tokens in %,d loads, %,d retracts, %,d digest " +
            "mismatches; journal %s%n", clean.requests, clean.hitTokens, clean.loads, clean.retracts, clean.mismatches,
            clean.journal);
        final JsonNode cleanCheck = check(clean.journal);
        out.printf(Locale.ROOT, "2. kvledger check %s%n   %,d documents, %s.%n", clean.journal,
            cleanCheck.get("documents").asLong(), cleanCheck.get("clean").asBoolean() ? "clean" :
                cleanCheck.get("violations").size() + " violations");
        out.println();

        out.printf(Locale.ROOT, "3. The same workload with %s on:%n   %s.%n", FAULT.name(), FAULT.description());
        out.flush();
        final WorkloadRunner.Result buggy = WorkloadRunner.run(options(base.resolve("buggy"), true), w, false, null);
        if (buggy.mismatches > 0)
        {
            out.printf(Locale.ROOT, "   At run time the data-plane check saw %,d digest mismatch%s; first: %s%n",
                buggy.mismatches, buggy.mismatches == 1 ? "" : "es", buggy.mismatchList.get(0));
        }
        else
        {
            out.println("   At run time no request happened to read an overwritten slot this time (the copy landed " +
                "where nobody looked).");
        }
        out.printf(Locale.ROOT, "   %,d requests, %,d L3 hit tokens in %,d loads, %,d retracts; journal %s%n",
            buggy.requests, buggy.hitTokens, buggy.loads, buggy.retracts, buggy.journal);
        final JsonNode buggyCheck = check(buggy.journal);
        final JsonNode violations = buggyCheck.get("violations");
        out.printf(Locale.ROOT, "4. kvledger check %s%n   %,d documents, %,d violations%s%n", buggy.journal,
            buggyCheck.get("documents").asLong(), violations.size(),
            violations.size() > 0 ? ". The first event that broke slot ownership:" : ".");
        String slotArg = null;
        if (violations.size() > 0)
        {
            final JsonNode first = violations.get(0);
            out.printf(Locale.ROOT, "   #%d %s %s:%d %s%n", first.get("seq").asLong(), first.get("invariant").asText(),
                first.get("pool").asText(), first.get("id").asLong(), first.get("explanation").asText());
            out.printf(Locale.ROOT, "   history of %s:%d:%n", first.get("pool").asText(), first.get("id").asLong());
            final JsonNode history = first.get("history");
            final int shown = Math.min(history.size(), 8);
            if (history.size() > shown)
            {
                out.printf(Locale.ROOT, "     ... %d earlier effects (kvledger timeline shows them all)%n",
                    history.size() - shown);
            }
            for (int i = history.size() - shown; i < history.size(); i++)
            {
                final JsonNode h = history.get(i);
                out.printf(Locale.ROOT, "     #%d %s%n", h.get("seq").asLong(), h.get("effect").asText());
            }
            slotArg = first.get("pool").asText() + ":" + first.get("id").asLong();
        }
        final Path report = base.resolve("report.html");
        final Path minimal = base.resolve("minimal");
        final List<Path> written = new ArrayList<>(List.of(clean.journal, buggy.journal));
        if (violations.size() > 0)
        {
            execute("check", buggy.journal.toString(), "--html", report.toString());
            out.println();
            final String[] shrunk = execute("shrink", buggy.journal.toString(), "--out", minimal.toString());
            out.printf(Locale.ROOT, "5. kvledger shrink %s --out %s%n   %s%n", buggy.journal, minimal,
                firstLine(shrunk[0]));
            out.println();
            if (Files.isDirectory(minimal))
            {
                written.add(minimal);
            }
            if (Files.isRegularFile(report))
            {
                written.add(report);
            }
        }
        else
        {
            out.println("   No violation this time: the race needs a retracted request whose slot is handed out " +
                "again before its load lands (try more --requests or another --seed). Nothing to shrink.");
            out.println();
        }
        out.println("Written: " + describe(written));
        if (slotArg != null)
        {
            out.println("Next: kvledger timeline " + buggy.journal + " --slot " + slotArg + "   |   kvledger check " +
                minimal);
        }
        out.flush();
        final boolean told = cleanCheck.get("clean").asBoolean() && clean.mismatches == 0 && violations.size() > 0;
        return told ? KvledgerMain.EXIT_CLEAN : KvledgerMain.EXIT_FOUND;
    }

    private static String describe(final List<Path> written)
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < written.size(); i++)
        {
            final Path path = written.get(i);
            final boolean last = i == written.size() - 1;
            text.append(i == 0 ? "" : last ? ", and " : ", ");
            text.append(path.getFileName().toString().endsWith(".html") ? "the report " + path : path.toString());
        }
        return text.toString();
    }

    private WorkloadOptions workload()
    {
        final WorkloadOptions w = new WorkloadOptions();
        w.kind = WorkloadKind.PR_BENCH;
        w.requests = requests;
        w.promptTokens = 512;
        w.extendTokens = 64;
        w.retractRate = 0.25;
        w.seed = seed;
        return w;
    }

    private KvLedgerOptions options(final Path runDir, final boolean fault)
    {
        final EngineConfig.Builder b = EngineConfig.builder().pageSize(16).deviceKvPages(1024).deviceMambaSlots(160)
            .hostKvPages(2048).hostMambaSlots(128).maxRequests(512).maxRequestPages(64).maxOps(1024)
            .kvPageBytes(1024).mambaStateBytes(4096).prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE).seed(seed);
        if (fault)
        {
            b.fault(FAULT);
        }
        final KvLedgerOptions o = new KvLedgerOptions();
        o.config = b.build();
        o.journalDir = runDir.resolve("journal");
        o.storeDir = runDir.resolve("l3");
        o.copyDelayMinNs = 500_000;
        o.copyDelayMaxNs = 2_000_000;
        o.label = "kvledger demo" + (fault ? " with " + FAULT.name() : "");
        return o;
    }

    private JsonNode check(final Path journal) throws IOException
    {
        final String[] result = execute("check", journal.toString(), "--json");
        try
        {
            return new ObjectMapper().readTree(result[0]);
        }
        catch (final IOException ex)
        {
            throw new CliException("check of " + journal + " failed: " + firstLine(result[1]), ex);
        }
    }

    /** Run one kvledger command in-process; returns its stdout and stderr. */
    private static String[] execute(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            KvledgerMain.execute(o, e, args);
        }
        return new String[]{out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    private static String firstLine(final String text)
    {
        final int nl = text.indexOf('\n');
        return nl < 0 ? text.trim() : text.substring(0, nl).trim();
    }
}
