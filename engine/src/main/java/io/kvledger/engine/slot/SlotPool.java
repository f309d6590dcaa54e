package io.kvledger.engine.slot;

import io.kvledger.engine.Effects;
import io.kvledger.engine.ResultCode;
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
 * cache). Engine thread only; allocation-free after construction.
 * <p>
 * Legal transitions (from, to): FREE to REQUEST, NODE or OP; REQUEST to FREE, NODE, OP, PENDING_FREE or REQUEST
 * of another request is illegal; NODE to FREE, NODE (split moves pages to the new parent) or REQUEST is illegal;
 * OP to FREE, REQUEST (a fetch becomes a staged hold), NODE, OP (a backup becomes a store) or PENDING_FREE;
 * PENDING_FREE to FREE only. Same state and same owner is illegal.
 */
public final class SlotPool
{
    /** Returned by {@link #allocate} when no slot is free. */
    public static final int NO_SLOT = -1;

    /**
     * @param pool     which pool this is (journaled with every transition).
     * @param capacity number of slots; ids are 0 .. capacity - 1.
     * @param effects  where transitions are recorded.
     */
    public SlotPool(final Pool pool, final int capacity, final Effects effects)
    {
        throw new UnsupportedOperationException();
    }

    public Pool pool()
    {
        throw new UnsupportedOperationException();
    }

    public int capacity()
    {
        throw new UnsupportedOperationException();
    }

    public int freeCount()
    {
        throw new UnsupportedOperationException();
    }

    public int pendingFreeCount()
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @param id slot.
     * @return its state.
     */
    public SlotState state(final int id)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @param id slot.
     * @return its owner id (request, node or op), or -1 when FREE.
     */
    public long owner(final int id)
    {
        throw new UnsupportedOperationException();
    }

    /**
     * Take the free-list head and give it to an owner.
     *
     * @param to    REQUEST, NODE or OP.
     * @param owner owner id.
     * @return slot id, or {@link #NO_SLOT} when none is free (nothing changes, nothing is recorded).
     */
    public int allocate(final SlotState to, final long owner)
    {
        throw new UnsupportedOperationException();
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
        throw new UnsupportedOperationException();
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
        throw new UnsupportedOperationException();
    }

    /**
     * Check conservation (free + owned + pending = capacity), that the free list holds exactly the FREE slots,
     * each once, and that no FREE slot has an owner (I12, I18).
     *
     * @throws IllegalStateException naming the pool and slot on the first broken rule.
     */
    public void verify()
    {
        throw new UnsupportedOperationException();
    }

    /**
     * @return hash of (id, state, owner) over all ids in id order; equal pools give equal hashes.
     */
    public long stateHash()
    {
        throw new UnsupportedOperationException();
    }
}
