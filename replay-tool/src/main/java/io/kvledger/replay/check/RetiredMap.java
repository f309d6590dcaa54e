package io.kvledger.replay.check;

import org.agrona.collections.Long2ObjectHashMap;

/**
 * The last {@code limit} retired subjects (ops, requests, nodes) by id, so a late effect naming one is still
 * explained while a long journal's memory stays bounded. Insertion-ordered like a {@code LinkedHashMap} that drops
 * its eldest entry past the limit, but keyed by primitive ids with recycled entries: no boxing, no allocation in
 * steady state. Not thread-safe.
 *
 * @param <V> the retired value.
 */
final class RetiredMap<V>
{
    private final Long2ObjectHashMap<Entry<V>> map = new Long2ObjectHashMap<>();
    private final int limit;
    private Entry<V> eldest;
    private Entry<V> youngest;
    private Entry<V> spare;

    /**
     * @param limit entries kept at most.
     */
    RetiredMap(final int limit)
    {
        this.limit = limit;
    }

    V get(final long id)
    {
        final Entry<V> entry = map.get(id);
        return entry == null ? null : entry.value;
    }

    boolean containsKey(final long id)
    {
        return map.containsKey(id);
    }

    /** Keep {@code value} for {@code id}; an id already kept keeps its place in the order. */
    void put(final long id, final V value)
    {
        final Entry<V> existing = map.get(id);
        if (existing != null)
        {
            existing.value = value;
            return;
        }
        Entry<V> entry = spare;
        if (entry != null)
        {
            spare = entry.next;
        }
        else
        {
            entry = new Entry<>();
        }
        entry.id = id;
        entry.value = value;
        entry.previous = youngest;
        entry.next = null;
        if (youngest != null)
        {
            youngest.next = entry;
        }
        else
        {
            eldest = entry;
        }
        youngest = entry;
        map.put(id, entry);
        if (map.size() > limit)
        {
            remove(eldest.id);
        }
    }

    V remove(final long id)
    {
        final Entry<V> entry = map.remove(id);
        if (entry == null)
        {
            return null;
        }
        if (entry.previous != null)
        {
            entry.previous.next = entry.next;
        }
        else
        {
            eldest = entry.next;
        }
        if (entry.next != null)
        {
            entry.next.previous = entry.previous;
        }
        else
        {
            youngest = entry.previous;
        }
        final V value = entry.value;
        entry.value = null;
        entry.previous = null;
        entry.next = spare;
        spare = entry;
        return value;
    }

    int size()
    {
        return map.size();
    }

    void clear()
    {
        while (eldest != null)
        {
            remove(eldest.id);
        }
    }

    private static final class Entry<V>
    {
        long id;
        V value;
        Entry<V> previous;
        Entry<V> next;
    }
}
