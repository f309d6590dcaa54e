package io.kvledger.replay.cli;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * One progress line on stderr for long commands ({@code run}, {@code check}, {@code replay}, {@code shrink}), redrawn
 * in place at most {@value #REDRAWS_PER_SECOND} times a second and cleared at the end. It draws only when a person
 * is watching: when {@link System#console()} is not null and the command was not asked for JSON; in a pipe, a file
 * or with {@code --json} every call returns at once and nothing is printed, so output stays byte-for-byte the same.
 * Nothing is drawn in the first {@value #FIRST_DRAW_MS} ms, so quick commands never flicker.
 * <pre>{@code
 * final Progress progress = Progress.onTerminal(err(), json);
 * for (...) { progress.update("explore", done, total); }   // or: if (progress.due()) progress.draw(text)
 * progress.close();                                        // clears the line
 * }</pre>
 * Not thread-safe: one thread draws.
 */
public final class Progress implements AutoCloseable
{
    /** A progress that never draws. */
    public static final Progress NONE = new Progress(null, false);

    /** Most redraws per second. */
    public static final int REDRAWS_PER_SECOND = 10;

    /** Quiet time before the first line, milliseconds. */
    public static final int FIRST_DRAW_MS = 500;

    private static final long INTERVAL_NS = 1_000_000_000L / REDRAWS_PER_SECOND;
    private static final String CLEAR_LINE = "\r\033[K";

    private final PrintWriter err;
    private final boolean enabled;
    private long nextDrawNs;
    private boolean drawn;

    /**
     * @param err     where to draw.
     * @param enabled false: never draw.
     */
    Progress(final PrintWriter err, final boolean enabled)
    {
        this.err = err;
        this.enabled = enabled && null != err;
        nextDrawNs = System.nanoTime() + FIRST_DRAW_MS * 1_000_000L;
    }

    /**
     * A progress for a command: it draws only on a terminal and never with JSON output.
     *
     * @param err  the command's standard error.
     * @param json true when the command prints JSON.
     * @return the progress.
     */
    public static Progress onTerminal(final PrintWriter err, final boolean json)
    {
        return new Progress(err, !json && null != System.console());
    }

    /** @return whether this progress draws at all. */
    public boolean enabled()
    {
        return enabled;
    }

    /**
     * Whether a redraw is due now; false at once when disabled. Build the text only when this says true.
     *
     * @return true at most {@value #REDRAWS_PER_SECOND} times a second, after the first {@value #FIRST_DRAW_MS} ms.
     */
    public boolean due()
    {
        if (!enabled)
        {
            return false;
        }
        final long now = System.nanoTime();
        if (now - nextDrawNs < 0)
        {
            return false;
        }
        nextDrawNs = now + INTERVAL_NS;
        return true;
    }

    /**
     * Draw a line now (replacing the previous one). Call after {@link #due()} said true.
     *
     * @param text one line, no line break.
     */
    public void draw(final String text)
    {
        if (!enabled)
        {
            return;
        }
        err.print(CLEAR_LINE + text);
        err.flush();
        drawn = true;
    }

    /**
     * Draw {@code phase: done/total (pct%)}, or {@code phase: done} when the total is unknown, when due.
     *
     * @param phase what is being done, e.g. {@code check}.
     * @param done  units done.
     * @param total units in all, 0 or less when unknown.
     * @param unit  what is counted, e.g. {@code documents}.
     */
    public void update(final String phase, final long done, final long total, final String unit)
    {
        if (!due())
        {
            return;
        }
        if (total > 0)
        {
            draw(String.format(Locale.ROOT, "%s: %,d/%,d %s (%.0f%%)", phase, done, total, unit,
                100.0 * done / total));
        }
        else
        {
            draw(String.format(Locale.ROOT, "%s: %,d %s", phase, done, unit));
        }
    }

    /**
     * Wrap a journal listener so that each document advances the progress.
     *
     * @param phase    what is being done.
     * @param delegate the listener that does the work.
     * @return a listener forwarding every call to the delegate.
     */
    public JournalListener documents(final String phase, final JournalListener delegate)
    {
        if (!enabled)
        {
            return delegate;
        }
        return new JournalListener()
        {
            private long documents;

            @Override
            public void onHeader(final JournalHeader header, final JournalPosition position)
            {
                delegate.onHeader(header, position);
            }

            @Override
            public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
                final JournalPosition position)
            {
                delegate.onDocument(input, resultCode, effects, position);
                update(phase, ++documents, 0, "documents");
            }
        };
    }

    /** Clear the line if anything was drawn; the progress stays usable. */
    @Override
    public void close()
    {
        if (drawn)
        {
            err.print(CLEAR_LINE);
            err.flush();
            drawn = false;
        }
    }
}
