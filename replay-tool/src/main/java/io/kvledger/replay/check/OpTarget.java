package io.kvledger.replay.check;

import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

/**
 * One slot read or written by an operation, with the owner the slot is allowed to keep while the operation is in
 * flight (the owner it had when the op was queued, or the first owner it got after the OP_TARGET when it was FREE
 * then).
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
        return allowedState != null && state == allowedState && owner == allowedOwner && state != SlotState.FREE;
    }

    String allowedLabel()
    {
        return allowedState == null ? "unallocated" : EffectText.owner(allowedState, allowedOwner);
    }
}
