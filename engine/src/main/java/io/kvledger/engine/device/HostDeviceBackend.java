package io.kvledger.engine.device;

import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.engine.util.AgentWorker;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.locks.LockSupport;

/**
 * The default device backend: all four pools live in off-heap host memory, and a dedicated copy thread performs
 * each submitted batch's copies (real memory copies of real bytes) asynchronously, with optional seeded delay and
 * failure injection, then reports the batch to the {@link CopyListener}.
 * <p>
 * Thread ownership: claim and submit from the engine's dispatch thread; the copy thread owns the fault injector
 * and runs the listener; {@link #slot(Pool, int)}, {@link #fill(Pool, int, long)} and {@link #digest(Pool, int)}
 * work from any thread the engine's ownership table allows. Allocation-free after construction. Each stream's
 * copy thread is an {@link AgentWorker} running a {@code CopyAgent}; it idles with a {@link BackoffIdleStrategy}
 * that parks quickly, so it costs little on a 2-core machine, and on close it finishes the batches already
 * submitted before it stops.
 */
public final class HostDeviceBackend implements DeviceBackend
{
    private static final int POOLS = 4;

    private final SlotMemory[] memory = new SlotMemory[POOLS];
    private final int[] slotCounts = new int[POOLS];
    private final int maxCopiesPerBatch;
    private final CopyBatch[] batches;
    private final CopyStreams streams;
    private final FaultInjector[] faults = new FaultInjector[CopyStreams.STREAMS];
    private final boolean faultsActive;

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
        streams = new CopyStreams(batches.length);
        for (int i = 0; i < batches.length; i++)
        {
            batches[i] = new CopyBatch(this, i, maxCopiesPerBatch, slotCounts);
            streams.add(batches[i]);
        }

        for (int s = 0; s < CopyStreams.STREAMS; s++)
        {
            faults[s] = new FaultInjector(config);
            streams.worker(s, new AgentWorker(new CopyAgent(s), new BackoffIdleStrategy(10, 20, 1_000, 1_000_000)));
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
    public void start(final CopyListener listener)
    {
        streams.start(listener);
    }

    /**
     * {@inheritDoc}
     */
    public CopyBatch claimBatch()
    {
        return streams.claim();
    }

    /**
     * {@inheritDoc}
     */
    public CopyBatch tryClaimBatch()
    {
        return streams.tryClaim();
    }

    /**
     * {@inheritDoc}
     */
    public void submit(final long op, final CopyBatch batch)
    {
        streams.submit(this, op, batch);
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
        return streams.completedBatches();
    }

    /**
     * {@inheritDoc}
     */
    public long failedBatches()
    {
        return streams.failedBatches();
    }

    /**
     * {@inheritDoc}
     */
    public long copiedBytes()
    {
        return streams.copiedBytes();
    }

    /**
     * Listener calls that threw (each is printed to stderr and otherwise ignored).
     *
     * @return the count of listener exceptions.
     */
    public long listenerErrors()
    {
        return streams.listenerErrors();
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
        streams.close();
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
     * One stream's copy thread: performs the stream's submitted batches in order, one per duty cycle; once the
     * backend stops running and the stream's queue is empty, it ends.
     */
    private final class CopyAgent implements Agent
    {
        private final int stream;
        private final ManyToOneConcurrentArrayQueue<CopyBatch> queue;

        CopyAgent(final int stream)
        {
            this.stream = stream;
            this.queue = streams.queue(stream);
        }

        public int doWork()
        {
            final CopyBatch batch = queue.poll();
            if (null != batch)
            {
                process(batch, stream);
                return 1;
            }
            if (!streams.running() && queue.isEmpty())
            {
                throw AgentWorker.drained();
            }
            return 0;
        }

        public String roleName()
        {
            return CopyStreams.LOAD_STREAM == stream ? "kvledger-copy-load" : "kvledger-copy-compute";
        }
    }

    private void process(final CopyBatch batch, final int stream)
    {
        final FaultInjector faults = this.faults[stream];
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

        streams.complete(batch, stream, ok, bytes);
    }
}
