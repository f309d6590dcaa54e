package io.kvledger.replay.check;

import io.kvledger.journal.codec.OpKind;

import java.util.ArrayList;
import java.util.List;

/**
 * Folded state of one operation: kind, owner, lifecycle state and targets. Owned by {@link ShadowModel}.
 */
final class ShadowOp
{
    /** Lifecycle of an operation as the journal records it. */
    enum State
    {
        QUEUED, LAUNCHED, ACKED, FAILED, CANCELLED;

        boolean live()
        {
            return this == QUEUED || this == LAUNCHED;
        }
    }

    private static final int MAX_PRESIZED_TARGETS = 256;

    final long id;
    final OpKind kind;
    final long owner;
    final long queuedSequence;
    final int declaredTargets;
    final List<OpTarget> targets;
    State state = State.QUEUED;
    long stateSequence;
    HistoryRing history;

    ShadowOp(final long id, final OpKind kind, final long owner, final long queuedSequence, final int declaredTargets)
    {
        this.id = id;
        this.kind = kind;
        this.owner = owner;
        this.queuedSequence = queuedSequence;
        this.declaredTargets = declaredTargets;
        // Sized by the declaration (bounded: a damaged journal may declare anything) so the block never regrows.
        this.targets = new ArrayList<>(Math.min(Math.max(declaredTargets, 4), MAX_PRESIZED_TARGETS));
        this.stateSequence = queuedSequence;
    }

    /**
     * @return true for the kinds whose write targets I13 protects (LOAD, FETCH, BACKUP, COW).
     */
    boolean protectsWrites()
    {
        return kind == OpKind.LOAD || kind == OpKind.FETCH || kind == OpKind.BACKUP || kind == OpKind.COW;
    }

    /**
     * @return true for the kinds whose read targets I13 protects while launched (LOAD, BACKUP, COW, STORE).
     */
    boolean protectsReads()
    {
        return kind == OpKind.LOAD || kind == OpKind.BACKUP || kind == OpKind.COW || kind == OpKind.STORE;
    }

    String label()
    {
        return (kind == null ? "op" : kind.name()) + " " + id;
    }
}
