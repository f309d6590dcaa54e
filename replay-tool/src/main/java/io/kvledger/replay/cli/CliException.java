package io.kvledger.replay.cli;

/**
 * An error a command reports as one line on stderr, with its exit code ({@link KvledgerMain#EXIT_BAD_INPUT}
 * unless told otherwise): a journal that cannot be read, a bad option value, an output that cannot be written.
 */
public final class CliException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    /**
     * @param message one line for the user, without the {@code kvledger:} prefix.
     */
    public CliException(final String message)
    {
        this(message, KvledgerMain.EXIT_BAD_INPUT, null);
    }

    /**
     * @param message one line for the user, without the {@code kvledger:} prefix.
     * @param cause   what went wrong underneath, shown with {@code --verbose}.
     */
    public CliException(final String message, final Throwable cause)
    {
        this(message, KvledgerMain.EXIT_BAD_INPUT, cause);
    }

    /**
     * @param message  one line for the user, without the {@code kvledger:} prefix.
     * @param exitCode process exit code.
     * @param cause    what went wrong underneath, or null.
     */
    public CliException(final String message, final int exitCode, final Throwable cause)
    {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /**
     * @return the process exit code for this error.
     */
    public int exitCode()
    {
        return exitCode;
    }
}
