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
     * Whether a pass stops offering requests that last waited for memory (device pages or Mamba slots) once one of
     * them waits for it again ({@code WakeGate}); false offers each of them at every change, as before (the golden
     * runs of admission rules 1 and 2 were recorded that way).
     */
    public boolean memoryWaitsStopPass = true;

    /**
     * The fewest prompt tokens for which every request of this workload holds at least one whole page (the
     * serving loop computes a request page by page): a pr-bench prompt is one request, a multi-turn conversation
     * adds a {@code 1/turns} share of it per turn, a random workload's shared prefixes are at least half of it.
     *
     * @param pageSize tokens per page.
     * @return the smallest usable {@link #promptTokens}.
     */
    public long minPromptTokens(final int pageSize)
    {
        switch (kind)
        {
            case MULTI_TURN: return (long)Math.max(1, turns) * pageSize;
            case RANDOM: return 2L * pageSize;
            default: return pageSize;
        }
    }

    /**
     * Check every field, throwing on the first one out of range (an embedder's guard; the command line checks its
     * flags first with its own wording).
     *
     * @return this.
     * @throws IllegalArgumentException naming the bad field.
     */
    public WorkloadOptions validate()
    {
        require(requests >= 1, "requests must be >= 1: " + requests);
        require(promptTokens >= 1, "promptTokens must be >= 1: " + promptTokens);
        require(extendTokens >= 0, "extendTokens must be >= 0: " + extendTokens);
        require(maxNewTokens >= 0, "maxNewTokens must be >= 0: " + maxNewTokens);
        require(turns >= 1, "turns must be >= 1: " + turns);
        require(admitsPerPass >= 1, "admitsPerPass must be >= 1: " + admitsPerPass);
        require(maxRunning >= 1, "maxRunning must be >= 1: " + maxRunning);
        require(chunkPages >= 1, "chunkPages must be >= 1: " + chunkPages);
        require(arrivalsPerStep >= 0, "arrivalsPerStep must be >= 0: " + arrivalsPerStep);
        require(retractRate >= 0 && retractRate <= 1, "retractRate must be in [0, 1]: " + retractRate);
        require(abortRate >= 0 && abortRate <= 1, "abortRate must be in [0, 1]: " + abortRate);
        require(failureRate >= 0 && failureRate <= 1, "failureRate must be in [0, 1]: " + failureRate);
        return this;
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new IllegalArgumentException(message);
        }
    }

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
    /**
     * Least port time, in nanoseconds, without progress before the loop reports that it made none, on top of
     * {@link #maxIdleSteps} (0: steps alone decide). A live run whose store operation may wait a whole timeout
     * (Redis stopped, not dead) sets it, so that steps spent waiting for that timeout are not taken for a stall.
     */
    public long minIdleNanos;

    /** @return whether any chaos rate is above zero. */
    public boolean chaos()
    {
        return abortWaitingRate > 0 || abortQueuedRate > 0 || abortLaunchedRate > 0 || abortRunningRate > 0 ||
            retractQueuedRate > 0 || retractLaunchedRate > 0 || retractReadyRate > 0 || tickRate > 0;
    }
}
