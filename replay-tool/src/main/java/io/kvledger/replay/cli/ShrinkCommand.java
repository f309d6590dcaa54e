package io.kvledger.replay.cli;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalException;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalPrinter;
import io.kvledger.journal.JournalWriter;
import io.kvledger.replay.check.InvariantChecker;
import io.kvledger.replay.check.LivenessMonitor;
import io.kvledger.replay.check.Violation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * {@code kvledger shrink JOURNAL --out DIR [--liveness]}: delta-debugs the inputs down to the smallest sequence whose
 * re-execution still breaks the invariant of the journal's first violation, and writes it as a new journal whose
 * effects are the re-executed ones (so {@code check} reports the same invariant and {@code replay} is identical).
 * With {@code --liveness}, a journal that breaks no invariant is shrunk for its first progress finding instead
 * (L1 or L2 as the journal's documents show it, else L5 or L3 at its end, which is then taken as quiescence: the
 * journal must be a whole run, as {@code explore} writes them; see {@link Shrinker}).
 */
@Command(
    name = "shrink",
    mixinStandardHelpOptions = true,
    description = {
        "Reduce the inputs to the smallest sequence that still breaks the same invariant.",
        "Delta-debugs the inputs up to the first violation, re-executing each candidate with the journal's " +
            "configuration and fault switches, writes the smallest sequence that still breaks that violation's " +
            "invariant as a new journal in DIR, and prints the sizes before and after. With --liveness, a journal " +
            "that breaks no invariant is shrunk for its first progress finding (L1, L2, L3 or L5) instead."},
    footer = {"", "Exit codes: 0 the journal is clean (nothing to shrink), 1 a reproducer was written, " +
        "2 bad input or usage."})
final class ShrinkCommand extends JournalCommand
{
    @Option(names = "--out", required = true, paramLabel = "DIR",
        description = "Directory for the reduced journal; must not exist or be empty.")
    Path outDirectory;

    @Option(names = "--max-runs", paramLabel = "N", defaultValue = "20000",
        description = "Most candidate re-executions (default: ${DEFAULT-VALUE}).")
    int maxRuns;

    @Option(names = "--max-seconds", paramLabel = "S", defaultValue = "60",
        description = "Most seconds of searching (default: ${DEFAULT-VALUE}).")
    int maxSeconds;

    @Option(names = "--liveness", description = "When no invariant breaks, shrink the first progress finding " +
        "(L1, L2, or L5/L3 at the journal's end, taken as quiescence: give a whole run, as explore writes).")
    boolean liveness;

    @Override
    public Integer call()
    {
        Flags.atLeast("--max-runs", maxRuns, 1, "runs", "candidate re-executions the search may make");
        Flags.atLeast("--max-seconds", maxSeconds, 1, "seconds", "how long the search may take");
        refuseUsedOutput();

        final Recorder recorder = new Recorder();
        final JournalInput input = input();
        final JournalHeader header = input.read(recorder);
        final long documents = input.outcome().documents();
        final InvariantChecker checker = recorder.checker;
        final String rule = checker.clean() && liveness ? progressRule(header, recorder) : null;
        if (checker.clean() && null == rule)
        {
            out().println("nothing to shrink: journal is clean (" + documents + " documents" +
                (liveness ? ", no progress finding" : "") + ")");
            out().flush();
            return KvledgerMain.EXIT_CLEAN;
        }

        final Violation original = checker.firstViolation().orElse(null);
        final Shrinker shrinker = null == original ?
            new Shrinker(header, recorder.steps, rule, maxRuns, maxSeconds * 1_000_000_000L) :
            new Shrinker(header, recorder.steps, original.invariant(), maxRuns, maxSeconds * 1_000_000_000L);
        final Shrinker.Result result;
        try (Progress progress = Progress.onTerminal(err(), false))
        {
            shrinker.progress(progress);
            result = shrinker.shrink();
        }

        final List<String> lines = new ArrayList<>();
        final Shrinker.Execution reproduced = write(header, shrinker, result.kept(), lines);

        out().println("shrunk " + documents + " -> " + result.kept().length + " inputs (" +
            (null == original ? "progress rule " : "invariant ") + shrinker.goal() + "), written to " + outDirectory);
        out().println(null == original ? "first progress finding of the journal: " + describe(recorder.finding) :
            "first violation of the journal: " + describe(original));
        for (final String line : lines)
        {
            out().println(line);
        }
        out().println(null == original ? "progress finding of the reduced journal: " + describe(reproduced.finding()) :
            "violation of the reduced journal: " + describe(reproduced.violation()));
        out().println(String.format(Locale.ROOT, "delta debugging: %d inputs %s, %d re-executions in %.1f s",
            recorder.steps.size(), null == original ? "of the whole journal (a progress rule may need what follows " +
            "its finding)" : "up to the first violation", result.runs(), result.elapsedNs() / 1e9));
        if (result.capped())
        {
            out().println("stopped at the budget (--max-runs " + maxRuns + ", --max-seconds " + maxSeconds +
                "): the sequence may not be minimal");
        }
        out().flush();
        return KvledgerMain.EXIT_FOUND;
    }

