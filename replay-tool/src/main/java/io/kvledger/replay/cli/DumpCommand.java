package io.kvledger.replay.cli;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPrinter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvledger dump JOURNAL [--from SEQ] [--limit N] [--json]}: the journal as readable text (the header, then
 * one line per document and one indented line per effect), or as JSON lines.
 */
@Command(
    name = "dump",
    mixinStandardHelpOptions = true,
    description = "Print the journal: the header, then one line per document and one indented line per effect.",
    footer = {"", "Exit codes: 0 done, 2 bad input or usage."})
final class DumpCommand extends JournalCommand
{
    @Option(names = "--from", paramLabel = "SEQ", defaultValue = "1",
        description = "First document printed (default: ${DEFAULT-VALUE}).")
    long from;

    @Option(names = "--limit", paramLabel = "N", description = "Most documents printed (default: all).")
    Long limit;

    @Option(names = "--json", description = "One JSON object per document (JSON lines), without the header.")
    boolean json;

    @Override
    public Integer call()
    {
        Flags.atLeast("--from", from, 1, "", "documents are numbered from 1");
        if (null != limit)
        {
            Flags.atLeast("--limit", limit, 1, "documents", "leave it out to print every document");
        }
        final JournalListener printer = json ? new DumpJson(out()) : new JournalPrinter(out(), ResultCode::name);
        final JournalInput input = input().anySizes();
        try
        {
            input.read(printer, from, null == limit ? Long.MAX_VALUE : limit);
        }
        finally
        {
            out().flush();
        }
        final long documents = input.outcome().documents();
        if (from > documents)
        {
            err().println("warning: no document from #" + from + "; the journal ends at document #" + documents);
        }
        return KvledgerMain.EXIT_CLEAN;
    }
}
