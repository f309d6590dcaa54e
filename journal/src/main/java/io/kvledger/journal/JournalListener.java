package io.kvledger.journal;

/**
 * Callbacks of {@link JournalReader}: one header, then one call per document in order. The records passed in
 * are reused by the reader; copy what must outlive the call. Called on the reading thread.
 */
@FunctionalInterface
public interface JournalListener
{
    /**
     * The journal's header document; nothing by default, for a listener that wants the documents only.
     *
     * @param header   decoded header.
     * @param position where it was read.
     */
    default void onHeader(JournalHeader header, JournalPosition position)
    {
    }

    /**
     * One document: an input, the result code of applying it and the effects it caused, in order.
     *
     * @param input      the input (its sequence is the document sequence).
     * @param resultCode result of applying it.
     * @param effects    ordered effects.
     * @param position   where it was read.
     */
    void onDocument(InputRecord input, int resultCode, EffectList effects, JournalPosition position);
}
