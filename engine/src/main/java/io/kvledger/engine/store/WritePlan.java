package io.kvledger.engine.store;

/**
 * A reusable list of pages (fingerprint and source HOST_KV staging slot) and an optional Mamba state
 * (fingerprint and source HOST_MAMBA slot) to store from host staging memory into the L3 store.
 * <p>
 * Preallocated by the store and claimed with {@link L3Store#claimWrite()}; thread ownership: the claiming thread
 * (the engine's dispatch thread) fills it, {@link L3Store#write(long, WritePlan)} hands it to the I/O thread,
 * which clears it and returns it to the store's pool before reporting the completion. Allocation-free.
 */
public final class WritePlan extends StorePlan
{
    WritePlan(final Object owner, final int capacity, final int kvSlots, final int mambaSlots)
    {
        super(owner, WRITE, capacity, kvSlots, mambaSlots);
    }

    /**
     * Add a page.
     *
     * @param hi     high 64 bits of the page's fingerprint.
     * @param lo     low 64 bits of the page's fingerprint.
     * @param kvSlot HOST_KV staging slot the page is read from.
     * @return this for a fluent style.
     */
    public WritePlan page(final long hi, final long lo, final int kvSlot)
    {
        addPage(hi, lo, kvSlot);
        return this;
    }

    /**
     * Set the Mamba state, keyed by the fingerprint of the page at which it was computed.
     *
     * @param hi        high 64 bits of that page's fingerprint.
     * @param lo        low 64 bits of that page's fingerprint.
     * @param mambaSlot HOST_MAMBA staging slot the state is read from.
     * @return this for a fluent style.
     */
    public WritePlan mamba(final long hi, final long lo, final int mambaSlot)
    {
        setMamba(hi, lo, mambaSlot);
        return this;
    }

    /**
     * Drop every page and the Mamba state added so far, keeping the plan claimed.
     *
     * @return this for a fluent style.
     */
    public WritePlan clear()
    {
        if (state != CLAIMED)
        {
            throw new IllegalStateException("plan is not claimed");
        }
        clearBody();
        return this;
    }
}
