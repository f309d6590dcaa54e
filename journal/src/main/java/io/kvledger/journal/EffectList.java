package io.kvledger.journal;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;
import org.agrona.UnsafeApi;

/**
 * The ordered effects of one input, stored column-wise in primitive arrays that are reused for every input.
 * <p>
 * Enum columns hold the SBE enum's code; {@link #NULL_CODE} means "not applicable". Field meaning per
 * {@link EffectType} is given in the journal schema. Not thread-safe: owned by the engine thread, or by the
 * reader thread that decodes into it.
 */
public final class EffectList
{
    /** Code of an enum column that does not apply to an effect. */
    public static final short NULL_CODE = 255;

    private static final int TYPE = 0;
    private static final int POOL = 1;
    private static final int FROM_STATE = 2;
    private static final int TO_STATE = 3;
    private static final int COMPONENT = 4;
    private static final int OP_KIND = 5;
    private static final int ROLE = 6;
    private static final int REASON = 7;
    private static final int REQUEST_FROM = 8;
    private static final int REQUEST_TO = 9;
    private static final int CODE_COLUMNS = 10;
    private static final long SHORT_ARRAY_BASE = UnsafeApi.arrayBaseOffset(short[].class);
    private static final short SLOT_TRANSITION_CODE = EffectType.SLOT_TRANSITION.value();

    private static final int ID = 0;
    private static final int OWNER = 1;
    private static final int VALUE1 = 2;
    private static final int VALUE2 = 3;
    private static final int VALUE3 = 4;
    private static final int LONG_COLUMNS = 5;

    private short[] codes;
    private long[] longs;
    private int size;
    private final int maxCapacity;

    /**
     * @param initialCapacity effects held before the arrays grow (growth happens only while warming up).
     * @param maxCapacity     the most effects one input may cause, at most the journal's group limit
     *                        ({@link JournalFrame#MAX_GROUP_COUNT}): a list the journal cannot take never fills.
     */
    public EffectList(final int initialCapacity, final int maxCapacity)
    {
        this.maxCapacity = Math.min(maxCapacity, JournalFrame.MAX_GROUP_COUNT);
        codes = new short[initialCapacity * CODE_COLUMNS];
        longs = new long[initialCapacity * LONG_COLUMNS];
    }

    /**
     * An effect list that may hold up to the journal's group limit.
     *
     * @param initialCapacity effects held before the arrays grow.
     */
    public EffectList(final int initialCapacity)
    {
        this(initialCapacity, JournalFrame.MAX_GROUP_COUNT);
    }

    /** Forget every effect, keeping the arrays. */
    public void clear()
    {
        size = 0;
    }

    public int size()
    {
        return size;
    }

    /**
     * Start a new effect with every column null and return its index; the typed setters fill it.
     *
     * @param type of the effect.
     * @return index of the new effect.
     */
    public int add(final EffectType type)
    {
        if (size == maxCapacity)
        {
            throw new IllegalStateException("more than " + maxCapacity + " effects for one input");
        }
        if ((size + 1) * CODE_COLUMNS > codes.length)
        {
            final int newCapacity = Math.min(maxCapacity, Math.max(16, size * 2));
            final short[] newCodes = new short[newCapacity * CODE_COLUMNS];
            System.arraycopy(codes, 0, newCodes, 0, size * CODE_COLUMNS);
            codes = newCodes;
            final long[] newLongs = new long[newCapacity * LONG_COLUMNS];
            System.arraycopy(longs, 0, newLongs, 0, size * LONG_COLUMNS);
            longs = newLongs;
        }
        final int index = size++;
        final int c = index * CODE_COLUMNS;
        for (int i = 0; i < CODE_COLUMNS; i++)
        {
            codes[c + i] = NULL_CODE;
        }
        codes[c + TYPE] = type.value();
        final int l = index * LONG_COLUMNS;
        longs[l + ID] = InputRecord.NULL_ID;
        longs[l + OWNER] = InputRecord.NULL_ID;
        longs[l + VALUE1] = 0;
        longs[l + VALUE2] = 0;
        longs[l + VALUE3] = 0;
        return index;
    }

