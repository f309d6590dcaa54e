package io.kvledger.engine;

/**
 * Scratch describing one admission while it is being decided and carried out; reused for every Admit.
 * Depths are in pages. Engine thread only.
 */
final class AdmissionPlan
{
    int request;
    long requestId;
    boolean hasHold;
    int holdStart;
    int holdEnd;
    /** Device pages matched by the FULL component alone (the splice base of a hold). */
    int fullPages;
    /** Pages the request resumes from once admitted (device prefix, plus the loaded span). */
    int prefixPages;
    /** Node ending exactly at the device prefix (before the load), locked for the request while deciding. */
    int baseNode;
    long baseReceipt;
    /** First page the load writes on the device, and how many pages it writes. */
    int loadStart;
    int loadPages;
    /** Pages the request computes itself: [prefixPages, pages). */
    int computePages;
    /** Node whose Mamba checkpoint the request resumes from (no-hold admission), or -1. */
    int checkpointNode;
    long checkpointReceipt;
    int loadOpSlot;
    int cowOpSlot;
    /** Node that ends at prefixPages once the load's nodes are inserted. */
    int prefixNode;
    boolean prefixNodeIsNew;
    /** Set when the request can never fit and was rejected. */
    boolean rejected;
    /**
     * Set when the KV pages could be evicted but this input's journal document cannot record it next to the
     * admission's own effects: the request waits, and the next attempt evicts the rest.
     */
    boolean documentFull;

    void clear()
    {
        request = -1;
        requestId = -1;
        hasHold = false;
        holdStart = 0;
        holdEnd = 0;
        fullPages = 0;
        prefixPages = 0;
        baseNode = -1;
        baseReceipt = -1;
        loadStart = 0;
        loadPages = 0;
        computePages = 0;
        checkpointNode = -1;
        checkpointReceipt = -1;
        loadOpSlot = -1;
        cowOpSlot = -1;
        prefixNode = -1;
        prefixNodeIsNew = false;
        rejected = false;
        documentFull = false;
    }
}
