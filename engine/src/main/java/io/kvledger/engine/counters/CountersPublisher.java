package io.kvledger.engine.counters;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineCounters;
import io.kvledger.engine.device.DeviceBackend;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.store.L3Store;
import io.kvledger.engine.store.StoreStats;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * Copies the engine's counters into the counters file, on the engine thread, after inputs were applied and
 * journaled (never from inside apply). Every store is a release store of a long into the mapped values buffer: no
 * allocation, no lock, no system call. A value is stored only when it changed since the last publication (a heap
 * copy of what was published is compared first): most inputs change a handful of the fifty values, and a compare
 * in the thread's own cache is cheaper than a store to the shared mapping that a reader's cache line must then
 * fetch again.
 * <p>
 * <b>Cadence.</b> Everything is published when the engine thread finds no input waiting and is about to wait
 * ({@link #onIdle()}, Aeron's duty cycle: housekeeping when there is no work), so an idle controller's file is
 * exact and the cost falls in time the thread would spend waiting; while inputs keep coming, every
 * {@value #MAX_UNPUBLISHED} inputs, so a reader never sees values older than that under load and the cost per input
 * is a counter increment and a compare. Values owned by other threads (device and store statistics, the ring's
 * producer cursor) cost a cache miss each to read: under load they are read every {@value #SLOW_EVERY}
 * publications ({@link KvCounter.Tier#SLOW}); when idle, every time.
 * <p>
 * Thread ownership: {@link #onApplied}, {@link #onIdle} and {@link #onFailed} on the engine thread; {@link #open}
 * and {@link #close} on the thread that opens and closes the controller, before the engine thread starts and after
 * it ended.
 */
public final class CountersPublisher implements EngineObserver
{
    /** Most inputs applied between two publications while the engine is never idle. */
    public static final int MAX_UNPUBLISHED = 256;

    /** Publications under load between two reads of the values other threads own. */
    public static final int SLOW_EVERY = 4;

    private static final int SHIFT = 7;

    // Counter ids as compile-time constants: an enum's ordinal() is a field load from the enum object, one more
    // cache line per value on a path that runs after every input.
    private static final int ABORTS = KvCounter.ABORTS.ordinal();
    private static final int ACK_INPUTS = KvCounter.ACK_INPUTS.ordinal();
    private static final int ADMITTED = KvCounter.ADMITTED.ordinal();
    private static final int ADMIT_INPUTS = KvCounter.ADMIT_INPUTS.ordinal();
    private static final int ARRIVALS = KvCounter.ARRIVALS.ordinal();
    private static final int BACKUPS = KvCounter.BACKUPS.ordinal();
    private static final int BACKUPS_SKIPPED = KvCounter.BACKUPS_SKIPPED.ordinal();
    private static final int BACKUP_BACKLOG = KvCounter.BACKUP_BACKLOG.ordinal();
    private static final int COWS = KvCounter.COWS.ordinal();
    private static final int DEDUPED_PAGES = KvCounter.DEDUPED_PAGES.ordinal();
    private static final int DEFERS = KvCounter.DEFERS.ordinal();
    private static final int DEVICE_BATCHES = KvCounter.DEVICE_BATCHES.ordinal();
    private static final int DEVICE_BYTES = KvCounter.DEVICE_BYTES.ordinal();
    private static final int DEVICE_ERRORS = KvCounter.DEVICE_ERRORS.ordinal();
    private static final int DEVICE_KV_CAPACITY = KvCounter.DEVICE_KV_CAPACITY.ordinal();
    private static final int DEVICE_KV_USED = KvCounter.DEVICE_KV_USED.ordinal();
    private static final int DEVICE_MAMBA_CAPACITY = KvCounter.DEVICE_MAMBA_CAPACITY.ordinal();
    private static final int DEVICE_MAMBA_USED = KvCounter.DEVICE_MAMBA_USED.ordinal();
    private static final int DROPS = KvCounter.DROPS.ordinal();
    private static final int EFFECTS = KvCounter.EFFECTS.ordinal();
    private static final int ENGINE_STATE = KvCounter.ENGINE_STATE.ordinal();
    private static final int FETCHES = KvCounter.FETCHES.ordinal();
    private static final int FINISHED = KvCounter.FINISHED.ordinal();
    private static final int FINISH_INPUTS = KvCounter.FINISH_INPUTS.ordinal();
    private static final int HOLDS_STAGED = KvCounter.HOLDS_STAGED.ordinal();
    private static final int HOST_KV_CAPACITY = KvCounter.HOST_KV_CAPACITY.ordinal();
    private static final int HOST_KV_USED = KvCounter.HOST_KV_USED.ordinal();
    private static final int HOST_MAMBA_CAPACITY = KvCounter.HOST_MAMBA_CAPACITY.ordinal();
    private static final int HOST_MAMBA_USED = KvCounter.HOST_MAMBA_USED.ordinal();
    private static final int INPUTS = KvCounter.INPUTS.ordinal();
    private static final int INPUTS_REFUSED = KvCounter.INPUTS_REFUSED.ordinal();
    private static final int JOURNAL_BYTES = KvCounter.JOURNAL_BYTES.ordinal();
    private static final int JOURNAL_DOCUMENTS = KvCounter.JOURNAL_DOCUMENTS.ordinal();
    private static final int JOURNAL_LAG = KvCounter.JOURNAL_LAG.ordinal();
    private static final int L3_HIT_PAGES = KvCounter.L3_HIT_PAGES.ordinal();
    private static final int L3_HIT_PAGES_REPORTED = KvCounter.L3_HIT_PAGES_REPORTED.ordinal();
    private static final int L3_QUERIES = KvCounter.L3_QUERIES.ordinal();
    private static final int LIVE_REQUESTS = KvCounter.LIVE_REQUESTS.ordinal();
    private static final int LOADS = KvCounter.LOADS.ordinal();
    private static final int LOADS_ACKED = KvCounter.LOADS_ACKED.ordinal();
    private static final int MOVED_BYTES = KvCounter.MOVED_BYTES.ordinal();
    private static final int OPS_IN_FLIGHT = KvCounter.OPS_IN_FLIGHT.ordinal();
    private static final int PAGE_SIZE = KvCounter.PAGE_SIZE.ordinal();
    private static final int PARKED_HITS = KvCounter.PARKED_HITS.ordinal();
    private static final int PID = KvCounter.PID.ordinal();
    private static final int PREFIX_HIT_PAGES = KvCounter.PREFIX_HIT_PAGES.ordinal();
    private static final int PREFIX_QUERY_PAGES = KvCounter.PREFIX_QUERY_PAGES.ordinal();
    private static final int REJECTS = KvCounter.REJECTS.ordinal();
    private static final int RETRACTS = KvCounter.RETRACTS.ordinal();
    private static final int RING_CAPACITY = KvCounter.RING_CAPACITY.ordinal();
    private static final int RING_FILL = KvCounter.RING_FILL.ordinal();
    private static final int START_TIME_MS = KvCounter.START_TIME_MS.ordinal();
    private static final int STOP_TIME_MS = KvCounter.STOP_TIME_MS.ordinal();
    private static final int STORED_PAGES = KvCounter.STORED_PAGES.ordinal();
    private static final int STORE_CORRUPT = KvCounter.STORE_CORRUPT.ordinal();
    private static final int STORE_IO_ERRORS = KvCounter.STORE_IO_ERRORS.ordinal();
    private static final int STORE_MISSING = KvCounter.STORE_MISSING.ordinal();
    private static final int STORE_READ_BYTES = KvCounter.STORE_READ_BYTES.ordinal();
    private static final int STORE_WRITE_BYTES = KvCounter.STORE_WRITE_BYTES.ordinal();
    private static final int UPDATE_TIME_MS = KvCounter.UPDATE_TIME_MS.ordinal();
    private static final int BACKUPS_DROPPED = KvCounter.BACKUPS_DROPPED.ordinal();
    private static final int QUERIES_FAILED = KvCounter.QUERIES_FAILED.ordinal();
    private static final int INSERTS_REFUSED = KvCounter.INSERTS_REFUSED.ordinal();
    private static final int QUERIES_SKIPPED = KvCounter.QUERIES_SKIPPED.ordinal();
    private static final int STORE_TIMEOUTS = KvCounter.STORE_TIMEOUTS.ordinal();
    private static final int STORE_DISCONNECTS = KvCounter.STORE_DISCONNECTS.ordinal();
    private static final int STORE_RECONNECTS = KvCounter.STORE_RECONNECTS.ordinal();
    private static final int WAITS = KvCounter.WAITS.ordinal();

    private final CountersFile file;
    private final UnsafeBuffer values;
    private final CacheStateMachine engine;
    private final EngineCounters counters;
    private final SlotPool deviceKv;
    private final SlotPool deviceMamba;
    private final SlotPool hostKv;
    private final SlotPool hostMamba;
    private final JournalWriter journal;
    private final DeviceBackend device;
    private final L3Store store;
    private final LongSupplier ringFill;
    private final LongSupplier movedBytes;
    private final long[] published = new long[KvCounter.values().length];
    private int unpublished;
    private int untilSlow;

    private CountersPublisher(final CountersFile file, final CacheStateMachine engine, final JournalWriter journal,
        final DeviceBackend device, final L3Store store, final LongSupplier ringFill, final LongSupplier movedBytes)
    {
        this.file = file;
        this.values = file.values();
        this.engine = engine;
        this.counters = engine.counters();
        deviceKv = engine.pool(Pool.DEVICE_KV);
        deviceMamba = engine.pool(Pool.DEVICE_MAMBA);
        hostKv = engine.pool(Pool.HOST_KV);
        hostMamba = engine.pool(Pool.HOST_MAMBA);
        this.journal = journal;
        this.device = device;
        this.store = store;
        this.ringFill = ringFill;
        this.movedBytes = movedBytes;
    }

    /**
     * Create the counters file, allocate every {@link KvCounter} (counter id = ordinal), write the fixed values and
     * the state {@link EngineState#STARTING}, and publish the file.
     *
     * @param path         the counters file.
     * @param engine       the controller (read on the engine thread only).
     * @param journal      its journal writer, or null.
     * @param device       the device backend, or null.
     * @param store        the L3 store, or null.
     * @param ringFill     inputs waiting in the ring (any thread), or null.
     * @param ringCapacity ring slots.
     * @param movedBytes   bytes the dispatched ops move (engine thread), or null.
     * @return the publisher.
     */
    public static CountersPublisher open(final Path path, final CacheStateMachine engine, final JournalWriter journal,
        final DeviceBackend device, final L3Store store, final LongSupplier ringFill, final int ringCapacity,
        final LongSupplier movedBytes)
    {
        final CountersFile file = CountersFile.create(path);
        final CountersManager manager = file.manager();
        for (final KvCounter c : KvCounter.values())
        {
            final int id = manager.allocate(c.label(), c.typeId());
            if (id != c.ordinal())
            {
                throw new IllegalStateException("counter " + c + " got id " + id + ", expected " + c.ordinal());
            }
        }
        final CountersPublisher publisher = new CountersPublisher(file, engine, journal, device, store, ringFill,
            movedBytes);
        publisher.put(ENGINE_STATE, EngineState.STARTING.code());
        publisher.put(PID, ProcessHandle.current().pid());
        publisher.put(START_TIME_MS, System.currentTimeMillis());
        publisher.put(UPDATE_TIME_MS, publisher.published[START_TIME_MS]);
        publisher.put(PAGE_SIZE, engine.config().pageSize());
        publisher.put(RING_CAPACITY, ringCapacity);
        publisher.put(DEVICE_KV_CAPACITY, capacity(publisher.deviceKv));
        publisher.put(DEVICE_MAMBA_CAPACITY, capacity(publisher.deviceMamba));
        publisher.put(HOST_KV_CAPACITY, capacity(publisher.hostKv));
        publisher.put(HOST_MAMBA_CAPACITY, capacity(publisher.hostMamba));
        publisher.publishFast();
        file.markReady();
        return publisher;
    }

    /** @return the counters file. */
    public CountersFile file()
    {
        return file;
    }

    /** The engine thread started: state {@link EngineState#RUNNING}. */
    public void onStarted()
    {
        put(UPDATE_TIME_MS, System.currentTimeMillis());
        put(ENGINE_STATE, EngineState.RUNNING.code());
    }

    @Override
    public void onApplied()
    {
        if (++unpublished >= MAX_UNPUBLISHED)
        {
            unpublished = 0;
            publishFast();
            if (--untilSlow <= 0)
            {
                untilSlow = SLOW_EVERY;
                publishSlow();
            }
        }
    }

    @Override
    public void onIdle()
    {
        if (unpublished > 0)
        {
            unpublished = 0;
            publishFast();
            publishSlow();
        }
    }

    @Override
    public void onFailed()
    {
        publishFast();
        put(STOP_TIME_MS, System.currentTimeMillis());
        put(UPDATE_TIME_MS, published[STOP_TIME_MS]);
        put(ENGINE_STATE, EngineState.FAILED.code());
    }

    /**
     * The engine thread ended: publish every value a last time and the final state.
     *
     * @param failed true when the loop fail-stopped.
     */
    public void close(final boolean failed)
    {
        publishFast();
        publishSlow();
        if (published[STOP_TIME_MS] == 0)
        {
            put(STOP_TIME_MS, System.currentTimeMillis());
        }
        put(ENGINE_STATE, (failed ? EngineState.FAILED : EngineState.STOPPED).code());
    }

    /** Engine-thread values: the engine's counters, pool occupancy, queues, the journal. */
    void publishFast()
    {
        final EngineCounters c = counters;
        put(INPUTS, c.inputs);
        put(INPUTS_REFUSED, c.rejectedInputs);
        put(EFFECTS, c.effects);
        put(ARRIVALS, c.inputs(InputType.ARRIVE));
        put(ADMIT_INPUTS, c.inputs(InputType.ADMIT));
        put(ACK_INPUTS, c.inputs(InputType.ACK));
        put(FINISH_INPUTS, c.inputs(InputType.FINISH));
        put(PREFIX_QUERY_PAGES, c.admittedPages);
        put(PREFIX_HIT_PAGES, c.prefixPages);
        put(L3_HIT_PAGES, c.loadedPages);
        put(L3_QUERIES, c.queries);
        put(L3_HIT_PAGES_REPORTED, c.hitPagesReported);
        put(FETCHES, c.fetches);
        put(HOLDS_STAGED, c.holdsStaged);
        put(ADMITTED, c.admitted);
        put(LOADS, c.loads);
        put(LOADS_ACKED, c.loadsAcked);
        put(COWS, c.cows);
        put(DEFERS, c.defers);
        put(WAITS, c.waits);
        put(DROPS, c.drops);
        put(REJECTS, c.rejects);
        put(RETRACTS, c.retracts);
        put(ABORTS, c.aborts);
        put(FINISHED, c.finished);
        put(BACKUPS, c.backups);
        put(BACKUPS_SKIPPED, c.backupsSkipped);
        put(BACKUPS_DROPPED, c.backupsDropped);
        put(QUERIES_FAILED, c.queriesFailed);
        put(INSERTS_REFUSED, c.insertsRefused);
        put(QUERIES_SKIPPED, c.queriesSkipped);
        put(STORED_PAGES, c.storedPages);
        put(DEDUPED_PAGES, c.dedupedPages);
        put(DEVICE_KV_USED, used(deviceKv));
        put(DEVICE_MAMBA_USED, used(deviceMamba));
        put(HOST_KV_USED, used(hostKv));
        put(HOST_MAMBA_USED, used(hostMamba));
        put(LIVE_REQUESTS, engine.liveRequests());
        put(OPS_IN_FLIGHT, engine.inFlightOps());
        put(PARKED_HITS, engine.parkedHits());
        put(BACKUP_BACKLOG, engine.backupBacklog());
        if (null != movedBytes)
        {
            put(MOVED_BYTES, movedBytes.getAsLong());
        }
        if (null != journal)
        {
            final long appended = journal.lastSequence();
            put(JOURNAL_DOCUMENTS, appended);
            put(JOURNAL_BYTES, journal.appendedBytes());
            // inputs whose apply completed (the journal is new: its sequences start at 1), not the engine's
            // sequence: apply sets that before it dispatches, so an input that failed inside apply, never
            // applied nor journaled, would stay "waiting for the journal" in a failed controller's file
            put(JOURNAL_LAG, Math.max(0, c.inputs - appended));
        }
    }

    /**
     * Values other threads own: ring fill, device and store statistics; and the time of this publication, which
     * tells a reader when a controller that ended without closing was last alive (every 1,024 inputs under load,
     * and at each idle moment after work: one clock read among these loads).
     */
    void publishSlow()
    {
        put(UPDATE_TIME_MS, System.currentTimeMillis());
        if (null != ringFill)
        {
            put(RING_FILL, ringFill.getAsLong());
        }
        if (null != device)
        {
            put(DEVICE_BATCHES, device.completedBatches());
            put(DEVICE_ERRORS, device.failedBatches());
            put(DEVICE_BYTES, device.copiedBytes());
        }
        if (null != store)
        {
            final StoreStats s = store.stats();
            put(STORE_READ_BYTES, s.bytesRead());
            put(STORE_WRITE_BYTES, s.bytesWritten());
            put(STORE_MISSING, s.missing());
            put(STORE_CORRUPT, s.corrupt());
            put(STORE_IO_ERRORS, s.ioErrors() + s.listenerErrors());
            put(STORE_TIMEOUTS, s.timeouts());
            put(STORE_DISCONNECTS, s.disconnects());
            put(STORE_RECONNECTS, s.reconnects());
        }
    }

    private void put(final int id, final long value)
    {
        if (published[id] != value)
        {
            published[id] = value;
            values.putLongRelease(id << SHIFT, value);
        }
    }

    private static long used(final SlotPool pool)
    {
        return null == pool ? 0 : pool.capacity() - pool.freeCount();
    }

    private static long capacity(final SlotPool pool)
    {
        return null == pool ? 0 : pool.capacity();
    }

    static
    {
        if (CountersReader.COUNTER_LENGTH != 1 << SHIFT)
        {
            throw new IllegalStateException("Agrona counter length changed: " + CountersReader.COUNTER_LENGTH);
        }
    }
}
