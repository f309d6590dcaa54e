package io.kvledger.engine.device;

import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

import java.util.concurrent.locks.LockSupport;

/**
 * A pool of preallocated, reusable work items (copy batches, storage plans): claimed by the submitting thread,
 * returned by the thread that finished with them. Claiming waits with a backoff (spin, yield, then 50 µs parks)
 * while every item is out; allocation-free. Thread-safe.
 *
 * @param <T> item type.
 */
public final class ClaimPool<T extends ClaimPool.Claimable>
{
    /** An item that records being handed out. */
    public interface Claimable
    {
        /** The item was just claimed from its pool. */
        void claimed();
    }

    private final ManyToManyConcurrentArrayQueue<T> free;

    /**
     * @param capacity the most items the pool holds.
     */
    public ClaimPool(final int capacity)
    {
        free = new ManyToManyConcurrentArrayQueue<>(Math.max(2, capacity));
    }

    /**
     * Put an item (back) into the pool.
     *
     * @param item to make available.
     */
    public void release(final T item)
    {
        if (!free.offer(item))
        {
            throw new IllegalStateException("pool over capacity");
        }
    }

    /**
     * @return a claimed item, or null when none is free.
     */
    public T tryClaim()
    {
        final T item = free.poll();
        if (null != item)
        {
            item.claimed();
        }
        return item;
    }

    /**
     * Claim an item, waiting while every item is out.
     *
     * @param openCheck run between attempts; throws to abandon the wait (e.g. when the owner closed).
     * @return a claimed item.
     */
    public T claim(final Runnable openCheck)
    {
        T item;
        int attempts = 0;
        while (null == (item = free.poll()))
        {
            openCheck.run();
            backoff(attempts++);
        }
        item.claimed();
        return item;
    }

    private static void backoff(final int attempts)
    {
        if (attempts < 100)
        {
            Thread.onSpinWait();
        }
        else if (attempts < 200)
        {
            Thread.yield();
        }
        else
        {
            LockSupport.parkNanos(50_000);
        }
    }
}
