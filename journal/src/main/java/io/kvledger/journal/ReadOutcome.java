package io.kvledger.journal;

import java.util.Objects;

/**
 * Result of one {@link JournalReader#read}: how it ended, how far it got and where it stopped.
 *
 * @param status       how the read ended.
 * @param documents    valid documents read after the header, including those before {@code fromSequence}.
 * @param delivered    documents passed to {@link JournalListener#onDocument}.
 * @param lastSequence sequence of the last valid document, 0 when none.
 * @param lastIndex    Chronicle index of the last valid document (the header counts), -1 when none.
 * @param stopCycle    roll cycle where reading stopped, -1 when unknown.
 * @param stopIndex    Chronicle index of the document where reading stopped, -1 when unknown.
 * @param stopOffset   byte offset in the queue file of the Chronicle header where reading stopped, -1 when unknown.
 * @param stopFile     name of the queue file where reading stopped, empty when unknown.
 * @param message      one line for a person, naming the document, its position and the problem.
 */
public record ReadOutcome(
    ReadStatus status,
    long documents,
    long delivered,
    long lastSequence,
    long lastIndex,
    int stopCycle,
    long stopIndex,
    long stopOffset,
    String stopFile,
    String message)
{
    /**
     * Validates the non-null components.
     *
     * @param status       how the read ended.
     * @param documents    valid documents read after the header.
     * @param delivered    documents passed to the listener.
     * @param lastSequence sequence of the last valid document.
     * @param lastIndex    Chronicle index of the last valid document.
     * @param stopCycle    roll cycle where reading stopped.
     * @param stopIndex    Chronicle index where reading stopped.
     * @param stopOffset   byte offset where reading stopped.
     * @param stopFile     queue file where reading stopped.
     * @param message      one line for a person.
     */
    public ReadOutcome
    {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(stopFile, "stopFile");
        Objects.requireNonNull(message, "message");
    }

    /**
     * Whether the documents read form a replayable prefix of the journal.
     *
     * @return true for {@link ReadStatus#CLEAN} and {@link ReadStatus#TORN_TAIL}.
     */
    public boolean isReadable()
    {
        return status.isReadable();
    }

    static ReadOutcome refused(final ReadStatus status, final String message)
    {
        return new ReadOutcome(status, 0, 0, 0, -1, -1, -1, -1, "", message);
    }
}
