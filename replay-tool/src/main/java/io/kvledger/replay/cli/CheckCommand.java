package io.kvledger.replay.cli;

import io.kvledger.journal.JournalHeader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.kvledger.replay.check.Invariant;
import io.kvledger.replay.check.InvariantChecker;
import io.kvledger.replay.check.InvariantCoverage;
import io.kvledger.replay.check.ShadowModel;
import io.kvledger.replay.check.Violation;
import io.kvledger.replay.report.CheckReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code kvledger check JOURNAL [--json] [--html FILE] [--fail-fast]}: folds the recorded effects into the shadow
 * ownership model and checks the invariants after every document. Exit 1 when any invariant broke.
 * {@code kvledger check --invariants} lists each of I1-I20 with how it is checked ({@link InvariantCoverage}).
 */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = {
        "Check the invariants after every document of a journal (--invariants lists how each of I1-I20 is checked).",
        "Folds the recorded effects into a shadow ownership model, independent of the engine's logic. Each " +
            "violation names the document, the invariant, the slot or node, what went wrong and the history of " +
            "that slot."},
    footer = {"", "Exit codes: 0 clean, 1 violations found, 2 bad input or usage."})
final class CheckCommand extends JournalCommand
{
    /** Violations kept for the report; further ones are only counted. */
    static final int MAX_REPORTED = 1_000;

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Option(names = "--html", paramLabel = "FILE",
        description = "Also write a self-contained HTML report with an SVG timeline of the implicated slots (a new " +
            "file, outside the journal).")
    Path html;

    @Option(names = "--fail-fast", description = "Stop at the first document that breaks an invariant.")
    boolean failFast;

    @Option(names = "--invariants", help = true,
        description = "List invariants I1-I20 with how each is checked (takes no JOURNAL).")
    boolean invariants;

    @Override
    public Integer call()
    {
        if (invariants)
        {
            // --invariants is a help option: picocli accepts it beside a JOURNAL, which would then go unchecked.
            refuseWithInvariants(null != journal, "a JOURNAL");
            refuseWithInvariants(null != html, "--html");
            refuseWithInvariants(failFast, "--fail-fast");
            return listInvariants();
        }
        if (null != html)
        {
            OutputFiles.requireNewFile("--html", html, journal, "the html report");
        }
        // A clean journal needs no histories: the first pass keeps none (a fifth of the time goes into recording
        // them). Only when it finds a violation is the journal checked again, keeping the last effects of every
        // subject, so the report names each violation's history; both passes are deterministic and agree.
        InvariantChecker checker = new InvariantChecker(failFast, MAX_REPORTED, 0);
        final JournalInput input = input();
        JournalHeader header;
        try (Progress progress = Progress.onTerminal(err(), json))
        {
            final InvariantChecker firstPass = checker;
            header = DocumentPipeline.read("check", firstPass,
                listener -> input.read(progress.documents("check", listener)));
        }
        if (!checker.clean())
        {
            checker = new InvariantChecker(failFast, MAX_REPORTED, ShadowModel.DEFAULT_HISTORY_LIMIT);
            try (Progress progress = Progress.onTerminal(err(), json))
            {
                header = input.read(progress.documents("check (histories)", checker));
            }
        }
        final CheckReport report = CheckReport.of(checker, title(header.label()));

        if (null != html)
        {
            writeHtml(report);
        }
        if (json)
        {
            out().println(report.toJson(input.outcome().documents(), checker.stopped()));
            if (null != html)
            {
                err().println("html report written to " + html);
            }
        }
        else
        {
            out().println(summary(checker, input.outcome().documents()));
            out().print(report.toText());
            if (null != html)
            {
                out().println("html report written to " + html);
            }
        }
        out().flush();
        return checker.clean() ? KvledgerMain.EXIT_CLEAN : KvledgerMain.EXIT_FOUND;
    }

    /**
     * The first line: {@code journal: N documents, clean} or
     * {@code journal: N documents, K violations (first: #SEQ I13 DEVICE_MAMBA:3)}.
     */
    private String summary(final InvariantChecker checker, final long documents)
    {
        final StringBuilder line = new StringBuilder("journal: ").append(documents)
            .append(1 == documents ? " document, " : " documents, ");
        if (checker.clean())
        {
            return line.append("clean").toString();
        }
        final long count = checker.violationCount();
        line.append(count).append(1 == count ? " violation" : " violations");
        checker.firstViolation().ifPresent(first -> line.append(" (first: ").append(describe(first)).append(')'));
        if (checker.stopped())
        {
            line.append("; stopped after document #").append(checker.model().lastSequence())
                .append(" (--fail-fast)");
        }
        return line.toString();
    }

    private int listInvariants()
    {
        if (json)
        {
            final ArrayNode array = Json.array();
            for (final Invariant invariant : Invariant.values())
            {
                final InvariantCoverage.Row row = InvariantCoverage.of(invariant);
                array.addObject().put("invariant", invariant.name()).put("checked", row.level().name())
                    .put("description", invariant.description()).put("how", row.how());
            }
            out().println(Json.write(array));
        }
        else
        {
            out().printf(Locale.ROOT, "%d of 20 invariants checked by the checker, %d in part (%s), %d only by the " +
                "engine's verify() (%s), %d not checked (%s)%n",
                InvariantCoverage.count(InvariantCoverage.Level.CHECKER),
                InvariantCoverage.count(InvariantCoverage.Level.PARTIAL),
                InvariantCoverage.names(InvariantCoverage.Level.PARTIAL),
                InvariantCoverage.count(InvariantCoverage.Level.ENGINE_VERIFY),
                InvariantCoverage.names(InvariantCoverage.Level.ENGINE_VERIFY),
                InvariantCoverage.count(InvariantCoverage.Level.NOT_CHECKED),
                InvariantCoverage.names(InvariantCoverage.Level.NOT_CHECKED));
            for (final Invariant invariant : Invariant.values())
            {
                final InvariantCoverage.Row row = InvariantCoverage.of(invariant);
                out().printf(Locale.ROOT, "%-4s %-13s %s%n     how: %s%n", invariant.name(),
                    row.level().name().toLowerCase(Locale.ROOT).replace('_', '-'), invariant.description(), row.how());
            }
        }
        out().flush();
        return KvledgerMain.EXIT_CLEAN;
    }

    private static void refuseWithInvariants(final boolean given, final String what)
    {
        if (given)
        {
            throw new CliException("--invariants lists how each invariant is checked and reads no journal; give " +
                "it without " + what + " (check JOURNAL checks a journal)");
        }
    }

    private static String describe(final Violation violation)
    {
        return "#" + violation.documentSequence() + ' ' + violation.invariant().name() + ' ' + violation.subject();
    }

    private void writeHtml(final CheckReport report)
    {
        OutputFiles.writeString(html, report.toHtml(), "the html report");
    }
}
