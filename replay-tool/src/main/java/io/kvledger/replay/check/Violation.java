package io.kvledger.replay.check;

import java.util.List;

/**
 * One broken invariant, found after folding a document into the shadow model.
 *
 * @param documentSequence sequence of the document at which the violation was detected.
 * @param invariant        which invariant broke.
 * @param pool             the slot's pool name ({@code DEVICE_KV}, {@code DEVICE_MAMBA}, {@code HOST_KV},
 *                         {@code HOST_MAMBA}), or {@value #NODE}, {@value #REQUEST}, {@value #OP} when the subject is
 *                         not a slot.
 * @param id               slot, node, request or operation id.
 * @param explanation      what went wrong, in the user's vocabulary.
 * @param history          the effects that touched the subject so far, oldest first (bounded).
 */
public record Violation(
    long documentSequence,
    Invariant invariant,
    String pool,
    long id,
    String explanation,
    List<HistoryEntry> history)
{
    /** Subject kind of a violation about a tree node. */
    public static final String NODE = "node";
    /** Subject kind of a violation about a request. */
    public static final String REQUEST = "request";
    /** Subject kind of a violation about an operation. */
    public static final String OP = "op";

    /**
     * Defensive copy of the history.
     */
    public Violation
    {
        history = List.copyOf(history);
    }

    /**
     * @return the subject as {@code POOL:id}, for example {@code DEVICE_MAMBA:3} or {@code node:5}.
     */
    public String subject()
    {
        return pool + ":" + id;
    }

    /**
     * @return true when the subject is a slot of a pool.
     */
    public boolean isSlot()
    {
        return !NODE.equals(pool) && !REQUEST.equals(pool) && !OP.equals(pool);
    }
}
