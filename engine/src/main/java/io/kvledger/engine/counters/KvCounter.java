package io.kvledger.engine.counters;

/**
 * Every counter of the counters file, in one table: its Agrona type id (how a reader in another process finds it),
 * its label (what the file and {@code kvledger stat} show), its JSON key, its Prometheus name, kind and label, and
 * the tier that says how often the engine thread publishes it.
 * <p>
 * Type ids are part of the file format: append new counters with new ids, never renumber. Prometheus names follow
 * vLLM's and SGLang's cache metrics where the quantity is the same ({@code prefix_cache_queries_total} /
 * {@code prefix_cache_hits_total} in tokens, {@code num_requests_running}-style gauges, {@code _total} counters).
 */
public enum KvCounter
{
    ENGINE_STATE(1, "engine state", "engineState", "kvledger_engine_state", Kind.STATE, Tier.FIXED,
        "Engine state: 0 starting, 1 running, 2 stopped, 3 failed"),
    PID(2, "process id", "pid", "kvledger_process_id", Kind.GAUGE, Tier.FIXED,
        "Process id of the controller"),
    START_TIME_MS(3, "started (epoch ms)", "startTimeMs", "kvledger_start_time_seconds", Kind.GAUGE, Tier.FIXED,
        "When the controller opened, seconds since the epoch"),
    STOP_TIME_MS(4, "stopped (epoch ms)", "stopTimeMs", "kvledger_stop_time_seconds", Kind.GAUGE, Tier.FIXED,
        "When the controller closed or failed, seconds since the epoch (0 while running)"),
    PAGE_SIZE(5, "page size (tokens)", "pageSize", "kvledger_page_size_tokens", Kind.GAUGE, Tier.FIXED,
        "Tokens per page"),

    INPUTS(10, "inputs applied", "inputs", "kvledger_inputs_total", Kind.COUNTER, Tier.FAST,
        "Inputs applied and journaled"),
    INPUTS_REFUSED(11, "inputs refused", "inputsRefused", "kvledger_inputs_refused_total", Kind.COUNTER, Tier.FAST,
        "Inputs refused with a negative result code (nothing changed)"),
    EFFECTS(12, "effects", "effects", "kvledger_effects_total", Kind.COUNTER, Tier.FAST,
        "Effects journaled"),
    ARRIVALS(13, "arrivals", "arrivals", "kvledger_inputs_by_type_total", "type", "arrive", Kind.COUNTER,
        Tier.FAST, "Inputs applied, by input type"),
    ADMIT_INPUTS(14, "admit inputs", "admitInputs", "kvledger_inputs_by_type_total", "type", "admit",
        Kind.COUNTER, Tier.FAST, "Inputs applied, by input type"),
    ACK_INPUTS(15, "ack inputs", "ackInputs", "kvledger_inputs_by_type_total", "type", "ack", Kind.COUNTER,
        Tier.FAST, "Inputs applied, by input type"),
    FINISH_INPUTS(16, "finish inputs", "finishInputs", "kvledger_inputs_by_type_total", "type", "finish",
        Kind.COUNTER, Tier.FAST, "Inputs applied, by input type"),

