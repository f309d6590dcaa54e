package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;

/**
 * One engine input: the ring event of the live loop, the record replay feeds back, and the input half of a
 * journal document. Mutable and reused; allocation happens only at construction.
 * <p>
 * What {@code value1..value5} mean per {@link InputType} is said in one place, {@link Inputs}: build and read
 * inputs through its typed encoders and named accessors (the journal schema describes the same for its readers).
 * Not thread-safe: a producer fills it, then ownership passes to the engine thread through the ring.
 */
public final class InputRecord
{
    /** Value of an id field that does not apply. */
    public static final long NULL_ID = -1L;

    private final long[] fingerprintHi;
    private final long[] fingerprintLo;
    private int fingerprintCount;

    private InputType type = InputType.TICK;
    private long sequence;
    private long timestampNs;
    private boolean ok = true;
    private long request = NULL_ID;
    private long op = NULL_ID;
    private long value1;
    private long value2;
    private long value3;
    private long value4;
    private long value5;

    /**
     * @param maxFingerprints the most page fingerprints one input can carry.
     */
    public InputRecord(final int maxFingerprints)
    {
        fingerprintHi = new long[maxFingerprints];
        fingerprintLo = new long[maxFingerprints];
    }

    /**
     * Clear every field back to its null value, keeping the fingerprint arrays.
     *
     * @return this for a fluent style.
     */
    public InputRecord reset()
    {
        type = InputType.TICK;
        sequence = 0;
        timestampNs = 0;
        ok = true;
        request = NULL_ID;
        op = NULL_ID;
        value1 = 0;
        value2 = 0;
        value3 = 0;
        value4 = 0;
        value5 = 0;
        fingerprintCount = 0;
        return this;
    }

    /**
     * Copy every field of another record into this one.
     *
     * @param other to copy from.
     * @return this for a fluent style.
     */
    public InputRecord copyFrom(final InputRecord other)
    {
        if (other.fingerprintCount > fingerprintHi.length)
        {
            throw new IllegalArgumentException("fingerprints " + other.fingerprintCount + " > capacity " +
                fingerprintHi.length);
        }
        type = other.type;
        sequence = other.sequence;
        timestampNs = other.timestampNs;
        ok = other.ok;
        request = other.request;
        op = other.op;
        value1 = other.value1;
        value2 = other.value2;
        value3 = other.value3;
        value4 = other.value4;
        value5 = other.value5;
        fingerprintCount = other.fingerprintCount;
        System.arraycopy(other.fingerprintHi, 0, fingerprintHi, 0, fingerprintCount);
        System.arraycopy(other.fingerprintLo, 0, fingerprintLo, 0, fingerprintCount);
        return this;
    }

    /**
     * Copy the fingerprints into a buffer's long view, as {@link RawDocument} lays them out: the high halves from
     * long index {@code at}, then the low halves.
     */
    void putFingerprints(final java.nio.LongBuffer view, final int at)
    {
        view.put(at, fingerprintHi, 0, fingerprintCount);
        view.put(at + fingerprintCount, fingerprintLo, 0, fingerprintCount);
    }

    /**
     * The reverse of {@link #putFingerprints}; the record must hold {@code count} fingerprints.
     */
    void getFingerprints(final int count, final java.nio.LongBuffer view, final int at)
    {
        view.get(at, fingerprintHi, 0, count);
        view.get(at + count, fingerprintLo, 0, count);
        fingerprintCount = count;
    }

    /**
     * Whether another record holds the same input, fingerprints included.
     *
     * @param other to compare.
     * @return true when every field is equal.
     */
    public boolean sameAs(final InputRecord other)
    {
        if (type != other.type || sequence != other.sequence || timestampNs != other.timestampNs || ok != other.ok ||
            request != other.request || op != other.op || value1 != other.value1 || value2 != other.value2 ||
            value3 != other.value3 || value4 != other.value4 || value5 != other.value5 ||
            fingerprintCount != other.fingerprintCount)
        {
            return false;
        }
        for (int i = 0; i < fingerprintCount; i++)
        {
            if (fingerprintHi[i] != other.fingerprintHi[i] || fingerprintLo[i] != other.fingerprintLo[i])
            {
                return false;
            }
        }
        return true;
    }

    public int fingerprintCapacity()
    {
        return fingerprintHi.length;
    }

    public int fingerprintCount()
    {
        return fingerprintCount;
    }

    public long fingerprintHi(final int index)
    {
        return fingerprintHi[index];
    }

    public long fingerprintLo(final int index)
    {
        return fingerprintLo[index];
    }

    /**
     * Append {@code count} page fingerprints in one go (a bulk copy, as a caller holding a prompt's fingerprints in
     * arrays hands them over).
     *
     * @param hi    high 64 bits, from {@code from}.
     * @param lo    low 64 bits, from {@code from}.
     * @param from  index of the first fingerprint in the arrays.
     * @param count how many.
     * @return this for a fluent style.
     * @throws IllegalStateException when the record's capacity would be exceeded; nothing is appended then.
     */
    public InputRecord addFingerprints(final long[] hi, final long[] lo, final int from, final int count)
    {
        if (count > fingerprintHi.length - fingerprintCount)
        {
            throw new IllegalStateException("fingerprint capacity " + fingerprintHi.length + " exceeded");
        }
        System.arraycopy(hi, from, fingerprintHi, fingerprintCount, count);
        System.arraycopy(lo, from, fingerprintLo, fingerprintCount, count);
        fingerprintCount += count;
        return this;
    }

    /**
     * Append one page fingerprint.
     *
     * @param hi high 64 bits.
     * @param lo low 64 bits.
     * @return this for a fluent style.
     */
    public InputRecord addFingerprint(final long hi, final long lo)
    {
        if (fingerprintCount == fingerprintHi.length)
        {
            throw new IllegalStateException("fingerprint capacity " + fingerprintHi.length + " exceeded");
        }
        fingerprintHi[fingerprintCount] = hi;
        fingerprintLo[fingerprintCount] = lo;
        fingerprintCount++;
        return this;
    }

    public InputType type()
    {
        return type;
    }

    public InputRecord type(final InputType type)
    {
        this.type = type;
        return this;
    }

    public long sequence()
    {
        return sequence;
    }

    public InputRecord sequence(final long sequence)
    {
        this.sequence = sequence;
        return this;
    }

    public long timestampNs()
    {
        return timestampNs;
    }

    public InputRecord timestampNs(final long timestampNs)
    {
        this.timestampNs = timestampNs;
        return this;
    }

    public boolean ok()
    {
        return ok;
    }

    public InputRecord ok(final boolean ok)
    {
        this.ok = ok;
        return this;
    }

    public long request()
    {
        return request;
    }

    public InputRecord request(final long request)
    {
        this.request = request;
        return this;
    }

    public long op()
    {
        return op;
    }

    public InputRecord op(final long op)
    {
        this.op = op;
        return this;
    }

    public long value1()
    {
        return value1;
    }

    public InputRecord value1(final long value1)
    {
        this.value1 = value1;
        return this;
    }

    public long value2()
    {
        return value2;
    }

    public InputRecord value2(final long value2)
    {
        this.value2 = value2;
        return this;
    }

    public long value3()
    {
        return value3;
    }

    public InputRecord value3(final long value3)
    {
        this.value3 = value3;
        return this;
    }

    public long value4()
    {
        return value4;
    }

    public InputRecord value4(final long value4)
    {
        this.value4 = value4;
        return this;
    }

    public long value5()
    {
        return value5;
    }

    public InputRecord value5(final long value5)
    {
        this.value5 = value5;
        return this;
    }
}
