package io.kvledger.replay.check;

import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

/**
 * One slot read or written by an operation, with the owner the slot is allowed to keep while the operation is in
 * flight (the owner it had when the op was queued, or the first owner it got after the OP_TARGET when it was FREE
 * then). Once the slot has left that owner while the op was in flight (a finding), the target has lapsed: no owner
 * is allowed any more, so a launch onto the slot handed back to the same request is reported too.
 */
final class OpTarget
{
    final ShadowOp op;
    final Pool pool;
    final Role role;
    final int slot;
    SlotState allowedState;
    long allowedOwner = -1;
    boolean reported;
    boolean lapsed;

    OpTarget(final ShadowOp op, final Pool pool, final Role role, final int slot)
    {
        this.op = op;
        this.pool = pool;
        this.role = role;
        this.slot = slot;
    }

    boolean write()
    {
        return role == Role.WRITE;
    }

    /**
     * @param state slot state.
     * @param owner slot owner.
     * @return true when the op may find the slot in that state: its queued owner, the op itself, or parked for it.
     */
    boolean permits(final SlotState state, final long owner)
    {
        if ((state == SlotState.OP || state == SlotState.PENDING_FREE) && owner == op.id)
        {
            return true;
        }
        return !lapsed && allowedState != null && state == allowedState && owner == allowedOwner &&
            state != SlotState.FREE;
    }

    /** The finding that the slot left its allowed owner: reported once, and nothing is allowed from now on. */
    void lapse()
    {
        reported = true;
        lapsed = true;
    }

    String allowedLabel()
    {
        return (allowedState == null ? "unallocated" : EffectText.owner(allowedState, allowedOwner)) +
            (lapsed ? ", freed since" : "");
    }
}