    PREFIX_QUERY_PAGES(20, "prefix cache queries (pages)", "prefixQueryPages", "kvledger_prefix_cache_queries_total",
        Kind.COUNTER, Tier.FAST, "Prompt tokens (whole pages) of admitted requests looked up in the prefix cache"),
    PREFIX_HIT_PAGES(21, "prefix cache hits (pages)", "prefixHitPages", "kvledger_prefix_cache_hits_total",
        Kind.COUNTER, Tier.FAST, "Prompt tokens (whole pages) of admitted requests found cached, device or L3"),
    L3_HIT_PAGES(22, "L3 hits loaded (pages)", "loadedPages", "kvledger_l3_cache_hits_total", Kind.COUNTER,
        Tier.FAST, "Prompt tokens (whole pages) loaded from L3 through host staging, counted at the load's ack"),
    L3_QUERIES(23, "L3 existence queries", "queries", "kvledger_l3_queries_total", Kind.COUNTER, Tier.FAST,
        "L3 existence queries queued"),
    L3_HIT_PAGES_REPORTED(24, "L3 pages reported present", "hitPagesReported", "kvledger_l3_pages_present_total",
        Kind.COUNTER, Tier.FAST, "Pages the L3 store reported present"),
    FETCHES(25, "L3 fetches", "fetches", "kvledger_l3_fetches_total", Kind.COUNTER, Tier.FAST,
        "Fetches from L3 into host staging"),
    HOLDS_STAGED(26, "holds staged", "holdsStaged", "kvledger_holds_staged_total", Kind.COUNTER, Tier.FAST,
        "Hits that took host staging"),
    ADMITTED(27, "admitted", "admitted", "kvledger_requests_admitted_total", Kind.COUNTER, Tier.FAST,
        "Admissions"),
    LOADS(28, "loads", "loads", "kvledger_loads_total", Kind.COUNTER, Tier.FAST,
        "Loads (host staging to device) queued"),
    LOADS_ACKED(29, "loads acked", "loadsAcked", "kvledger_loads_acked_total", Kind.COUNTER, Tier.FAST,
        "Loads acknowledged ok"),
    COWS(30, "copy-on-write", "cows", "kvledger_copy_on_write_total", Kind.COUNTER, Tier.FAST,
        "Copy-on-write operations of Mamba checkpoints"),
    DEFERS(31, "defers", "defers", "kvledger_defers_total", Kind.COUNTER, Tier.FAST,
        "Admissions deferred (Mamba gate or allocation shortfall)"),
    WAITS(32, "waits", "waits", "kvledger_waits_total", Kind.COUNTER, Tier.FAST,
        "Admissions that waited, for any reason (the WAITED effects: L3 answer, running limit, budgets, allocation)"),
    DROPS(33, "drops", "drops", "kvledger_drops_total", Kind.COUNTER, Tier.FAST,
        "Staged holds dropped"),
    REJECTS(34, "rejects", "rejects", "kvledger_rejects_total", Kind.COUNTER, Tier.FAST,
        "Requests rejected"),
    RETRACTS(35, "retracts", "retracts", "kvledger_num_preemptions_total", Kind.COUNTER, Tier.FAST,
        "Admitted requests retracted by the scheduler (preemptions)"),
    ABORTS(36, "aborts", "aborts", "kvledger_requests_aborted_total", Kind.COUNTER, Tier.FAST,
        "Requests aborted"),
    FINISHED(37, "finished", "finished", "kvledger_requests_finished_total", Kind.COUNTER, Tier.FAST,
        "Requests finished"),
    BACKUPS(38, "backups", "backups", "kvledger_backups_total", Kind.COUNTER, Tier.FAST,
        "Backups to L3 started (device to host staging)"),
    BACKUPS_SKIPPED(39, "backups skipped", "backupsSkipped", "kvledger_backups_skipped_total", Kind.COUNTER,
        Tier.FAST, "Backups skipped (backlog full or node gone)"),
    STORED_PAGES(40, "pages stored to L3", "storedPages", "kvledger_l3_pages_stored_total", Kind.COUNTER,
        Tier.FAST, "Pages acknowledged written to L3"),
    DEDUPED_PAGES(41, "pages deduplicated", "dedupedPages", "kvledger_pages_deduplicated_total", Kind.COUNTER,
        Tier.FAST, "Computed pages already cached (deduplicated on insert)"),
    MOVED_BYTES(42, "bytes dispatched", "movedBytes", "kvledger_bytes_dispatched_total", Kind.COUNTER, Tier.FAST,
        "Bytes the launched copies, fetches and writes move"),

