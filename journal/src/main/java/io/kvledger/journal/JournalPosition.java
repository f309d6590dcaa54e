package io.kvledger.journal;

/**
 * Where a document sits in a Chronicle Queue: the roll cycle, the queue index and the document's ordinal from
 * the start of the journal (the header is ordinal 0). Mutable and reused by the reader.
 */
public final class JournalPosition
{
    private int cycle;
    private long index;
    private long ordinal;

    public int cycle()
    {
        return cycle;
    }

    public long index()
    {
        return index;
    }

    public long ordinal()
    {
        return ordinal;
    }

    /**
     * @param cycle   roll cycle.
     * @param index   Chronicle index.
     * @param ordinal document number from the start, header = 0.
     * @return this.
     */
    public JournalPosition set(final int cycle, final long index, final long ordinal)
    {
        this.cycle = cycle;
        this.index = index;
        this.ordinal = ordinal;
        return this;
    }

    @Override
    public String toString()
    {
        return "cycle " + cycle + ", index 0x" + Long.toHexString(index) + ", document " + ordinal;
    }
}
