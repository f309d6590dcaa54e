package io.kvledger.engine.runtime;

import io.kvledger.engine.DocumentSink;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Journaller;

/**
 * The engine loop's view of a {@link Journaller}: documents are offered on the engine thread and appended on the
 * journaller's; the loop runs side effects once {@link #appendedSequence()} passes their document.
 */
final class JournallerSink implements DocumentSink
{
    private final Journaller journaller;

    JournallerSink(final Journaller journaller)
    {
        this.journaller = journaller;
    }

    @Override
    public void append(final InputRecord input, final int resultCode, final EffectList effects)
    {
        journaller.append(input, resultCode, effects);
    }

    @Override
    public long appendedSequence()
    {
        return journaller.appendedSequence();
    }

    @Override
    public void awaitAppended(final long sequence)
    {
        journaller.awaitAppended(sequence);
    }
}
