package io.kvledger.journal;

/**
 * Result of {@link JournalAdapter#decode}: which message a frame held, or why it was refused.
 */
public enum FrameStatus
{
    /** A valid JournalHeader was decoded into {@link JournalAdapter#header()}. */
    HEADER,

    /** A valid Document was decoded into {@link JournalAdapter#input()} and {@link JournalAdapter#effects()}. */
    DOCUMENT,

    /** The document is shorter than a frame header plus an SBE message header. */
    TOO_SHORT,

    /** The magic field is not "KVLG". */
    BAD_MAGIC,

    /** The payload length field disagrees with the document length. */
    BAD_LENGTH,

    /** The payload does not match its CRC-32. */
    CRC_MISMATCH,

    /** The SBE schema id is not kvledger's. */
    UNKNOWN_SCHEMA,

    /** The SBE schema version is newer than the one this build understands. */
    NEWER_SCHEMA_VERSION,

    /** The SBE template id is neither JournalHeader nor Document. */
    UNKNOWN_TEMPLATE,

    /** The root block, a repeating group or a variable-length field does not fit the frame. */
    BAD_STRUCTURE,

    /** A field holds a value outside its enum or range. */
    BAD_VALUE;

    /**
     * Whether the frame was decoded.
     *
     * @return true for {@link #HEADER} and {@link #DOCUMENT}.
     */
    public boolean isDecoded()
    {
        return this == HEADER || this == DOCUMENT;
    }

    /**
     * Whether the frame is intact but written with a schema this build cannot read.
     *
     * @return true for {@link #UNKNOWN_SCHEMA} and {@link #NEWER_SCHEMA_VERSION}.
     */
    public boolean isUnsupportedSchema()
    {
        return this == UNKNOWN_SCHEMA || this == NEWER_SCHEMA_VERSION;
    }
}
