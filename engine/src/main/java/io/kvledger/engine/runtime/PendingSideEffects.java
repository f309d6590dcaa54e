package io.kvledger.engine.runtime;

/**
 * Side effects of applied documents that wait for their document to be appended: ops to launch, finished loads to
 * announce, callers to answer. Recorded on the engine thread in document order when an input is applied, released
 * in the same order once the journal has appended the document that caused them. A preallocated ring of entries;
 * allocation-free.
 * <p>
 * Launches are recorded by op id and read from the engine's op table when released: a launched op stays in the
 * table, its moves unchanged, until its completion is applied, and no completion can come before its launch. An op
 * the engine dropped in the meantime is no longer found and is not launched.
 */
final class PendingSideEffects
{
    /** What an entry asks for. */
    static final byte LAUNCH = 1;
    static final byte LOAD_DONE = 2;
    static final byte LOAD_FAILED = 3;
    static final byte REPLY = 4;

    /** Receives the released entries, in order. */
    interface Release
    {
        /**
         * @param kind  {@link #LAUNCH}, {@link #LOAD_DONE}, {@link #LOAD_FAILED} or {@link #REPLY}.
         * @param value the op id, or the reply's ticket.
         * @param reply the caller's reply slot for {@link #REPLY}, else null.
         */
        void release(byte kind, long value, Reply reply);
    }

    private final long[] sequences;
    private final byte[] kinds;
    private final long[] values;
    private final Reply[] replies;
    private final int mask;
    private long head;
    private long tail;

    /**
     * @param capacity entries held at most, a power of two.
     */
    PendingSideEffects(final int capacity)
    {
        if (Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        sequences = new long[capacity];
        kinds = new byte[capacity];
        values = new long[capacity];
        replies = new Reply[capacity];
        mask = capacity - 1;
    }

    /** @return entries waiting. */
    int size()
    {
        return (int)(tail - head);
    }

    /** @return room for more entries. */
    int free()
    {
        return sequences.length - size();
    }

    /**
     * Record an entry; the caller made room first ({@link #free()}).
     *
     * @param sequence the document that caused it.
     * @param kind     what it asks for.
     * @param value    the op id or the reply's ticket.
     * @param reply    the reply slot for {@link #REPLY}, else null.
     */
    void add(final long sequence, final byte kind, final long value, final Reply reply)
    {
        if (size() == sequences.length)
        {
            throw new IllegalStateException("pending side effects full (" + sequences.length + ")");
        }
        final int i = (int)(tail & mask);
        sequences[i] = sequence;
        kinds[i] = kind;
        values[i] = value;
        replies[i] = reply;
        tail++;
    }

    /**
     * Release, in order, every entry of a document up to {@code appended}.
     *
     * @param appended the last appended document's sequence.
     * @param release  what to do with each.
     * @return entries released.
     */
    int release(final long appended, final Release release)
    {
        int released = 0;
        while (head < tail)
        {
            final int i = (int)(head & mask);
            if (sequences[i] > appended)
            {
                break;
            }
            final Reply reply = replies[i];
            replies[i] = null;
            head++;
            released++;
            release.release(kinds[i], values[i], reply);
        }
        return released;
    }
}
