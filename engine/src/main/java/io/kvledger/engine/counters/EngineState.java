package io.kvledger.engine.counters;

/**
 * The engine's life cycle as published in the {@link KvCounter#ENGINE_STATE} counter.
 */
public enum EngineState
{
    /** The file exists, the engine thread has not started. */
    STARTING(0, "starting"),
    /** The engine thread applies inputs. */
    RUNNING(1, "running"),
    /** Closed cleanly: every published input applied and journaled. */
    STOPPED(2, "stopped"),
    /** Fail-stopped: an input failed inside apply or the journal; no later input was applied. */
    FAILED(3, "failed");

    private final int code;
    private final String text;

    EngineState(final int code, final String text)
    {
        this.code = code;
        this.text = text;
    }

    /** @return the value stored in the counter. */
    public int code()
    {
        return code;
    }

    /** @return the lower-case name shown by {@code kvledger stat}. */
    public String text()
    {
        return text;
    }

    /**
     * @param code a stored value.
     * @return the state, or null for an unknown value.
     */
    public static EngineState of(final long code)
    {
        for (final EngineState s : values())
        {
            if (s.code == code)
            {
                return s;
            }
        }
        return null;
    }
}