    DEVICE_KV_USED(50, "device KV pages used", "deviceKvUsed", "kvledger_pool_used", "pool", "device_kv",
        Kind.GAUGE, Tier.FAST, "Slots of the pool not free"),
    DEVICE_MAMBA_USED(51, "device Mamba slots used", "deviceMambaUsed", "kvledger_pool_used", "pool",
        "device_mamba", Kind.GAUGE, Tier.FAST, "Slots of the pool not free"),
    HOST_KV_USED(52, "host staging pages used", "hostKvUsed", "kvledger_pool_used", "pool", "host_kv", Kind.GAUGE,
        Tier.FAST, "Slots of the pool not free"),
    HOST_MAMBA_USED(53, "host Mamba slots used", "hostMambaUsed", "kvledger_pool_used", "pool", "host_mamba",
        Kind.GAUGE, Tier.FAST, "Slots of the pool not free"),
    DEVICE_KV_CAPACITY(54, "device KV pages", "deviceKvCapacity", "kvledger_pool_capacity", "pool", "device_kv",
        Kind.GAUGE, Tier.FIXED, "Slots of the pool"),
    DEVICE_MAMBA_CAPACITY(55, "device Mamba slots", "deviceMambaCapacity", "kvledger_pool_capacity", "pool",
        "device_mamba", Kind.GAUGE, Tier.FIXED, "Slots of the pool"),
    HOST_KV_CAPACITY(56, "host staging pages", "hostKvCapacity", "kvledger_pool_capacity", "pool", "host_kv",
        Kind.GAUGE, Tier.FIXED, "Slots of the pool"),
    HOST_MAMBA_CAPACITY(57, "host Mamba slots", "hostMambaCapacity", "kvledger_pool_capacity", "pool",
        "host_mamba", Kind.GAUGE, Tier.FIXED, "Slots of the pool"),
    LIVE_REQUESTS(58, "live requests", "liveRequests", "kvledger_num_requests_live", Kind.GAUGE, Tier.FAST,
        "Requests the controller tracks (arrived, not finished or aborted)"),
    OPS_IN_FLIGHT(59, "ops in flight", "opsInFlight", "kvledger_ops_in_flight", Kind.GAUGE, Tier.FAST,
        "Copies, fetches, writes and queries queued or launched, not yet acked"),
    PARKED_HITS(60, "parked hits", "parkedHits", "kvledger_parked_hits", Kind.GAUGE, Tier.FAST,
        "L3 hits waiting for host staging"),
    BACKUP_BACKLOG(61, "backup backlog", "backupBacklog", "kvledger_backup_backlog", Kind.GAUGE, Tier.FAST,
        "Backups waiting for host staging"),
    JOURNAL_DOCUMENTS(62, "journal documents", "journalDocuments", "kvledger_journal_documents_total",
        Kind.COUNTER, Tier.FAST, "Documents appended to the journal"),
    JOURNAL_BYTES(63, "journal bytes", "journalBytes", "kvledger_journal_bytes_total", Kind.COUNTER, Tier.FAST,
        "Bytes of documents appended to the journal"),
    JOURNAL_LAG(64, "journal lag", "journalLag", "kvledger_journal_lag_documents", Kind.GAUGE, Tier.FAST,
        "Documents applied and not yet appended (the journal thread's backlog; 0 when the engine thread appends)"),

    RING_FILL(70, "ring fill", "ringFill", "kvledger_ring_fill", Kind.GAUGE, Tier.SLOW,
        "Inputs published to the ring and not yet applied"),
    RING_CAPACITY(71, "ring capacity", "ringCapacity", "kvledger_ring_capacity", Kind.GAUGE, Tier.FIXED,
        "Slots of the input ring"),
    DEVICE_BATCHES(72, "device batches ok", "deviceBatches", "kvledger_device_copy_batches_total", Kind.COUNTER,
        Tier.SLOW, "Copy batches the device completed"),
    DEVICE_ERRORS(73, "device batches failed", "deviceErrors", "kvledger_device_copy_errors_total", Kind.COUNTER,
        Tier.SLOW, "Copy batches the device reported failed"),
    DEVICE_BYTES(74, "device bytes copied", "deviceBytes", "kvledger_device_copied_bytes_total", Kind.COUNTER,
        Tier.SLOW, "Bytes the device copied"),
    STORE_READ_BYTES(75, "L3 bytes read", "storeReadBytes", "kvledger_l3_read_bytes_total", Kind.COUNTER,
        Tier.SLOW, "Bytes the L3 store read"),
    STORE_WRITE_BYTES(76, "L3 bytes written", "storeWriteBytes", "kvledger_l3_written_bytes_total", Kind.COUNTER,
        Tier.SLOW, "Bytes the L3 store wrote"),
    STORE_MISSING(77, "L3 objects missing", "storeMissing", "kvledger_l3_errors_total", "kind", "missing",
        Kind.COUNTER, Tier.SLOW, "L3 store errors, by kind"),
    STORE_CORRUPT(78, "L3 objects corrupt", "storeCorrupt", "kvledger_l3_errors_total", "kind", "corrupt",
        Kind.COUNTER, Tier.SLOW, "L3 store errors, by kind"),
    STORE_IO_ERRORS(79, "L3 I/O errors", "storeIoErrors", "kvledger_l3_errors_total", "kind", "io", Kind.COUNTER,
        Tier.SLOW, "L3 store errors, by kind"),

