package io.kvledger.engine;

import io.kvledger.engine.effect.EngineBugException;

/**
 * The FIFO of L3 hits waiting for host staging: an intrusive doubly linked list over request-table slots, so it
 * holds every parked hit whatever the number of requests (a request parks at most one hit), and a request that
 * gives its hit up (admitted without it, aborted, finished) leaves the list at once, wherever it stands, instead
 * of lingering until it reaches the head. Engine thread only; allocation-free.
 */
final class ParkedHits
{
    private static final int NONE = -1;

    private final int[] next;
    private final int[] prev;
    private final boolean[] parked;
    private int head = NONE;
    private int tail = NONE;
    private int size;

    ParkedHits(final int capacity)
    {
        next = new int[capacity];
        prev = new int[capacity];
        parked = new boolean[capacity];
    }

    /** @return parked hits. */
    int size()
    {
        return size;
    }

    /** @return the oldest parked request slot, or -1. */
    int head()
    {
        return head;
    }

    /**
     * @param slot a parked request slot.
     * @return the next one in FIFO order, or -1.
     */
    int next(final int slot)
    {
        return next[slot];
    }

    /**
     * @param slot request slot.
     * @return whether it has a parked hit.
     */
    boolean contains(final int slot)
    {
        return parked[slot];
    }

    /**
     * Park a hit at the tail.
     *
     * @param slot request slot, not yet parked.
     * @throws EngineBugException when it is already parked.
     */
    void append(final int slot)
    {
        EngineBugException.require(!parked[slot], "request slot parked twice:", slot, -1);
        parked[slot] = true;
        prev[slot] = tail;
        next[slot] = NONE;
        if (NONE == tail)
        {
            head = slot;
        }
        else
        {
            next[tail] = slot;
        }
        tail = slot;
        size++;
    }

    /**
     * Unpark wherever it stands; nothing happens when the slot is not parked.
     *
     * @param slot request slot.
     */
    void remove(final int slot)
    {
        if (!parked[slot])
        {
            return;
        }
        parked[slot] = false;
        final int p = prev[slot];
        final int n = next[slot];
        if (NONE == p)
        {
            head = n;
        }
        else
        {
            next[p] = n;
        }
        if (NONE == n)
        {
            tail = p;
        }
        else
        {
            prev[n] = p;
        }
        size--;
    }
}
