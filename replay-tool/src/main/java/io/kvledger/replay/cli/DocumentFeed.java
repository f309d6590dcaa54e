package io.kvledger.replay.cli;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A second journal read on its own thread and handed over document by document, so that a command can walk two
 * journals in step (the reader only pushes). A bounded pool of document copies is passed back and forth: the reader
 * waits when the consumer is {@link #DEPTH} documents behind. The reading policy is {@link JournalInput}'s: a journal
 * that cannot be read ends the feed with its {@link CliException}, which {@link #next} throws.
 * <p>
 * Thread ownership: {@link #start}, {@link #header}, {@link #next}, {@link #release} and {@link #close} belong to one
 * consumer thread; the reader thread only fills copies.
 */
final class DocumentFeed implements AutoCloseable
{
    /** Documents read ahead at most. */
    static final int DEPTH = 16;
    private static final long CLOSE_WAIT_MS = 10_000;
    private static final long POLL_MS = 100;

    /** One document handed over; {@link #end} marks the end of the journal (or its failure). */
    static final class Document
    {
        final InputRecord input;
        final EffectList effects = new EffectList(64);
        int resultCode;
        boolean end;

        Document(final int maxPages)
        {
            input = new InputRecord(maxPages);
        }
    }

    /** Thrown inside the reader's listener to stop it when the consumer closed the feed. */
    private static final class Stopped extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Stopped()
        {
            super("stopped", null, false, false);
        }
    }

    private final Path directory;
    private final PrintWriter err;
    private final BlockingQueue<Document> free = new ArrayBlockingQueue<>(DEPTH + 1);
    private final BlockingQueue<Document> full = new ArrayBlockingQueue<>(DEPTH + 1);
    private final CountDownLatch headerRead = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean stopped;
    private volatile JournalHeader header;
    private volatile CliException failure;

    /**
     * @param directory the journal.
     * @param err       where its torn-tail warning goes.
     */
    DocumentFeed(final Path directory, final PrintWriter err)
    {
        this.directory = directory;
        this.err = err;
        thread = new Thread(this::read, "kvledger-feed");
        thread.setDaemon(true);
    }

    /**
     * Start reading.
     *
     * @return this.
     */
    DocumentFeed start()
    {
        thread.start();
        return this;
    }

    /**
     * Wait for the journal's header.
     *
     * @return a copy of it.
     * @throws CliException when the journal cannot be read.
     */
    JournalHeader header()
    {
        await(headerRead);
        if (null == header)
        {
            throw null != failure ? failure : new CliException("corrupt journal " + directory + ": no journal header");
        }
        return header;
    }

    /**
     * The next document, waiting for it; give it back with {@link #release} once used.
     *
     * @return the document, or one with {@code end} set after the last.
     * @throws CliException when the journal turned out unreadable before its end.
     */
    Document next()
    {
        final Document document;
        try
        {
            document = full.take();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while reading " + directory, ex);
        }
        if (document.end && null != failure)
        {
            throw failure;
        }
        return document;
    }

    /**
     * Hand a document from {@link #next} back for reuse.
     *
     * @param document the document.
     */
    void release(final Document document)
    {
        if (!document.end)
        {
            free.add(document);
        }
    }

    @Override
    public void close()
    {
        stopped = true;
        thread.interrupt();
        try
        {
            thread.join(CLOSE_WAIT_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void read()
    {
        try
        {
            new JournalInput(directory, err).read(new Copier());
        }
        catch (final CliException ex)
        {
            failure = ex;
        }
        catch (final Stopped ex)
        {
            return;
        }
        finally
        {
            headerRead.countDown();
        }
        final Document end = new Document(0);
        end.end = true;
        full.add(end);
    }

    private static void await(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while reading a journal header", ex);
        }
    }

    /** The reader thread's listener: copies each document into a free copy. */
    private final class Copier implements JournalListener
    {
        @Override
        public void onHeader(final JournalHeader journalHeader, final JournalPosition position)
        {
            for (int i = 0; i < DEPTH; i++)
            {
                free.add(new Document(Math.max(1, journalHeader.maxRequestPages())));
            }
            header = new JournalHeader().copyFrom(journalHeader);
            headerRead.countDown();
        }

        @Override
        public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
            final JournalPosition position)
        {
            Document document = null;
            while (null == document)
            {
                if (stopped)
                {
                    throw new Stopped();
                }
                try
                {
                    document = free.poll(POLL_MS, TimeUnit.MILLISECONDS);
                }
                catch (final InterruptedException ex)
                {
                    throw new Stopped();
                }
            }
            document.input.copyFrom(input);
            document.resultCode = resultCode;
            document.effects.copyFrom(effects);
            full.add(document);
        }
    }
}
