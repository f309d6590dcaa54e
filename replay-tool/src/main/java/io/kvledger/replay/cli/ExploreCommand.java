package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.JournalException;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalPrinter;
import io.kvledger.journal.JournalWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * {@code kvledger explore [--seeds N | --minutes M] [--first-seed S] [--fault NAME]... [--out DIR] [--json]}: a
 * seeded swarm in the deterministic mode, in the manner of FoundationDB's simulation and TigerBeetle's VOPR. Each
 * seed picks a whole configuration ({@link Explorer#configure}) and is checked document by document; a violation
 * writes the seed's configuration, first violation with its subject's history, its journal and its shrunk
 * reproducer under {@code --out} (for an invariant, and for the progress rules {@link Shrinker} can reduce: L1, L2,
 * L3 and L5). {@code --first-seed S --seeds 1} repeats one seed exactly.
 */
@Command(
    name = "explore",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "Explore random configurations seed by seed, checking every document as it is written.",
        "Each seed picks pools (generous to very scarce), host staging, request limits, tracking slots, prefetch " +
            "policy, rates of retract, abort, failed acks, slow copies and eviction ticks, and a workload mix. Every " +
            "document goes through the offline checker (invariants I1-I20 as `check --invariants` lists them) and " +
            "the progress rules (L1-L5), and the engine verifies its structures after every input."},
    footer = {"", "Exit codes: 0 every seed clean, 1 something found (written under --out), 2 bad input or usage."})
final class ExploreCommand implements Callable<Integer>
{
    /** Shrink budget per finding. */
    private static final int SHRINK_RUNS = 20_000;
    private static final long SHRINK_NANOS = 30_000_000_000L;

    @Spec
    CommandSpec spec;

    @Option(names = "--seeds", paramLabel = "N", description = "Seeds to run (default 100 unless --minutes).")
    Integer seeds;

    @Option(names = "--minutes", paramLabel = "M",
        description = "Run seeds for this long instead of a count (at least one seed).")
    Double minutes;

    @Option(names = "--first-seed", paramLabel = "S", defaultValue = "1",
        description = "First seed, 0 or more (default: ${DEFAULT-VALUE}); seeds run S, S+1, ...")
    long firstSeed;

    @Option(names = "--fault", converter = FaultSwitchConverter.class, paramLabel = "NAME",
        description = "Turn a fault switch on in every seed (repeatable; see kvledger faults).")
    List<FaultSwitch> faults = new ArrayList<>();

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "kvledger-out/explore",
        description = "Where findings go: DIR/seed-S/ with report.txt, journal/ and shrunk/ (default: " +
            "${DEFAULT-VALUE}).")
    Path outDirectory;

    @Option(names = "--keep-going", description = "Run every seed even after a finding (default: stop at the first).")
    boolean keepGoing;

    @Option(names = "--record", paramLabel = "N", defaultValue = "10",
        description = "With --keep-going, write at most N findings under --out (default: ${DEFAULT-VALUE}); the rest " +
            "are counted and listed with their seed.")
    int record;

    @Option(names = "--json", description = "Print one JSON object at the end instead of lines.")
    boolean json;

    @Override
    public Integer call()
    {
        validate();
        long mask = 0;
        for (final FaultSwitch f : faults)
        {
            mask |= 1L << f.bit();
        }
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final boolean terminal = System.console() != null && !json;
        final long count = seeds != null ? seeds : minutes != null ? Long.MAX_VALUE : 100;
        final long deadline = minutes == null ? Long.MAX_VALUE : System.nanoTime() + (long)(minutes * 60e9);
        final long start = System.nanoTime();
        final Map<String, Integer> byRule = new TreeMap<>();
        final ArrayNode findings = Json.array();
        long ran = 0;
        long found = 0;
        long documents = 0;
        if (!json)
        {
            out.println("kvledger explore: seeds " + firstSeed + (seeds != null ? ".." + (firstSeed + count - 1) :
                minutes != null ? " on for " + minutes + " min" : "") + ", faults " + FaultSwitch.describeMask(mask));
            out.flush();
        }
        // The first seed runs whatever --minutes says: a run that explored nothing must not exit 0 as "every seed
        // clean".
        for (long i = 0; i < count && (0 == i || System.nanoTime() < deadline); i++)
        {
            final long seed = firstSeed + i;
            final Explorer.Config config;
            try
            {
                config = Explorer.configure(seed, mask);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CliException("seed " + seed + " picked a configuration the engine refuses: " +
                    ex.getMessage());
            }
            final Explorer.Outcome o = Explorer.run(seed, config, null);
            ran++;
            documents += o.documents;
            if (terminal)
            {
                err.print("\r\033[K");
            }
            if (!json)
            {
                out.println(line(o));
            }
            if (!o.clean())
            {
                found++;
                byRule.merge(o.rule, 1, Integer::sum);
                findings.add(found <= record ? record(o) : Json.object().put("seed", o.seed).put("rule", o.rule)
                    .put("sequence", o.sequence).put("text", o.text).put("config", o.config.summary));
            }
            if (terminal)
            {
                err.print(bar(ran, count, start, deadline, found));
                err.flush();
            }
            out.flush();
            if ((!o.clean() && !keepGoing) || Long.MAX_VALUE == seed)
            {
                break;
            }
        }
        if (terminal)
        {
            err.print("\r\033[K");
            err.flush();
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        if (json)
        {
            final ObjectNode root = Json.object();
            root.put("seeds", ran).put("firstSeed", firstSeed).put("found", found).put("documents", documents)
                .put("seconds", Math.round(seconds * 10) / 10.0)
                .put("seedsPerMinute", Math.round(ran * 60 / Math.max(seconds, 1e-9)))
                .put("documentsPerSecond", Math.round(documents / Math.max(seconds, 1e-9)))
                .put("faults", FaultSwitch.describeMask(mask));
            root.set("findings", findings);
            out.println(Json.write(root));
        }
        else
        {
            out.printf(Locale.ROOT, "explored %d seed(s) in %.1f s (%.0f seeds/min, %,.0f documents/s): %d clean, " +
                "%d found%s%n", ran, seconds, ran * 60 / Math.max(seconds, 1e-9), documents / Math.max(seconds, 1e-9),
                ran - found, found, byRule.isEmpty() ? "" : " " + byRule);
        }
        out.flush();
        return found == 0 ? KvledgerMain.EXIT_CLEAN : KvledgerMain.EXIT_FOUND;
    }

    /** Every flag checked before the first seed runs or anything is written. */
    private void validate()
    {
        if (seeds != null && minutes != null)
        {
            throw new CliException("give --seeds or --minutes, not both");
        }
        if (seeds != null && seeds < 1)
        {
            throw new CliException("--seeds must be 1 or more (got " + seeds + ")");
        }
        if (minutes != null && !(minutes > 0 && minutes <= 10_000))
        {
            throw new CliException("--minutes must be above 0 and at most 10000 (got " + minutes + ")");
        }
        if (record < 0)
        {
            throw new CliException("--record must be 0 or more (got " + record + ")");
        }
        if (!keepGoing && spec.commandLine().getParseResult().hasMatchedOption("--record"))
        {
            throw new CliException("--record needs --keep-going (without it the first finding is written and " +
                "exploring stops)");
        }
        // A seed names a configuration: seeds run S, S+1, ... from the default 1 and stop at the largest long
        // instead of wrapping into the negatives, so the seed space is 0 to 2^63-1.
        Flags.atLeast("--first-seed", firstSeed, 0, "", "seeds run S, S+1, ... up to " +
            Flags.number(Long.MAX_VALUE) + " and never wrap");
        if (null == minutes)
        {
            final long seedCount = null != seeds ? seeds : 100;
            if (firstSeed > Long.MAX_VALUE - (seedCount - 1))
            {
                throw new CliException("--first-seed " + firstSeed + " with " + (null != seeds ? "--seeds " + seeds :
                    "the default 100 seeds") + " runs past the largest seed, " + Flags.number(Long.MAX_VALUE));
            }
        }
        if (Files.exists(outDirectory) && !Files.isDirectory(outDirectory))
        {
            throw new CliException("--out " + outDirectory + " exists and is not a directory");
        }
        Flags.writableDirectory("--out", outDirectory, "the findings");
    }

    private static String line(final Explorer.Outcome o)
    {
        return String.format(Locale.ROOT, "seed %d  %s | req %d fin %d abort %d retract %d load %d cow %d doc %d | %s",
            o.seed, o.config.summary, o.requests, o.finished, o.aborted, o.retracts, o.loads, o.cows, o.documents,
            o.clean() ? "clean" : o.rule + " at #" + o.sequence);
    }

    private static String bar(final long ran, final long count, final long start, final long deadline,
        final long found)
    {
        final double done = count != Long.MAX_VALUE ? (double)ran / count :
            Math.min(1.0, (System.nanoTime() - start) / (double)Math.max(1, deadline - start));
        final int width = 30;
        final int filled = (int)Math.round(done * width);
        return "[" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + ran +
            (count != Long.MAX_VALUE ? "/" + count : "") + " seeds, " + found + " found";
    }

    /** Write the finding under --out and describe it. */
    private ObjectNode record(final Explorer.Outcome o)
    {
        final PrintWriter out = spec.commandLine().getOut();
        final Path dir = freshDirectory(outDirectory.resolve("seed-" + o.seed));
        final Path journal = dir.resolve("journal");
        final ExploreRecorder recorder = new ExploreRecorder();
        final Explorer.Outcome again;
        final JournalHeader header = Explorer.header(o.config, "kvledger explore seed " + o.seed);
        try (JournalWriter writer = JournalWriter.open(journal, header, false))
        {
            again = Explorer.run(o.seed, o.config, (in, resultCode, effects) ->
            {
                writer.append(in, resultCode, effects);
                recorder.add(in, effects);
            });
        }
        catch (final JournalException ex)
        {
            throw new CliException("cannot write the journal of seed " + o.seed + " to " + journal + ": " +
                KvledgerMain.firstLine(ex.getMessage()), ex);
        }
        final List<String> report = new ArrayList<>();
        report.add("seed " + o.seed + " (repeat: kvledger explore --first-seed " + o.seed + " --seeds 1" +
            faultFlags(o) + ")");
        report.add("configuration: " + o.config.summary);
        report.add("found: " + o.rule + " at document #" + o.sequence + ": " + o.text);
        if (!o.rule.equals(again.rule) || o.sequence != again.sequence)
        {
            report.add("warning: the re-run for the journal found " + again.rule + " at #" + again.sequence +
                " (not deterministic?)");
        }
        final List<String> history = Explorer.history(o);
        if (!history.isEmpty())
        {
            report.add("history of " + o.violation.subject() + ":");
            for (final String h : history)
            {
                report.add("    " + h);
            }
        }
        report.add("journal: " + journal);
        final ObjectNode node = Json.object();
        node.put("seed", o.seed).put("rule", o.rule).put("sequence", o.sequence).put("text", o.text)
            .put("config", o.config.summary).put("journal", journal.toString());
        final Shrinker shrinker = shrinkerFor(header, recorder, o, again);
        if (shrinker != null)
        {
            final Path shrunk = dir.resolve("shrunk");
            final int inputs = shrink(shrinker, header, recorder, shrunk, report);
            if (inputs > 0)
            {
                node.put("reproducer", shrunk.toString()).put("reproducerInputs", inputs);
            }
        }
        else
        {
            report.add("not shrunk: the shrinker reduces invariant violations and the progress rules " +
                String.join(", ", Shrinker.SHRINKABLE_RULES) + " (seen again by the re-run); L4 no-progress, " +
                "engine errors and data-plane mismatches are reported with their whole journal");
        }
        OutputFiles.writeString(dir.resolve("report.txt"), String.join("\n", report) + "\n", "the seed report");
        if (!json)
        {
            for (final String line : report)
            {
                out.println("  " + line);
            }
        }
        return node;
    }

    /**
     * @return a shrinker for the finding when the re-run that wrote the journal saw the same thing: an invariant, or
     * a progress rule of {@link Shrinker#SHRINKABLE_RULES}; null otherwise.
     */
    private static Shrinker shrinkerFor(final JournalHeader header, final ExploreRecorder recorder,
        final Explorer.Outcome o, final Explorer.Outcome again)
    {
        if (o.violation != null)
        {
            return again.violation != null && again.violation.invariant() == o.violation.invariant() ?
                new Shrinker(header, recorder.steps, o.violation.invariant(), SHRINK_RUNS, SHRINK_NANOS) : null;
        }
        return Shrinker.SHRINKABLE_RULES.contains(o.rule) && o.rule.equals(again.rule) ?
            new Shrinker(header, recorder.steps, o.rule, SHRINK_RUNS, SHRINK_NANOS) : null;
    }

    private int shrink(final Shrinker shrinker, final JournalHeader header, final ExploreRecorder recorder,
        final Path shrunk, final List<String> report)
    {
        final Shrinker.Result result;
        try
        {
            result = shrinker.shrink();
        }
        catch (final CliException ex)
        {
            report.add("not shrunk: " + ex.getMessage());
            return 0;
        }
        final List<String> lines = new ArrayList<>();
        final Shrinker.Execution written;
        try (JournalWriter writer = JournalWriter.open(shrunk, header, false))
        {
            written = shrinker.execute(result.kept(), (in, resultCode, effects) ->
            {
                writer.append(in, resultCode, effects);
                lines.add(JournalPrinter.describeInput(in) + " -> " + ResultCode.name(resultCode));
            }, Shrinker.reportHistoryLimit());
        }
        catch (final JournalException ex)
        {
            report.add("not shrunk: cannot write " + shrunk + ": " + KvledgerMain.firstLine(ex.getMessage()));
            return 0;
        }
        report.add(String.format(Locale.ROOT, "shrunk: %d -> %d inputs (%s, %d re-executions in %.1f s%s): %s",
            recorder.steps.size(), result.kept().length, shrinker.goal(), result.runs(),
            result.elapsedNs() / 1e9, result.capped() ? ", budget reached" : "", shrunk));
        for (final String line : lines)
        {
            report.add("    " + line);
        }
        if (written.finding() != null)
        {
            report.add("reproducer: " + written.finding().rule() + " at input #" + written.finding().sequence() +
                ": " + written.finding().text());
        }
        return result.kept().length;
    }

    private String faultFlags(final Explorer.Outcome o)
    {
        final StringBuilder b = new StringBuilder();
        for (final FaultSwitch f : faults)
        {
            b.append(" --fault ").append(f.name());
        }
        return b.toString();
    }

    private static Path freshDirectory(final Path wanted)
    {
        Path dir = wanted;
        for (int n = 2; Files.exists(dir); n++)
        {
            dir = wanted.resolveSibling(wanted.getFileName() + "-" + n);
        }
        try
        {
            Files.createDirectories(dir);
        }
        catch (final IOException ex)
        {
            throw new CliException("cannot create " + dir + ": " + ex.getMessage(), ex);
        }
        return dir;
    }

    /** Copies every document of the re-run, for the shrinker. */
    private static final class ExploreRecorder
    {
        final List<Shrinker.Step> steps = new ArrayList<>();

        void add(final io.kvledger.journal.InputRecord input, final io.kvledger.journal.EffectList effects)
        {
            steps.add(Shrinker.Step.copyOf(input, effects));
        }
    }
}