    // New counters go last: a counter's id in the file is its position here.
    UPDATE_TIME_MS(6, "updated (epoch ms)", "updateTimeMs", "kvledger_update_time_seconds", Kind.GAUGE, Tier.FIXED,
        "When the controller last published its counters, seconds since the epoch (for a controller that ended " +
            "without closing, its last sign of life)"),
    BACKUPS_DROPPED(43, "backups dropped", "backupsDropped", "kvledger_backups_dropped_total", Kind.COUNTER,
        Tier.FAST, "Backups dropped from the backlog: they need more host staging than writes may ever use"),
    QUERIES_FAILED(44, "L3 queries failed", "queriesFailed", "kvledger_l3_queries_failed_total", Kind.COUNTER,
        Tier.FAST, "L3 existence queries the store could not answer"),
    INSERTS_REFUSED(45, "inserts refused", "insertsRefused", "kvledger_inserts_refused_total", Kind.COUNTER,
        Tier.FAST, "Inserts refused for want of tree nodes (the request's pages stay its own)"),
    STORE_TIMEOUTS(80, "L3 timeouts", "storeTimeouts", "kvledger_l3_timeouts_total", Kind.COUNTER, Tier.SLOW,
        "L3 operations that failed because the store did not answer in time (also in the io errors); networked " +
            "stores only"),
    STORE_DISCONNECTS(81, "L3 disconnects", "storeDisconnects", "kvledger_l3_disconnects_total", Kind.COUNTER,
        Tier.SLOW, "Connections to the L3 store that were lost; networked stores only"),
    STORE_RECONNECTS(82, "L3 reconnects", "storeReconnects", "kvledger_l3_reconnects_total", Kind.COUNTER,
        Tier.SLOW, "Lost connections to the L3 store re-established automatically; networked stores only"),
    QUERIES_SKIPPED(46, "L3 queries skipped", "queriesSkipped", "kvledger_l3_queries_skipped_total", Kind.COUNTER,
        Tier.FAST, "L3 existence queries not asked because the op table was full (the request goes on with its " +
            "device prefix only)");

    /** How a counter's value is meant. */
    public enum Kind
    {
        /** Only grows; readers derive rates. */
        COUNTER,
        /** Goes up and down. */
        GAUGE,
        /** An {@link EngineState} code. */
        STATE
    }

    /** How often the engine thread publishes a counter. */
    public enum Tier
    {
        /** Written once at open (and at close for state and stop time). */
        FIXED,
        /** Engine-thread values, published at every cadence point. */
        FAST,
        /** Values other threads own (device, store, ring producers), published every {@code SLOW_EVERY} points. */
        SLOW
    }

    private static final KvCounter[] VALUES = values();

    private final int typeId;
    private final String label;
    private final String key;
    private final String metric;
    private final String labelName;
    private final String labelValue;
    private final Kind kind;
    private final Tier tier;
    private final String help;

    KvCounter(final int typeId, final String label, final String key, final String metric, final Kind kind,
        final Tier tier, final String help)
    {
        this(typeId, label, key, metric, null, null, kind, tier, help);
    }

    KvCounter(final int typeId, final String label, final String key, final String metric, final String labelName,
        final String labelValue, final Kind kind, final Tier tier, final String help)
    {
        this.typeId = typeId;
        this.label = label;
        this.key = key;
        this.metric = metric;
        this.labelName = labelName;
        this.labelValue = labelValue;
        this.kind = kind;
        this.tier = tier;
        this.help = help;
    }

    /** @return the Agrona type id, stable across versions. */
    public int typeId()
    {
        return typeId;
    }

    /** @return the human label written into the counters file. */
    public String label()
    {
        return label;
    }

    /** @return the key in {@code kvledger stat --json}. */
    public String key()
    {
        return key;
    }

    /** @return the Prometheus metric name. */
    public String metric()
    {
        return metric;
    }

    /** @return the Prometheus label name, or null. */
    public String labelName()
    {
        return labelName;
    }

    /** @return the Prometheus label value, or null. */
    public String labelValue()
    {
        return labelValue;
    }

    /** @return counter, gauge or state. */
    public Kind kind()
    {
        return kind;
    }

    /** @return how often it is published. */
    public Tier tier()
    {
        return tier;
    }

    /**
     * vLLM and SGLang count prefix-cache queries and hits in tokens; the engine counts whole pages. These three
     * are stored in pages and exposed to Prometheus multiplied by the page size.
     *
     * @return true when the Prometheus value is the stored value times {@link #PAGE_SIZE}.
     */
    public boolean pagesAsTokens()
    {
        return this == PREFIX_QUERY_PAGES || this == PREFIX_HIT_PAGES || this == L3_HIT_PAGES;
    }

    /** @return the Prometheus HELP text. */
    public String help()
    {
        return help;
    }

    /**
     * @param typeId an Agrona type id read from a counters file.
     * @return the counter, or null for an id this version does not know.
     */
    public static KvCounter byTypeId(final int typeId)
    {
        for (final KvCounter c : VALUES)
        {
            if (c.typeId == typeId)
            {
                return c;
            }
        }
        return null;
    }
}
