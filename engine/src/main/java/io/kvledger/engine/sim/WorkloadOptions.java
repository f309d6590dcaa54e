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
    /** Requests arriving per step (0: all at once per phase). */
    public int arrivalsPerStep = 8;
}
