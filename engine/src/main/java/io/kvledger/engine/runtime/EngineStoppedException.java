package io.kvledger.engine.runtime;

/**
 * A call into a controller whose engine loop fail-stopped (an internal failure, a journal that could not be written)
 * or was closed. The message says why in one line, e.g. {@code kvledger engine stopped: journal or side effects of
 * input #5110 STORAGE_HIT failed: the journal stopped: ... (no space left on the device) ...}.
 */
public final class EngineStoppedException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message why the engine no longer takes calls.
     */
    public EngineStoppedException(final String message)
    {
        super(message);
    }
}
