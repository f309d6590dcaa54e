package io.kvledger.replay.cli;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;

import java.util.Locale;

/**
 * The ranges of {@code kvledger run}'s numeric flags and the memory estimate behind them, checked before anything
 * is created. The ranges keep a run to what the serving loop and the journal can hold; the memory estimate
 * refuses a configuration the JVM cannot allocate instead of letting it run into {@link OutOfMemoryError}.
 */
final class RunLimits
{
    /**
     * Most requests of a run. The workload is streamed (a request's tokens are drawn when it arrives and dropped when
     * it ends), so memory does not bound it; the journal does: a request writes about 26 documents (about 5 KB),
     * so this many make a journal of about 50 GB.
     */
    static final int MAX_REQUESTS = 10_000_000;
    /** Most tokens per prompt or per extension: about the longest context served today. */
    static final int MAX_TOKENS = 1 << 20;
    /** Most tokens per page. */
    static final int MAX_PAGE_SIZE = 1 << 16;
    /** Most pages one request may span: one journal document records its admission, 5 effects a page. */
    static final int MAX_REQUEST_PAGES = EngineConfig.MAX_REQUEST_PAGES;
    /** Most device KV pages: the tree and the pools preallocate their arrays per page. */
    static final int MAX_KV_PAGES = 1 << 22;
    /** Most device Mamba slots. */
    static final int MAX_MAMBA_SLOTS = 1 << 20;
    /** Largest KV page. */
    static final int MAX_KV_PAGE_BYTES = 64 << 20;
    /** Largest Mamba state. */
    static final int MAX_MAMBA_STATE_BYTES = 256 << 20;
    /** Longest extra delay per device copy. */
    static final long MAX_COPY_DELAY_US = 1_000_000;

    /** Heap bytes per op-table move (pools, slots, keys) and per copy-batch entry. */
    private static final long OP_MOVE_BYTES = 26;
    private static final long COPY_ENTRY_BYTES = 16;
    /** Heap bytes the tree, its page map and the slot pools preallocate per device KV page (measured: ~250). */
    private static final long DEVICE_PAGE_BYTES = 256;
    /** Heap bytes per host staging page or Mamba slot (pool arrays). */
    private static final long SLOT_BYTES = 64;
    /** Heap bytes of the simulated store per object, at worst (L3Tags: 25 bytes a slot, a third full after growth). */
    private static final long TAG_BYTES = 75;
    /** Heap bytes of the memory store per object besides its contents (map entry, key, array header). */
    private static final long OBJECT_OVERHEAD_BYTES = 96;
    /** Recurrent states stored per request of a hybrid model, about. */
    private static final long STATES_PER_REQUEST = 2;

    /** Where a run's L3 objects live, for the heap estimate. */
    enum HeldStore
    {
        /** On disk or in Redis: not on the heap. */
        NONE,
        /** {@code --store memory}: every page and state written, whole, on the heap. */
        CONTENTS,
        /** {@code --deterministic}: the simulated store's fingerprint and content tag per object. */
        TAGS
    }

    private RunLimits()
    {
    }

    /**
     * The workload's flags: request count, prompt and extension sizes against the page size.
     *
     * @param kind         workload shape.
     * @param requests     {@code --requests}.
     * @param promptTokens {@code --prompt-tokens}.
     * @param extendTokens {@code --extend-tokens}.
     * @param pageSize     {@code --page-size}.
     * @throws CliException naming the first bad flag.
     */
    static void checkWorkload(final WorkloadKind kind, final int requests, final int promptTokens,
        final int extendTokens, final int pageSize)
    {
        Flags.range("--requests", requests, 1, MAX_REQUESTS, "requests",
            "a request writes about 26 journal documents, so the most make a journal of about 50 GB");
        Flags.range("--page-size", pageSize, 1, MAX_PAGE_SIZE, "tokens", "tokens per page; SGLang uses 1 to 256");
        final WorkloadOptions shape = new WorkloadOptions();
        shape.kind = kind;
        final long minPrompt = shape.minPromptTokens(pageSize);
        Flags.range("--prompt-tokens", promptTokens, minPrompt, MAX_TOKENS, "tokens",
            promptReason(kind, shape, pageSize));
        Flags.range("--extend-tokens", extendTokens, 0, MAX_TOKENS, "tokens", "tokens added to a prompt");
        final long pages = requestPages(promptTokens, extendTokens, pageSize);
        if (pages > MAX_REQUEST_PAGES)
        {
            throw new CliException(String.format(Locale.ROOT, "--prompt-tokens %d and --extend-tokens %d at " +
                "--page-size %d make %,d pages per request, more than %,d (one journal document records a request's " +
                "admission, 5 effects a page; raise --page-size)", promptTokens, extendTokens, pageSize, pages,
                MAX_REQUEST_PAGES));
        }
    }