    /**
     * Add a {@code SLOT_TRANSITION} in one go (the engine records one per slot it moves, the most frequent effect):
     * the same columns as {@link #add} and the typed setters would write, each written once.
     *
     * @param pool          the pool.
     * @param slot          the slot (the id column).
     * @param from          its state before.
     * @param to            its state after.
     * @param owner         its owner after.
     * @param previousOwner its owner before (value1).
     * @return index of the new effect.
     */
    public int addSlotTransition(final Pool pool, final long slot, final SlotState from, final SlotState to,
        final long owner, final long previousOwner)
    {
        if (size == maxCapacity || (size + 1) * CODE_COLUMNS > codes.length)
        {
            final int i = add(EffectType.SLOT_TRANSITION);
            pool(i, pool).id(i, slot).fromState(i, from).toState(i, to).owner(i, owner).value1(i, previousOwner);
            return i;
        }
        final int index = size++;
        final int c = index * CODE_COLUMNS;
        final short[] code = codes;
        code[c + TYPE] = SLOT_TRANSITION_CODE;
        code[c + POOL] = pool.value();
        code[c + FROM_STATE] = from.value();
        code[c + TO_STATE] = to.value();
        code[c + COMPONENT] = NULL_CODE;
        code[c + OP_KIND] = NULL_CODE;
        code[c + ROLE] = NULL_CODE;
        code[c + REASON] = NULL_CODE;
        code[c + REQUEST_FROM] = NULL_CODE;
        code[c + REQUEST_TO] = NULL_CODE;
        final int l = index * LONG_COLUMNS;
        final long[] value = longs;
        value[l + ID] = slot;
        value[l + OWNER] = owner;
        value[l + VALUE1] = previousOwner;
        value[l + VALUE2] = 0;
        value[l + VALUE3] = 0;
        return index;
    }

    /**
     * Make this list a copy of another (every effect, every column), growing the arrays when needed.
     *
     * @param other list to copy.
     */
    public void copyFrom(final EffectList other)
    {
        if (other.size > maxCapacity)
        {
            throw new IllegalStateException("more than " + maxCapacity + " effects for one input");
        }
        if (other.size * CODE_COLUMNS > codes.length)
        {
            codes = new short[other.size * CODE_COLUMNS];
            longs = new long[other.size * LONG_COLUMNS];
        }
        System.arraycopy(other.codes, 0, codes, 0, other.size * CODE_COLUMNS);
        System.arraycopy(other.longs, 0, longs, 0, other.size * LONG_COLUMNS);
        size = other.size;
    }

    /**
     * Copy this list's columns into a buffer's views, as {@link RawDocument} lays them out: {@code size * 5} longs
     * from long index {@code longAt}, then {@code size * 10} shorts from short index {@code shortAt}.
     */
    void putColumns(final java.nio.LongBuffer longView, final int longAt, final java.nio.ShortBuffer shortView,
        final int shortAt)
    {
        longView.put(longAt, longs, 0, size * LONG_COLUMNS);
        shortView.put(shortAt, codes, 0, size * CODE_COLUMNS);
    }

    /**
     * The reverse of {@link #putColumns}: become a list of {@code count} effects read from the views, growing the
     * arrays when needed.
     */
    void getColumns(final int count, final java.nio.LongBuffer longView, final int longAt,
        final java.nio.ShortBuffer shortView, final int shortAt)
    {
        if (count * CODE_COLUMNS > codes.length)
        {
            codes = new short[count * CODE_COLUMNS];
            longs = new long[count * LONG_COLUMNS];
        }
        longView.get(longAt, longs, 0, count * LONG_COLUMNS);
        shortView.get(shortAt, codes, 0, count * CODE_COLUMNS);
        size = count;
    }

    /**
     * Append a copy of effect {@code index} of another list.
     *
     * @param other list to copy from.
     * @param index of the effect in that list.
     */
    public void addCopy(final EffectList other, final int index)
    {
        final int i = add(other.type(index));
        System.arraycopy(other.codes, index * CODE_COLUMNS, codes, i * CODE_COLUMNS, CODE_COLUMNS);
        System.arraycopy(other.longs, index * LONG_COLUMNS, longs, i * LONG_COLUMNS, LONG_COLUMNS);
    }

    /**
     * Whether effect {@code index} equals effect {@code otherIndex} of another list, column by column.
     *
     * @param index      in this list.
     * @param other      list.
     * @param otherIndex in the other list.
     * @return true when every column is equal.
     */
    public boolean sameAs(final int index, final EffectList other, final int otherIndex)
    {
        return id(index) == other.id(otherIndex) && sameExceptId(this, index, other, otherIndex);
    }

