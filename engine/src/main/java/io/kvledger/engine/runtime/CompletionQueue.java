package io.kvledger.engine.runtime;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Single-producer multi-consumer queue of finished loads and copies (op id and outcome packed into a long):
 * the engine thread offers after applying the ack, the serving threads poll (each notification is taken by
 * exactly one of them). Allocation-free; when full the
 * oldest notifications are kept and later ones counted as dropped (a serving loop that never polls cannot stall
 * the engine).
 */
public final class CompletionQueue
{
    private final long[] buffer;
    private final int mask;
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();
    private long dropped;

    /**
     * @param capacity a power of two.
     */
    public CompletionQueue(final int capacity)
    {
        if (Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        buffer = new long[capacity];
        mask = capacity - 1;
    }

    /** Engine thread. */
    boolean offer(final long op, final boolean ok)
    {
        final long t = tail.get();
        if (t - head.get() == buffer.length)
        {
            dropped++;
            return false;
        }
        buffer[(int)(t & mask)] = (op << 1) | (ok ? 1 : 0);
        tail.lazySet(t + 1);
        return true;
    }

    /**
     * Serving thread: take the oldest notification.
     *
     * @return packed (op id << 1 | ok), or -1 when empty.
     */
    public long poll()
    {
        while (true)
        {
            final long h = head.get();
            if (h == tail.get())
            {
                return -1;
            }
            final long value = buffer[(int)(h & mask)];
            // The value read is this slot's only while head is still h: claim it, or another poller did.
            if (head.compareAndSet(h, h + 1))
            {
                return value;
            }
        }
    }

    /** @return notifications dropped because nobody polled. */
    public long dropped()
    {
        return dropped;
    }

    /**
     * @param packed a value from {@link #poll()}.
     * @return the op id.
     */
    public static long op(final long packed)
    {
        return packed >>> 1;
    }

    /**
     * @param packed a value from {@link #poll()}.
     * @return whether the op succeeded.
     */
    public static boolean ok(final long packed)
    {
        return (packed & 1) != 0;
    }
}
