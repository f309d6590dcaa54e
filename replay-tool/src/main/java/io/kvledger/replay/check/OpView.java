package io.kvledger.replay.check;

import java.util.List;

/**
 * An operation as the shadow model holds it.
 *
 * @param id             op id.
 * @param kind           QUERY, FETCH, LOAD, BACKUP, STORE or COW.
 * @param state          QUEUED, LAUNCHED, ACKED, FAILED or CANCELLED.
 * @param owner          request (or node for backups) it works for.
 * @param queuedSequence document that queued it.
 * @param targets        its targets, for example {@code WRITE DEVICE_MAMBA:3 (REQUEST 1)}.
 */
public record OpView(long id, String kind, String state, long owner, long queuedSequence, List<String> targets)
{
    /**
     * Defensive copy.
     */
    public OpView
    {
        targets = List.copyOf(targets);
    }
}