    /**
     * Whether two effects of this list are equal in every column except the id (a run in the compact encoding).
     *
     * @param index a first effect.
     * @param other a second effect.
     * @return true when only the ids may differ.
     */
    public boolean sameExceptId(final int index, final int other)
    {
        return sameExceptId(this, index, this, other);
    }

    /**
     * Whether effect {@code i} of {@code a} and effect {@code j} of {@code b} are equal in every column but the id: the
     * ten code columns' 20 bytes compared as two longs and an int (the encoder asks this of every effect; three times
     * faster than ten short comparisons), then owner and the three values.
     */
    private static boolean sameExceptId(final EffectList a, final int i, final EffectList b, final int j)
    {
        final long x = SHORT_ARRAY_BASE + (long)i * CODE_COLUMNS * Short.BYTES;
        final long y = SHORT_ARRAY_BASE + (long)j * CODE_COLUMNS * Short.BYTES;
        final int l = i * LONG_COLUMNS;
        final int o = j * LONG_COLUMNS;
        return UnsafeApi.getLong(a.codes, x) == UnsafeApi.getLong(b.codes, y) &&
            UnsafeApi.getLong(a.codes, x + 8) == UnsafeApi.getLong(b.codes, y + 8) &&
            UnsafeApi.getInt(a.codes, x + 16) == UnsafeApi.getInt(b.codes, y + 16) &&
            a.longs[l + OWNER] == b.longs[o + OWNER] && a.longs[l + VALUE1] == b.longs[o + VALUE1] &&
            a.longs[l + VALUE2] == b.longs[o + VALUE2] && a.longs[l + VALUE3] == b.longs[o + VALUE3];
    }

    /**
     * End of a run: the first index from {@code from} (up to {@code end}) whose effect differs from effect
     * {@code base} in a column other than the id. Equal to scanning with {@link #sameExceptId(int, int)} against each
     * previous effect (equality but for the id is transitive); comparing with the one base effect lets the compiler
     * keep its columns out of the loop: the compact encoder's hottest loop.
     *
     * @param base an effect.
     * @param from first index to compare, after {@code base}.
     * @param end  index to stop at, at most {@link #size()}.
     * @return the end of the run of effects equal to {@code base} but for their ids.
     */
    public int runEnd(final int base, final int from, final int end)
    {
        int i = from;
        while (i < end && sameExceptId(this, base, this, i))
        {
            i++;
        }
        return i;
    }

    /**
     * Index of the first effect that differs from the other list, or -1 when both lists are equal.
     *
     * @param other list to compare with.
     * @return first differing index (possibly the shorter list's size), or -1.
     */
    public int firstDifference(final EffectList other)
    {
        final int common = Math.min(size, other.size);
        for (int i = 0; i < common; i++)
        {
            if (!sameAs(i, other, i))
            {
                return i;
            }
        }
        return size == other.size ? -1 : common;
    }

    // ---- column access: raw codes (for codecs and hashing) ----

    public short typeCode(final int index)
    {
        return codes[index * CODE_COLUMNS + TYPE];
    }

    public short poolCode(final int index)
    {
        return codes[index * CODE_COLUMNS + POOL];
    }

    public short fromStateCode(final int index)
    {
        return codes[index * CODE_COLUMNS + FROM_STATE];
    }

    public short toStateCode(final int index)
    {
        return codes[index * CODE_COLUMNS + TO_STATE];
    }

    public short componentCode(final int index)
    {
        return codes[index * CODE_COLUMNS + COMPONENT];
    }

    public short opKindCode(final int index)
    {
        return codes[index * CODE_COLUMNS + OP_KIND];
    }

    public short roleCode(final int index)
    {
        return codes[index * CODE_COLUMNS + ROLE];
    }

    public short reasonCode(final int index)
    {
        return codes[index * CODE_COLUMNS + REASON];
    }

    public short requestFromCode(final int index)
    {
        return codes[index * CODE_COLUMNS + REQUEST_FROM];
    }

    public short requestToCode(final int index)
    {
        return codes[index * CODE_COLUMNS + REQUEST_TO];
    }

