package io.kvledger.journal;

/**
 * How a {@link JournalReader#read} ended.
 */
public enum ReadStatus
{
    /** Every document up to the end (or up to the requested limit) was read and valid. */
    CLEAN,

    /**
     * Every complete document was valid and the journal ends early: the last one was cut short by a crash of the
     * writer, or the file ends (zero bytes) before the last document Chronicle's store header records as written,
     * as a power loss leaves it when the last data pages never reached the disk.
     */
    TORN_TAIL,

    /** A document or the queue structure is damaged; reading stopped at the first bad document. */
    CORRUPT,

    /** The directory holds no queue files, or a queue without any document. */
    EMPTY,

    /** The path is missing, not a directory, or holds files that are not a Chronicle queue. */
    NOT_A_JOURNAL,

    /** The journal was written with another schema id or a newer schema version than this build reads. */
    UNSUPPORTED_SCHEMA;

    /**
     * Whether the documents read can be replayed as a complete prefix of what was journaled.
     *
     * @return true for {@link #CLEAN} and {@link #TORN_TAIL}.
     */
    public boolean isReadable()
    {
        return this == CLEAN || this == TORN_TAIL;
    }
}
