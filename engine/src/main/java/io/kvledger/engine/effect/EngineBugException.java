package io.kvledger.engine.effect;

import io.kvledger.journal.codec.InputType;

/**
 * An internal mutation inside apply failed after the input was validated: the engine's own state and the decision
 * it was about to journal no longer agree, so the engine must stop rather than go on silently (fail-stop, as
 * DESIGN.md "Decisions added after the first release" says). The runtime's loop catches it, records the failure,
 * appends nothing for the failing input, and answers every later call with {@link ResultCode#ENGINE_STOPPED}.
 * <p>
 * Built only on the failure path, so checking a result costs nothing in steady state.
 */
public final class EngineBugException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /** Sequence of the input being applied, or -1 when not yet known. */
    private final long sequence;

    /**
     * @param message what failed, with the ids involved.
     */
    public EngineBugException(final String message)
    {
        this(message, -1, null);
    }

    private EngineBugException(final String message, final long sequence, final Throwable cause)
    {
        super(message, cause);
        this.sequence = sequence;
    }

    /**
     * An exception a collaborator threw inside apply (a tree or pool refusing a move with its own exception) is an
     * engine bug like any other: inputs are validated before anything changes.
     *
     * @param cause what the collaborator threw.
     * @return the engine bug carrying it, to be named with {@link #at}.
     */
    public static EngineBugException from(final RuntimeException cause)
    {
        return cause instanceof EngineBugException ? (EngineBugException)cause :
            new EngineBugException(cause.getClass().getSimpleName() + ": " + cause.getMessage(), -1, cause);
    }

    /** @return the sequence of the input whose apply failed, or -1. */
    public long sequence()
    {
        return sequence;
    }

    /**
     * Throw when an internal mutator returned anything but {@link ResultCode#OK}.
     *
     * @param result the mutator's result code.
     * @param what   what was attempted (a literal, so the call allocates nothing).
     * @param id     first id involved (slot, node, receipt).
     * @param other  second id involved (owner, op), or -1.
     * @throws EngineBugException when {@code result} is not OK.
     */
    public static void check(final int result, final String what, final long id, final long other)
    {
        if (ResultCode.OK != result)
        {
            throw new EngineBugException(what + " " + id + (other == -1 ? "" : " / " + other) + " failed: " +
                ResultCode.name(result));
        }
    }

    /**
     * Throw when a condition the engine relies on does not hold.
     *
     * @param condition must be true.
     * @param what      the rule that broke (a literal).
     * @param id        first id involved.
     * @param other     second id involved, or -1.
     * @throws EngineBugException when {@code condition} is false.
     */
    public static void require(final boolean condition, final String what, final long id, final long other)
    {
        if (!condition)
        {
            throw new EngineBugException(what + " " + id + (other == -1 ? "" : " / " + other));
        }
    }

    /**
     * The same failure, named with the input it happened in.
     *
     * @param sequence input sequence.
     * @param type     input type.
     * @param request  the input's request id.
     * @param op       the input's op id.
     * @return a new exception carrying this one as its cause.
     */
    public EngineBugException at(final long sequence, final InputType type, final long request, final long op)
    {
        return new EngineBugException("engine bug at input #" + sequence + " " + type + " (request " + request +
            ", op " + op + "): " + getMessage(), sequence, this);
    }
}
