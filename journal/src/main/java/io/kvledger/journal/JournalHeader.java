package io.kvledger.journal;

import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.PrefetchPolicy;

/**
 * The first document of every journal: what wrote it, the full engine configuration, the fault switches that
 * were on and the seed. Replay rebuilds the engine from it, so every field that influences a decision is here.
 * Plain mutable holder; not thread-safe.
 */
public final class JournalHeader
{
    /** The newest admission rules this build applies and reads ({@link #admissionRules()}). */
    public static final int LATEST_ADMISSION_RULES = 7;

    private long createdNs;
    private long seed;
    private int pageSize;
    private int deviceKvPages;
    private int deviceMambaSlots;
    private int hostKvPages;
    private int hostMambaSlots;
    private int trackingSlots;
    private int maxStagedDefers;
    private int maxRequests;
    private int maxRequestPages;
    private int prefetchThresholdPages;
    private PrefetchPolicy prefetchPolicy = PrefetchPolicy.BEST_EFFORT;
    private long prefetchTimeoutNs;
    private boolean hybrid;
    private DeviceKind deviceKind = DeviceKind.HOST;
    private int kvPageBytes;
    private int mambaStateBytes;
    private long faultMask;
    private int maxNodes;
    private int maxOps;
    private int admissionRules = 1;
    private long prefetchTimeoutPerKiNs;
    private String kvledgerVersion = "";
    private String label = "";

    /**
     * Copy every field from another header.
     *
     * @param other to copy.
     * @return this for a fluent style.
     */
    public JournalHeader copyFrom(final JournalHeader other)
    {
        createdNs = other.createdNs;
        seed = other.seed;
        pageSize = other.pageSize;
        deviceKvPages = other.deviceKvPages;
        deviceMambaSlots = other.deviceMambaSlots;
        hostKvPages = other.hostKvPages;
        hostMambaSlots = other.hostMambaSlots;
        trackingSlots = other.trackingSlots;
        maxStagedDefers = other.maxStagedDefers;
        maxRequests = other.maxRequests;
        maxRequestPages = other.maxRequestPages;
        prefetchThresholdPages = other.prefetchThresholdPages;
        prefetchPolicy = other.prefetchPolicy;
        prefetchTimeoutNs = other.prefetchTimeoutNs;
        hybrid = other.hybrid;
        deviceKind = other.deviceKind;
        kvPageBytes = other.kvPageBytes;
        mambaStateBytes = other.mambaStateBytes;
        faultMask = other.faultMask;
        maxNodes = other.maxNodes;
        maxOps = other.maxOps;
        admissionRules = other.admissionRules;
        prefetchTimeoutPerKiNs = other.prefetchTimeoutPerKiNs;
        kvledgerVersion = other.kvledgerVersion;
        label = other.label;
        return this;
    }

    public long createdNs()
    {
        return createdNs;
    }

    public JournalHeader createdNs(final long createdNs)
    {
        this.createdNs = createdNs;
        return this;
    }

    public long seed()
    {
        return seed;
    }

    public JournalHeader seed(final long seed)
    {
        this.seed = seed;
        return this;
    }

    public int pageSize()
    {
        return pageSize;
    }

    public JournalHeader pageSize(final int pageSize)
    {
        this.pageSize = pageSize;
        return this;
    }

    public int deviceKvPages()
    {
        return deviceKvPages;
    }

    public JournalHeader deviceKvPages(final int deviceKvPages)
    {
        this.deviceKvPages = deviceKvPages;
        return this;
    }

    public int deviceMambaSlots()
    {
        return deviceMambaSlots;
    }

    public JournalHeader deviceMambaSlots(final int deviceMambaSlots)
    {
        this.deviceMambaSlots = deviceMambaSlots;
        return this;
    }

    public int hostKvPages()
    {
        return hostKvPages;
    }

    public JournalHeader hostKvPages(final int hostKvPages)
    {
        this.hostKvPages = hostKvPages;
        return this;
    }

    public int hostMambaSlots()
    {
        return hostMambaSlots;
    }

    public JournalHeader hostMambaSlots(final int hostMambaSlots)
    {
        this.hostMambaSlots = hostMambaSlots;
        return this;
    }

    public int trackingSlots()
    {
        return trackingSlots;
    }

    public JournalHeader trackingSlots(final int trackingSlots)
    {
        this.trackingSlots = trackingSlots;
        return this;
    }

    public int maxStagedDefers()
    {
        return maxStagedDefers;
    }

