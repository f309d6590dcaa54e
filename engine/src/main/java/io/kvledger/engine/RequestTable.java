package io.kvledger.engine;

import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.util.Hashing;
import io.kvledger.journal.codec.RequestState;
import org.agrona.collections.Long2LongHashMap;

/**
 * Live requests in preallocated column arrays indexed by a request slot; request ids map to slots through a
 * primitive map. Fingerprints and the device KV page of every page live in per-slot ranges of two arenas.
 * Engine thread only; allocation-free after construction. Slots are handed out lowest-free-first so the same
 * input sequence always gives the same slots.
 */
final class RequestTable
{
    static final int NONE = -1;
    private static final int HOLD_EXTRA = 4;
    /** Ints per request in {@link #matchMemo}: the match's fields, the usable prefix, the pages matched for. */
    private static final int MEMO_INTS = 8;

    private final int maxRequests;
    private final int maxPages;
    private final Long2LongHashMap slotById;
    private final int[] freeSlots;
    private int freeTop;

    final long[] id;
    final RequestState[] state;
    final long[] fpHi;
    final long[] fpLo;
    final int[] pageIds;
    final int[] pages;
    final int[] tailTokens;
    final long[] maxNewTokens;
    final long[] arrivalNs;
    /** First page the L3 query covers (the usable device prefix at arrival). */
    final int[] queryStart;
    final long[] queryOp;
    final long[] fetchOp;
    /** Staged hold: pages [holdStart, holdStart + holdPages) sit in host staging owned by the request. */
    final int[] holdStart;
    final int[] holdPages;
    /** Hit waiting for staging: [parkStart, parkStart + parkPages). */
    final int[] parkStart;
    final int[] parkPages;
    final int[] deferCount;
    final long[] loadOp;
    final long[] cowOp;
    /** Pages whose device page id in {@link #pageIds} is valid: [0, prefix) are tree pages, the rest own pages. */
    final int[] validPages;
    /** Pages already cached in the tree by this request (chunk progress). */
    final int[] cachedPages;
    final int[] lockedNode;
    final long[] lockReceipt;
    /** Lock pinning the device prefix under an L3 hit, from its query until admission or drop; or -1. */
    final long[] prefixReceipt;
    /** Namespace (tenant) the request arrived in; the engine keys its pages apart per namespace. */
    final long[] namespace;
    /** Host staging slots of the hold (or of the fetch that became it), in page order, recurrent states last. */
    final byte[] holdSlotPool;
    final int[] holdSlot;
    final int[] holdSlotCount;
    /** Incarnation of {@link #lockedNode} when the lock was taken there (see {@code WritePath}). */
    final long[] lockedIncarnation;
    /** Tree match version the request's match memo was computed at, or -1 (see {@link #memoValid}). */
    private final long[] memoVersion;
    /** The request's match memo, {@link #MEMO_INTS} ints per request slot. */
    private final int[] matchMemo;
    /**
     * Per page, the device KV page id the request's last device match passed there (pages [0, matched) of that
     * match, written by its walk only); still the tree's ids while the memo is valid (see {@code ApplyState}).
     */
    final int[] pathIds;
    /** Rules 2: the device KV page of the request's tail (tokens after its last full page), or NONE. */
    final int[] tailPage;

