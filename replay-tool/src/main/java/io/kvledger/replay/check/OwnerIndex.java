package io.kvledger.replay.check;

import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Which slots each owner (request, node, op, or op a slot is parked for) holds, across all pools. Slot keys are
 * {@code pool << 32 | slot}; each owner's keys are kept sorted in a primitive array, so iteration is in pool then
 * slot order (deterministic reports) and adding or removing a slot allocates nothing in steady state (emptied sets
 * are reused). The checker calls {@link #add} and {@link #remove} for every slot transition it folds.
 */
final class OwnerIndex
{
    private static final int KINDS = 5;

    private final List<Long2ObjectHashMap<SlotSet>> byKind = new ArrayList<>(KINDS);
    private final ArrayDeque<SlotSet> spare = new ArrayDeque<>();

    OwnerIndex()
    {
        for (int k = 0; k < KINDS; k++)
        {
            byKind.add(new Long2ObjectHashMap<>());
        }
    }

    static long slotKey(final Pool pool, final int slot)
    {
        return ((long)pool.value() << 32) | (slot & 0xFFFF_FFFFL);
    }

    static Pool pool(final long slotKey)
    {
        return Pool.get((short)(slotKey >>> 32));
    }

    static int slot(final long slotKey)
    {
        return (int)slotKey;
    }

    void add(final SlotState state, final long owner, final Pool pool, final int slot)
    {
        if (state != SlotState.FREE)
        {
            final Long2ObjectHashMap<SlotSet> owners = byKind.get(state.value());
            SlotSet set = owners.get(owner);
            if (set == null)
            {
                set = spare.isEmpty() ? new SlotSet() : spare.pop();
                owners.put(owner, set);
            }
            set.add(slotKey(pool, slot));
        }
    }

    void remove(final SlotState state, final long owner, final Pool pool, final int slot)
    {
        if (state != SlotState.FREE)
        {
            final Long2ObjectHashMap<SlotSet> owners = byKind.get(state.value());
            final SlotSet set = owners.get(owner);
            if (set != null)
            {
                set.remove(slotKey(pool, slot));
                if (set.size == 0)
                {
                    owners.remove(owner);
                    spare.push(set);
                }
            }
        }
    }

    /**
     * @param state owner kind.
     * @param owner owner id.
     * @return true when the owner holds at least one slot (no snapshot taken).
     */
    boolean owns(final SlotState state, final long owner)
    {
        return state != SlotState.FREE && byKind.get(state.value()).containsKey(owner);
    }

    /**
     * @param state owner kind.
     * @param owner owner id.
     * @return slot keys held, in order (a snapshot).
     */
    Iterable<Long> owned(final SlotState state, final long owner)
    {
        final SlotSet set = state == SlotState.FREE ? null : byKind.get(state.value()).get(owner);
        if (set == null)
        {
            return Collections.emptyList();
        }
        final long[] keys = Arrays.copyOf(set.keys, set.size);
        return () -> new Iterator<>()
        {
            private int next;

            @Override
            public boolean hasNext()
            {
                return next < keys.length;
            }

            @Override
            public Long next()
            {
                if (next == keys.length)
                {
                    throw new NoSuchElementException();
                }
                return keys[next++];
            }
        };
    }

    /**
     * @param state owner kind.
     * @param owner owner id.
     * @return the owner's slot keys, sorted: a live view, not a copy, for loops that change no owner's slots.
     */
    SlotSet keys(final SlotState state, final long owner)
    {
        final SlotSet set = state == SlotState.FREE ? null : byKind.get(state.value()).get(owner);
        return set == null ? SlotSet.EMPTY : set;
    }

    int count(final SlotState state, final long owner, final Pool pool)
    {
        final SlotSet set = state == SlotState.FREE ? null : byKind.get(state.value()).get(owner);
        if (set == null)
        {
            return 0;
        }
        return set.lowerBound(((long)pool.value() + 1) << 32) - set.lowerBound(slotKey(pool, 0));
    }

    /** One owner's slot keys, sorted, without duplicates. */
    static final class SlotSet
    {
        static final SlotSet EMPTY = new SlotSet();

        private long[] keys = new long[8];
        private int size;

        int size()
        {
            return size;
        }

        long key(final int index)
        {
            return keys[index];
        }

        void add(final long key)
        {
            final int at = lowerBound(key);
            if (at < size && keys[at] == key)
            {
                return;
            }
            if (size == keys.length)
            {
                keys = Arrays.copyOf(keys, size * 2);
            }
            System.arraycopy(keys, at, keys, at + 1, size - at);
            keys[at] = key;
            size++;
        }

        void remove(final long key)
        {
            final int at = lowerBound(key);
            if (at < size && keys[at] == key)
            {
                System.arraycopy(keys, at + 1, keys, at, size - at - 1);
                size--;
            }
        }

        /** Index of the first key not less than {@code key}. */
        int lowerBound(final long key)
        {
            int low = 0;
            int high = size;
            while (low < high)
            {
                final int mid = (low + high) >>> 1;
                if (keys[mid] < key)
                {
                    low = mid + 1;
                }
                else
                {
                    high = mid;
                }
            }
            return low;
        }
    }
}
