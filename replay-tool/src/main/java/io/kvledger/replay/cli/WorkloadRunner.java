package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.EngineCounters;
import io.kvledger.engine.runtime.KvLedger;
import io.kvledger.engine.runtime.KvLedgerOptions;
import io.kvledger.engine.sim.RunSummary;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.SimulatedPort;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.engine.store.L3Store;
import io.kvledger.engine.store.StoreStats;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Runs a serving workload through the controller and journals it: live (Disruptor loop, device backend, L3
 * store, real bytes) or deterministic (everything simulated in one thread, same seed, same journal). Shared by
 * {@code run} and {@code demo}.
 */
final class WorkloadRunner
{
    /** What a run did. */
    static final class Result
    {
        long requests;
        long finished;
        long aborted;
        /** Requests the engine refused at arrival or admission (too large for the pools, too many at once). */
        long rejected;
        long inputs;
        long loads;
        long loadedPages;
        long hitTokens;
        long bytesMoved;
        long defers;
        long drops;
        long retracts;
        long mismatches;
        List<ServingLoop.Mismatch> mismatchList;
        long stateHash;
        long elapsedNs;
        Path journal;
        String deviceNote = "";
        /** The shared (Redis) store and its counters; "" for the embedded stores. */
        String storeNote = "";

        double inputsPerSecond()
        {
            return elapsedNs <= 0 ? 0 : inputs * 1e9 / elapsedNs;
        }
    }

    private WorkloadRunner()
    {
    }

    /**
     * @param options       runtime options (config, journal, device, store).
     * @param workload      what to serve.
     * @param deterministic run the simulated device and store in one thread.
     * @param progress      where to draw a progress line (see {@link Progress}), or null.
     * @return what the run did.
     */
    static Result run(final KvLedgerOptions options, final WorkloadOptions workload, final boolean deterministic,
        final PrintWriter progress)
    {
        final Progress line = null == progress ? Progress.NONE : new Progress(progress, true);
        final EngineConfig config = options.config;
        final Workload built = Workload.build(workload);
        final Result r = new Result();
        r.journal = options.journalDir;
        final long start = System.nanoTime();
        final ServingLoop loop;
        final EngineCounters counters;
        if (deterministic)
        {
            final CacheStateMachine engine = new CacheStateMachine(config);
            final JournalHeader header = config.toHeader(new JournalHeader())
                .deviceKind(io.kvledger.journal.codec.DeviceKind.SIMULATED).label(options.label);
            final SimulatedPort port;
            try (JournalWriter writer = JournalWriter.open(options.journalDir, header, false))
            {
                port = new SimulatedPort(engine, writer::append, workload.seed, workload.failureRate, null);
                loop = new ServingLoop(port, config, built);
                attach(loop, line);
                loop.run();
            }
            counters = engine.counters();
            r.stateHash = engine.stateHash();
            r.bytesMoved = port.movedBytes();
        }
        else
        {
            final KvLedger ledger = KvLedger.open(options);
            r.deviceNote = ledger.deviceMessage();
            // SIGTERM, SIGINT (Ctrl-C) or System.exit: close the controller as the end of a run does, so the
            // launched copies complete and are journaled, the journal is closed and the counters file says stopped
            // (without it the file said the process ended without closing, as after a crash)
            final Thread onSignal = new Thread(() ->
            {
                ledger.close();
                System.err.println("kvledger run: stopped by a signal after " + ledger.engine().sequence() +
                    " inputs; the controller closed the journal " + options.journalDir);
            }, "kvledger-run-shutdown");
            Runtime.getRuntime().addShutdownHook(onSignal);
            try
            {
                loop = new ServingLoop(ledger.session(), config, built);
                attach(loop, line);
                loop.run();
            }
            finally
            {
                try
                {
                    // may throw: the journal was found gone at close (JournalWriter.close)
                    ledger.close();
                }
                finally
                {
                    if (!removeShutdownHook(onSignal))
                    {
                        // the serving loop ended because the hook closed the controller: its refusal is no error to
                        // report; the JVM halts once the hook has said so
                        awaitHalt();
                    }
                }
            }
            // Every store's counts, so a file store on a full disk says so (I/O errors) as Redis does.
            r.storeNote = storeNote(ledger.store(), options.store == KvLedgerOptions.StoreKind.CUSTOM);
            counters = ledger.engine().counters();
            r.stateHash = ledger.engine().stateHash();
            r.bytesMoved = ledger.loop().movedBytes();
        }
        r.elapsedNs = System.nanoTime() - start;
        line.close();
        final RunSummary s = loop.summary();
        r.requests = s.requests;
        r.finished = s.finished;
        r.aborted = s.aborted;
        r.rejected = s.rejected;
        r.retracts = s.retracts;
        r.inputs = counters.inputs;
        r.loads = counters.loadsAcked;
        r.loadedPages = counters.loadedPages;
        r.hitTokens = counters.loadedPages * config.pageSize();
        r.defers = counters.defers;
        r.drops = counters.drops;
        r.mismatchList = loop.mismatches();
        r.mismatches = r.mismatchList.size();
        return r;
    }

    /**
     * One line about a run's L3 store after the run: where, and what it did (a file store's I/O errors too: a full
     * disk says so here).
     *
     * @param store   the run's store.
     * @param network whether the store is reached over the network (Redis): its timeouts and connection events.
     * @return the line.
     */
    private static String storeNote(final L3Store store, final boolean network)
    {
        final StoreStats s = store.stats();
        final String counts = String.format(Locale.ROOT, "%s: %,d pages written, %,d read, %,d missing, " +
            "%,d corrupt, %,d I/O errors", store.describe(), s.pagesWritten(), s.pagesRead(), s.missing(), s.corrupt(),
            s.ioErrors());
        return network ? counts + String.format(Locale.ROOT, " (%,d timeouts), %,d disconnects, %,d reconnects",
            s.timeouts(), s.disconnects(), s.reconnects()) : counts;
    }

    private static void attach(final ServingLoop loop, final Progress progress)
    {
        if (progress.enabled())
        {
            loop.progress((phase, finished, total) -> progress.update(phase, finished, total, "requests done"));
        }
    }

    /** @return false when the JVM is shutting down (the hook runs, or ran). */
    private static boolean removeShutdownHook(final Thread hook)
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
            return true;
        }
        catch (final IllegalStateException ex)
        {
            return false;
        }
    }

    private static void awaitHalt()
    {
        while (true)
        {
            java.util.concurrent.locks.LockSupport.park();
        }
    }
}
