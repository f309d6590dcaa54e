package io.kvledger.replay.check;

import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Which slots each owner (request, node, op, or op a slot is parked for) holds, across all pools. Keys are
 * {@code pool << 32 | slot} so iteration is in pool then slot order (deterministic reports).
 */
final class OwnerIndex
{
    private record Key(SlotState state, long owner)
    {
    }

    private final Map<Key, NavigableSet<Long>> slots = new HashMap<>();

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
            slots.computeIfAbsent(new Key(state, owner), k -> new TreeSet<>()).add(slotKey(pool, slot));
        }
    }

    void remove(final SlotState state, final long owner, final Pool pool, final int slot)
    {
        if (state != SlotState.FREE)
        {
            final Key key = new Key(state, owner);
            final NavigableSet<Long> set = slots.get(key);
            if (set != null)
            {
                set.remove(slotKey(pool, slot));
                if (set.isEmpty())
                {
                    slots.remove(key);
                }
            }
        }
    }

    /**
     * @param state owner kind.
     * @param owner owner id.
     * @return slot keys held, in order (read-only view).
     */
    NavigableSet<Long> owned(final SlotState state, final long owner)
    {
        final NavigableSet<Long> set = slots.get(new Key(state, owner));
        return set == null ? Collections.emptyNavigableSet() : Collections.unmodifiableNavigableSet(set);
    }

    int count(final SlotState state, final long owner, final Pool pool)
    {
        final NavigableSet<Long> set = slots.get(new Key(state, owner));
        if (set == null)
        {
            return 0;
        }
        final long from = slotKey(pool, 0);
        final long to = ((long)pool.value() + 1) << 32;
        return set.subSet(from, true, to, false).size();
    }
}
