package io.kvledger.engine;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;

/**
 * Where applied documents go (the journal writer, or a test's list). Called on the engine thread right after
 * apply and before any side effect of the document runs.
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
}
