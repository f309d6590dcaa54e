package io.kvledger.engine;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;

/**
 * Where applied documents go (the journal writer, the journaller's ring, or a test's list). Called on the engine
 * thread right after apply and before any side effect of the document runs.
 * <p>
 * A sink that writes on the calling thread (the default) has appended the document when {@link #append} returns. A
 * pipelined sink (a journaller thread) says how far it got through {@link #appendedSequence()}; the engine loop then
 * runs each document's side effects only once that passes the document's sequence.
 */
@FunctionalInterface
public interface DocumentSink
{
    /** A sink that keeps nothing. */
    DocumentSink NONE = (in, result, effects) -> {};

    /**
     * @param input      the input applied.
     * @param resultCode its result.
     * @param effects    its ordered effects.
     */
    void append(InputRecord input, int resultCode, EffectList effects);

    /**
     * Sequence of the last document known to be appended (durably, when the journal syncs). Engine thread.
     *
     * @return the sequence; {@link Long#MAX_VALUE} for a sink that appends on the calling thread.
     */
    default long appendedSequence()
    {
        return Long.MAX_VALUE;
    }

    /**
     * Wait until every document up to {@code sequence} is appended. Engine thread.
     *
     * @param sequence a sequence already given to {@link #append}.
     */
    default void awaitAppended(final long sequence)
    {
    }
}