    /**
     * The device pools' flags.
     *
     * @param kvPages         {@code --kv-pages}.
     * @param mambaSlots      {@code --mamba-slots}.
     * @param kvPageBytes     {@code --kv-page-bytes}.
     * @param mambaStateBytes {@code --mamba-state-bytes}.
     * @throws CliException naming the first bad flag.
     */
    static void checkPools(final int kvPages, final int mambaSlots, final int kvPageBytes, final int mambaStateBytes)
    {
        Flags.range("--kv-pages", kvPages, 2, MAX_KV_PAGES, "pages", "device KV pages; the engine needs 2 and " +
            "preallocates its tree and pools per page");
        if (0 != mambaSlots)
        {
            // 0 is a pure-attention model
            Flags.range("--mamba-slots", mambaSlots, 3, MAX_MAMBA_SLOTS, "slots",
                "a running request holds 2 Mamba slots and its checkpoint 1; 0 for a pure-attention model");
        }
        Flags.slotBytes("--kv-page-bytes", kvPageBytes, MAX_KV_PAGE_BYTES, "bytes of one KV page");
        Flags.slotBytes("--mamba-state-bytes", mambaStateBytes, MAX_MAMBA_STATE_BYTES, "bytes of one Mamba state");
    }

    /**
     * Refuse a run whose pools or tables do not fit in this JVM: the host device keeps its device and host staging
     * pools in direct memory (the CUDA device keeps them in GPU and pinned memory and reports a failed allocation
     * itself, and the deterministic mode simulates them, so pass {@link Long#MAX_VALUE} as the direct cap there);
     * the engine's op table and tree, the device's copy batches and the workload's tokens live on the heap.
     *
     * @param config       the engine configuration the flags make.
     * @param kind         workload shape.
     * @param requests     {@code --requests}.
     * @param promptTokens {@code --prompt-tokens}.
     * @param extendTokens {@code --extend-tokens}.
     * @param held         where the L3 objects live: a memory store or the simulated one keeps them on the heap.
     * @param directCap    bytes of direct memory the JVM allows.
     * @param heapCap      bytes of heap the JVM allows.
     * @throws CliException naming the flags and both amounts.
     */
    static void checkMemory(final EngineConfig config, final WorkloadKind kind, final int requests,
        final int promptTokens, final int extendTokens, final HeldStore held, final long directCap,
        final long heapCap)
    {
        final long pools = poolBytes(config);
        Flags.memory(String.format(Locale.ROOT, "--kv-pages %d, --kv-page-bytes %d, --mamba-slots %d and " +
            "--mamba-state-bytes %d", config.deviceKvPages(), config.kvPageBytes(), config.deviceMambaSlots(),
            config.mambaStateBytes()), String.format(Locale.ROOT, "the device pools and %,d + %,d host staging " +
            "slots", config.hostKvPages(), config.hostMambaSlots()), pools, directCap,
            "of direct memory this JVM may use (-XX:MaxDirectMemorySize, set through KVLEDGER_JAVA_OPTS)");
        final long heap = heapBytes(config, kind, requests, promptTokens, extendTokens);
        Flags.memory(String.format(Locale.ROOT, "--requests %d, --prompt-tokens %d, --extend-tokens %d and " +
            "--page-size %d", requests, promptTokens, extendTokens, config.pageSize()),
            "the workload's tokens and the engine's tables, with --kv-pages " + config.deviceKvPages(), heap,
            heapCap / 4 * 3, "(three quarters of the heap this JVM may use; -Xmx, set through KVLEDGER_JAVA_OPTS)");
        if (held != HeldStore.NONE)
        {
            final long pages = storedPages(kind, requests, promptTokens, extendTokens, config.pageSize());
            final long states = config.hybrid() ? requests * STATES_PER_REQUEST : 0;
            final long store = held == HeldStore.TAGS ? (pages + states) * TAG_BYTES :
                pages * (config.kvPageBytes() + OBJECT_OVERHEAD_BYTES) +
                states * (config.mambaStateBytes() + OBJECT_OVERHEAD_BYTES);
            Flags.memory(String.format(Locale.ROOT, "--requests %d with %s", requests,
                held == HeldStore.TAGS ? "--deterministic" : "--store memory"), String.format(Locale.ROOT,
                "the engine's tables (%s) and the L3 store it keeps on the heap (about %,d pages and %,d states%s)",
                Flags.bytes(heap), pages, states, held == HeldStore.TAGS ? ", their fingerprints and tags" : ""),
                heap + store, heapCap / 4 * 3, "(three quarters of the heap this JVM may use; -Xmx, set through " +
                "KVLEDGER_JAVA_OPTS" + (held == HeldStore.CONTENTS ? "; or use --store file)" : ")"));
        }
    }

