package io.kvledger.engine.device;

import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.Pool;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.locks.LockSupport;

/**
 * The default device backend: all four pools live in off-heap host memory, and a dedicated copy thread performs
 * each submitted batch's copies (real memory copies of real bytes) asynchronously, with optional seeded delay and
 * failure injection, then reports the batch to the {@link CopyListener}.
 * <p>
 * Thread ownership: claim and submit from the engine's dispatch thread; the copy thread owns the fault injector
 * and runs the listener; {@link #slot(Pool, int)}, {@link #fill(Pool, int, long)} and {@link #digest(Pool, int)}
 * work from any thread the engine's ownership table allows. Allocation-free after construction. The copy thread
 * idles with a {@link BackoffIdleStrategy} that parks quickly, so it costs little on a 2-core machine.
 */
public final class HostDeviceBackend implements DeviceBackend
{
    private static final int POOLS = 4;

    private final SlotMemory[] memory = new SlotMemory[POOLS];
    private final int[] slotCounts = new int[POOLS];
    private final int maxCopiesPerBatch;
    private final CopyBatch[] batches;
    private final ClaimPool<CopyBatch> freeBatches;
    private final Runnable openCheck = this::checkOpen;
    /** Host-to-device loads. */
    static final int LOAD_STREAM = 0;
    /** Device-local copies (copy-on-write) and device-to-host backups. */
    static final int COMPUTE_STREAM = 1;
    private static final int STREAMS = 2;

    private final List<ManyToOneConcurrentArrayQueue<CopyBatch>> submitted;
    private final FaultInjector[] faults = new FaultInjector[STREAMS];
    private final boolean faultsActive;
    private final Thread[] copyThreads = new Thread[STREAMS];
    private final long[] streamCompleted = new long[STREAMS * 8];
    private final long[] streamFailed = new long[STREAMS * 8];
    private final long[] streamBytes = new long[STREAMS * 8];

    private volatile CopyListener listener;
    private volatile boolean started;
    private volatile boolean running;
    private volatile boolean closed;
    private volatile long listenerErrors;

    /**
     * Allocate the four pools (zeroed) and the copy batches; the copy thread starts with
     * {@link #start(CopyListener)}.
     *
     * @param config sizes and fault injection; validated here.
     */
    public HostDeviceBackend(final DeviceConfig config)
    {
        config.validate();
        for (final Pool pool : new Pool[]{ Pool.DEVICE_KV, Pool.DEVICE_MAMBA, Pool.HOST_KV, Pool.HOST_MAMBA })
        {
            memory[pool.ordinal()] = new SlotMemory(pool, config.slotCount(pool), config.slotBytes(pool));
            slotCounts[pool.ordinal()] = config.slotCount(pool);
        }

        maxCopiesPerBatch = config.maxCopiesPerBatch();
        batches = new CopyBatch[config.batchCount()];
        freeBatches = new ClaimPool<>(batches.length);
        submitted = List.of(new ManyToOneConcurrentArrayQueue<>(Math.max(2, batches.length)),
            new ManyToOneConcurrentArrayQueue<>(Math.max(2, batches.length)));
        for (int i = 0; i < batches.length; i++)
        {
            batches[i] = new CopyBatch(this, i, maxCopiesPerBatch, slotCounts);
            freeBatches.release(batches[i]);
        }

        for (int s = 0; s < STREAMS; s++)
        {
            faults[s] = new FaultInjector(config);
            final int stream = s;
            copyThreads[s] = new Thread(() -> runCopyLoop(stream),
                s == LOAD_STREAM ? "kvledger-copy-load" : "kvledger-copy-compute");
            copyThreads[s].setDaemon(true);
        }
        faultsActive = faults[0].active();
    }

    /**
     * {@inheritDoc}
     */
    public DeviceKind kind()
    {
        return DeviceKind.HOST;
    }

