package io.kvledger.engine.store;

/**
 * A reusable list of pages (fingerprint and destination HOST_KV staging slot) and an optional Mamba state
 * (fingerprint and destination HOST_MAMBA slot) to read from the L3 store into host staging memory.
 * <p>
 * Preallocated by the store and claimed with {@link L3Store#claimFetch()}; thread ownership: the claiming thread
 * (the engine's dispatch thread) fills it, {@link L3Store#fetch(long, FetchPlan)} hands it to the I/O thread,
 * which clears it and returns it to the store's pool before reporting the completion. Allocation-free.
 */
public final class FetchPlan extends StorePlan
{
    FetchPlan(final Object owner, final int capacity, final int kvSlots, final int mambaSlots)
    {
        super(owner, FETCH, capacity, kvSlots, mambaSlots);
    }

    /**
     * Add a page.
     *
     * @param hi     high 64 bits of the page's fingerprint.
     * @param lo     low 64 bits of the page's fingerprint.
     * @param kvSlot HOST_KV staging slot the page is read into.
     * @return this for a fluent style.
     */
    public FetchPlan page(final long hi, final long lo, final int kvSlot)
    {
        addPage(hi, lo, kvSlot);
        return this;
    }

    /**
     * Set the Mamba state, keyed by the fingerprint of the page at which it was computed.
     *
     * @param hi        high 64 bits of that page's fingerprint.
     * @param lo        low 64 bits of that page's fingerprint.
     * @param mambaSlot HOST_MAMBA staging slot the state is read into.
     * @return this for a fluent style.
     */
    public FetchPlan mamba(final long hi, final long lo, final int mambaSlot)
    {
        setMamba(hi, lo, mambaSlot);
        return this;
    }

    /**
     * Drop every page and the Mamba state added so far, keeping the plan claimed.
     *
     * @return this for a fluent style.
     */
    public FetchPlan clear()
    {
        if (state != CLAIMED)
        {
            throw new IllegalStateException("plan is not claimed");
        }
        clearBody();
        return this;
    }
}