    /**
     * Distinct KV pages a run writes to L3, about: each request's own pages (a multi-turn request shares all but
     * its turn's share with the conversation's earlier requests).
     */
    static long storedPages(final WorkloadKind kind, final int requests, final int promptTokens,
        final int extendTokens, final int pageSize)
    {
        final long perRequest = requestPages(promptTokens, extendTokens, pageSize);
        final long turns = WorkloadKind.MULTI_TURN == kind ? Math.max(1, new WorkloadOptions().turns) : 1;
        return requests * ((perRequest + turns - 1) / turns);
    }

    /**
     * @param config engine configuration.
     * @return bytes of the device and host staging pools.
     */
    static long poolBytes(final EngineConfig config)
    {
        final long kv = ((long)config.deviceKvPages() + config.hostKvPages()) * config.kvPageBytes();
        final long mamba = ((long)Math.max(1, config.deviceMambaSlots()) + Math.max(1, config.hostMambaSlots())) *
            config.mambaStateBytes();
        return kv + mamba;
    }

    private static long heapBytes(final EngineConfig config, final WorkloadKind kind, final int requests,
        final int promptTokens, final int extendTokens)
    {
        final long moves = config.maxRequestPages() + 4L;
        final long opTable = config.maxOps() * moves * OP_MOVE_BYTES;
        final long copyBatches = Math.max(64, config.maxOps() / 4) * moves * COPY_ENTRY_BYTES;
        final long tokensPerRequest = WorkloadKind.PR_BENCH == kind ? 2L * promptTokens + extendTokens :
            (long)promptTokens + extendTokens;
        // the workload is streamed: only the requests in the engine's request table hold their tokens and
        // fingerprints; a multi-turn run keeps where each conversation's turns start, 8 bytes a request
        final long inFlight = Math.min(requests, config.maxRequests() + 1L);
        final long tokens = inFlight * tokensPerRequest * Integer.BYTES;
        final long fingerprints = 2L * inFlight * requestPages(promptTokens, extendTokens, config.pageSize()) * 16;
        final long perRequest = (long)requests * Long.BYTES;
        final long pools = config.deviceKvPages() * DEVICE_PAGE_BYTES + ((long)config.hostKvPages() +
            config.deviceMambaSlots() + config.hostMambaSlots()) * SLOT_BYTES;
        return opTable + copyBatches + tokens + fingerprints + perRequest + pools;
    }

    private static long requestPages(final int promptTokens, final int extendTokens, final int pageSize)
    {
        return ((long)promptTokens + extendTokens) / pageSize + 2;
    }

    private static String promptReason(final WorkloadKind kind, final WorkloadOptions shape, final int pageSize)
    {
        final String page = "one whole page of --page-size " + pageSize + " tokens";
        switch (kind)
        {
            case MULTI_TURN: return "a multi-turn conversation's first turn, 1/" + shape.turns + " of the prompt, " +
                "must hold at least " + page;
            case RANDOM: return "a random workload's shared prefixes, at least half a prompt, must hold at least " +
                page;
            default: return "each prompt must hold at least " + page;
        }
    }
}
