package io.kvledger.engine.store;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Records store completions in arrival order for tests; waits are hang guards only, never timing assertions.
 */
final class RecordingStoreListener implements StoreListener
{
    static final int QUERY = 0;
    static final int FETCH = 1;
    static final int WRITE = 2;

    private static final long WAIT_SECONDS = 60;

    private final LinkedBlockingQueue<Completion> completions = new LinkedBlockingQueue<>();

    public void onQueryDone(final long op, final int presentPages, final int mambaPages)
    {
        completions.add(new Completion(QUERY, op, true, presentPages, mambaPages, false));
    }

    public void onFetchDone(final long op, final boolean ok, final int pagesRead, final boolean mambaRead)
    {
        completions.add(new Completion(FETCH, op, ok, pagesRead, 0, mambaRead));
    }

    public void onWriteDone(final long op, final boolean ok)
    {
        completions.add(new Completion(WRITE, op, ok, 0, 0, false));
    }

    Completion next(final int type, final long op)
    {
        final Completion completion;
        try
        {
            completion = completions.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", ex);
        }
        if (null == completion)
        {
            fail("no completion for op " + op);
        }
        assertEquals(type, completion.type, "completion type of op " + op);
        assertEquals(op, completion.op, "completion order");
        return completion;
    }

    static final class Completion
    {
        final int type;
        final long op;
        final boolean ok;
        final int pages;
        final int mambaPages;
        final boolean mambaRead;

        Completion(
            final int type, final long op, final boolean ok, final int pages, final int mambaPages,
            final boolean mambaRead)
        {
            this.type = type;
            this.op = op;
            this.ok = ok;
            this.pages = pages;
            this.mambaPages = mambaPages;
            this.mambaRead = mambaRead;
        }
    }
}
