package io.kvledger.engine.device;

import io.kvledger.engine.util.AgentWorker;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * What both device backends keep around their copies, whatever performs them: the pool of free batches, one
 * submission queue a stream (a batch with a host-to-device copy is a load, on {@link #LOAD_STREAM}; device-local
 * copies and backups go on {@link #COMPUTE_STREAM}: loads queue behind loads and backups behind backups, but the two
 * overlap), each stream's thread, the completion counters, the listener, and the lifecycle: {@link #start} once with
 * a listener, {@link #submit} while started, {@link #close} once, the threads finishing what was submitted before
 * they stop.
 * <p>
 * Threads: claim and submit from the engine's dispatch thread; {@link #complete} from the stream's own thread, which
 * also runs the listener; the rest from any thread. Allocation-free after construction.
 */
final class CopyStreams
{
    /** Host-to-device loads. */
    static final int LOAD_STREAM = 0;
    /** Device-local copies (copy-on-write) and device-to-host backups. */
    static final int COMPUTE_STREAM = 1;
    /** Streams a backend runs. */
    static final int STREAMS = 2;
    /** Counters of one stream sit a cache line apart from the other's. */
    private static final int PAD = 8;

    private final ClaimPool<CopyBatch> freeBatches;
    private final Runnable openCheck = this::checkOpen;
    private final ManyToOneConcurrentArrayQueue<CopyBatch>[] submitted = newQueues();
    private final AgentWorker[] workers = new AgentWorker[STREAMS];
    private final long[] completed = new long[STREAMS * PAD];
    private final long[] failed = new long[STREAMS * PAD];
    private final long[] bytes = new long[STREAMS * PAD];
    private final long[] listenerErrors = new long[STREAMS * PAD];

    private volatile CopyListener listener;
    private volatile boolean started;
    private volatile boolean running;
    private volatile boolean closed;

    /**
     * @param batchCount the backend's batches: the free pool and each submission queue hold them all.
     */
    CopyStreams(final int batchCount)
    {
        freeBatches = new ClaimPool<>(batchCount);
        for (int s = 0; s < STREAMS; s++)
        {
            submitted[s] = new ManyToOneConcurrentArrayQueue<>(Math.max(2, batchCount));
        }
    }

    @SuppressWarnings("unchecked")
    private static ManyToOneConcurrentArrayQueue<CopyBatch>[] newQueues()
    {
        return (ManyToOneConcurrentArrayQueue<CopyBatch>[])new ManyToOneConcurrentArrayQueue<?>[STREAMS];
    }

    /**
     * Which stream a batch runs on: {@link #LOAD_STREAM} when it copies anything from host to device, else
     * {@link #COMPUTE_STREAM}.
     *
     * @param batch a filled batch.
     * @return the stream.
     */
    static int streamOf(final CopyBatch batch)
    {
        for (int i = 0; i < batch.count(); i++)
        {
            if (!CopyBatch.isDevice(batch.srcPool(i)) && CopyBatch.isDevice(batch.dstPool(i)))
            {
                return LOAD_STREAM;
            }
        }
        return COMPUTE_STREAM;
    }

    /** Put a new batch into the free pool (construction). */
    void add(final CopyBatch batch)
    {
        freeBatches.release(batch);
    }

    /** The thread of a stream, started by {@link #start} and stopped by {@link #close} (construction). */
    void worker(final int stream, final AgentWorker worker)
    {
        workers[stream] = worker;
    }

    /**
     * Start the stream threads; once.
     *
     * @param listener told of every batch's completion, on its stream's thread.
     * @throws IllegalStateException when closed or already started.
     */
    synchronized void start(final CopyListener listener)
    {
        if (closed)
        {
            throw new IllegalStateException("backend closed");
        }
        if (started)
        {
            throw new IllegalStateException("backend already started");
        }
        if (null == listener)
        {
            throw new NullPointerException("listener");
        }
        this.listener = listener;
        running = true;
        started = true;
        for (final AgentWorker worker : workers)
        {
            worker.start();
        }
    }

    /**
     * @return a free batch, waiting while every batch is out.
     * @throws IllegalStateException when closed, or closed while it waits.
     */
    CopyBatch claim()
    {
        checkOpen();
        return freeBatches.claim(openCheck);
    }

    /** @return a free batch, or null when every batch is out. */
    CopyBatch tryClaim()
    {
        return freeBatches.tryClaim();
    }

    /**
     * Queue a filled batch on its stream.
     *
     * @param owner the backend the batch belongs to.
     * @param op    the operation it performs, for the listener.
     * @param batch the batch.
     * @throws IllegalStateException when not started, closed, or the queue is full.
     */
    void submit(final DeviceBackend owner, final long op, final CopyBatch batch)
    {
        if (!started || closed)
        {
            throw new IllegalStateException(closed ? "backend closed" : "backend not started");
        }
        batch.submittedTo(owner, op);
        if (!submitted[streamOf(batch)].offer(batch))
        {
            throw new IllegalStateException("copy queue full");
        }
    }

    /** @return the submission queue of a stream, drained by that stream's thread only. */
    ManyToOneConcurrentArrayQueue<CopyBatch> queue(final int stream)
    {
        return submitted[stream];
    }

    /**
     * A batch is finished: count it on its stream, put it back into the free pool, then tell the listener (a
     * listener that throws is counted, its first exception printed). The stream's thread.
     *
     * @param batch  the batch.
     * @param stream the stream it ran on.
     * @param ok     whether every copy succeeded.
     * @param moved  bytes it copied.
     */
    void complete(final CopyBatch batch, final int stream, final boolean ok, final long moved)
    {
        final long op = batch.op();
        bytes[stream * PAD] += moved;
        if (ok)
        {
            completed[stream * PAD]++;
        }
        else
        {
            failed[stream * PAD]++;
        }
        batch.released();
        freeBatches.release(batch);

        try
        {
            listener.onCopyDone(op, ok);
        }
        catch (final Throwable ex)
        {
            if (listenerErrors[stream * PAD]++ == 0 && listenerErrors[(1 - stream) * PAD] == 0)
            {
                ex.printStackTrace();
            }
        }
    }

    /** @return whether the threads should keep taking work (started and not closed). */
    boolean running()
    {
        return running;
    }

    /** @return whether {@link #start} ran. */
    boolean started()
    {
        return started;
    }

    /**
     * Stop: the threads finish the batches already submitted, then end; idempotent.
     *
     * @return true for the call that closed, false when already closed.
     */
    boolean close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return false;
            }
            closed = true;
            running = false;
        }
        if (started)
        {
            for (final AgentWorker worker : workers)
            {
                worker.close();
            }
        }
        return true;
    }

    /** @return batches completed without a failed copy, both streams. */
    long completedBatches()
    {
        return completed[0] + completed[PAD];
    }

    /** @return batches with a failed copy, both streams. */
    long failedBatches()
    {
        return failed[0] + failed[PAD];
    }

    /** @return bytes copied, both streams. */
    long copiedBytes()
    {
        return bytes[0] + bytes[PAD];
    }

    /**
     * Completed batches of one stream.
     *
     * @param stream {@link #LOAD_STREAM} or {@link #COMPUTE_STREAM}.
     * @return the count.
     */
    long completedBatches(final int stream)
    {
        return completed[stream * PAD];
    }

    /**
     * Bytes copied by one stream.
     *
     * @param stream {@link #LOAD_STREAM} or {@link #COMPUTE_STREAM}.
     * @return the count.
     */
    long copiedBytes(final int stream)
    {
        return bytes[stream * PAD];
    }

    /** @return listener calls that threw, both streams. */
    long listenerErrors()
    {
        return listenerErrors[0] + listenerErrors[PAD];
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("backend closed");
        }
    }
}
