package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.List;

/**
 * The last {@code limit} effects that touched one subject (slot, node, op or request), packed into a growing
 * {@code long[]} so a long journal does not keep millions of objects alive. Each entry also records the owner the
 * subject had after the effect (slots only). Not thread-safe.
 */
final class HistoryRing
{
    private static final int WORDS = 10;
    private static final int CODES = 10;
    private static final int SEQ = 0;
    private static final int CODES_LO = 1;
    private static final int CODES_HI = 2;
    private static final int ID = 3;
    private static final int OWNER = 4;
    private static final int V1 = 5;
    private static final int V2 = 6;
    private static final int V3 = 7;
    private static final int STATE_AFTER = 8;
    private static final int OWNER_AFTER = 9;

    private final int limit;
    private long[] data;
    private int start;
    private int count;
    private long dropped;

    HistoryRing(final int limit)
    {
        this.limit = limit;
        // Most subjects (ops above all) see a handful of effects: start small and grow to the limit.
        this.data = new long[Math.min(Math.max(0, limit), 4) * WORDS];
    }

    /**
     * Record one effect.
     *
     * @param sequence   document sequence.
     * @param effects    list holding the effect.
     * @param index      its index.
     * @param stateAfter subject's ownership state after the effect (slots), or null.
     * @param ownerAfter subject's owner after the effect (slots).
     */
    void add(final long sequence, final EffectList effects, final int index, final SlotState stateAfter,
        final long ownerAfter)
    {
        if (limit <= 0)
        {
            return;
        }
        if (count == limit)
        {
            start = start + 1 == limit ? 0 : start + 1;
            count--;
            dropped++;
        }
        else if (count * WORDS == data.length)
        {
            grow();
        }
        final int capacity = data.length / WORDS;
        final int at = start + count;
        final int o = (at >= capacity ? at - capacity : at) * WORDS;
        long lo = 0;
        for (int c = 0; c < 8; c++)
        {
            lo |= ((long)code(effects, index, c) & 0xFF) << (c * 8);
        }
        final long hi = ((long)code(effects, index, 8) & 0xFF) | (((long)code(effects, index, 9) & 0xFF) << 8);
        data[o + SEQ] = sequence;
        data[o + CODES_LO] = lo;
        data[o + CODES_HI] = hi;
        data[o + ID] = effects.id(index);
        data[o + OWNER] = effects.owner(index);
        data[o + V1] = effects.value1(index);
        data[o + V2] = effects.value2(index);
        data[o + V3] = effects.value3(index);
        data[o + STATE_AFTER] = stateAfter == null ? EffectList.NULL_CODE : stateAfter.value();
        data[o + OWNER_AFTER] = ownerAfter;
        count++;
    }

    int size()
    {
        return count;
    }

    /**
     * @return effects that fell out of the ring.
     */
    long dropped()
    {
        return dropped;
    }

    long sequence(final int n)
    {
        return data[offset(n) + SEQ];
    }

    SlotState stateAfter(final int n)
    {
        final long code = data[offset(n) + STATE_AFTER];
        return code == EffectList.NULL_CODE ? null : SlotState.get((short)code);
    }

    long ownerAfter(final int n)
    {
        return data[offset(n) + OWNER_AFTER];
    }

    /**
     * Unpack entry {@code n} (0 = oldest kept) into a scratch list.
     *
     * @param n       entry.
     * @param scratch list that receives it (cleared first).
     * @return index of the effect in the scratch list (always 0).
     */
    int unpack(final int n, final EffectList scratch)
    {
        final int o = offset(n);
        scratch.clear();
        final long lo = data[o + CODES_LO];
        final long hi = data[o + CODES_HI];
        final int i = scratch.add(EffectType.get((short)(lo & 0xFF)));
        for (int c = 1; c < CODES; c++)
        {
            final long word = c < 8 ? lo >>> (c * 8) : hi >>> ((c - 8) * 8);
            scratch.code(i, c, (short)(word & 0xFF));
        }
        scratch.id(i, data[o + ID]).owner(i, data[o + OWNER]).value1(i, data[o + V1]).value2(i, data[o + V2])
            .value3(i, data[o + V3]);
        return i;
    }

    /**
     * @param scratch list used to unpack.
     * @return the kept entries as readable history, oldest first.
     */
    List<HistoryEntry> entries(final EffectList scratch)
    {
        final List<HistoryEntry> out = new ArrayList<>(count);
        for (int n = 0; n < count; n++)
        {
            final int i = unpack(n, scratch);
            out.add(new HistoryEntry(sequence(n), EffectText.describe(scratch, i)));
        }
        return out;
    }

    private int offset(final int n)
    {
        return ((start + n) % (data.length / WORDS)) * WORDS;
    }

    private void grow()
    {
        final int capacity = data.length / WORDS;
        final int newCapacity = Math.min(limit, Math.max(4, capacity * 2));
        final long[] grown = new long[newCapacity * WORDS];
        for (int n = 0; n < count; n++)
        {
            System.arraycopy(data, offset(n), grown, n * WORDS, WORDS);
        }
        data = grown;
        start = 0;
    }

    /** Column {@code column} of the effect; the ring packs the same ten columns, in the list's own order. */
    private static short code(final EffectList effects, final int index, final int column)
    {
        return effects.code(index, column);
    }
}
