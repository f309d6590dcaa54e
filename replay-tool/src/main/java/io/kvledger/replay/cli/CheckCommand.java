package io.kvledger.replay.cli;

import io.kvledger.journal.JournalHeader;
import io.kvledger.replay.check.InvariantChecker;
import io.kvledger.replay.check.ShadowModel;
import io.kvledger.replay.check.Violation;
import io.kvledger.replay.report.CheckReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * {@code kvledger check JOURNAL [--json] [--html FILE] [--fail-fast]}: folds the recorded effects into the shadow
 * ownership model and checks invariants I1-I20 after every document. Exit 1 when any invariant broke.
 */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = {
        "Check invariants I1-I20 after every document of a journal.",
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
        description = "Also write a self-contained HTML report with an SVG timeline of the implicated slots.")
    Path html;

    @Option(names = "--fail-fast", description = "Stop at the first document that breaks an invariant.")
    boolean failFast;

    @Override
    public Integer call()
    {
        final InvariantChecker checker =
            new InvariantChecker(failFast, MAX_REPORTED, ShadowModel.DEFAULT_HISTORY_LIMIT);
        final JournalInput input = input();
        final JournalHeader header;
        try (Progress progress = Progress.onTerminal(err(), json))
        {
            header = input.read(progress.documents("check", checker));
        }
        final CheckReport report = CheckReport.of(checker, title(header.label()));

        if (null != html)
        {
            writeHtml(report);
        }
        if (json)
        {
            out().println(report.toJson());
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

    private static String describe(final Violation violation)
    {
        return "#" + violation.documentSequence() + ' ' + violation.invariant().name() + ' ' + violation.subject();
    }

    private void writeHtml(final CheckReport report)
    {
        OutputFiles.writeString(html, report.toHtml(), "the html report");
    }
}
