package io.kvledger.engine;

import io.kvledger.journal.JournalFrame;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.PrefetchPolicy;

/**
 * Immutable engine configuration: pool sizes, policies, the fault switches and the seed. Every field that
 * influences a decision is journaled in the header ({@link #toHeader}) so replay rebuilds the same engine
 * ({@link #fromHeader}). Built with {@link Builder}; safe to share between threads.
 */
public final class EngineConfig
{
    /**
     * The admission rules of a configuration that names none: 6. Rules 5 and 7
     * ({@link JournalHeader#LATEST_ADMISSION_RULES}) are chosen explicitly; see {@link #admissionRules()}.
     */
    public static final int DEFAULT_ADMISSION_RULES = 6;

    /** Version string written into journal headers. */
    public static final String KVLEDGER_VERSION = "0.1.0";

    /** Max new tokens counted by the token gate, at most (SGLang's {@code CLIP_MAX_NEW_TOKENS}; rules 2). */
    public static final long CLIP_MAX_NEW_TOKENS = 4096;

    /**
     * The most effects one input records per page of its request: a staged admission's 5 (the device page taken,
     * then given to the inserted node, the host staging page handed to the load, the load's read and write
     * targets); a chunk or finish with its backup records 4, anything else fewer.
     */
    public static final int EFFECTS_PER_REQUEST_PAGE = 5;

    /**
     * Effects one input may record besides those per page of its request (its fixed effects, a few Mamba slots).
     */
    public static final int EFFECTS_PER_INPUT = 1024;

    /**
     * The most pages a request may span ({@link Builder#maxRequestPages}): one journal document records at most
     * {@link JournalFrame#MAX_GROUP_COUNT} effects, and an input whose effects do not fit would stop the engine. A
     * request's own work, {@link #EFFECTS_PER_REQUEST_PAGE} a page, and the eviction of one whole node as large next
     * to it (its admission evicts only what the document can still record, so it always evicts something) leave
     * room for {@link #EFFECTS_PER_INPUT}: 6 &times; 10,240 + 1,024 &le; 65,534. At 16 tokens a page that is a
     * 163,840-token request.
     */
    public static final int MAX_REQUEST_PAGES = 10_240;

    private final int pageSize;
    private final int deviceKvPages;
    private final int deviceMambaSlots;
    private final int hostKvPages;
    private final int hostMambaSlots;
    private final int trackingSlots;
    private final int maxStagedDefers;
    private final int maxRequests;
    private final int maxRequestPages;
    private final int prefetchThresholdPages;
    private final PrefetchPolicy prefetchPolicy;
    private final long prefetchTimeoutNs;
    private final long prefetchTimeoutPerKiNs;
    private final int admissionRules;
    private final AdmissionRules rules;
    private final boolean hybrid;
    private final DeviceKind deviceKind;
    private final int kvPageBytes;
    private final int mambaStateBytes;
    private final long faultMask;
    private final int maxNodes;
    private final int maxOps;
    private final long seed;

    private EngineConfig(final Builder b)
    {
        pageSize = b.pageSize;
        deviceKvPages = b.deviceKvPages;
        deviceMambaSlots = b.hybrid ? b.deviceMambaSlots : 0;
        hostKvPages = b.hostKvPages;
        hostMambaSlots = b.hybrid ? b.hostMambaSlots : 0;
        trackingSlots = b.trackingSlots;
        maxStagedDefers = b.maxStagedDefers;
        maxRequests = b.maxRequests;
        maxRequestPages = b.maxRequestPages;
        prefetchThresholdPages = b.prefetchThresholdPages;
        prefetchPolicy = b.prefetchPolicy;
        prefetchTimeoutNs = b.prefetchTimeoutNs;
        prefetchTimeoutPerKiNs = b.prefetchTimeoutPerKiNs;
        admissionRules = b.admissionRules;
        rules = AdmissionRules.of(b.admissionRules);
        hybrid = b.hybrid;
        deviceKind = b.deviceKind;
        kvPageBytes = b.kvPageBytes;
        mambaStateBytes = b.mambaStateBytes;
        faultMask = b.faultMask;
        maxNodes = b.maxNodes > 0 ? b.maxNodes : deviceKvPages + 2;
        maxOps = b.maxOps;
        seed = b.seed;
    }

