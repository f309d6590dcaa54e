package io.kvledger.engine.sim;

/**
 * What a serving run did, as counted by the serving side; the controller's own counters are added by the caller.
 */
public final class RunSummary
{
    public long requests;
    public long inputs;
    public long finished;
    public long aborted;
    public long rejected;
    public long retracts;
    public long loads;
    public long failedLoads;
    public long computedPages;
    public long mismatches;
}