    private Shrinker.Execution write(final JournalHeader header, final Shrinker shrinker, final int[] kept,
        final List<String> lines)
    {
        final Shrinker.Execution execution;
        try (JournalWriter writer = JournalWriter.open(outDirectory, header, false))
        {
            execution = shrinker.execute(kept, (in, resultCode, effects) ->
            {
                writer.append(in, resultCode, effects);
                lines.add(JournalPrinter.describeInput(in) + " -> " + ResultCode.name(resultCode));
            }, Shrinker.reportHistoryLimit());
        }
        catch (final JournalException ex)
        {
            throw new CliException("cannot write the reduced journal to " + outDirectory + ": " +
                KvledgerMain.firstLine(ex.getMessage()), ex);
        }
        if ((null == execution.violation() && null == execution.finding()) || execution.length() != kept.length)
        {
            throw new CliException("internal error: the reduced sequence did not reproduce " +
                shrinker.goal() + " when written", KvledgerMain.EXIT_BAD_INPUT, null);
        }
        return execution;
    }

    private void refuseUsedOutput()
    {
        // An empty name would be the working directory, and Chronicle would put the queue file at the root.
        Flags.requireNamed("--out", outDirectory);
        OutputFiles.requireOutsideJournal("--out", outDirectory, journal, "the reduced journal");
        if (!Files.exists(outDirectory))
        {
            Flags.writableDirectory("--out", outDirectory, "the reduced journal");
            return;
        }
        if (!Files.isDirectory(outDirectory))
        {
            throw new CliException("--out " + outDirectory + " exists and is not a directory");
        }
        try (Stream<Path> entries = Files.list(outDirectory))
        {
            if (entries.findAny().isPresent())
            {
                throw new CliException("--out " + outDirectory + " is not empty; give a new or empty directory");
            }
        }
        catch (final IOException ex)
        {
            throw new CliException("cannot list --out " + outDirectory + ": " + ex, ex);
        }
    }

    /**
     * The journal's first progress finding: L1 or L2 as its documents show them, else L5 or L3 when re-executing the
     * whole journal ends that way (its end taken as quiescence).
     *
     * @return the rule, or null when there is none the shrinker can reduce.
     */
    private static String progressRule(final JournalHeader header, final Recorder recorder)
    {
        if (null != recorder.monitor.finding())
        {
            recorder.finding = recorder.monitor.finding();
            return Shrinker.SHRINKABLE_RULES.contains(recorder.finding.rule()) ? recorder.finding.rule() : null;
        }
        final int[] all = new int[recorder.steps.size()];
        java.util.Arrays.setAll(all, i -> i);
        for (final String endRule : List.of("L5 backlog-stuck", "L3 not-quiescent"))
        {
            final Shrinker.Execution end = new Shrinker(header, recorder.steps, endRule, 1, 1).execute(all, null, 0);
            if (null != end.finding())
            {
                recorder.finding = end.finding();
                return endRule;
            }
        }
        return null;
    }

    private static String describe(final LivenessMonitor.Finding finding)
    {
        return "#" + finding.sequence() + ' ' + finding.rule() + ' ' + finding.text();
    }

    private static String describe(final Violation violation)
    {
        return "#" + violation.documentSequence() + ' ' + violation.invariant().name() + ' ' + violation.subject() +
            ' ' + violation.explanation();
    }

    /** Checks the journal and copies its documents up to and including the first one that breaks an invariant. */
    private static final class Recorder implements JournalListener
    {
        final InvariantChecker checker = new InvariantChecker(true, 16, 0);
        final LivenessMonitor monitor = new LivenessMonitor();
        final List<Shrinker.Step> steps = new ArrayList<>();
        LivenessMonitor.Finding finding;

        @Override
        public void onHeader(final JournalHeader header, final JournalPosition position)
        {
            checker.onHeader(header, position);
            monitor.configure(header);
        }

        @Override
        public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
            final JournalPosition position)
        {
            if (checker.stopped())
            {
                return;
            }
            checker.check(input, resultCode, effects);
            monitor.onDocument(input, resultCode, effects);
            steps.add(Shrinker.Step.copyOf(input, effects));
        }
    }
}
