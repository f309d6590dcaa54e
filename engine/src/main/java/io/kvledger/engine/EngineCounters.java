package io.kvledger.engine;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.InputType;

/**
 * Plain counters of what the engine decided, for summaries and stats. Written on the engine thread only; read
 * them there or after the loop stopped.
 */
public final class EngineCounters
{
    public long inputs;
    public long rejectedInputs;
    public long effects;
    public long queries;
    public long fetches;
    public long hitPagesReported;
    public long holdsStaged;
    public long admitted;
    /** Full pages of the admitted requests (the prefix-cache lookups), summed over admissions. */
    public long admittedPages;
    public long prefixPages;
    public long loads;
    public long loadedPages;
    public long loadsAcked;
    public long cows;
    public long defers;
    public long waits;
    public long drops;
    public long rejects;
    public long retracts;
    public long aborts;
    public long finished;
    public long backups;
    public long backupsSkipped;
    /** Backups dropped because they need more host staging than writes may ever use. */
    public long backupsDropped;
    /** L3 existence queries the store could not answer (journaled as failed ops). */
    public long queriesFailed;
    /** Inserts refused for want of tree nodes (the request's pages stay its own). */
    public long insertsRefused;
    /** L3 existence queries not asked because the op table was full (the request goes on with its device prefix). */
    public long queriesSkipped;
    public long storedPages;
    public long dedupedPages;
    private final long[] perInput = new long[16];

    void onApplied(final InputType type, final int result, final EffectList list)
    {
        inputs++;
        if (result < 0)
        {
            rejectedInputs++;
        }
        effects += list.size();
        perInput[type.value() & 15]++;
    }

    /**
     * @param type input type.
     * @return inputs of that type applied.
     */
    public long inputs(final InputType type)
    {
        return perInput[type.value() & 15];
    }
}
