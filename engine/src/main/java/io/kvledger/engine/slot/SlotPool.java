package io.kvledger.engine.slot;

import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.util.Hashing;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

/**
 * One pool of slots (device KV pages, device Mamba slots, host staging pages or host Mamba staging slots) with
 * its ownership table. Every id is FREE, owned by exactly one request, node or operation, or PENDING_FREE.
 * <p>
 * Every change goes through {@link #transition(int, SlotState, long)} (or {@link #allocate(SlotState, long)}),
 * which checks the legal-transition table, changes the state and records a SLOT_TRANSITION effect in the same
 * call. An illegal transition returns {@link ResultCode#SLOT_ILLEGAL_TRANSITION} and changes nothing.
 * <p>
 * The free list is a LIFO stack: the most recently freed slot is handed out first (deterministic, and hot in
 * cache). At construction the stack hands out ids in ascending order. A FREE slot taken by an explicit
 * {@link #transition} (not {@link #allocate}) leaves the stack by a swap with the top, in O(1). Engine thread
 * only; allocation-free after construction.
 * <p>
 * Legal transitions (from, to): FREE to REQUEST, NODE or OP; REQUEST to FREE, NODE, OP, PENDING_FREE or REQUEST
 * of another request is illegal; NODE to FREE, NODE (split moves pages to the new parent) or REQUEST is illegal;
 * OP to FREE, REQUEST (a fetch becomes a staged hold), NODE, OP (a backup becomes a store) or PENDING_FREE;
 * PENDING_FREE to FREE only. Same state and same owner is illegal. The owner of a FREE slot is always -1,
 * whatever owner a move to FREE names.
 */
public final class SlotPool
{
    /** Returned by {@link #allocate} when no slot is free. */
    public static final int NO_SLOT = -1;
    /** Owner of a FREE slot. */
    public static final long NO_OWNER = -1;

    private static final int STATE_COUNT = 5;
    private static final SlotState[] STATES =
        { SlotState.FREE, SlotState.REQUEST, SlotState.NODE, SlotState.OP, SlotState.PENDING_FREE };
    private static final boolean[][] LEGAL = new boolean[STATE_COUNT][STATE_COUNT];

    static
    {
        for (int i = 0; i < STATE_COUNT; i++)
        {
            if (STATES[i].value() != i)
            {
                throw new IllegalStateException("SlotState code != index: " + STATES[i]);
            }
        }
        final int free = SlotState.FREE.value();
        final int request = SlotState.REQUEST.value();
        final int node = SlotState.NODE.value();
        final int op = SlotState.OP.value();
        final int pending = SlotState.PENDING_FREE.value();

        LEGAL[free][request] = true;
        LEGAL[free][node] = true;
        LEGAL[free][op] = true;

        LEGAL[request][free] = true;
        LEGAL[request][node] = true;
        LEGAL[request][op] = true;
        LEGAL[request][pending] = true;

        LEGAL[node][free] = true;
        LEGAL[node][node] = true;

        LEGAL[op][free] = true;
        LEGAL[op][request] = true;
        LEGAL[op][node] = true;
        LEGAL[op][op] = true;
        LEGAL[op][pending] = true;

        LEGAL[pending][free] = true;
    }

    private final Pool pool;
    private final int capacity;
    private final Effects effects;
    private final byte[] state;
    private final long[] owner;
    private final int[] freeStack;
    private final int[] freePosition;
    private final int[] stateCounts = new int[STATE_COUNT];
    private int freeTop;
    private int corruptSlot = NO_SLOT;
    private SlotState corruptFrom = SlotState.NULL_VAL;

