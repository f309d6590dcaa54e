package io.kvledger.engine;

import io.kvledger.journal.JournalHeader;

/**
 * What each version of the admission rules changed, one named predicate per behaviour, so that a decision site
 * asks for the behaviour it depends on rather than comparing version numbers. A journal records its version
 * ({@link JournalHeader#admissionRules()}) and replays under it: a behaviour added by a later version stays off for
 * the journals written before it. {@link EngineConfig#admissionRules()} describes the versions in the domain's words.
 * Immutable; any thread.
 */
public final class AdmissionRules
{
    private static final AdmissionRules[] VERSIONS = new AdmissionRules[JournalHeader.LATEST_ADMISSION_RULES + 1];

    static
    {
        for (int v = 1; v < VERSIONS.length; v++)
        {
            VERSIONS[v] = new AdmissionRules(v);
        }
    }

    private final int version;

    private AdmissionRules(final int version)
    {
        this.version = version;
    }

    /**
     * The rules of a version.
     *
     * @param version 1 to {@link JournalHeader#LATEST_ADMISSION_RULES}.
     * @return the shared instance.
     * @throws IllegalArgumentException for any other version.
     */
    public static AdmissionRules of(final int version)
    {
        if (version < 1 || version >= VERSIONS.length)
        {
            throw new IllegalArgumentException("admissionRules must be 1 to " + JournalHeader.LATEST_ADMISSION_RULES +
                ": " + version);
        }
        return VERSIONS[version];
    }

    /** @return the version number, as the journal header records it. */
    public int version()
    {
        return version;
    }

    /**
     * Rules 2: the token and input budgets as SGLang's {@code add_one_req} (total = uncached tokens + clipped max new
     * tokens + a page, input in whole pages, waiting at the budget, the budgets debited at admission).
     *
     * @return whether they apply.
     */
    public boolean sglangBudgets()
    {
        return version >= 2;
    }

    /**
     * Rules 2: a prompt ending in a partial page gets a device KV page for its tail while it runs.
     *
     * @return whether it does.
     */
    public boolean tailPages()
    {
        return version >= 2;
    }

    /**
     * Rules 2: a chunk keeps its tracking slot (placing no checkpoint) when no fresh one can be had, so a request
     * never loses its tracking slot.
     *
     * @return whether it does.
     */
    public boolean chunkKeepsTrackingSlot()
    {
        return version >= 2;
    }

    /**
     * Rules 2: the hold dropped with an abandoned fetch names the pages that fetch was bringing (rules 1 wrote 0).
     *
     * @return whether it does.
     */
    public boolean abandonedFetchCountsPages()
    {
        return version >= 2;
    }

    /**
     * Rules 3 (a): the state a chunk kept back in its tracking slot is placed as the checkpoint by the request's next
     * chunk or its finish at the same depth when the node there has none.
     *
     * @return whether it is placed.
     */
    public boolean placesKeptCheckpoint()
    {
        return version >= 3;
    }

    /**
     * Rules 3 (b): the Mamba gate's evictable count and the Mamba eviction take every state the domain calls
     * evictable ({@code RadixTree#exactMamba}).
     *
     * @return whether they do.
     */
    public boolean exactMambaEvictable()
    {
        return version >= 3;
    }

    /**
     * Rules 3 (c): a staged hold dropped for any reason takes its defer count with it.
     *
     * @return whether it does.
     */
    public boolean holdDropResetsDefers()
    {
        return version >= 3;
    }

    /**
     * Rules 4: a prompt that ends on a page boundary (no tail tokens) never reuses its last page: the device match,
     * the L3 query and the hit it answers stop one page short, so the request computes at least its last token,
     * whose logits give the first output token (SGLang matches at most {@code input_len - 1} tokens, cut to whole
     * pages: {@code Req.adjust_max_prefix_ids}, {@code _compute_max_prefix_len}). The last page is computed again
     * and deduplicated into the tree's copy at the finish. Under 1 to 3 such a prompt could be reused whole, leaving
     * nothing to compute, and for a Mamba model a state after the last token with no way to get its logits.
     *
     * @return whether the last page of a prompt without a tail is always computed.
     */
    public boolean computesLastPage()
    {
        return version >= 4;
    }

    @Override
    public String toString()
    {
        return "admission rules " + version;
    }
}