    public JournalHeader maxStagedDefers(final int maxStagedDefers)
    {
        this.maxStagedDefers = maxStagedDefers;
        return this;
    }

    public int maxRequests()
    {
        return maxRequests;
    }

    public JournalHeader maxRequests(final int maxRequests)
    {
        this.maxRequests = maxRequests;
        return this;
    }

    public int maxRequestPages()
    {
        return maxRequestPages;
    }

    public JournalHeader maxRequestPages(final int maxRequestPages)
    {
        this.maxRequestPages = maxRequestPages;
        return this;
    }

    public int prefetchThresholdPages()
    {
        return prefetchThresholdPages;
    }

    public JournalHeader prefetchThresholdPages(final int prefetchThresholdPages)
    {
        this.prefetchThresholdPages = prefetchThresholdPages;
        return this;
    }

    public PrefetchPolicy prefetchPolicy()
    {
        return prefetchPolicy;
    }

    public JournalHeader prefetchPolicy(final PrefetchPolicy prefetchPolicy)
    {
        this.prefetchPolicy = prefetchPolicy;
        return this;
    }

    public long prefetchTimeoutNs()
    {
        return prefetchTimeoutNs;
    }

    public JournalHeader prefetchTimeoutNs(final long prefetchTimeoutNs)
    {
        this.prefetchTimeoutNs = prefetchTimeoutNs;
        return this;
    }

    public boolean hybrid()
    {
        return hybrid;
    }

    public JournalHeader hybrid(final boolean hybrid)
    {
        this.hybrid = hybrid;
        return this;
    }

    public DeviceKind deviceKind()
    {
        return deviceKind;
    }

    public JournalHeader deviceKind(final DeviceKind deviceKind)
    {
        this.deviceKind = deviceKind;
        return this;
    }

    public int kvPageBytes()
    {
        return kvPageBytes;
    }

    public JournalHeader kvPageBytes(final int kvPageBytes)
    {
        this.kvPageBytes = kvPageBytes;
        return this;
    }

    public int mambaStateBytes()
    {
        return mambaStateBytes;
    }

    public JournalHeader mambaStateBytes(final int mambaStateBytes)
    {
        this.mambaStateBytes = mambaStateBytes;
        return this;
    }

    /**
     * Bit i set means fault switch with choice position i of the schema's FaultSet is on.
     *
     * @return the raw bit mask.
     */
    public long faultMask()
    {
        return faultMask;
    }

    public JournalHeader faultMask(final long faultMask)
    {
        this.faultMask = faultMask;
        return this;
    }

    public int maxNodes()
    {
        return maxNodes;
    }

    public JournalHeader maxNodes(final int maxNodes)
    {
        this.maxNodes = maxNodes;
        return this;
    }

    public int maxOps()
    {
        return maxOps;
    }

    public JournalHeader maxOps(final int maxOps)
    {
        this.maxOps = maxOps;
        return this;
    }

    /**
     * @return the version of the admission rules the journal was written under: 1 for every journal of schema
     * version 3 or older (the field did not exist), 2 since the token and input gates follow SGLang's
     * {@code add_one_req}, 3 since a checkpoint a chunk kept back is placed by a later chunk or the finish at the
     * same depth, the Mamba gate counts and evicts every state the domain calls evictable, and a dropped hold resets
     * the defer count ({@code EngineConfig#admissionRules}).
     */
    public int admissionRules()
    {
        return admissionRules;
    }

    public JournalHeader admissionRules(final int admissionRules)
    {
        this.admissionRules = admissionRules;
        return this;
    }

    /**
     * @return the timeout prefetch policy's time per 1,024 tokens being fetched, on top of
     * {@link #prefetchTimeoutNs()}; 0 in journals of schema version 3 or older.
     */
    public long prefetchTimeoutPerKiNs()
    {
        return prefetchTimeoutPerKiNs;
    }

    public JournalHeader prefetchTimeoutPerKiNs(final long prefetchTimeoutPerKiNs)
    {
        this.prefetchTimeoutPerKiNs = prefetchTimeoutPerKiNs;
        return this;
    }

    public String kvledgerVersion()
    {
        return kvledgerVersion;
    }

    public JournalHeader kvledgerVersion(final String kvledgerVersion)
    {
        this.kvledgerVersion = kvledgerVersion;
        return this;
    }

    public String label()
    {
        return label;
    }

    public JournalHeader label(final String label)
    {
        this.label = label;
        return this;
    }
}
