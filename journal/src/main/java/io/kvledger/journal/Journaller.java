package io.kvledger.journal;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The journal as its own stage of the pipeline, as LMAX's journaller: the engine thread copies each document's
 * columns into a single-producer ring ({@link RawDocument}); a journaller thread encodes them and appends them to
 * the {@link JournalWriter} (and, when the writer syncs, forces them to the device once per batch), then publishes
 * the sequence it has appended.
 * The engine applies the next input while the previous document is written; whoever runs side effects waits for
 * {@link #appendedSequence()} to pass the document that launched them.
 * <p>
 * Documents reach the journal in the order they were offered, each whole or not at all, encoded exactly as
 * {@link JournalWriter#append} on the engine thread encodes them; each batch drained from the ring is one Chronicle
 * document holding its frames end to end ({@link JournalWriter#appendFrames}), so a reader gets the same documents
 * whichever path wrote them. A
 * document larger than the ring's largest message ({@link #maxRingDocument()}) waits for the ring to drain and is
 * then handed over in the encoder's own buffer, the offer returning only when it is appended. When the ring is
 * full, the offering thread waits.
 * <p>
 * A failure of the writer on the journaller thread stops the journaller: the documents before the failing one stay
 * appended, nothing after it is written, and every later offer or wait throws a {@link JournalException} naming the
 * failure. {@link #close()} drains the ring, stops the thread and closes the writer (on the journaller thread, the
 * only one that used its appender).
 * <p>
 * Threads: {@link #append}, {@link #awaitAppended} and {@link #close} from one producer thread at a time (the
 * engine's); {@link #appendedSequence()} and {@link #failure()} from any thread. Allocation-free in steady state.
 */
public final class Journaller implements AutoCloseable
{
    /**
     * Ring capacity used by {@link #start(JournalWriter)}: 8 MiB unless the system property
     * {@code kvledger.journal.ringBytes} (a power of two of at least 4096) says otherwise; a few thousand requests'
     * documents (a pr-bench request's raw documents take about 6 KiB), so a burst does not stall the engine;
     * documents up to an eighth of it pass through it.
     */
    public static final int DEFAULT_RING_BYTES = Integer.getInteger("kvledger.journal.ringBytes", 8 << 20);

    /** Documents drained from the ring per duty cycle: each drain is written as one Chronicle document. */
    static final int BATCH_DOCUMENTS = 64;

    /** Most bytes of one batch (further documents start the next one). */
    static final int BATCH_BYTES = 64 * 1024;

    private static final int RAW_DOCUMENT = 1;
    private static final int LARGE_FRAME = 2;

    private final JournalWriter writer;
    private final OneToOneRingBuffer ring;
    private final RawDocument raw;
    private final JournalEncoder encoder;
    private final ExpandableArrayBuffer encoded = new ExpandableArrayBuffer(64 * 1024);
    /**
     * How the engine thread waits for ring room or for an append: it spins, then yields for long (the journaller is
     * working and a yield hands it the core on a small machine), and parks only when the journal is really slow (a
     * sync); a park is never shorter than the kernel's timer slack (~50 µs), so parking early makes both threads
     * take turns sleeping.
     */
    private final IdleStrategy producerIdle = new BackoffIdleStrategy(64, 4_096, 50_000, 200_000);
    private final AtomicLong appended = new AtomicLong();
    private final AgentRunner runner;
    private volatile JournalException failure;
    private volatile JournalException closeFailure;
    private volatile int largeLength;
    private Thread thread;
    private long offeredSequence;
    private boolean closed;

    private Journaller(final JournalWriter writer, final int ringBytes, final IdleStrategy idle)
    {
        if (Integer.bitCount(ringBytes) != 1 || ringBytes < 4096)
        {
            throw new IllegalArgumentException("ring capacity must be a power of two of at least 4096: " + ringBytes);
        }
        this.writer = writer;
        writer.pretouchShortLead();
        this.encoder = new JournalEncoder(writer.fingerprintWindow());
        this.offeredSequence = writer.lastSequence();
        this.appended.set(writer.lastSequence());
        final ByteBuffer memory = ByteBuffer.allocateDirect(ringBytes + RingBufferDescriptor.TRAILER_LENGTH);
        this.ring = new OneToOneRingBuffer(new UnsafeBuffer(memory));
        this.raw = new RawDocument(memory);
        this.runner = new AgentRunner(idle, this::onError, null, new Appender());
    }

    /**
     * Start a journaller over a writer with the default ring and a backing-off journaller thread (when the ring is
     * empty it spins, yields, then parks 50 µs at a time).
     *
     * @param writer the journal; owned by the journaller from now on, and used by its thread only.
     * @return the running journaller.
     */
    public static Journaller start(final JournalWriter writer)
    {
        return start(writer, DEFAULT_RING_BYTES, new BackoffIdleStrategy(64, 256, 50_000, 50_000));
    }

    /**
     * Start a journaller.
     *
     * @param writer    the journal; owned by the journaller from now on, and used by its thread only.
     * @param ringBytes ring capacity, a power of two of at least 4 KiB; documents up to an eighth of it pass through
     *                  the ring, larger ones are handed over one at a time.
     * @param idle      how the journaller thread waits when the ring is empty.
     * @return the running journaller.
     */
    public static Journaller start(final JournalWriter writer, final int ringBytes, final IdleStrategy idle)
    {
        final Journaller journaller = new Journaller(writer, ringBytes, idle);
        final Thread thread = new Thread(journaller.runner, "kvledger-journaller");
        thread.setDaemon(true);
        journaller.thread = thread;
        thread.start();
        return journaller;
    }

    /**
     * Hand one document to the journaller thread; returns once it is in the ring (not yet appended). The document
     * crosses as a raw copy of the record's and list's columns ({@link RawDocument}); the journaller thread encodes
     * it, so an encoding failure (a code outside its enum, a document larger than a quarter of the block) stops the
     * journaller and is reported by the next call. A document whose raw form is larger than the ring takes is
     * encoded here and handed over alone.
     *
     * @param input      the input, its sequence included (one more than the previous document's).
     * @param resultCode result of applying it.
     * @param effects    the effects it caused, in order.
     * @return the document's sequence, for {@link #awaitAppended}.
     * @throws JournalException when the sequence is out of order, or the journaller failed or was closed; nothing
     *                          is offered then.
     */
    public long append(final InputRecord input, final int resultCode, final EffectList effects)
    {
        checkHealthy();
        final long sequence = offeredSequence + 1;
        if (input.sequence() != sequence)
        {
            throw new JournalException("cannot append sequence " + input.sequence() + " to " + writer.directory() +
                ": expected " + sequence);
        }
        final int length = RawDocument.length(input, effects);
        if (length <= ring.maxMsgLength())
        {
            producerIdle.reset();
            int index;
            while ((index = ring.tryClaim(RAW_DOCUMENT, length)) < 0)
            {
                checkHealthy();
                producerIdle.idle();
            }
            raw.write(index, input, resultCode, effects);
            ring.commit(index);
            offeredSequence = sequence;
        }
        else
        {
            // The journal's fingerprint window is the journaller thread's until everything before is appended.
            awaitAppended(offeredSequence);
            final int frameLength = encoder.encodeDocument(encoded, 0, input, resultCode, effects);
            if (frameLength > writer.maxFrameLength())
            {
                throw new JournalException("document " + sequence + " of " + frameLength + " bytes is larger than " +
                    writer.maxFrameLength() + " bytes, a quarter of the journal's block size");
            }
            offerLarge(sequence, frameLength);
        }

        return sequence;
    }

    private void offerLarge(final long sequence, final int length)
    {
        awaitAppended(offeredSequence);
        largeLength = length;
        producerIdle.reset();
        while (!ring.write(LARGE_FRAME, encoded, 0, 0))
        {
            checkHealthy();
            producerIdle.idle();
        }
        offeredSequence = sequence;
        awaitAppended(sequence);
    }

    /**
     * Sequence of the last document appended (and synced, when the writer syncs), 0 before the first. Any thread.
     *
     * @return the sequence.
     */
    public long appendedSequence()
    {
        return appended.get();
    }

    /**
     * Sequence of the last document offered, appended or not. Producer thread.
     *
     * @return the sequence.
     */
    public long offeredSequence()
    {
        return offeredSequence;
    }

    /**
     * Wait until every document up to {@code sequence} is appended.
     *
     * @param sequence a sequence already offered.
     * @throws JournalException when the journaller failed or was closed before it got there.
     */
    public void awaitAppended(final long sequence)
    {
        producerIdle.reset();
        while (appended.get() < sequence)
        {
            checkHealthy();
            producerIdle.idle();
        }
    }

    /**
     * @return the journaller thread's failure, or null while healthy.
     */
    public JournalException failure()
    {
        return failure;
    }

    /**
     * @return the writer (its counters; do not append to it).
     */
    public JournalWriter writer()
    {
        return writer;
    }

    /**
     * @return the journaller thread (for its CPU time).
     */
    public Thread thread()
    {
        return thread;
    }

    /**
     * @return largest document, in bytes, that passes through the ring rather than alone.
     */
    public int maxRingDocument()
    {
        return ring.maxMsgLength();
    }

    /**
     * Append everything offered (unless the journaller failed), stop the journaller thread and close the writer.
     * Idempotent.
     *
     * @throws JournalException when the writer's close found the journal gone ({@link JournalWriter#close()}).
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            while (null == failure && appended.get() < offeredSequence)
            {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
        finally
        {
            runner.close();
        }
        final JournalException failedClose = closeFailure;
        if (null != failedClose)
        {
            throw failedClose;
        }
    }

    private void checkHealthy()
    {
        final JournalException failed = failure;
        if (null != failed)
        {
            throw new JournalException("the journal stopped: " + failed.getMessage(), failed);
        }
        if (closed)
        {
            throw new JournalException("the journal " + writer.directory() + " is closed");
        }
    }

    private void onError(final Throwable t)
    {
        if (null == failure)
        {
            failure = t instanceof JournalException ? (JournalException)t :
                new JournalException("journaller failed: " + t, t);
        }
    }

    /**
     * The journaller thread's duty cycle: drain up to {@link #BATCH_DOCUMENTS} documents from the ring, encode them one
     * after the other into one buffer, append them as one Chronicle document (a batch is cut at {@link #BATCH_BYTES}),
     * sync once when the writer syncs, publish the last appended sequence.
     */
    private final class Appender implements Agent
    {
        private final JournalEncoder frameEncoder = new JournalEncoder(writer.fingerprintWindow());
        private final ExpandableArrayBuffer frame = new ExpandableArrayBuffer(2 * BATCH_BYTES);
        private final EffectList effects = new EffectList(256);
        private final MessageHandler handler = this::onMessage;
        private final int batchLimit = Math.min(BATCH_BYTES, writer.maxFrameLength());
        private InputRecord input = new InputRecord(256);
        private int batchLength;
        private int batchCount;
        private boolean stopped;

        @Override
        public int doWork()
        {
            if (stopped)
            {
                return 0;
            }
            final int read;
            try
            {
                read = ring.read(handler, BATCH_DOCUMENTS);
                if (read > 0)
                {
                    flush();
                    if (writer.syncEachDocument())
                    {
                        writer.sync();
                    }
                    appended.lazySet(writer.lastSequence());
                }
            }
            catch (final RuntimeException | Error ex)
            {
                stopped = true;
                onError(ex);
                return 0;
            }
            return read;
        }

        private void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
        {
            if (type == RAW_DOCUMENT)
            {
                final int fingerprints = raw.fingerprintCount(index);
                if (fingerprints > input.fingerprintCapacity())
                {
                    input = new InputRecord(fingerprints);
                }
                final int resultCode = raw.read(index, input, effects);
                final int frameLength;
                try
                {
                    frameLength = frameEncoder.encodeDocument(frame, batchLength, input, resultCode, effects);
                }
                catch (final RuntimeException ex)
                {
                    // The documents before the one that cannot be encoded stay appended.
                    flush();
                    appended.lazySet(writer.lastSequence());
                    throw ex;
                }
                if (batchCount > 0 && batchLength + frameLength > batchLimit)
                {
                    final int at = batchLength;
                    flush();
                    System.arraycopy(frame.byteArray(), at, frame.byteArray(), 0, frameLength);
                }
                batchLength += frameLength;
                batchCount++;
            }
            else
            {
                flush();
                writer.appendFrame(encoded.byteArray(), 0, largeLength);
            }
        }

        /** Write the frames encoded since the last flush as one Chronicle document. */
        private void flush()
        {
            if (batchCount > 0)
            {
                final int count = batchCount;
                final int length = batchLength;
                batchCount = 0;
                batchLength = 0;
                writer.appendFrames(frame.byteArray(), 0, length, count);
            }
        }

        @Override
        public void onClose()
        {
            try
            {
                writer.close();
            }
            catch (final JournalException ex)
            {
                closeFailure = ex;
            }
        }

        @Override
        public String roleName()
        {
            return "kvledger-journaller";
        }
    }
}