    /**
     * Set a raw code column; used by the decoder.
     *
     * @param index  of the effect.
     * @param column 0..9 in the order type, pool, fromState, toState, component, opKind, role, reason,
     *               requestFrom, requestTo.
     * @param code   raw enum code or {@link #NULL_CODE}.
     */
    public void code(final int index, final int column, final short code)
    {
        codes[index * CODE_COLUMNS + column] = code;
    }

    /**
     * Read a raw code column.
     *
     * @param index  of the effect.
     * @param column 0..9, as for {@link #code(int, int, short)}.
     * @return raw enum code or {@link #NULL_CODE}.
     */
    public short code(final int index, final int column)
    {
        return codes[index * CODE_COLUMNS + column];
    }

    // ---- typed access ----

    public EffectType type(final int index)
    {
        return EffectType.get(typeCode(index));
    }

    public Pool pool(final int index)
    {
        return Pool.get(poolCode(index));
    }

    public SlotState fromState(final int index)
    {
        return SlotState.get(fromStateCode(index));
    }

    public SlotState toState(final int index)
    {
        return SlotState.get(toStateCode(index));
    }

    public Component component(final int index)
    {
        return Component.get(componentCode(index));
    }

    public OpKind opKind(final int index)
    {
        return OpKind.get(opKindCode(index));
    }

    public Role role(final int index)
    {
        return Role.get(roleCode(index));
    }

    public Reason reason(final int index)
    {
        return Reason.get(reasonCode(index));
    }

    public RequestState requestFrom(final int index)
    {
        return RequestState.get(requestFromCode(index));
    }

    public RequestState requestTo(final int index)
    {
        return RequestState.get(requestToCode(index));
    }

    public long id(final int index)
    {
        return longs[index * LONG_COLUMNS + ID];
    }

    public long owner(final int index)
    {
        return longs[index * LONG_COLUMNS + OWNER];
    }

    public long value1(final int index)
    {
        return longs[index * LONG_COLUMNS + VALUE1];
    }

    public long value2(final int index)
    {
        return longs[index * LONG_COLUMNS + VALUE2];
    }

    public long value3(final int index)
    {
        return longs[index * LONG_COLUMNS + VALUE3];
    }

    // ---- setters, fluent on the index ----

    public EffectList pool(final int index, final Pool pool)
    {
        codes[index * CODE_COLUMNS + POOL] = pool.value();
        return this;
    }

    public EffectList fromState(final int index, final SlotState state)
    {
        codes[index * CODE_COLUMNS + FROM_STATE] = state.value();
        return this;
    }

    public EffectList toState(final int index, final SlotState state)
    {
        codes[index * CODE_COLUMNS + TO_STATE] = state.value();
        return this;
    }

    public EffectList component(final int index, final Component component)
    {
        codes[index * CODE_COLUMNS + COMPONENT] = component.value();
        return this;
    }

    public EffectList opKind(final int index, final OpKind kind)
    {
        codes[index * CODE_COLUMNS + OP_KIND] = kind.value();
        return this;
    }

    public EffectList role(final int index, final Role role)
    {
        codes[index * CODE_COLUMNS + ROLE] = role.value();
        return this;
    }

    public EffectList reason(final int index, final Reason reason)
    {
        codes[index * CODE_COLUMNS + REASON] = reason.value();
        return this;
    }

    public EffectList requestFrom(final int index, final RequestState state)
    {
        codes[index * CODE_COLUMNS + REQUEST_FROM] = state.value();
        return this;
    }

    public EffectList requestTo(final int index, final RequestState state)
    {
        codes[index * CODE_COLUMNS + REQUEST_TO] = state.value();
        return this;
    }

    public EffectList id(final int index, final long id)
    {
        longs[index * LONG_COLUMNS + ID] = id;
        return this;
    }

    public EffectList owner(final int index, final long owner)
    {
        longs[index * LONG_COLUMNS + OWNER] = owner;
        return this;
    }

    public EffectList value1(final int index, final long value)
    {
        longs[index * LONG_COLUMNS + VALUE1] = value;
        return this;
    }

    public EffectList value2(final int index, final long value)
    {
        longs[index * LONG_COLUMNS + VALUE2] = value;
        return this;
    }

    public EffectList value3(final int index, final long value)
    {
        longs[index * LONG_COLUMNS + VALUE3] = value;
        return this;
    }
}
