package io.kvledger.engine.sim;

/**
 * Shape of a serving workload. Mutable holder filled from the command line or a test; read by
 * {@link Workload} and {@link ServingLoop}.
 */
public final class WorkloadOptions
{
    public WorkloadKind kind = WorkloadKind.PR_BENCH;
    public int requests = 256;
    public int promptTokens = 4096;
    public int extendTokens = 512;
    public int maxNewTokens = 16;
    public int turns = 4;
    public long seed = 1;
    /** Requests admitted per pass at most. */
    public int admitsPerPass = 16;
    /** Running requests at most. */
    public int maxRunning = 32;
    /** Pages computed per chunk of prefill. */
    public int chunkPages = 16;
    /** Probability that an admitted request with a queued load is retracted in the same pass. */
    public double retractRate;
    /** Probability per step that a running request is aborted. */
    public double abortRate;
    /** Probability that a simulated copy or storage op fails. */
    public double failureRate;
    /** Shared prefixes of the random workload (fewer: more requests race for the same nodes). */
    public int prefixes = 8;
    /** Requests arriving per step (0: all at once per phase). */
    public int arrivalsPerStep = 8;
    /**
     * Seeded chaos (issue 9, section 5): probability, per request and per step, of an abort while the request waits
     * (WAITING or STAGED in the controller). All chaos rates default to 0, which draws nothing from any random
     * source, so a run without chaos gives the same journal as before.
     */
    public double abortWaitingRate;
    /** Probability of an abort right after admission while its load or copy-on-write is still queued (same pass). */
    public double abortQueuedRate;
    /** Probability, per step, of an abort while the request's load or copy-on-write is launched (before its ack). */
    public double abortLaunchedRate;
    /** Probability, per step, of an abort of an admitted request before its first chunk or between two chunks. */
    public double abortRunningRate;
    /** Probability of a retract right after admission while its load or copy-on-write is still queued. */
    public double retractQueuedRate;
    /** Probability, per step, of a retract while the request's load or copy-on-write is launched (before its ack). */
    public double retractLaunchedRate;
    /** Probability, per step, of a retract of an admitted request whose data is ready but which has not run yet. */
    public double retractReadyRate;
    /** Probability, per step, of an eviction tick (TICK evicting up to {@link #tickPages} device pages). */
    public double tickRate;
    /** Most device pages one chaos tick evicts (at least 1). */
    public int tickPages = 16;
    /** Steps without a request finishing or aborting after which the loop reports that it made no progress. */
    public int maxIdleSteps = 20_000;

    /** @return whether any chaos rate is above zero. */
    public boolean chaos()
    {
        return abortWaitingRate > 0 || abortQueuedRate > 0 || abortLaunchedRate > 0 || abortRunningRate > 0 ||
            retractQueuedRate > 0 || retractLaunchedRate > 0 || retractReadyRate > 0 || tickRate > 0;
    }
}
