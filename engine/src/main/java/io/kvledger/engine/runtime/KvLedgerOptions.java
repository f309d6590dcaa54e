package io.kvledger.engine.runtime;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.device.CudaCopyPath;
import io.kvledger.engine.store.L3StoreFactory;
import io.kvledger.journal.codec.DeviceKind;

import java.nio.file.Path;

/**
 * How to open a {@link KvLedger}: the engine configuration plus the runtime parts around it. Mutable holder,
 * read once by {@link KvLedger#open}.
 */
public final class KvLedgerOptions
{
    /** Which L3 store backs the controller. */
    public enum StoreKind
    {
        /** A directory keyed by fingerprint; survives restart. */
        FILE,
        /** In memory, for tests. */
        MEMORY,
        /** Made by {@link KvLedgerOptions#storeFactory} (the shared Redis store of module store-redis). */
        CUSTOM
    }

    public EngineConfig config = EngineConfig.builder().build();
    public Path journalDir = Path.of("kvledger-out", "journal");
    /**
     * fsync the journal at the end of every ring batch (group commit); off: a process crash loses nothing, a power
     * loss may.
     */
    public boolean syncJournal;
    /** Pre-fault the journal's queue file ahead of the writer from a background thread (off the engine thread). */
    public boolean pretouchJournal = true;
    /**
     * Append the journal on its own thread (a {@code Journaller}; default): the engine thread encodes each document
     * and applies the next input while the journaller writes it, and the document's side effects (launches, answers,
     * finished loads) run once it is appended (and synced, with {@link #syncJournal}: then once per batch the
     * journaller drained). False: the engine thread appends each document itself. Default: on with four or more
     * processors. On two, measured on the build VM, the journaller halves the engine thread's journal cost but
     * lowers throughput (pr-bench: 0.33 of journal-off against 0.42 inline): moving a document between cores costs
     * more there than appending it.
     */
    public boolean journalThread = Runtime.getRuntime().availableProcessors() >= 4;
    public DeviceKind device = DeviceKind.HOST;
    public StoreKind store = StoreKind.FILE;
    public Path storeDir = Path.of("kvledger-out", "l3");
    /** Makes the store when {@link #store} is {@link StoreKind#CUSTOM}. */
    public L3StoreFactory storeFactory;
    public int ringSize = 4096;
    public WaitStrategyKind waitStrategy = WaitStrategyKind.BLOCKING;
    /** When true, a full ring makes a call return RING_FULL instead of waiting. */
    public boolean failFastWhenFull;
    /** Seeded copy delay range of the host device, nanoseconds (0: as fast as memory copies). */
    public long copyDelayMinNs;
    public long copyDelayMaxNs;
    /** Probability that a device copy fails (seeded). */
    public double copyFailureProbability;
    /** Journal label written into the header. */
    public String label = "";
    /** How the cuda device copies: one copy kernel launch per batch, or one cuMemcpyAsync per slot. */
    public CudaCopyPath cudaCopyPath = CudaCopyPath.KERNEL;
    /**
     * Publish live counters to {@code journalDir/kvledger-counters.dat}, which {@code kvledger stat} reads from
     * another process (default on).
     */
    public boolean counters = true;
    /**
     * Serve the counters in the Prometheus text format on {@code http://127.0.0.1:metricsPort/metrics}: -1 off
     * (default), 0 a free port ({@link KvLedger#metricsPort()}). Needs {@link #counters}.
     */
    public int metricsPort = -1;
}
