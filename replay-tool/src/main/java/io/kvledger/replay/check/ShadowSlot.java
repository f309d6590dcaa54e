package io.kvledger.replay.check;

import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;

/**
 * Folded state of one slot: ownership, ReplaySSM dirtiness (device Mamba), the live operations that target it and
 * its recent history. Owned by {@link ShadowModel}.
 */
final class ShadowSlot
{
    final Pool pool;
    final int id;
    SlotState state = SlotState.FREE;
    long owner = -1;
    boolean dirty;
    /** A request's Mamba slot whose content is not defined yet: no reset and no acked copy into it since (I16). */
    boolean undefined;
    long dirtySequence = -1;
    long ownerSinceSequence;
    /** Created on the first target and kept (emptied, never dropped) so a busy slot allocates it once. */
    ArrayList<OpTarget> liveTargets;
    HistoryRing history;

    ShadowSlot(final Pool pool, final int id)
    {
        this.pool = pool;
        this.id = id;
    }

    void addTarget(final OpTarget target)
    {
        if (liveTargets == null)
        {
            liveTargets = new ArrayList<>(2);
        }
        liveTargets.add(target);
    }

    boolean hasTargets()
    {
        return liveTargets != null && !liveTargets.isEmpty();
    }

    void removeTargetsOf(final ShadowOp op)
    {
        if (liveTargets != null)
        {
            for (int i = liveTargets.size() - 1; i >= 0; i--)
            {
                if (liveTargets.get(i).op == op)
                {
                    liveTargets.remove(i);
                }
            }
        }
    }

    String label()
    {
        return EffectText.owner(state, owner);
    }

    String subject()
    {
        return pool.name() + ":" + id;
    }
}
