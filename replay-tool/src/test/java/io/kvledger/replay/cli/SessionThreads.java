package io.kvledger.replay.cli;

import io.kvledger.engine.runtime.KvLedger;
import io.kvledger.engine.runtime.KvLedgerOptions;
import io.kvledger.engine.runtime.Session;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Open a controller, serve it from several threads, each with its own {@link Session}, and close it; fails the test
 * when a thread threw or the engine stopped. For the tests that then read the journal the threads wrote.
 */
final class SessionThreads
{
    /** What one thread does with its session. */
    interface Server
    {
        void serve(Session session, int thread) throws Exception;
    }

    private SessionThreads()
    {
    }

    /**
     * @param options   the controller to open.
     * @param threads   how many serving threads.
     * @param joinMs    how long to wait for each thread.
     * @param server    what each thread does.
     * @throws InterruptedException when interrupted while joining.
     */
    static void serve(final KvLedgerOptions options, final int threads, final long joinMs, final Server server)
        throws InterruptedException
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final KvLedger ledger = KvLedger.open(options);
        try
        {
            final Thread[] running = new Thread[threads];
            for (int t = 0; t < threads; t++)
            {
                final int id = t;
                running[t] = new Thread(() ->
                {
                    try
                    {
                        server.serve(ledger.session(), id);
                    }
                    catch (final Throwable ex)
                    {
                        failure.compareAndSet(null, ex);
                    }
                }, "session-" + t);
                running[t].start();
            }
            for (final Thread thread : running)
            {
                thread.join(joinMs);
            }
        }
        finally
        {
            ledger.close();
        }
        assertNull(failure.get(), () -> "a session thread failed: " + failure.get());
        assertNull(ledger.loop().failure(), "the engine stopped");
    }
}
