package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.journal.JournalHeader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;

/**
 * {@code kvledger compare JOURNAL OTHER [--json]}: invariant I20 across two journals, as {@link JournalComparer}
 * defines it: whether two tensor-parallel ranks (or any two runs meant to be the same) hold the same event log.
 * Exit 1 at the first difference.
 */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    description = {
        "Check that two journals hold the same event log (I20: tensor-parallel ranks).",
        "Compares the configurations in the headers, then each document's input, result code and effects in " +
            "order; slot ids may differ by one consistent renaming per pool (physical ids may differ between " +
            "ranks), nothing else may. Reports the first difference, or \"same event log\"."},
    footer = {"", "Exit codes: 0 same event log, 1 a difference found, 2 bad input or usage."})
final class CompareCommand extends JournalCommand
{
    @Parameters(index = "1", paramLabel = "OTHER", description = "The journal to compare it with.")
    Path other;

    @Option(names = "--json", description = "Print the outcome as JSON.")
    boolean json;

    @Override
    public Integer call()
    {
        if (other.toString().isBlank())
        {
            throw new CliException("no journal given: OTHER is empty");
        }
        final JournalComparer comparer;
        try (DocumentFeed feed = new DocumentFeed(other, err()).start();
            Progress progress = Progress.onTerminal(err(), json))
        {
            comparer = new JournalComparer(feed);
            final JournalHeader header = input().read(progress.documents("compare", comparer));
            comparer.finish();
            if (!header.kvledgerVersion().equals(feed.header().kvledgerVersion()))
            {
                err().println("warning: the journals were written by kvledger " + header.kvledgerVersion() +
                    " and " + feed.header().kvledgerVersion());
            }
        }
        final JournalComparer.Difference difference = comparer.difference();
        if (json)
        {
            final ObjectNode root = Json.object();
            root.put("documents", comparer.documents());
            root.put("same", null == difference);
            root.put("renamedSlots", comparer.renamedSlots());
            if (null != difference)
            {
                final ObjectNode at = root.putObject("difference");
                at.put("sequence", difference.sequence());
                at.put("what", difference.what());
                at.put("first", difference.first());
                at.put("second", difference.second());
            }
            out().println(Json.write(root));
        }
        else if (null == difference)
        {
            out().println("same event log: " + comparer.documents() + " documents" +
                (comparer.renamedSlots() > 0 ? ", " + comparer.renamedSlots() + " slot ids renamed" : ""));
        }
        else
        {
            out().println(difference.describe());
            out().println("    " + journal + ": " + difference.first());
            out().println("    " + other + ": " + difference.second());
        }
        out().flush();
        return null == difference ? KvledgerMain.EXIT_CLEAN : KvledgerMain.EXIT_FOUND;
    }
}
