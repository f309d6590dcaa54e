package io.kvledger.engine.runtime;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.counters.CountersFile;
import io.kvledger.engine.counters.CountersPublisher;
import io.kvledger.engine.counters.MetricsServer;
import io.kvledger.engine.device.DeviceBackend;
import io.kvledger.engine.device.DeviceBackends;
import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.store.FileL3Store;
import io.kvledger.engine.store.L3Store;
import io.kvledger.engine.store.MemoryL3Store;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.Journaller;

import java.util.concurrent.TimeUnit;

/**
 * The embedded controller: open it with a configuration, take one {@link Session} per server thread, and close
 * it when done. It owns the engine loop (Disruptor ring and engine thread), the journal (Chronicle Queue), the
 * device backend (host memory or CUDA) and the L3 store (files or memory). Unless turned off, it keeps live counters
 * in {@code journalDir/kvledger-counters.dat} ({@code kvledger stat} reads them from another process) and, when
 * asked, serves them in the Prometheus text format on 127.0.0.1 ({@link KvLedgerOptions#metricsPort}).
 * <p>
 * Thread safety: {@link #open}, {@link #session()} and {@link #close()} from any thread; each {@link Session}
 * from one thread at a time.
 * <pre>{@code
 * try (KvLedger ledger = KvLedger.open(options)) {
 *     Session s = ledger.session();
 *     s.arrive(requestId, namespace, tokens, tokenCount, maxNewTokens);   // fingerprints on this thread
 *     s.beginPass(maxRunning, tokenBudget, inputBudget, chunkBudget);
 *     if (s.admit(requestId) == ResultCode.OK) { ...decision(): load to wait for, slots, pages... }
 *     s.endPass();                                                         // queued loads launch
 *     s.pollCompletion();                                                  // loads acked
 *     s.chunk(...); s.finish(requestId, pages, trackedPages, writePos, cacheBase, isFlush);
 * }
 * }</pre>
 */
public final class KvLedger implements AutoCloseable
{
    private final KvLedgerOptions options;
    private final CacheStateMachine engine;
    private final JournalWriter journal;
    private final Journaller journaller;
    private final DeviceBackend device;
    private final L3Store store;
    private final EngineLoop loop;
    private final String deviceMessage;
    private final CountersPublisher counters;
    private MetricsServer metrics;
    private volatile boolean closed;

    private KvLedger(final KvLedgerOptions options, final CacheStateMachine engine, final JournalWriter journal,
        final DeviceBackend device, final L3Store store, final String deviceMessage)
    {
        this.options = options;
        this.engine = engine;
        this.journal = journal;
        this.device = device;
        this.store = store;
        this.deviceMessage = deviceMessage;
        journaller = options.journalThread ? Journaller.start(journal) : null;
        try
        {
            final EngineLoop.BatchEnd sync = options.syncJournal && null == journaller ? journal::sync : null;
            final DocumentSink sink = null != journaller ? new JournallerSink(journaller) :
                (in, result, effects) -> journal.append(in, result, effects);
            loop = new EngineLoop(engine, sink, sync, device, store, options.ringSize, options.waitStrategy,
                engine.config().maxRequestPages() + 4);
            counters = options.counters ? CountersPublisher.open(options.journalDir.resolve(CountersFile.FILE_NAME),
                engine, journal, device, store, loop::ringFill, loop.ringCapacity(), loop::movedBytes) : null;
            loop.observer(counters);
        }
        catch (final RuntimeException | Error ex)
        {
            // the journaller thread started above would otherwise outlive a controller that never opened
            if (null != journaller)
            {
                journaller.close();
            }
            throw ex;
        }
    }

    /**
     * Open the controller: validate the configuration (the buffer-only fence), create the journal, the device
     * memory and the store, and start the engine thread.
     *
     * @param options what to open.
     * @return the running controller.
     * @throws IllegalArgumentException for a configuration the components refuse; options that can be checked
     * without opening anything (ring size, a metrics port without counters, a metrics port already in use) are
     * refused before the journal is created, so the corrected options open on the same directories.
     */
    public static KvLedger open(final KvLedgerOptions options)
    {
        if (options.ringSize < 1 || Integer.bitCount(options.ringSize) != 1)
        {
            throw new IllegalArgumentException("ringSize must be a power of two: " + options.ringSize);
        }
        if (options.metricsPort >= 0 && !options.counters)
        {
            throw new IllegalArgumentException("a metrics port needs the counters (KvLedgerOptions.counters)");
        }
        // a busy metrics port is refused before anything is created (the journal above all), like the checks above
        final MetricsServer metrics = options.metricsPort >= 0 ? MetricsServer.bind(options.metricsPort) : null;
        try
        {
            return open(options, metrics);
        }
        catch (final RuntimeException | Error ex)
        {
            if (null != metrics)
            {
                metrics.close();
            }
            throw ex;
        }
    }