    /** @return a builder with the embedded defaults. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return a builder initialised from this configuration. */
    public Builder toBuilder()
    {
        final Builder b = new Builder();
        b.pageSize = pageSize;
        b.deviceKvPages = deviceKvPages;
        b.deviceMambaSlots = deviceMambaSlots;
        b.hostKvPages = hostKvPages;
        b.hostMambaSlots = hostMambaSlots;
        b.trackingSlots = trackingSlots;
        b.maxStagedDefers = maxStagedDefers;
        b.maxRequests = maxRequests;
        b.maxRequestPages = maxRequestPages;
        b.prefetchThresholdPages = prefetchThresholdPages;
        b.prefetchPolicy = prefetchPolicy;
        b.prefetchTimeoutNs = prefetchTimeoutNs;
        b.prefetchTimeoutPerKiNs = prefetchTimeoutPerKiNs;
        b.admissionRules = admissionRules;
        b.hybrid = hybrid;
        b.deviceKind = deviceKind;
        b.kvPageBytes = kvPageBytes;
        b.mambaStateBytes = mambaStateBytes;
        b.faultMask = faultMask;
        b.maxNodes = maxNodes;
        b.maxOps = maxOps;
        b.seed = seed;
        // only a journal's configuration holds more (fromHeader): it keeps the journal's limits
        b.journaled = maxRequestPages > MAX_REQUEST_PAGES;
        return b;
    }

    /**
     * Write every field into a journal header.
     *
     * @param header to fill.
     * @return the header.
     */
    public JournalHeader toHeader(final JournalHeader header)
    {
        return header.seed(seed).pageSize(pageSize).deviceKvPages(deviceKvPages).deviceMambaSlots(deviceMambaSlots)
            .hostKvPages(hostKvPages).hostMambaSlots(hostMambaSlots).trackingSlots(trackingSlots)
            .maxStagedDefers(maxStagedDefers).maxRequests(maxRequests).maxRequestPages(maxRequestPages)
            .prefetchThresholdPages(prefetchThresholdPages).prefetchPolicy(prefetchPolicy)
            .prefetchTimeoutNs(prefetchTimeoutNs).hybrid(hybrid).deviceKind(deviceKind).kvPageBytes(kvPageBytes)
            .mambaStateBytes(mambaStateBytes).faultMask(faultMask).maxNodes(maxNodes).maxOps(maxOps)
            .prefetchTimeoutPerKiNs(prefetchTimeoutPerKiNs).admissionRules(admissionRules)
            .kvledgerVersion(KVLEDGER_VERSION);
    }

    /**
     * Rebuild the configuration a journal was written with.
     *
     * @param h journal header.
     * @return the configuration.
     */
    public static EngineConfig fromHeader(final JournalHeader h)
    {
        final Builder b = new Builder();
        b.pageSize = h.pageSize();
        b.deviceKvPages = h.deviceKvPages();
        b.deviceMambaSlots = h.deviceMambaSlots();
        b.hostKvPages = h.hostKvPages();
        b.hostMambaSlots = h.hostMambaSlots();
        b.trackingSlots = h.trackingSlots();
        b.maxStagedDefers = h.maxStagedDefers();
        b.maxRequests = h.maxRequests();
        b.maxRequestPages = h.maxRequestPages();
        b.prefetchThresholdPages = h.prefetchThresholdPages();
        b.prefetchPolicy = h.prefetchPolicy();
        b.prefetchTimeoutNs = h.prefetchTimeoutNs();
        b.prefetchTimeoutPerKiNs = h.prefetchTimeoutPerKiNs();
        b.admissionRules = h.admissionRules();
        b.hybrid = h.hybrid();
        b.deviceKind = h.deviceKind();
        b.kvPageBytes = h.kvPageBytes();
        b.mambaStateBytes = h.mambaStateBytes();
        b.faultMask = h.faultMask();
        b.maxNodes = h.maxNodes();
        b.maxOps = h.maxOps();
        b.seed = h.seed();
        b.journaled = true;
        return b.build();
    }

