package io.kvledger.replay.check;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.SlotState;

/**
 * A lock held on a node, as LOCKED recorded it; released by the UNLOCKED carrying the same receipt.
 *
 * @param receipt    receipt id.
 * @param node       node locked.
 * @param component  FULL (path lock) or MAMBA (single node).
 * @param holderKind REQUEST or OP.
 * @param holder     request or op id.
 * @param sequence   document that took the lock.
 * @param life       incarnation of the node when locked (node ids are reused after deletion).
 */
record LockReceipt(long receipt, long node, Component component, SlotState holderKind, long holder, long sequence,
    long life)
{
    String label()
    {
        return component + " lock " + receipt + " held by " + EffectText.owner(holderKind, holder);
    }
}
