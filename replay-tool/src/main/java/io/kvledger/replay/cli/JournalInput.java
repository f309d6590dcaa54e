package io.kvledger.replay.cli;

import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalReader;
import io.kvledger.journal.ReadOutcome;
import io.kvledger.journal.ReadStatus;

import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * Opens and reads the journal a command was given, with the policy every command shares: a journal that cannot be
 * read (missing directory, no queue, corrupt, torn at the header, unsupported schema) is a {@link CliException}
 * (one line, exit 2); a torn tail after complete documents is readable, so the command proceeds on the complete
 * documents and one warning line goes to stderr. Documents read before a corruption are still delivered to the
 * listener, so a streaming command may have printed them before the error.
 */
final class JournalInput
{
    private final Path directory;
    private final PrintWriter err;
    private final JournalHeader header = new JournalHeader();
    private ReadOutcome outcome;
    private boolean warned;

    /**
     * @param directory the journal directory as given on the command line.
     * @param err       where the torn-tail warning goes.
     */
    JournalInput(final Path directory, final PrintWriter err)
    {
        this.directory = directory;
        this.err = err;
    }

    /**
     * Read the header and every document.
     *
     * @param listener told about the header and each document.
     * @return a copy of the journal's header.
     * @throws CliException when the journal cannot be read.
     */
    JournalHeader read(final JournalListener listener)
    {
        return read(listener, 1, Long.MAX_VALUE);
    }

    /**
     * Read the header and the documents from a sequence on.
     *
     * @param listener     told about the header and each delivered document.
     * @param fromSequence first sequence delivered.
     * @param limit        most documents delivered.
     * @return a copy of the journal's header.
     * @throws CliException when the journal cannot be read.
     */
    JournalHeader read(final JournalListener listener, final long fromSequence, final long limit)
    {
        if (directory.toString().isBlank())
        {
            throw new CliException("no journal given: JOURNAL is empty");
        }
        try (JournalReader reader = JournalReader.open(directory))
        {
            outcome = reader.read(listener, fromSequence, limit);
            if (!outcome.isReadable())
            {
                throw new CliException(describe(outcome));
            }
            if (null == reader.header())
            {
                throw new CliException("corrupt journal " + directory + ": no journal header");
            }
            header.copyFrom(reader.header());
        }
        if (ReadStatus.TORN_TAIL == outcome.status() && !warned)
        {
            warned = true;
            err.println("warning: torn tail after document " + outcome.lastSequence() + ": " +
                KvledgerMain.firstLine(outcome.message()));
        }
        return header;
    }

    /**
     * @return how the last read ended, or null before a read.
     */
    ReadOutcome outcome()
    {
        return outcome;
    }

    private String describe(final ReadOutcome outcome)
    {
        final String message = KvledgerMain.firstLine(outcome.message());
        switch (outcome.status())
        {
            case NOT_A_JOURNAL:
                return "not a journal: " + message;
            case EMPTY:
                return "empty journal: " + message;
            case UNSUPPORTED_SCHEMA:
                return "unsupported journal " + directory + ": " + message;
            case CORRUPT:
            default:
                return "corrupt journal " + directory + ": " + message;
        }
    }
}