    public int pageSize()
    {
        return pageSize;
    }

    public int deviceKvPages()
    {
        return deviceKvPages;
    }

    public int deviceMambaSlots()
    {
        return deviceMambaSlots;
    }

    public int hostKvPages()
    {
        return hostKvPages;
    }

    public int hostMambaSlots()
    {
        return hostMambaSlots;
    }

    public int trackingSlots()
    {
        return trackingSlots;
    }

    public int maxStagedDefers()
    {
        return maxStagedDefers;
    }

    public int maxRequests()
    {
        return maxRequests;
    }

    public int maxRequestPages()
    {
        return maxRequestPages;
    }

    public int prefetchThresholdPages()
    {
        return prefetchThresholdPages;
    }

    public PrefetchPolicy prefetchPolicy()
    {
        return prefetchPolicy;
    }

    public long prefetchTimeoutNs()
    {
        return prefetchTimeoutNs;
    }

    /**
     * @return the timeout policy's time per 1,024 tokens being fetched, on top of {@link #prefetchTimeoutNs()}
     * (SGLang: 1 s plus 0.25 s per 1Ki tokens); 0 for journals written before it existed.
     */
    public long prefetchTimeoutPerKiNs()
    {
        return prefetchTimeoutPerKiNs;
    }

    /**
     * The version of the admission rules applied; a journal replays under the rules it was written with.
     * <ul>
     * <li>1 (journals of schema version 3 and older): total = uncached tokens + max new tokens, waits when over the
     * pass's token budget; a non-first request waits when its uncached tokens are over the input budget; a chunk's
     * fresh tracking slot may be missing when none can be had.</li>
     * <li>2, as SGLang's {@code PrefillAdder.add_one_req}: total = uncached tokens + min(max new tokens,
     * {@link #CLIP_MAX_NEW_TOKENS}) + page size, waits when at or over the token budget; a non-first request waits
     * when its uncached tokens rounded up to whole pages are at or over the input budget; the budgets are debited
     * by those paged tokens (and the page); a chunk keeps its tracking slot, placing no checkpoint, when no fresh
     * one can be had, so a request never loses its tracking slot; a prompt ending in a partial page gets a device
     * KV page for its tail while it runs. The Mamba gap reserve of the total is 0: the
     * Mamba pool is its own pool here, not carved out of the KV pool (the domain's unified-pool case).</li>
     * <li>3: rules 2, and (a) the state such a chunk kept back in its tracking slot is placed as the
     * checkpoint by the request's next chunk or its finish at the same tracked depth when the node there still has
     * none (the finish donates the tracking slot, as DESIGN's FINISH and SGLang's insert into an existing node
     * without a state); under 2 it was lost; (b) the Mamba gate's evictable count and the Mamba eviction take every
     * state the domain calls evictable: only an operation's lock on the node itself protects its state (not one on
     * a descendant), and a locked node whose children the same eviction pass deleted loses its state; (c) a staged
     * hold dropped for any reason takes its defer count with it.</li>
     * <li>4: rules 3, and an {@code ADMIT} refused at the running limit keeps the request's unfinished
     * fetch, parked hit and unanswered L3 query (under 1 to 3 it gave them up first;
     * {@link AdmissionRules#keepsHitAtRunningLimit()}).</li>
     * <li>5 (chosen, not the default): rules 4, and a prompt that ends on a page boundary (no tail) reuses at most
     * all its pages but the last, from the device or from L3, so at least its last token is computed for its logits,
     * as SGLang's scheduler matches at most {@code input_len - 1} tokens ({@link AdmissionRules#computesLastPage()},
     * which says why it is not the default).</li>
     * <li>6 (default): rules 4, and a hit is checked against the device when it is committed (its {@code STORAGE_HIT},
     * or the retry of a parked hit): declined when the device now holds its whole span, fetched from the end of the
     * usable device prefix when the device holds its head ({@link AdmissionRules#hitCommitChecksDevice()}).</li>
     * <li>7 (chosen, not the default): rules 6 and the last page of rules 5.</li>
     * </ul>
     *
     * @return 1 to 7.
     */
    public int admissionRules()
    {
        return admissionRules;
    }

