package io.kvledger.engine.device;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Records copy completions for tests; waits are hang guards only, never timing assertions.
 */
final class RecordingCopyListener implements CopyListener
{
    private static final long WAIT_SECONDS = 60;

    private final List<Long> ops = new ArrayList<>();
    private final List<Boolean> oks = new ArrayList<>();

    public synchronized void onCopyDone(final long op, final boolean ok)
    {
        ops.add(op);
        oks.add(ok);
        notifyAll();
    }

    synchronized void awaitCount(final int count)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (ops.size() < count)
        {
            final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs <= 0)
            {
                fail("only " + ops.size() + " of " + count + " completions arrived");
            }
            try
            {
                wait(leftMs);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    synchronized boolean awaitOk(final long op)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        int index;
        while ((index = ops.indexOf(op)) < 0)
        {
            final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs <= 0)
            {
                fail("op " + op + " never completed");
            }
            try
            {
                wait(leftMs);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
        return oks.get(index);
    }

    synchronized List<Long> ops()
    {
        return new ArrayList<>(ops);
    }

    synchronized List<Boolean> oks()
    {
        return new ArrayList<>(oks);
    }
}
