package io.kvledger.engine;

import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.effect.EngineBugException;

import io.kvledger.engine.util.Hashing;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import org.agrona.collections.Long2LongHashMap;

/**
 * In-flight operations: loads, backups, storage reads and writes, copy-on-write. Each op has an id (issued in
 * increasing order), a kind, a state (QUEUED, then LAUNCHED; it leaves the table when acked, failed or
 * cancelled) and an ordered list of moves, each from a source (a pool slot, or an L3 key) to a destination (a pool
 * slot, or an L3 key). The moves are what the data plane executes; the journal records their slots as the op's
 * reads and writes. Engine thread only (the dispatcher reads it on the engine thread right after journaling);
 * allocation-free after construction.
 */
public final class OpTable
{
    /** Pool code used for the L3 side of a move. */
    public static final byte L3 = -2;
    /** Op state: queued, not yet launched. */
    public static final byte QUEUED = 0;
    /** Op state: launched on the device or the store. */
    public static final byte LAUNCHED = 1;
    /** Op state: completed successfully (terminal; the op leaves the table in the same apply). */
    public static final byte ACKED = 2;
    /** Op state: completed with an error (terminal). */
    public static final byte FAILED = 3;
    /** Op state: removed before launch (terminal). */
    public static final byte CANCELLED = 4;

    private static final String[] STATE_NAMES = {"QUEUED", "LAUNCHED", "ACKED", "FAILED", "CANCELLED"};
    /** Legal op-lifecycle moves: [from][to]. */
    private static final boolean[][] LEGAL = new boolean[5][5];
    private static final EffectType[] EFFECT_OF = {
        null, EffectType.OP_LAUNCHED, EffectType.OP_ACKED, EffectType.OP_FAILED, EffectType.OP_CANCELLED};

    static
    {
        LEGAL[QUEUED][LAUNCHED] = true;
        LEGAL[QUEUED][CANCELLED] = true;
        LEGAL[LAUNCHED][ACKED] = true;
        LEGAL[LAUNCHED][FAILED] = true;
    }

    private static final int NONE = -1;

    private final Effects effects;
    private final int maxOps;
    private final int maxMoves;
    private final Long2LongHashMap slotById;
    private final int[] freeSlots;
    private int freeTop;
    /** Ops in the LAUNCHED state: their completions are still to come. */
    private int launched;
    private long nextId = 1;

    final long[] id;
    final OpKind[] kind;
    final byte[] state;
    final long[] request;
    final int[] node;
    final long[] receipt;
    final int[] moveCount;
    final byte[] srcPool;
    final int[] srcSlot;
    final byte[] dstPool;
    final int[] dstSlot;
    final long[] keyHi;
    final long[] keyLo;
    /** Slots freed when the op completes (a redundant Mamba destination); pool code or NONE. */
    final byte[] ackFreePool;
    final int[] ackFreeSlot;
    /** Pages of the op that count as moved pages in the journal. */
    final int[] pagesMoved;

    OpTable(final int maxOps, final int maxMoves, final Effects effects)
    {
        this.effects = effects;
        this.maxOps = maxOps;
        this.maxMoves = maxMoves;
        slotById = new Long2LongHashMap(maxOps * 2, 0.5f, NONE);
        freeSlots = new int[maxOps];
        for (int i = 0; i < maxOps; i++)
        {
            freeSlots[i] = maxOps - 1 - i;
        }
        freeTop = maxOps;
        id = new long[maxOps];
        kind = new OpKind[maxOps];
        state = new byte[maxOps];
        request = new long[maxOps];
        node = new int[maxOps];
        receipt = new long[maxOps];
        moveCount = new int[maxOps];
        srcPool = new byte[maxOps * maxMoves];
        srcSlot = new int[maxOps * maxMoves];
        dstPool = new byte[maxOps * maxMoves];
        dstSlot = new int[maxOps * maxMoves];
        keyHi = new long[maxOps * maxMoves];
        keyLo = new long[maxOps * maxMoves];
        ackFreePool = new byte[maxOps];
        ackFreeSlot = new int[maxOps];
        pagesMoved = new int[maxOps];
    }

    boolean full()
    {
        return freeTop == 0;
    }

    int size()
    {
        return maxOps - freeTop;
    }

    /** @return ops launched and not yet completed (queued ones launch only at the pass's end). */
    int launchedCount()
    {
        return launched;
    }

    int maxMoves()
    {
        return maxMoves;
    }

    /** @return the id the next op will get. */
    long nextId()
    {
        return nextId;
    }

    /** Start a new op; the caller checked {@link #full()}. */
    int add(final OpKind opKind, final long requestId)
    {
        final int slot = freeSlots[--freeTop];
        final long opId = nextId++;
        slotById.put(opId, slot);
        id[slot] = opId;
        kind[slot] = opKind;
        state[slot] = QUEUED;
        request[slot] = requestId;
        node[slot] = NONE;
        receipt[slot] = NONE;
        moveCount[slot] = 0;
        ackFreePool[slot] = NONE;
        ackFreeSlot[slot] = NONE;
        pagesMoved[slot] = 0;
        return slot;
    }