    private static KvLedger open(final KvLedgerOptions options, final MetricsServer metrics)
    {
        final EngineConfig config = options.config;
        final CacheStateMachine engine = new CacheStateMachine(config);
        final DeviceConfig deviceConfig = new DeviceConfig()
            .deviceKvPages(config.deviceKvPages()).deviceMambaSlots(Math.max(1, config.deviceMambaSlots()))
            .hostKvPages(config.hostKvPages()).hostMambaSlots(Math.max(1, config.hostMambaSlots()))
            .kvPageBytes(config.kvPageBytes()).mambaStateBytes(config.mambaStateBytes())
            .maxCopiesPerBatch(config.maxRequestPages() + 4).batchCount(Math.max(64, config.maxOps() / 4))
            .copyDelayNs(options.copyDelayMinNs, options.copyDelayMaxNs)
            .failureProbability(options.copyFailureProbability).seed(config.seed())
            .cudaCopyPath(options.cudaCopyPath);
        final StringBuilder message = new StringBuilder();
        final DeviceBackend device = DeviceBackends.create(options.device, deviceConfig, message);
        final L3Store store;
        try
        {
            store = openStore(options, device, config.maxRequestPages() + 4, 64);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(device);
            throw ex;
        }
        final JournalWriter journal;
        try
        {
            final JournalHeader header = config.toHeader(new JournalHeader()).deviceKind(device.kind())
                .createdNs(System.currentTimeMillis() * 1_000_000L).label(options.label);
            journal = JournalWriter.open(options.journalDir, header, options.syncJournal && options.journalThread,
                options.pretouchJournal);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(store);
            closeQuietly(device);
            throw ex;
        }
        KvLedger ledger = null;
        try
        {
            ledger = new KvLedger(options, engine, journal, device, store, message.toString());
            if (null != metrics)
            {
                ledger.metrics = metrics.serve(ledger.counters.file().reader());
            }
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(store);
            closeQuietly(device);
            if (null != ledger && null != ledger.counters)
            {
                // the counters file said STARTING; a reader must see that this controller will never run
                ledger.counters.close(true);
            }
            if (null != ledger && null != ledger.journaller)
            {
                ledger.journaller.close();
            }
            journal.close();
            throw ex;
        }
        device.start(ledger.loop);
        store.start(ledger.loop);
        ledger.loop.start();
        if (null != ledger.counters)
        {
            ledger.counters.onStarted();
        }
        return ledger;
    }

    private static L3Store openStore(
        final KvLedgerOptions options, final DeviceBackend device, final int maxPagesPerOp, final int planCount)
    {
        switch (options.store)
        {
            case MEMORY:
                return new MemoryL3Store(device, maxPagesPerOp, planCount);

            case CUSTOM:
                if (null == options.storeFactory)
                {
                    throw new IllegalArgumentException("store CUSTOM needs a storeFactory");
                }
                return options.storeFactory.create(device, maxPagesPerOp, planCount);

            default:
                return new FileL3Store(options.storeDir, device, maxPagesPerOp, planCount);
        }
    }

    /** @return a new session for the calling thread. */
    public Session session()
    {
        return new Session(this, loop, options, engine.config(), device);
    }

    /** @return the engine loop (for status). */
    public EngineLoop loop()
    {
        return loop;
    }

    /** @return the device backend. */
    public DeviceBackend device()
    {
        return device;
    }

    /** @return the L3 store. */
    public L3Store store()
    {
        return store;
    }

    /** @return the live counters file, or null when counters are off. */
    public CountersFile countersFile()
    {
        return null == counters ? null : counters.file();
    }

    /** @return the port the metrics endpoint listens on, or -1 when it is off. */
    public int metricsPort()
    {
        return null == metrics ? -1 : metrics.port();
    }

    /** @return why the requested device was not used, or "" when it was. */
    public String deviceMessage()
    {
        return deviceMessage;
    }

    /**
     * Whether {@link #close()} has begun: from then on every {@link Session} call that cannot reach the engine
     * returns {@link io.kvledger.engine.effect.ResultCode#ENGINE_STOPPED}.
     *
     * @return true once closing.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * The engine itself; read it only after {@link #close()} (it belongs to the engine thread while running).
     *
     * @return the controller.
     */
    public CacheStateMachine engine()
    {
        return engine;
    }

    /**
     * Shut down in order: stop taking callers' inputs (every one published before is applied and journaled, every
     * later call returns {@link io.kvledger.engine.effect.ResultCode#ENGINE_STOPPED}), so nothing launches any more
     * but what completions of launched operations start; wait (up to 10 s) for the launched operations so their
     * completions are journaled (operations only queued, in a pass left open, never launch); stop the device and
     * store threads; drain the ring; publish the final counters and state; stop the metrics endpoint; close the
     * journal. A second call, from any thread, returns once the first has closed everything.
     *
     * @throws io.kvledger.journal.JournalException once everything is closed, when the journal's queue file was
     *                                              removed while the controller wrote it (the journal is lost).
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        loop.stopInputs(TimeUnit.SECONDS.toNanos(10));
        loop.awaitQuiescent(TimeUnit.SECONDS.toNanos(10));
        closeQuietly(store);
        closeQuietly(device);
        loop.close();
        if (null != counters)
        {
            counters.close(null != loop.failure());
        }
        if (null != metrics)
        {
            metrics.close();
        }
        if (null != journaller)
        {
            journaller.close();
        }
        journal.close();
    }

    private static void closeQuietly(final AutoCloseable c)
    {
        try
        {
            c.close();
        }
        catch (final Exception ignore)
        {
            // shutting down: nothing left to tell
        }
    }
}
