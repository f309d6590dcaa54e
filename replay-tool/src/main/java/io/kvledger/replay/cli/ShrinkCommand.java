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
 * {@code kvledger shrink JOURNAL --out DIR}: delta-debugs the inputs down to the smallest sequence whose
 * re-execution still breaks the invariant of the journal's first violation, and writes it as a new journal whose
 * effects are the re-executed ones (so {@code check} reports the same invariant and {@code replay} is identical).
 */
@Command(
    name = "shrink",
    mixinStandardHelpOptions = true,
    description = {
        "Reduce the inputs to the smallest sequence that still breaks the same invariant.",
        "Delta-debugs the inputs up to the first violation, re-executing each candidate with the journal's " +
            "configuration and fault switches, writes the smallest sequence that still breaks that violation's " +
            "invariant as a new journal in DIR, and prints the sizes before and after."},
    footer = {"", "Exit codes: 0 the journal is clean (nothing to shrink), 1 a reproducer was written, " +
        "2 bad input or usage."})
final class ShrinkCommand extends JournalCommand
{
    @Option(names = "--out", required = true, paramLabel = "DIR",
        description = "Directory for the reduced journal; must not exist or be empty.")
    Path outDirectory;

    @Option(names = "--max-runs", paramLabel = "N", defaultValue = "5000",
        description = "Most candidate re-executions (default: ${DEFAULT-VALUE}).")
    int maxRuns;

    @Option(names = "--max-seconds", paramLabel = "S", defaultValue = "60",
        description = "Most seconds of searching (default: ${DEFAULT-VALUE}).")
    int maxSeconds;

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
        if (checker.clean())
        {
            out().println("nothing to shrink: journal is clean (" + documents + " documents)");
            out().flush();
            return KvledgerMain.EXIT_CLEAN;
        }

        final Violation original = checker.firstViolation().orElseThrow();
        final Shrinker shrinker = new Shrinker(header, recorder.steps, original.invariant(), maxRuns,
            maxSeconds * 1_000_000_000L);
        final Shrinker.Result result;
        try (Progress progress = Progress.onTerminal(err(), false))
        {
            shrinker.progress(progress);
            result = shrinker.shrink();
        }

        final List<String> lines = new ArrayList<>();
        final Shrinker.Execution reproduced = write(header, shrinker, result.kept(), lines);

        out().println("shrunk " + documents + " -> " + result.kept().length + " inputs (invariant " +
            original.invariant().name() + "), written to " + outDirectory);
        out().println("first violation of the journal: " + describe(original));
        for (final String line : lines)
        {
            out().println(line);
        }
        out().println("violation of the reduced journal: " + describe(reproduced.violation()));
        out().println(String.format(Locale.ROOT, "delta debugging: %d inputs up to the first violation, " +
            "%d re-executions in %.1f s", recorder.steps.size(), result.runs(), result.elapsedNs() / 1e9));
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
        if (null == execution.violation() || execution.length() != kept.length)
        {
            throw new CliException("internal error: the reduced sequence did not reproduce " +
                shrinker.invariant().name() + " when written", KvledgerMain.EXIT_BAD_INPUT, null);
        }
        return execution;
    }

    private void refuseUsedOutput()
    {
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

    private static String describe(final Violation violation)
    {
        return "#" + violation.documentSequence() + ' ' + violation.invariant().name() + ' ' + violation.subject() +
            ' ' + violation.explanation();
    }

    /** Checks the journal and copies its documents up to and including the first one that breaks an invariant. */
    private static final class Recorder implements JournalListener
    {
        final InvariantChecker checker = new InvariantChecker(true, 16, 0);
        final List<Shrinker.Step> steps = new ArrayList<>();

        @Override
        public void onHeader(final JournalHeader header, final JournalPosition position)
        {
            checker.onHeader(header, position);
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
            steps.add(Shrinker.Step.copyOf(input, effects));
        }
    }
}
