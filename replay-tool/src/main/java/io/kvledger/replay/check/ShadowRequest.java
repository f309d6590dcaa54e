package io.kvledger.replay.check;

import io.kvledger.journal.codec.RequestState;

/**
 * Folded state of one request: lifecycle state and history. Owned by {@link ShadowModel}.
 */
final class ShadowRequest
{
    final long id;
    RequestState state = RequestState.WAITING;
    long stateSequence;
    HistoryRing history;

    ShadowRequest(final long id)
    {
        this.id = id;
    }

    boolean terminal()
    {
        return state == RequestState.FINISHED || state == RequestState.ABORTED;
    }
}
