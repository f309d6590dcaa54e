package io.kvledger.journal;

/**
 * Thrown by {@link JournalWriter} when a journal cannot be created or a document cannot be appended; the reader
 * never throws it and reports bad data through {@link ReadOutcome} instead.
 */
public final class JournalException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, with the directory or sequence involved.
     */
    public JournalException(final String message)
    {
        super(message);
    }

    /**
     * @param message what went wrong, with the directory or sequence involved.
     * @param cause   underlying failure.
     */
    public JournalException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