    /**
     * The behaviours of {@link #admissionRules()}, by name.
     *
     * @return the rules of this configuration's version.
     */
    public AdmissionRules rules()
    {
        return rules;
    }

    public boolean hybrid()
    {
        return hybrid;
    }

    public DeviceKind deviceKind()
    {
        return deviceKind;
    }

    public int kvPageBytes()
    {
        return kvPageBytes;
    }

    public int mambaStateBytes()
    {
        return mambaStateBytes;
    }

    public long faultMask()
    {
        return faultMask;
    }

    /**
     * @param fault switch.
     * @return whether it is on.
     */
    public boolean fault(final FaultSwitch fault)
    {
        return fault.isOn(faultMask);
    }

    public int maxNodes()
    {
        return maxNodes;
    }

    public int maxOps()
    {
        return maxOps;
    }

    public long seed()
    {
        return seed;
    }

    /** Mutable builder with the embedded defaults (sized for the demo on a laptop). */
    public static final class Builder
    {
        private int pageSize = 64;
        private int deviceKvPages = 4096;
        private int deviceMambaSlots = 160;
        private int hostKvPages = 8192;
        private int hostMambaSlots = 256;
        private int trackingSlots = 1;
        private int maxStagedDefers = 32;
        private int maxRequests = 1024;
        private int maxRequestPages = 512;
        private int prefetchThresholdPages = 4;
        private PrefetchPolicy prefetchPolicy = PrefetchPolicy.BEST_EFFORT;
        private long prefetchTimeoutNs = 1_000_000_000L;
        private long prefetchTimeoutPerKiNs = 250_000_000L;
        private int admissionRules = DEFAULT_ADMISSION_RULES;
        private boolean hybrid = true;
        private DeviceKind deviceKind = DeviceKind.HOST;
        private int kvPageBytes = 4096;
        private int mambaStateBytes = 16384;
        private long faultMask;
        private int maxNodes;
        private int maxOps = 4096;
        private long seed = 1;
        /** Rebuilt from a journal's header ({@link #fromHeader}): the journal's own limits apply. */
        private boolean journaled;

        public Builder pageSize(final int v)
        {
            pageSize = v;
            return this;
        }

        public Builder deviceKvPages(final int v)
        {
            deviceKvPages = v;
            return this;
        }

        public Builder deviceMambaSlots(final int v)
        {
            deviceMambaSlots = v;
            return this;
        }

        public Builder hostKvPages(final int v)
        {
            hostKvPages = v;
            return this;
        }

        public Builder hostMambaSlots(final int v)
        {
            hostMambaSlots = v;
            return this;
        }

        public Builder trackingSlots(final int v)
        {
            trackingSlots = v;
            return this;
        }

        public Builder maxStagedDefers(final int v)
        {
            maxStagedDefers = v;
            return this;
        }

        public Builder maxRequests(final int v)
        {
            maxRequests = v;
            return this;
        }

        public Builder maxRequestPages(final int v)
        {
            maxRequestPages = v;
            return this;
        }

        public Builder prefetchThresholdPages(final int v)
        {
            prefetchThresholdPages = v;
            return this;
        }

        public Builder prefetchPolicy(final PrefetchPolicy v)
        {
            prefetchPolicy = v;
            return this;
        }

        public Builder prefetchTimeoutNs(final long v)
        {
            prefetchTimeoutNs = v;
            return this;
        }

