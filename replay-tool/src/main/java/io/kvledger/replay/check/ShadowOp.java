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

    final long id;
    final OpKind kind;
    final long owner;
    final long queuedSequence;
    final int declaredTargets;
    final List<OpTarget> targets = new ArrayList<>(4);
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
