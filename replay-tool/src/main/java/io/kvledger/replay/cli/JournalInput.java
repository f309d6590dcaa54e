package io.kvledger.replay.cli;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalReader;
import io.kvledger.journal.ReadOutcome;
import io.kvledger.journal.ReadStatus;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Opens and reads the journal a command was given, with the policy every command shares: a journal that cannot be
 * read (missing directory, no queue, corrupt, torn at the header, unsupported schema) is a {@link CliException}
 * (one line, exit 2); a torn tail after complete documents is readable, so the command proceeds on the complete
 * documents and one warning line goes to stderr. Documents read before a corruption are still delivered to the
 * listener, so a streaming command may have printed them before the error. A header that claims pools or tables
 * larger than kvledger ever writes is refused before any listener sizes anything by it (the checker and the engine
 * allocate per slot, node and op).
 */
final class JournalInput
{
    /** Most requests, ops, staged defers and tracking slots a header may claim (run writes 1,024 and 4,096). */
    static final int MAX_TABLE = 1 << 20;
    /** Most pages of one request a header may claim (run writes at most 16,386). */
    static final int MAX_HEADER_REQUEST_PAGES = 1 << 16;

    private final Path directory;
    private final PrintWriter err;
    private final JournalHeader header = new JournalHeader();
    private ReadOutcome outcome;
    private boolean warned;
    private boolean sizesChecked = true;

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
     * Deliver a header whatever sizes it claims, for a command that only prints it ({@code dump}: a damaged header
     * is shown as it is).
     *
     * @return this.
     */
    JournalInput anySizes()
    {
        sizesChecked = false;
        return this;
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
            outcome = reader.read(sizesChecked ? new HeaderLimits(listener) : listener, fromSequence, limit);
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

    /**
     * Refuse a header claiming sizes kvledger never writes: the checker keeps a reference per pool slot and the
     * engine preallocates its tree, op and request tables, so a damaged or foreign header would otherwise end in an
     * OutOfMemoryError.
     *
     * @param header the journal's header.
     * @throws CliException naming the field, its value and the largest kvledger writes.
     */
    void checkSizes(final JournalHeader header)
    {
        limit(header.deviceKvPages(), RunLimits.MAX_KV_PAGES, "device KV pages", "deviceKvPages");
        limit(header.hostKvPages(), RunLimits.MAX_KV_PAGES, "host KV pages", "hostKvPages");
        limit(header.deviceMambaSlots(), RunLimits.MAX_MAMBA_SLOTS, "device Mamba slots", "deviceMambaSlots");
        limit(header.hostMambaSlots(), RunLimits.MAX_MAMBA_SLOTS, "host Mamba slots", "hostMambaSlots");
        limit(header.trackingSlots(), RunLimits.MAX_MAMBA_SLOTS, "tracking slots", "trackingSlots");
        limit(header.maxNodes(), RunLimits.MAX_KV_PAGES + 2, "tree nodes", "maxNodes");
        limit(header.maxOps(), MAX_TABLE, "ops", "maxOps");
        limit(header.maxRequests(), MAX_TABLE, "requests", "maxRequests");
        limit(header.maxStagedDefers(), MAX_TABLE, "staged defers", "maxStagedDefers");
        limit(header.maxRequestPages(), MAX_HEADER_REQUEST_PAGES, "pages per request", "maxRequestPages");
    }

    private void limit(final int value, final int max, final String what, final String field)
    {
        if (value < 0 || value > max)
        {
            throw new CliException(String.format(Locale.ROOT, "corrupt journal %s: its header claims %,d %s (%s), " +
                "outside 0 to %,d, the most kvledger writes", directory, value, what, field, max));
        }
    }

    private String describe(final ReadOutcome outcome)
    {
        // Whole: it may quote a path holding a line break; the command line prints it as one line.
        final String message = null == outcome.message() ? "" : outcome.message().strip();
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

    /** Checks the header's sizes before the command's listener sees it. */
    private final class HeaderLimits implements JournalListener
    {
        private final JournalListener delegate;

        HeaderLimits(final JournalListener delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public void onHeader(final JournalHeader header, final JournalPosition position)
        {
            checkSizes(header);
            delegate.onHeader(header, position);
        }

        @Override
        public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
            final JournalPosition position)
        {
            delegate.onDocument(input, resultCode, effects, position);
        }
    }
}
