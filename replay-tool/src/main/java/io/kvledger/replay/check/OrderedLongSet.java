package io.kvledger.replay.check;

import org.agrona.collections.LongHashSet;

import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A set of ids that iterates in insertion order (so reports come out in the order the journal caused them), cleared
 * for every document. Primitive storage; iterating hands out one reused iterator, so a document that touched nothing
 * costs nothing. Not thread-safe, and not for nested iteration of the same set.
 */
final class OrderedLongSet implements Iterable<Long>
{
    private final LongHashSet members = new LongHashSet();
    private final Cursor cursor = new Cursor();
    private long[] order = new long[16];
    private int size;

    /** @return true when {@code id} was not in the set. */
    boolean add(final long id)
    {
        if (!members.add(id))
        {
            return false;
        }
        if (size == order.length)
        {
            order = Arrays.copyOf(order, size * 2);
        }
        order[size++] = id;
        return true;
    }

    boolean contains(final long id)
    {
        return members.contains(id);
    }

    boolean isEmpty()
    {
        return 0 == size;
    }

    int size()
    {
        return size;
    }

    void clear()
    {
        if (size > 0)
        {
            members.clear();
            size = 0;
        }
    }

    @Override
    public Iterator<Long> iterator()
    {
        cursor.next = 0;
        return cursor;
    }

    private final class Cursor implements Iterator<Long>
    {
        private int next;

        @Override
        public boolean hasNext()
        {
            return next < size;
        }

        @Override
        public Long next()
        {
            if (next >= size)
            {
                throw new NoSuchElementException();
            }
            return order[next++];
        }
    }
}