    /**
     * The one op-lifecycle transition: checks the move against the table (QUEUED to LAUNCHED or CANCELLED,
     * LAUNCHED to ACKED or FAILED) and records its effect in the same call, as {@code SlotPool.transition} does
     * for slots.
     *
     * @param slot op slot.
     * @param to   LAUNCHED, ACKED, FAILED or CANCELLED.
     * @throws EngineBugException for an illegal move or a dead slot; nothing changes.
     */
    void advance(final int slot, final byte to)
    {
        if (slot < 0 || slot >= maxOps || null == kind[slot])
        {
            throw new EngineBugException("op slot " + slot + " is not live for " + STATE_NAMES[to]);
        }
        final byte from = state[slot];
        if (!LEGAL[from][to])
        {
            throw new EngineBugException("op " + id[slot] + " " + kind[slot] + " " + STATE_NAMES[from] + " -> " +
                STATE_NAMES[to] + " is not a legal op transition");
        }
        state[slot] = to;
        launched += (to == LAUNCHED ? 1 : 0) - (from == LAUNCHED ? 1 : 0);
        effects.opEvent(EFFECT_OF[to], id[slot], kind[slot]);
    }

    /**
     * Complete an op: ACKED when {@code ok}, else FAILED.
     *
     * @param slot op slot.
     * @param ok   whether it succeeded.
     */
    void complete(final int slot, final boolean ok)
    {
        advance(slot, ok ? ACKED : FAILED);
    }

    /**
     * @param slot op slot.
     * @return its lifecycle state (QUEUED, LAUNCHED, ...).
     */
    public byte state(final int slot)
    {
        return state[slot];
    }

    void addMove(final int slot, final byte fromPool, final int fromSlot, final byte toPool, final int toSlot,
        final long hi, final long lo)
    {
        final int i = slot * maxMoves + moveCount[slot]++;
        srcPool[i] = fromPool;
        srcSlot[i] = fromSlot;
        dstPool[i] = toPool;
        dstSlot[i] = toSlot;
        keyHi[i] = hi;
        keyLo[i] = lo;
    }

    void remove(final int slot)
    {
        if (state[slot] == LAUNCHED)
        {
            launched--;
        }
        slotById.remove(id[slot]);
        id[slot] = NONE;
        kind[slot] = null;
        freeSlots[freeTop++] = slot;
    }

    /**
     * @param opId op id.
     * @return table slot, or -1 when not in flight.
     */
    public int slotOf(final long opId)
    {
        return (int)slotById.get(opId);
    }

    /** @return whether the id was issued (so a missing op was already completed). */
    boolean issued(final long opId)
    {
        return opId > 0 && opId < nextId;
    }

    public long id(final int slot)
    {
        return id[slot];
    }

    public OpKind kind(final int slot)
    {
        return kind[slot];
    }

    public long request(final int slot)
    {
        return request[slot];
    }

    public int moveCount(final int slot)
    {
        return moveCount[slot];
    }

    /** @return source pool code of a move ({@link #L3} for an L3 key). */
    public byte srcPool(final int slot, final int move)
    {
        return srcPool[slot * maxMoves + move];
    }

    public int srcSlot(final int slot, final int move)
    {
        return srcSlot[slot * maxMoves + move];
    }

    /** @return destination pool code of a move ({@link #L3} for an L3 key). */
    public byte dstPool(final int slot, final int move)
    {
        return dstPool[slot * maxMoves + move];
    }

    public int dstSlot(final int slot, final int move)
    {
        return dstSlot[slot * maxMoves + move];
    }

    public long keyHi(final int slot, final int move)
    {
        return keyHi[slot * maxMoves + move];
    }

    public long keyLo(final int slot, final int move)
    {
        return keyLo[slot * maxMoves + move];
    }

    /** Order-independent hash of the ops in flight. */
    long stateHash()
    {
        long h = nextId;
        for (int s = 0; s < maxOps; s++)
        {
            if (kind[s] != null)
            {
                long x = Hashing.mixGamma(id[s] ^ ((long)kind[s].value() << 56) ^ ((long)state[s] << 48));
                x = Hashing.mixGamma(x ^ request[s] ^ ((long)node[s] << 32));
                x = Hashing.mixGamma(x ^ pagesMoved[s] ^ ((long)ackFreePool[s] << 32) ^ ((long)ackFreeSlot[s] << 40) ^
                    (receipt[s] != NONE ? 1L << 63 : 0));
                final int base = s * maxMoves;
                for (int i = 0; i < moveCount[s]; i++)
                {
                    x = Hashing.mixGamma(x ^ srcPool[base + i] ^ ((long)srcSlot[base + i] << 8) ^
                        ((long)dstPool[base + i] << 40) ^ ((long)dstSlot[base + i] << 16));
                }
                h += x;
            }
        }
        return h;
    }
}
