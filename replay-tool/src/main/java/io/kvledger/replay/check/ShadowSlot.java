package io.kvledger.replay.check;

import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.List;

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
    List<OpTarget> liveTargets;
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

    void removeTargetsOf(final ShadowOp op)
    {
        if (liveTargets != null)
        {
            liveTargets.removeIf(t -> t.op == op);
            if (liveTargets.isEmpty())
            {
                liveTargets = null;
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
