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
 * allocation, no lock, no system call.
 * <p>
 * <b>Cadence.</b> At the end of every ring batch, and after {@value #MAX_UNPUBLISHED} inputs inside a longer batch.
 * When the engine is lightly loaded every input is its own batch, so the file is exact after each input and the
 * cost does not matter (the thread is idle most of the time); under load batches grow and the cost is shared by the
 * batch, and a reader never sees values older than {@value #MAX_UNPUBLISHED} inputs. Values owned by other threads
 * (device and store statistics, the ring's producer cursor) cost a cache miss each to read, so they are published
 * only every {@value #SLOW_EVERY} publications ({@link KvCounter.Tier#SLOW}), and at close.
 * <p>
 * Thread ownership: {@link #onApplied} and {@link #onFailed} on the engine thread; {@link #open} and {@link #close}
 * on the thread that opens and closes the controller, before the engine thread starts and after it ended.
 */
public final class CountersPublisher implements EngineObserver
{
    /** Most inputs applied between two publications inside one long batch. */
    public static final int MAX_UNPUBLISHED = 256;

    /** Publications between two reads of the values other threads own. */
    public static final int SLOW_EVERY = 64;

    private static final int SHIFT = 7;

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
        publisher.put(KvCounter.ENGINE_STATE, EngineState.STARTING.code());
        publisher.put(KvCounter.PID, ProcessHandle.current().pid());
        publisher.put(KvCounter.START_TIME_MS, System.currentTimeMillis());
        publisher.put(KvCounter.PAGE_SIZE, engine.config().pageSize());
        publisher.put(KvCounter.RING_CAPACITY, ringCapacity);
        publisher.put(KvCounter.DEVICE_KV_CAPACITY, capacity(publisher.deviceKv));
        publisher.put(KvCounter.DEVICE_MAMBA_CAPACITY, capacity(publisher.deviceMamba));
        publisher.put(KvCounter.HOST_KV_CAPACITY, capacity(publisher.hostKv));
        publisher.put(KvCounter.HOST_MAMBA_CAPACITY, capacity(publisher.hostMamba));
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
        put(KvCounter.ENGINE_STATE, EngineState.RUNNING.code());
    }

    @Override
    public void onApplied(final boolean endOfBatch)
    {
        if (endOfBatch || ++unpublished >= MAX_UNPUBLISHED)
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
    public void onFailed()
    {
        publishFast();
        put(KvCounter.STOP_TIME_MS, System.currentTimeMillis());
        put(KvCounter.ENGINE_STATE, EngineState.FAILED.code());
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
        if (getPlain(KvCounter.STOP_TIME_MS) == 0)
        {
            put(KvCounter.STOP_TIME_MS, System.currentTimeMillis());
        }
        put(KvCounter.ENGINE_STATE, (failed ? EngineState.FAILED : EngineState.STOPPED).code());
    }

    /** Engine-thread values: the engine's counters, pool occupancy, queues, the journal. */
    void publishFast()
    {
        final EngineCounters c = counters;
        put(KvCounter.INPUTS, c.inputs);
        put(KvCounter.INPUTS_REFUSED, c.rejectedInputs);
        put(KvCounter.EFFECTS, c.effects);
        put(KvCounter.ARRIVALS, c.inputs(InputType.ARRIVE));
        put(KvCounter.ADMIT_INPUTS, c.inputs(InputType.ADMIT));
        put(KvCounter.ACK_INPUTS, c.inputs(InputType.ACK));
        put(KvCounter.FINISH_INPUTS, c.inputs(InputType.FINISH));
        put(KvCounter.PREFIX_QUERY_PAGES, c.admittedPages);
        put(KvCounter.PREFIX_HIT_PAGES, c.prefixPages);
        put(KvCounter.L3_HIT_PAGES, c.loadedPages);
        put(KvCounter.L3_QUERIES, c.queries);
        put(KvCounter.L3_HIT_PAGES_REPORTED, c.hitPagesReported);
        put(KvCounter.FETCHES, c.fetches);
        put(KvCounter.HOLDS_STAGED, c.holdsStaged);
        put(KvCounter.ADMITTED, c.admitted);
        put(KvCounter.LOADS, c.loads);
        put(KvCounter.LOADS_ACKED, c.loadsAcked);
        put(KvCounter.COWS, c.cows);
        put(KvCounter.DEFERS, c.defers);
        put(KvCounter.WAITS, c.waits);
        put(KvCounter.DROPS, c.drops);
        put(KvCounter.REJECTS, c.rejects);
        put(KvCounter.RETRACTS, c.retracts);
        put(KvCounter.ABORTS, c.aborts);
        put(KvCounter.FINISHED, c.finished);
        put(KvCounter.BACKUPS, c.backups);
        put(KvCounter.BACKUPS_SKIPPED, c.backupsSkipped);
        put(KvCounter.STORED_PAGES, c.storedPages);
        put(KvCounter.DEDUPED_PAGES, c.dedupedPages);
        put(KvCounter.DEVICE_KV_USED, used(deviceKv));
        put(KvCounter.DEVICE_MAMBA_USED, used(deviceMamba));
        put(KvCounter.HOST_KV_USED, used(hostKv));
        put(KvCounter.HOST_MAMBA_USED, used(hostMamba));
        put(KvCounter.LIVE_REQUESTS, engine.liveRequests());
        put(KvCounter.OPS_IN_FLIGHT, engine.inFlightOps());
        put(KvCounter.PARKED_HITS, engine.parkedHits());
        put(KvCounter.BACKUP_BACKLOG, engine.backupBacklog());
        if (null != movedBytes)
        {
            put(KvCounter.MOVED_BYTES, movedBytes.getAsLong());
        }
        if (null != journal)
        {
            put(KvCounter.JOURNAL_DOCUMENTS, journal.lastSequence());
            put(KvCounter.JOURNAL_BYTES, journal.appendedBytes());
        }
    }

    /** Values other threads own: ring fill, device and store statistics. */
    void publishSlow()
    {
        if (null != ringFill)
        {
            put(KvCounter.RING_FILL, ringFill.getAsLong());
        }
        if (null != device)
        {
            put(KvCounter.DEVICE_BATCHES, device.completedBatches());
            put(KvCounter.DEVICE_ERRORS, device.failedBatches());
            put(KvCounter.DEVICE_BYTES, device.copiedBytes());
        }
        if (null != store)
        {
            final StoreStats s = store.stats();
            put(KvCounter.STORE_READ_BYTES, s.bytesRead());
            put(KvCounter.STORE_WRITE_BYTES, s.bytesWritten());
            put(KvCounter.STORE_MISSING, s.missing());
            put(KvCounter.STORE_CORRUPT, s.corrupt());
            put(KvCounter.STORE_IO_ERRORS, s.ioErrors() + s.listenerErrors());
        }
    }

    private void put(final KvCounter counter, final long value)
    {
        values.putLongRelease(counter.ordinal() << SHIFT, value);
    }

    private long getPlain(final KvCounter counter)
    {
        return values.getLong(counter.ordinal() << SHIFT);
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
