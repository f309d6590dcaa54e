package io.kvledger.engine.runtime;

import io.kvledger.engine.EngineConfig;

import java.nio.file.Path;

/**
 * The small controller the embedding-contract tests open (page size {@link #PAGE}, {@link #MAX_PAGES} pages per
 * request, 64 device KV pages, 16 Mamba slots, counters off) and their prompts.
 */
final class EmbeddingFixture
{
    static final int PAGE = 4;
    static final int MAX_PAGES = 8;

    private EmbeddingFixture()
    {
    }

    /**
     * @param dir           the test's temporary directory.
     * @param name          a sub-directory for this ledger's journal and store.
     * @param journalThread whether the journal has its own thread.
     * @param queryPages    prompts of at least this many pages query the L3 store.
     * @return the options.
     */
    static KvLedgerOptions options(final Path dir, final String name, final boolean journalThread,
        final int queryPages)
    {
        final KvLedgerOptions options = new KvLedgerOptions();
        options.config = EngineConfig.builder().pageSize(PAGE).deviceKvPages(64).deviceMambaSlots(16)
            .hostKvPages(32).hostMambaSlots(4).maxRequests(64).maxRequestPages(MAX_PAGES).maxOps(64)
            .prefetchThresholdPages(queryPages).build();
        options.journalDir = dir.resolve(name).resolve("journal");
        options.storeDir = dir.resolve(name).resolve("l3");
        options.journalThread = journalThread;
        options.counters = false;
        return options;
    }

    /**
     * {@link #options(Path, String, boolean, int)} with the journal thread as {@link KvLedgerOptions} defaults it.
     */
    static KvLedgerOptions options(final Path dir, final String name, final int queryPages)
    {
        return options(dir, name, new KvLedgerOptions().journalThread, queryPages);
    }

    /** @return {@code count} tokens counting up from {@code salt}. */
    static int[] tokens(final int count, final int salt)
    {
        final int[] tokens = new int[count];
        for (int i = 0; i < count; i++)
        {
            tokens[i] = salt + i;
        }
        return tokens;
    }
}
