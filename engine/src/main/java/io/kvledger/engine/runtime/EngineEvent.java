package io.kvledger.engine.runtime;

import io.kvledger.journal.InputRecord;

/**
 * One preallocated slot of the ring: the input a producer filled and, for a caller that waits for the answer,
 * where to put it. Producers fill it between claim and publish; then it belongs to the engine thread.
 */
public final class EngineEvent
{
    final InputRecord input;
    Reply reply;
    long ticket;

    EngineEvent(final int maxFingerprints)
    {
        input = new InputRecord(maxFingerprints);
    }

    /** @return the input record of this slot. */
    public InputRecord input()
    {
        return input;
    }
}
