package io.kvledger.engine.runtime;

import io.kvledger.engine.DocumentSink;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.InputType;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * A journal for tests that reports documents as appended only up to {@link #gate}, which the test moves: side
 * effects waiting for their document's append can be held back and released. Records each input type offered.
 */
final class GatedSink implements DocumentSink
{
    final List<InputType> types = new CopyOnWriteArrayList<>();
    volatile long gate;

    /** @param gate the sequence reported appended at first. */
    GatedSink(final long gate)
    {
        this.gate = gate;
    }

    @Override
    public void append(final InputRecord input, final int resultCode, final EffectList effects)
    {
        types.add(input.type());
    }

    @Override
    public long appendedSequence()
    {
        return gate;
    }

    @Override
    public void awaitAppended(final long sequence)
    {
        while (gate < sequence)
        {
            LockSupport.parkNanos(100_000);
        }
    }
}