    RequestTable(final int maxRequests, final int maxPages)
    {
        this.maxRequests = maxRequests;
        this.maxPages = maxPages;
        slotById = new Long2LongHashMap(maxRequests * 2, 0.5f, NONE);
        freeSlots = new int[maxRequests];
        for (int i = 0; i < maxRequests; i++)
        {
            freeSlots[i] = maxRequests - 1 - i;
        }
        freeTop = maxRequests;
        id = new long[maxRequests];
        state = new RequestState[maxRequests];
        fpHi = new long[maxRequests * maxPages];
        fpLo = new long[maxRequests * maxPages];
        pageIds = new int[maxRequests * maxPages];
        pages = new int[maxRequests];
        tailTokens = new int[maxRequests];
        maxNewTokens = new long[maxRequests];
        arrivalNs = new long[maxRequests];
        queryStart = new int[maxRequests];
        queryOp = new long[maxRequests];
        fetchOp = new long[maxRequests];
        holdStart = new int[maxRequests];
        holdPages = new int[maxRequests];
        parkStart = new int[maxRequests];
        parkPages = new int[maxRequests];
        deferCount = new int[maxRequests];
        loadOp = new long[maxRequests];
        cowOp = new long[maxRequests];
        validPages = new int[maxRequests];
        cachedPages = new int[maxRequests];
        lockedNode = new int[maxRequests];
        tailPage = new int[maxRequests];
        lockReceipt = new long[maxRequests];
        prefixReceipt = new long[maxRequests];
        namespace = new long[maxRequests];
        holdSlotPool = new byte[maxRequests * (maxPages + HOLD_EXTRA)];
        holdSlot = new int[maxRequests * (maxPages + HOLD_EXTRA)];
        holdSlotCount = new int[maxRequests];
        lockedIncarnation = new long[maxRequests];
        memoVersion = new long[maxRequests];
        matchMemo = new int[maxRequests * MEMO_INTS];
        pathIds = new int[maxRequests * maxPages];
        java.util.Arrays.fill(memoVersion, NONE);
    }

    int maxPages()
    {
        return maxPages;
    }

    int capacity()
    {
        return maxRequests;
    }

    /** @return the slot of a live request id, or {@link #NONE}. */
    int slotOf(final long requestId)
    {
        return (int)slotById.get(requestId);
    }

    boolean full()
    {
        return freeTop == 0;
    }

    int offset(final int slot)
    {
        return slot * maxPages;
    }

    int holdOffset(final int slot)
    {
        return slot * (maxPages + HOLD_EXTRA);
    }

    /** Take a slot for a new request id; the caller checked {@link #full()} and that the id is new. */
    int add(final long requestId)
    {
        final int slot = freeSlots[--freeTop];
        slotById.put(requestId, slot);
        id[slot] = requestId;
        state[slot] = RequestState.WAITING;
        pages[slot] = 0;
        tailTokens[slot] = 0;
        maxNewTokens[slot] = 0;
        arrivalNs[slot] = 0;
        queryStart[slot] = 0;
        queryOp[slot] = NONE;
        fetchOp[slot] = NONE;
        holdStart[slot] = 0;
        holdPages[slot] = 0;
        parkStart[slot] = 0;
        parkPages[slot] = 0;
        deferCount[slot] = 0;
        loadOp[slot] = NONE;
        cowOp[slot] = NONE;
        validPages[slot] = 0;
        cachedPages[slot] = 0;
        lockedNode[slot] = NONE;
        tailPage[slot] = NONE;
        lockReceipt[slot] = NONE;
        prefixReceipt[slot] = NONE;
        namespace[slot] = 0;
        holdSlotCount[slot] = 0;
        lockedIncarnation[slot] = 0;
        memoVersion[slot] = NONE;
        return slot;
    }

    /** Release a slot once the request is finished or aborted and nothing refers to it any more. */
    void remove(final int slot)
    {
        slotById.remove(id[slot]);
        id[slot] = NONE;
        state[slot] = null;
        freeSlots[freeTop++] = slot;
    }

    /** @return number of live requests. */
    int size()
    {
        return maxRequests - freeTop;
    }

    /** @return whether the slot holds a live request. */
    boolean live(final int slot)
    {
        return state[slot] != null;
    }

    /**
     * Whether the request's match memo holds the match of its first {@code count} pages at tree match version
     * {@code version}. A request's fingerprints are written once, at its arrival, and its slot's memo is cleared
     * when the slot is handed out again, so with the same tree version and page count the memo equals a new match.
     *
     * @param slot    request slot.
     * @param version the tree's current {@code RadixTree#matchVersion}.
     * @param count   pages to be matched.
     * @return true when {@link #loadMemo} gives the same result as a new match.
     */
    boolean memoValid(final int slot, final long version, final int count)
    {
        return memoVersion[slot] == version && matchMemo[slot * MEMO_INTS + 7] == count;
    }

