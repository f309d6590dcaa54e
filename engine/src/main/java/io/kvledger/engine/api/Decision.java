package io.kvledger.engine.api;

import io.kvledger.journal.codec.Reason;

/**
 * What the engine answered to one input, as the serving loop needs it: the result code and, for a live
 * request, where its data lives (working and tracking state slots, its device pages) and which load or copy it
 * waits for. Reused; filled by the engine side right after the input was applied.
 */
public final class Decision
{
    public int resultCode;
    public boolean live;
    public long loadOp = -1;
    public long cowOp = -1;
    public int workingSlot = -1;
    public int trackingSlot = -1;
    public int validPages;
    /** Device KV page for the tokens after the last full page (admission rules 2), or -1. */
    public int tailPage = -1;
    /** Prefix pages the request resumes from, when the input admitted it. */
    public int prefixPages;
    /** Why the input left the request waiting (the reason of its {@code WAITED} effect), or null. */
    public Reason waitReason;
    public final int[] pageIds;

    /**
     * @param maxPages most pages a request can have.
     */
    public Decision(final int maxPages)
    {
        pageIds = new int[maxPages];
    }

    /**
     * Copy another answer into this one.
     *
     * @param other answer to copy.
     */
    public void copyFrom(final Decision other)
    {
        resultCode = other.resultCode;
        live = other.live;
        loadOp = other.loadOp;
        cowOp = other.cowOp;
        workingSlot = other.workingSlot;
        trackingSlot = other.trackingSlot;
        validPages = other.validPages;
        tailPage = other.tailPage;
        prefixPages = other.prefixPages;
        waitReason = other.waitReason;
        System.arraycopy(other.pageIds, 0, pageIds, 0, other.validPages);
    }

    /** Forget the last answer. */
    public void clear()
    {
        resultCode = 0;
        live = false;
        loadOp = -1;
        cowOp = -1;
        workingSlot = -1;
        trackingSlot = -1;
        validPages = 0;
        tailPage = -1;
        prefixPages = 0;
        waitReason = null;
    }
}