    /**
     * {@inheritDoc}
     */
    public synchronized void start(final CopyListener listener)
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
        for (final Thread t : copyThreads)
        {
            t.start();
        }
    }

    /**
     * {@inheritDoc}
     */
    public CopyBatch claimBatch()
    {
        return freeBatches.claim(openCheck);
    }

    /**
     * {@inheritDoc}
     */
    public CopyBatch tryClaimBatch()
    {
        return freeBatches.tryClaim();
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("backend closed");
        }
    }

    /**
     * {@inheritDoc}
     */
    public void submit(final long op, final CopyBatch batch)
    {
        if (!started || closed)
        {
            throw new IllegalStateException(closed ? "backend closed" : "backend not started");
        }
        batch.submittedTo(this, op);
        if (!submitted.get(streamOf(batch)).offer(batch))
        {
            throw new IllegalStateException("copy queue full");
        }
    }

    /**
     * The bytes of any slot: on this backend every pool is host memory.
     *
     * @param pool which pool.
     * @param slot which slot.
     * @return a fixed view of exactly {@link #slotBytes(Pool)} bytes.
     */
    public UnsafeBuffer slot(final Pool pool, final int slot)
    {
        return memory(pool).slot(slot);
    }

    /**
     * {@inheritDoc}
     */
    public int slotBytes(final Pool pool)
    {
        return memory(pool).slotBytes();
    }

    /**
     * {@inheritDoc}
     */
    public int slotCount(final Pool pool)
    {
        return memory(pool).slotCount();
    }

    /**
     * {@inheritDoc}
     */
    public void fill(final Pool pool, final int slot, final long contentSeed)
    {
        final UnsafeBuffer buffer = slot(pool, slot);
        ContentPattern.fill(buffer, 0, buffer.capacity(), contentSeed);
    }

    /**
     * {@inheritDoc}
     */
    public long digest(final Pool pool, final int slot)
    {
        final UnsafeBuffer buffer = slot(pool, slot);
        return ContentDigest.digest(buffer, 0, buffer.capacity());
    }

    /**
     * {@inheritDoc}
     */
    public long completedBatches()
    {
        return streamCompleted[0] + streamCompleted[8];
    }

    /**
     * {@inheritDoc}
     */
    public long failedBatches()
    {
        return streamFailed[0] + streamFailed[8];
    }

    /**
     * {@inheritDoc}
     */
    public long copiedBytes()
    {
        return streamBytes[0] + streamBytes[8];
    }

    /**
     * Listener calls that threw (each is printed to stderr and otherwise ignored).
     *
     * @return the count of listener exceptions.
     */
    public long listenerErrors()
    {
        return listenerErrors;
    }

    /**
     * {@inheritDoc}
     */
    public String describe()
    {
        return "host memory: " +
            Sizes.pool("device KV", slotCount(Pool.DEVICE_KV), slotBytes(Pool.DEVICE_KV)) + ", " +
            Sizes.pool("device Mamba", slotCount(Pool.DEVICE_MAMBA), slotBytes(Pool.DEVICE_MAMBA)) + ", " +
            Sizes.pool("host KV", slotCount(Pool.HOST_KV), slotBytes(Pool.HOST_KV)) + ", " +
            Sizes.pool("host Mamba", slotCount(Pool.HOST_MAMBA), slotBytes(Pool.HOST_MAMBA)) + "; " +
            batches.length + " batches of up to " + maxCopiesPerBatch + " copies; " + faults[0].describe();
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            running = false;
        }
        if (started)
        {
            boolean interrupted = false;
            for (final Thread copyThread : copyThreads)
            {
                while (copyThread.isAlive())
                {
                    try
                    {
                        copyThread.join();
                    }
                    catch (final InterruptedException ex)
                    {
                        interrupted = true;
                    }
                }
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private SlotMemory memory(final Pool pool)
    {
        if (pool == null || pool == Pool.NULL_VAL)
        {
            throw new IllegalArgumentException("no such pool: " + pool);
        }
        return memory[pool.ordinal()];
    }

    /**
     * Which stream a batch runs on: like a GPU's load stream and compute stream, host-to-device loads queue
     * behind each other, and device-local copies and backups queue behind each other, but the two overlap.
     */
    private static int streamOf(final CopyBatch batch)
    {
        for (int i = 0; i < batch.count(); i++)
        {
            final Pool src = batch.srcPool(i);
            final Pool dst = batch.dstPool(i);
            if ((src == Pool.HOST_KV || src == Pool.HOST_MAMBA) && (dst == Pool.DEVICE_KV || dst == Pool.DEVICE_MAMBA))
            {
                return LOAD_STREAM;
            }
        }
        return COMPUTE_STREAM;
    }

    private void runCopyLoop(final int stream)
    {
        final IdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 1_000_000);
        final ManyToOneConcurrentArrayQueue<CopyBatch> queue = submitted.get(stream);
        while (true)
        {
            final CopyBatch batch = queue.poll();
            if (null != batch)
            {
                idle.reset();
                process(batch, stream);
            }
            else if (!running)
            {
                if (queue.isEmpty())
                {
                    break;
                }
            }
            else
            {
                idle.idle();
            }
        }
    }

    private void process(final CopyBatch batch, final int stream)
    {
        final FaultInjector faults = this.faults[stream];
        final long op = batch.op();
        final int count = batch.count();
        boolean ok = true;
        int limit = count;
        if (faultsActive)
        {
            final long delayNs = faults.nextDelayNs();
            if (delayNs > 0)
            {
                LockSupport.parkNanos(delayNs);
            }
            if (faults.nextFails())
            {
                ok = false;
                limit = faults.nextPartialCount(count);
            }
        }

        long bytes = 0;
        try
        {
            for (int i = 0; i < limit; i++)
            {
                final UnsafeBuffer src = memory[batch.srcPool(i).ordinal()].slot(batch.srcSlot(i));
                final UnsafeBuffer dst = memory[batch.dstPool(i).ordinal()].slot(batch.dstSlot(i));
                final int length = src.capacity();
                dst.putBytes(0, src, 0, length);
                bytes += length;
            }
        }
        catch (final RuntimeException ex)
        {
            ok = false;
        }

        streamBytes[stream * 8] += bytes;
        if (ok)
        {
            streamCompleted[stream * 8]++;
        }
        else
        {
            streamFailed[stream * 8]++;
        }

        batch.released();
        freeBatches.release(batch);
        notifyListener(op, ok);
    }

    private void notifyListener(final long op, final boolean ok)
    {
        try
        {
            listener.onCopyDone(op, ok);
        }
        catch (final Throwable ex)
        {
            if (listenerErrors++ == 0)
            {
                ex.printStackTrace();
            }
        }
    }

}
