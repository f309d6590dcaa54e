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
     * Rules 5 and 7 (not the default; chosen with {@link io.kvledger.engine.EngineConfig.Builder#admissionRules}): a
     * prompt that ends on a page boundary (no tail tokens) never reuses its last page: the device match,
     * the L3 query and the hit it answers stop one page short, so the request computes at least its last token,
     * whose logits give the first output token (SGLang matches at most {@code input_len - 1} tokens, cut to whole
     * pages: {@code Req.adjust_max_prefix_ids}, {@code _compute_max_prefix_len}). The last page is computed again
     * and deduplicated into the tree's copy at the finish. Under 1 to 4 and 6 such a prompt may be reused whole,
     * leaving nothing to compute (and, for a Mamba model, a state after the last token whose logits are not kept):
     * the cache then behaves as SGLang's {@code RadixCache.match_prefix} on the whole key, which the domain reference
     * and the peer traces describe, and a caller that needs the last token computed runs rules 7 (or 5). Not the
     * default because
     * it also stops a whole-prompt hit of a Mamba model short of the only state L3 holds for it (the state at the
     * prompt's end), so such a hit is not used at all unless a checkpoint lies a page earlier.
     *
     * @return whether the last page of a prompt without a tail is always computed.
     */
    public boolean computesLastPage()
    {
        return version == 5 || version >= 7;
    }

    /**
     * Rules 4: an {@code ADMIT} refused at the running limit (DESIGN's first gate) keeps the request's unfinished
     * fetch, parked hit and unanswered L3 query; under 1 to 3 the request had already given them up (best_effort, or
     * timeout past its deadline) before the gate refused it, losing a valid hit for an admission that did not
     * happen. SGLang's batch-full check comes before it looks at a request's prefetch.
     *
     * @return whether the running limit is checked before the request gives its L3 hit up.
     */
    public boolean keepsHitAtRunningLimit()
    {
        return version >= 4;
    }

    /**
     * Rules 6 (the default) and 7: the hit-commit gates on the device that the domain lists before staging is taken
     * (hicache-domain.md 3.2 step 3 (c) and (d), corrections.md row 30), applied to a {@code STORAGE_HIT} and to a
     * parked hit when it is retried. A hit whose whole span the device has come to hold since the query (another
     * request computed and cached it) is declined, {@code HOLD_DROPPED DEVICE_COVERED}, and nothing is fetched;
     * a hit whose head the device now holds is fetched from the end of the usable device prefix on, and the prefix
     * pin moves to that end. Under 1 to 5 the whole hit was fetched, and the admission dropped or trimmed the hold
     * afterwards: the same outcome for the request, with staging and an L3 read spent on pages the device held.
     *
     * @return whether a hit is checked against the device before its fetch is issued.
     */
    public boolean hitCommitChecksDevice()
    {
        return version >= 6;
    }

    @Override
    public String toString()
    {
        return "admission rules " + version;
    }
}