        public Builder prefetchTimeoutPerKiNs(final long v)
        {
            prefetchTimeoutPerKiNs = v;
            return this;
        }

        public Builder admissionRules(final int v)
        {
            admissionRules = v;
            return this;
        }

        public Builder hybrid(final boolean v)
        {
            hybrid = v;
            return this;
        }

        public Builder deviceKind(final DeviceKind v)
        {
            deviceKind = v;
            return this;
        }

        public Builder kvPageBytes(final int v)
        {
            kvPageBytes = v;
            return this;
        }

        public Builder mambaStateBytes(final int v)
        {
            mambaStateBytes = v;
            return this;
        }

        public Builder faultMask(final long v)
        {
            faultMask = v;
            return this;
        }

        /**
         * Turn one fault switch on.
         *
         * @param fault switch.
         * @return this.
         */
        public Builder fault(final FaultSwitch fault)
        {
            faultMask |= 1L << fault.bit();
            return this;
        }

        public Builder maxNodes(final int v)
        {
            maxNodes = v;
            return this;
        }

        public Builder maxOps(final int v)
        {
            maxOps = v;
            return this;
        }

        public Builder seed(final long v)
        {
            seed = v;
            return this;
        }

        /**
         * @return the configuration.
         * @throws IllegalArgumentException when a value is out of range, with a message naming it.
         */
        public EngineConfig build()
        {
            require(pageSize >= 1, "pageSize must be >= 1");
            require(deviceKvPages >= 2, "deviceKvPages must be >= 2");
            require(hostKvPages >= 2, "hostKvPages must be >= 2");
            require(trackingSlots >= 1 && trackingSlots <= 2, "trackingSlots must be 1 or 2");
            require(maxStagedDefers >= 1, "maxStagedDefers must be >= 1");
            require(maxRequests >= 1, "maxRequests must be >= 1");
            require(maxRequestPages >= 1, "maxRequestPages must be >= 1");
            if (journaled)
            {
                // a journal written before the limit: its documents held every input's effects, and an ARRIVE's
                // fingerprints are one group of a document
                require(maxRequestPages <= JournalFrame.MAX_GROUP_COUNT, "maxRequestPages must be <= " +
                    JournalFrame.MAX_GROUP_COUNT + " (the fingerprints one journal document holds)");
            }
            else
            {
                require(maxRequestPages <= MAX_REQUEST_PAGES, "maxRequestPages must be <= " + MAX_REQUEST_PAGES +
                    " (a staged admission records " + EFFECTS_PER_REQUEST_PAGE + " effects a page and one journal " +
                    "document holds " + JournalFrame.MAX_GROUP_COUNT + ")");
            }
            require(prefetchThresholdPages >= 0, "prefetchThresholdPages must be >= 0");
            require(kvPageBytes >= 8 && kvPageBytes % 8 == 0, "kvPageBytes must be a positive multiple of 8");
            require(mambaStateBytes >= 8 && mambaStateBytes % 8 == 0,
                "mambaStateBytes must be a positive multiple of 8");
            require(maxOps >= 16, "maxOps must be >= 16");
            require(prefetchTimeoutNs >= 0, "prefetchTimeoutNs must be >= 0");
            require(prefetchTimeoutPerKiNs >= 0, "prefetchTimeoutPerKiNs must be >= 0");
            require(admissionRules >= 1 && admissionRules <= JournalHeader.LATEST_ADMISSION_RULES,
                "admissionRules must be 1 to " + JournalHeader.LATEST_ADMISSION_RULES);
            require((long)maxOps * (maxRequestPages + 4L) <= Integer.MAX_VALUE,
                "maxOps * (maxRequestPages + 4) must fit one array (the op table's moves): " + maxOps + " * " +
                    (maxRequestPages + 4L));
            if (hybrid)
            {
                require(deviceMambaSlots >= 3, "deviceMambaSlots must be >= 3 for a hybrid model");
            }
            return new EngineConfig(this);
        }

        private static void require(final boolean condition, final String message)
        {
            if (!condition)
            {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
