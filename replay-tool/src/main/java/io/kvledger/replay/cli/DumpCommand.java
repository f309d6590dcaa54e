package io.kvledger.replay.cli;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
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
        final HeaderWithFirstDocument printer = new HeaderWithFirstDocument(json ? new DumpJson(out()) :
            new JournalPrinter(out(), ResultCode::name));
        final JournalInput input = input().anySizes();
        try
        {
            input.read(printer, from, null == limit ? Long.MAX_VALUE : limit);
            final long documents = input.outcome().documents();
            if (from > documents && from > 1)
            {
                // as inspect --at past the end: nothing printed, one line
                throw new CliException("--from " + from + ": the journal ends at document #" + documents);
            }
            printer.flushHeader();
            if (from > documents)
            {
                err().println("warning: no document from #" + from + "; the journal ends at document #" + documents);
            }
        }
        finally
        {
            out().flush();
        }
        return KvledgerMain.EXIT_CLEAN;
    }

    /** Holds the header back until the first document is printed, so --from past the end prints nothing. */
    private static final class HeaderWithFirstDocument implements JournalListener
    {
        private final JournalListener printer;
        private final JournalHeader header = new JournalHeader();
        private final JournalPosition position = new JournalPosition();
        private boolean pending;

        HeaderWithFirstDocument(final JournalListener printer)
        {
            this.printer = printer;
        }

        @Override
        public void onHeader(final JournalHeader header, final JournalPosition position)
        {
            this.header.copyFrom(header);
            this.position.set(position.cycle(), position.index(), position.ordinal());
            pending = true;
        }

        @Override
        public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
            final JournalPosition position)
        {
            flushHeader();
            printer.onDocument(input, resultCode, effects, position);
        }

        void flushHeader()
        {
            if (pending)
            {
                pending = false;
                printer.onHeader(header, position);
            }
        }
    }
}
