package io.kvledger.engine.sim;

import java.util.Locale;

/** Serving workloads the run command and the simulator can play. */
public enum WorkloadKind
{
    /** The upstream benchmark: prompts written to L3, device flushed, then the same prompts extended. */
    PR_BENCH,
    /** Conversations that grow turn by turn. */
    MULTI_TURN,
    /** Shared prefixes, retracts, aborts and failures. */
    RANDOM;

    /**
     * @param name e.g. "pr-bench".
     * @return the kind, or null.
     */
    public static WorkloadKind parse(final String name)
    {
        final String n = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (final WorkloadKind k : values())
        {
            if (k.name().equals(n))
            {
                return k;
            }
        }
        return null;
    }

    /** @return the command-line spelling. */
    public String cliName()
    {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
