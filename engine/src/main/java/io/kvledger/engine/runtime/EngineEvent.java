package io.kvledger.engine.runtime;

import io.kvledger.journal.InputRecord;

/**
 * One preallocated slot of the ring: the input a producer filled and, for a caller that waits for the answer,
 * where to put it. Producers fill it between claim and publish; then it belongs to the engine thread.
 */
public final class EngineEvent
{
    /** An input to apply. */
    static final byte INPUT = 0;
    /** Close's barrier: every input before it is applied and journaled when it is answered. */
    static final byte BARRIER = 1;
    /** An input that could not be copied into the slot: answered, never applied. */
    static final byte UNREADABLE = 2;

    final InputRecord input;
    Reply reply;
    long ticket;
    byte kind;

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
