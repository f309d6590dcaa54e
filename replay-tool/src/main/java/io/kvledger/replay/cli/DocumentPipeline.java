package io.kvledger.replay.cli;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Reads a journal on two threads: the thread reading it (Chronicle read, frame decode) copies each document into a
 * ring of preallocated slots, and a worker thread hands them, in order, to the downstream listener (the
 * {@link Replayer} applying and comparing, or the invariant checker folding its shadow model). Reading and decoding
 * cost about a third to a half of the whole, so on two idle cores the two halves overlap. One producer, one consumer;
 * the published and consumed counts are the only shared state, so a slot is written only after the worker released
 * it. The slots grow (rarely) to fit a document; nothing is allocated per document otherwise. The downstream sees no
 * {@link JournalPosition} (null): neither listener uses it.
 * <p>
 * Use: {@link #onHeader} and {@link #onDocument} from the reading thread, then {@link #finish} to wait for the
 * worker; {@link #close} stops it early (a read that failed).
 */
final class DocumentPipeline implements JournalListener, AutoCloseable
{
    private static final int SLOTS = 512;
    private static final int MASK = SLOTS - 1;
    private static final int RELEASE_BATCH = 32;
    private static final int MIN_PROCESSORS = 4;

    private final JournalListener downstream;
    private final InputRecord[] inputs = new InputRecord[SLOTS];
    private final EffectList[] effects = new EffectList[SLOTS];
    private final int[] results = new int[SLOTS];
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong consumed = new AtomicLong();
    private final IdleStrategy producerIdle = new BackoffIdleStrategy(1, 1, 20_000, 200_000);
    private final Thread worker;
    private volatile boolean finished;
    private volatile boolean stopped;
    private volatile Throwable failure;
    private long produced;

    /**
     * Whether a command reads on two threads: only with at least {@link #MIN_PROCESSORS} processors. On the 2-core
     * build machine, shared and busy, the second thread mostly added the copy and the hand-over (measured for replay:
     * more CPU time, no shorter runs), so there the work stays on the reading thread. The system property
     * {@code kvledger.<command>.threads} (1 or 2; {@code kvledger.replay.threads}, {@code kvledger.check.threads})
     * overrides the choice.
     *
     * @param command the command's name, as in its property.
     * @return true to use a pipeline.
     */
    static boolean worthIt(final String command)
    {
        final String forced = System.getProperty("kvledger." + command + ".threads");
        if (null != forced)
        {
            return "2".equals(forced.trim());
        }
        return Runtime.getRuntime().availableProcessors() >= MIN_PROCESSORS;
    }

    /**
     * Read a journal through a pipeline when {@link #worthIt} says so, else straight into the listener.
     *
     * @param command    the command's name (its property, the worker's name).
     * @param downstream the listener that folds the documents.
     * @param read       reads the journal into the listener it is given; returns the header.
     * @return the journal's header, once every document reached the downstream listener.
     */
    static JournalHeader read(final String command, final JournalListener downstream,
        final Function<JournalListener, JournalHeader> read)
    {
        if (!worthIt(command))
        {
            return read.apply(downstream);
        }
        try (DocumentPipeline pipeline = new DocumentPipeline(downstream, "kvledger-" + command))
        {
            final JournalHeader header = read.apply(pipeline);
            pipeline.finish();
            return header;
        }
    }

    /**
     * Start the worker thread.
     *
     * @param downstream gets the header on the reading thread and each document, in order, on the worker thread.
     * @param name       the worker thread's name.
     */
    DocumentPipeline(final JournalListener downstream, final String name)
    {
        this.downstream = downstream;
        for (int i = 0; i < SLOTS; i++)
        {
            inputs[i] = new InputRecord(64);
            effects[i] = new EffectList(64);
        }
        worker = new Thread(this::consume, name);
        worker.setDaemon(true);
        worker.start();
    }

    @Override
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
        downstream.onHeader(header, position);
    }

    @Override
    public void onDocument(final InputRecord input, final int resultCode, final EffectList documentEffects,
        final JournalPosition position)
    {
        while (produced - consumed.get() >= SLOTS)
        {
            checkFailure();
            producerIdle.idle();
        }
        producerIdle.reset();
        final int slot = (int)(produced & MASK);
        if (input.fingerprintCount() > inputs[slot].fingerprintCapacity())
        {
            inputs[slot] = new InputRecord(Math.max(input.fingerprintCount(), 2 * inputs[slot].fingerprintCapacity()));
        }
        inputs[slot].copyFrom(input);
        effects[slot].copyFrom(documentEffects);
        results[slot] = resultCode;
        published.lazySet(++produced);
    }

    /**
     * Wait until the worker has handed every document on.
     *
     * @throws IllegalStateException when the worker failed (the cause attached).
     */
    void finish()
    {
        finished = true;
        join();
        checkFailure();
    }

    /** Stop the worker without waiting for the documents still in the ring. */
    @Override
    public void close()
    {
        stopped = true;
        finished = true;
        join();
    }

    private void join()
    {
        boolean interrupted = false;
        while (worker.isAlive())
        {
            try
            {
                worker.join();
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void checkFailure()
    {
        final Throwable t = failure;
        if (null != t)
        {
            throw new IllegalStateException("pipeline worker failed: " + t, t);
        }
    }

    private void consume()
    {
        final IdleStrategy idle = new BackoffIdleStrategy(1, 1, 20_000, 200_000);
        long next = 0;
        try
        {
            while (!stopped)
            {
                final long available = published.get();
                if (next == available)
                {
                    if (finished && next == published.get())
                    {
                        return;
                    }
                    idle.idle();
                    continue;
                }
                idle.reset();
                while (next < available && !stopped)
                {
                    final int slot = (int)(next & MASK);
                    downstream.onDocument(inputs[slot], results[slot], effects[slot], null);
                    next++;
                    if (0 == (next % RELEASE_BATCH))
                    {
                        consumed.lazySet(next);
                    }
                }
                consumed.lazySet(next);
            }
        }
        catch (final Throwable t)
        {
            failure = t;
        }
    }
}