    /**
     * Fill {@code out} from the request's match memo (the fields a match sets; {@code existingPages} is left alone,
     * as a match leaves it).
     *
     * @param slot request slot.
     * @param out  receives the remembered match.
     * @return the remembered usable prefix.
     */
    int loadMemo(final int slot, final MatchResult out)
    {
        final int m = slot * MEMO_INTS;
        out.pages = matchMemo[m];
        out.node = matchMemo[m + 1];
        out.nodePages = matchMemo[m + 2];
        out.partialNode = matchMemo[m + 3];
        out.mambaNode = matchMemo[m + 4];
        out.mambaPages = matchMemo[m + 5];
        return matchMemo[m + 6];
    }

    /**
     * Remember a match of the request's first {@code count} pages, computed at tree match version {@code version}.
     *
     * @param slot    request slot.
     * @param version the tree's match version the match was computed at.
     * @param count   pages matched for.
     * @param match   the match.
     * @param usable  the usable prefix derived from it.
     */
    void storeMemo(final int slot, final long version, final int count, final MatchResult match, final int usable)
    {
        final int m = slot * MEMO_INTS;
        matchMemo[m] = match.pages;
        matchMemo[m + 1] = match.node;
        matchMemo[m + 2] = match.nodePages;
        matchMemo[m + 3] = match.partialNode;
        matchMemo[m + 4] = match.mambaNode;
        matchMemo[m + 5] = match.mambaPages;
        matchMemo[m + 6] = usable;
        matchMemo[m + 7] = count;
        memoVersion[slot] = version;
    }

    /** Order-independent hash of the live requests' ids, states and holdings. */
    long stateHash()
    {
        long h = 0;
        for (int s = 0; s < maxRequests; s++)
        {
            if (state[s] != null)
            {
                final int off = offset(s);
                long x = id[s] * 0x9E3779B97F4A7C15L;
                x = Hashing.mixGamma(x ^ state[s].value());
                x = Hashing.mixGamma(x ^ pages[s]);
                x = Hashing.mixGamma(x ^ holdStart[s] ^ ((long)holdPages[s] << 20));
                x = Hashing.mixGamma(x ^ deferCount[s] ^ ((long)validPages[s] << 24) ^ ((long)cachedPages[s] << 44));
                x = Hashing.mixGamma(x ^ loadOp[s] ^ (cowOp[s] << 32));
                x = Hashing.mixGamma(x ^ lockedNode[s] ^ ((long)parkPages[s] << 32));
                x = Hashing.mixGamma(x ^ (prefixReceipt[s] != NONE ? 1 : 0) ^ (namespace[s] << 1));
                // What admission and the read path decide on: budgets, the arrival time the prefetch grace and
                // timeout count from, the L3 query and fetch in flight, the hit's span, the page keys.
                x = Hashing.mixGamma(x ^ tailTokens[s] ^ (maxNewTokens[s] << 20));
                x = Hashing.mixGamma(x ^ arrivalNs[s]);
                x = Hashing.mixGamma(x ^ queryOp[s] ^ (fetchOp[s] << 32));
                x = Hashing.mixGamma(x ^ queryStart[s] ^ ((long)parkStart[s] << 32));
                for (int i = 0; i < pages[s]; i++)
                {
                    x = Hashing.mixGamma(x ^ fpHi[off + i] ^ Long.rotateLeft(fpLo[off + i], 17));
                }
                final int hoff = holdOffset(s);
                for (int i = 0; i < holdSlotCount[s]; i++)
                {
                    x = Hashing.mixGamma(x ^ holdSlot[hoff + i] ^ ((long)holdSlotPool[hoff + i] << 32));
                }
                for (int i = 0; i < validPages[s]; i++)
                {
                    x = Hashing.mixGamma(x ^ pageIds[off + i]);
                }
                h += x;
            }
        }
        return h;
    }
}