    /**
     * @param pool     which pool this is (journaled with every transition).
     * @param capacity number of slots; ids are 0 .. capacity - 1.
     * @param effects  where transitions are recorded.
     */
    public SlotPool(final Pool pool, final int capacity, final Effects effects)
    {
        if (capacity < 0)
        {
            throw new IllegalArgumentException("capacity < 0: " + capacity);
        }
        this.pool = pool;
        this.capacity = capacity;
        this.effects = effects;
        state = new byte[capacity];
        owner = new long[capacity];
        // Room for faulty double frees (forceTransition) before the stack overflows.
        freeStack = new int[Math.max(16, capacity * 2)];
        freePosition = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            owner[i] = NO_OWNER;
            final int position = capacity - 1 - i;
            freeStack[position] = i;
            freePosition[i] = position;
        }
        freeTop = capacity;
        stateCounts[SlotState.FREE.value()] = capacity;
    }

    /**
     * Whether the legal-transition table allows a move between two states (owners not considered).
     *
     * @param from current state.
     * @param to   new state.
     * @return true when the table allows it.
     */
    public static boolean legal(final SlotState from, final SlotState to)
    {
        final int f = from.value();
        final int t = to.value();
        return f < STATE_COUNT && t < STATE_COUNT && LEGAL[f][t];
    }

    /**
     * @param code a {@link SlotState#value()}.
     * @return the state, without allocating.
     */
    public static SlotState slotState(final int code)
    {
        return STATES[code];
    }

    public Pool pool()
    {
        return pool;
    }

    public int capacity()
    {
        return capacity;
    }

    /**
     * @return length of the free list, i.e. slots {@link #allocate} can hand out (equals the FREE slots unless a
     * fault path corrupted the list).
     */
    public int freeCount()
    {
        return freeTop;
    }

    public int pendingFreeCount()
    {
        return stateCounts[SlotState.PENDING_FREE.value()];
    }

    /**
     * @param state a state.
     * @return number of slots in that state.
     */
    public int count(final SlotState state)
    {
        return stateCounts[state.value()];
    }

    /**
     * @param id slot.
     * @return its state.
     */
    public SlotState state(final int id)
    {
        return STATES[state[id]];
    }

    /**
     * @param id slot.
     * @return its owner id (request, node or op), or -1 when FREE.
     */
    public long owner(final int id)
    {
        return owner[id];
    }

    /**
     * Take the free-list head and give it to an owner.
     *
     * @param to    REQUEST, NODE or OP.
     * @param owner owner id.
     * @return slot id, or {@link #NO_SLOT} when none is free (nothing changes, nothing is recorded).
     * @throws IllegalArgumentException when {@code to} is not REQUEST, NODE or OP.
     */
    public int allocate(final SlotState to, final long owner)
    {
        if (to != SlotState.REQUEST && to != SlotState.NODE && to != SlotState.OP)
        {
            throw new IllegalArgumentException("allocate to " + to + " in pool " + pool);
        }
        if (freeTop == 0)
        {
            return NO_SLOT;
        }
        final int id = freeStack[--freeTop];
        if (freePosition[id] == freeTop)
        {
            freePosition[id] = -1;
        }
        final int from = state[id];
        if (from != SlotState.FREE.value() && corruptSlot == NO_SLOT)
        {
            // Only a fault path can put a non-FREE slot on the list; remember it so verify() reports it.
            corruptSlot = id;
            corruptFrom = STATES[from];
        }
        apply(id, from, to.value(), owner);
        return id;
    }

    /**
     * The result {@link #transition} would return, without changing anything.
     *
     * @param id    slot.
     * @param to    new state.
     * @param owner new owner.
     * @return {@link ResultCode#OK}, {@link ResultCode#SLOT_UNKNOWN} or {@link ResultCode#SLOT_ILLEGAL_TRANSITION}.
     */
    public int checkTransition(final int id, final SlotState to, final long owner)
    {
        if (id < 0 || id >= capacity)
        {
            return ResultCode.SLOT_UNKNOWN;
        }
        if (null == to)
        {
            return ResultCode.SLOT_ILLEGAL_TRANSITION;
        }
        final int t = to.value();
        final int f = state[id];
        if (t >= STATE_COUNT || !LEGAL[f][t])
        {
            return ResultCode.SLOT_ILLEGAL_TRANSITION;
        }
        final long newOwner = t == SlotState.FREE.value() ? NO_OWNER : owner;
        if (f == t && this.owner[id] == newOwner)
        {
            return ResultCode.SLOT_ILLEGAL_TRANSITION;
        }
        return ResultCode.OK;
    }

    /**
     * Change the state and owner of one slot through the legal-transition table; a move to FREE pushes the slot
     * on the free list.
     *
     * @param id    slot.
     * @param to    new state.
     * @param owner new owner (-1 for FREE; the op id for PENDING_FREE).
     * @return {@link ResultCode#OK}, {@link ResultCode#SLOT_UNKNOWN} or {@link ResultCode#SLOT_ILLEGAL_TRANSITION}.
     */
    public int transition(final int id, final SlotState to, final long owner)
    {
        final int result = checkTransition(id, to, owner);
        if (ResultCode.OK == result)
        {
            final int from = state[id];
            if (from == SlotState.FREE.value())
            {
                removeFromFreeStack(id);
            }
            apply(id, from, to.value(), owner);
        }
        return result;
    }

    /**
     * An internal transition the engine relies on: like {@link #transition} but a refusal is an engine bug, so it
     * throws instead of returning a code nobody reads (the engine fail-stops; DESIGN.md "Fail-stop inside apply").
     *
     * @param id    slot.
     * @param to    new state.
     * @param owner new owner (-1 for FREE; the op id for PENDING_FREE).
     * @throws EngineBugException when the table refuses the move; nothing changed.
     */
    public void move(final int id, final SlotState to, final long owner)
    {
        final int result = transition(id, to, owner);
        if (ResultCode.OK != result)
        {
            throw new EngineBugException(pool + " slot " + id + " " + (id >= 0 && id < capacity ? STATES[state[id]] :
                "?") + " -> " + to + " owner " + owner + " refused: " + ResultCode.name(result));
        }
    }

    /**
     * An internal allocation the engine checked room for beforehand: a miss is an engine bug.
     *
     * @param to    REQUEST, NODE or OP.
     * @param owner owner id.
     * @return the slot.
     * @throws EngineBugException when no slot is free.
     */
    public int take(final SlotState to, final long owner)
    {
        final int id = allocate(to, owner);
        if (NO_SLOT == id)
        {
            throw new EngineBugException(pool + " has no free slot for " + to + " " + owner +
                " although room was checked");
        }
        return id;
    }

    /**
     * The fault-switch path: record and perform a transition without consulting the table, as a buggy allocator
     * would (a free of a FREE slot pushes it on the free list a second time). Never used unless a fault switch
     * is on.
     *
     * @param id    slot.
     * @param to    new state.
     * @param owner new owner.
     */
    public void forceTransition(final int id, final SlotState to, final long owner)
    {
        final int from = state[id];
        if (from == SlotState.FREE.value() && to != SlotState.FREE)
        {
            removeFromFreeStack(id);
        }
        apply(id, from, to.value(), owner);
    }

    private void removeFromFreeStack(final int id)
    {
        final int position = freePosition[id];
        if (position < 0)
        {
            return;
        }
        final int last = --freeTop;
        if (position != last)
        {
            final int moved = freeStack[last];
            freeStack[position] = moved;
            if (freePosition[moved] == last)
            {
                freePosition[moved] = position;
            }
        }
        freePosition[id] = -1;
    }

    private void apply(final int id, final int from, final int to, final long newOwner)
    {
        final long previousOwner = owner[id];
        final long recordedOwner = to == SlotState.FREE.value() ? NO_OWNER : newOwner;
        effects.slotTransition(pool, id, STATES[from], STATES[to], recordedOwner, previousOwner);
        state[id] = (byte)to;
        owner[id] = recordedOwner;
        stateCounts[from]--;
        stateCounts[to]++;
        if (to == SlotState.FREE.value())
        {
            if (freeTop == freeStack.length)
            {
                throw new IllegalStateException("pool " + pool + " free list overflow pushing slot " + id);
            }
            freePosition[id] = freeTop;
            freeStack[freeTop++] = id;
        }
    }

    /**
     * Check conservation (free + owned + pending = capacity), that the free list holds exactly the FREE slots,
     * each once, and that no FREE slot has an owner (I12, I18). For tests and replay; O(capacity).
     *
     * @throws IllegalStateException naming the pool and slot on the first broken rule.
     */
    public void verify()
    {
        if (corruptSlot != NO_SLOT)
        {
            throw new IllegalStateException("I12 pool " + pool + " slot " + corruptSlot +
                ": handed out by allocate while " + corruptFrom + " (it was on the free list twice)");
        }
        int free = 0;
        int request = 0;
        int node = 0;
        int op = 0;
        int pending = 0;
        for (int id = 0; id < capacity; id++)
        {
            final int s = state[id];
            switch (s)
            {
                case 0:
                    free++;
                    if (owner[id] != NO_OWNER)
                    {
                        throw new IllegalStateException(
                            "I12 pool " + pool + " slot " + id + ": FREE with owner " + owner[id]);
                    }
                    final int position = freePosition[id];
                    if (position < 0 || position >= freeTop || freeStack[position] != id)
                    {
                        throw new IllegalStateException(
                            "I12 pool " + pool + " slot " + id + ": FREE but not on the free list");
                    }
                    break;
                case 1:
                    request++;
                    break;
                case 2:
                    node++;
                    break;
                case 3:
                    op++;
                    break;
                case 4:
                    pending++;
                    break;
                default:
                    throw new IllegalStateException("I12 pool " + pool + " slot " + id + ": bad state code " + s);
            }
            if (s != 0 && freePosition[id] >= 0)
            {
                throw new IllegalStateException("I12 pool " + pool + " slot " + id + ": " + STATES[s] +
                    " (owner " + owner[id] + ") but on the free list");
            }
        }
        for (int i = 0; i < freeTop; i++)
        {
            final int id = freeStack[i];
            if (id < 0 || id >= capacity)
            {
                throw new IllegalStateException("I12 pool " + pool + ": free list entry " + i + " is slot " + id);
            }
            if (state[id] != SlotState.FREE.value())
            {
                throw new IllegalStateException("I12 pool " + pool + " slot " + id + ": on the free list while " +
                    STATES[state[id]] + " (owner " + owner[id] + ")");
            }
            if (freePosition[id] != i)
            {
                throw new IllegalStateException("I12 pool " + pool + " slot " + id + ": on the free list twice");
            }
        }
        if (free != freeTop)
        {
            throw new IllegalStateException(
                "I18 pool " + pool + ": " + free + " FREE slots but free list length " + freeTop);
        }
        if (free + request + node + op + pending != capacity ||
            free != stateCounts[0] || request != stateCounts[1] || node != stateCounts[2] ||
            op != stateCounts[3] || pending != stateCounts[4])
        {
            throw new IllegalStateException("I18 pool " + pool + ": counts free=" + free + " request=" + request +
                " node=" + node + " op=" + op + " pending=" + pending + " capacity=" + capacity +
                " do not match the kept counts");
        }
    }

    /**
     * @return hash of (id, state, owner) over all ids in id order; equal pools give equal hashes.
     */
    public long stateHash()
    {
        long hash = Hashing.mix(pool.value() + 0x9E3779B97F4A7C15L * capacity);
        for (int id = 0; id < capacity; id++)
        {
            final long entry =
                Hashing.mix(((long)id << 8 | state[id]) ^ Hashing.mix(owner[id] + 0x632BE59BD9B4E019L));
            hash = Hashing.mix(hash * 0x9E3779B97F4A7C15L + entry);
        }
        return hash;
    }
}
