package io.kvledger.journal;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The body of a {@code CompactDocument} (schema version 2): one input, its result code and its effects in a
 * variable-length encoding, so that a document costs bytes in proportion to what changed rather than ~50 bytes per
 * effect. Decoding hands back exactly the records the version-1 {@code Document} held: every effect individually,
 * in order, every column restored.
 * <pre>
 *   varint   sequence
 *   zigzag   timestampNs
 *   uint8    inputType code
 *   uint8    flags: bit 0 ok, bit 1 request, bit 2 op, bits 3..7 value1..value5 present (absent = null id / 0)
 *   zigzag   resultCode
 *   zigzag   request, op, value1 .. value5, each only when present
 *   schema version 2:
 *     varint fingerprint count, then per fingerprint hi, lo as int64 little-endian
 *   schema version 3:
 *     varint (fingerprint count << 1) | shared bit
 *     when the shared bit is set: varint back (the referenced document's sequence = sequence - back, at least 1),
 *         varint shared (1 .. count): the first shared fingerprints are that document's first ones, taken from the
 *         {@link FingerprintWindow} every reader keeps
 *     per fingerprint not shared: hi, lo as int64 little-endian
 *   varint   effect count (after runs are expanded)
 *   records until the count is reached:
 *     uint8 effect type code (1..127) = one effect:
 *         uint16 LE presence mask: bits 0..8 pool, fromState, toState, component, opKind, role, reason,
 *         requestFrom, requestTo (one uint8 code each when present, otherwise null); bits 9..13 id, owner,
 *         value1, value2, value3 (one zigzag each when present, otherwise null id / null id / 0 / 0 / 0)
 *     uint8 {@link #RUN} = effects equal to the previous effect except their id:
 *         varint segment count, then per segment: zigzag (first id - (previous effect's id + 1)), varint length;
 *         a segment of length n stands for ids first, first + 1, ... first + n - 1
 * </pre>
 * A varint is unsigned LEB128 (at most 10 bytes); a zigzag is a signed value zigzag-mapped then written as a varint.
 * The encoder emits a run whenever effects repeat except for their id (slot transitions, op targets, locks of one
 * admission): 64 consecutive slot transitions cost about 16 bytes instead of 3,200. Since schema version 3 an
 * {@code ARRIVE} whose fingerprints begin like a recent {@code ARRIVE}'s writes that part as a reference (a prompt's
 * next turn costs its new pages, not its history). Encoding and decoding allocate nothing once the window has grown;
 * decoding never throws on bad bytes. Not thread-safe; one codec per journal being written or read, documents in
 * journal order.
 */
public final class CompactDocumentCodec
{
    /** The schema version whose fingerprint field may refer to an earlier document. */
    public static final int SHARED_FINGERPRINTS_VERSION = 3;

    /** Record tag of a run; effect type codes stay below it. */
    public static final int RUN = 0x80;

    /** Worst-case bytes of one effect record. */
    public static final int MAX_EFFECT_BYTES = 1 + 2 + 9 + 5 * 10;

    /** Worst-case bytes before the fingerprints. */
    public static final int MAX_INPUT_BYTES = 10 + 10 + 1 + 1 + 5 + 7 * 10 + 10 + 10 + 10 + 10;

    private static final int CODE_COLUMNS = 9;
    private static final int FIRST_CODE_COLUMN = 1;
    private static final int ID_BIT = 1 << 9;
    private static final int OWNER_BIT = 1 << 10;
    private static final int VALUE1_BIT = 1 << 11;
    private static final int VALUE2_BIT = 1 << 12;
    private static final int VALUE3_BIT = 1 << 13;
    private static final int KNOWN_MASK_BITS = (1 << 14) - 1;

    private static final boolean[][] CODE_TABLES = {
        JournalCodes.POOLS, JournalCodes.SLOT_STATES, JournalCodes.SLOT_STATES, JournalCodes.COMPONENTS,
        JournalCodes.OP_KINDS, JournalCodes.ROLES, JournalCodes.REASONS, JournalCodes.REQUEST_STATES,
        JournalCodes.REQUEST_STATES};

    private final FingerprintWindow window;

    private MutableDirectBuffer out;
    private byte[] outArray;
    private int outBase;
    private int position;

    private DirectBuffer in;
    private int limit;
    private boolean overrun;
    private String error;
    private boolean badValue;

    /** A codec with its own fingerprint window. */
    public CompactDocumentCodec()
    {
        this(new FingerprintWindow());
    }

    /**
     * @param window the journal's fingerprint window; a writer's encoders on two threads may share one, used by one
     *               thread at a time.
     */
    public CompactDocumentCodec(final FingerprintWindow window)
    {
        this.window = window;
    }

    /** @return the fingerprint window this codec keeps. */
    public FingerprintWindow window()
    {
        return window;
    }

    /**
     * Worst-case body length of a document, to size the buffer before encoding.
     *
     * @param input   the input.
     * @param effects its effects.
     * @return bytes.
     */
    public static int maxLength(final InputRecord input, final EffectList effects)
    {
        return MAX_INPUT_BYTES + 16 * input.fingerprintCount() + 10 + MAX_EFFECT_BYTES * effects.size();
    }

    /**
     * Encode a validated document body.
     *
     * @param buffer     to write into; it must hold {@link #maxLength} bytes from {@code offset}.
     * @param offset     of the body.
     * @param input      the input, its type set.
     * @param resultCode result of applying it.
     * @param effects    its effects; each effect's codes are checked against their enums as it is written.
     * @return body length in bytes, or -1 when an effect has a code outside its enum ({@link #error()} says which).
     */
    public int encode(
        final MutableDirectBuffer buffer,
        final int offset,
        final InputRecord input,
        final int resultCode,
        final EffectList effects)
    {
        out = buffer;
        outArray = buffer.byteArray();
        outBase = null == outArray ? 0 : buffer.wrapAdjustment();
        position = offset;
        error = null;

        putVarLong(input.sequence());
        putZigZag(input.timestampNs());
        putByte(input.type().value());
        final long request = input.request();
        final long op = input.op();
        final long v1 = input.value1();
        final long v2 = input.value2();
        final long v3 = input.value3();
        final long v4 = input.value4();
        final long v5 = input.value5();
        final int flags = (input.ok() ? 1 : 0) | (request != InputRecord.NULL_ID ? 2 : 0) |
            (op != InputRecord.NULL_ID ? 4 : 0) | (v1 != 0 ? 8 : 0) | (v2 != 0 ? 16 : 0) | (v3 != 0 ? 32 : 0) |
            (v4 != 0 ? 64 : 0) | (v5 != 0 ? 128 : 0);
        putByte(flags);
        putZigZag(resultCode);
        if ((flags & 2) != 0)
        {
            putZigZag(request);
        }
        if ((flags & 4) != 0)
        {
            putZigZag(op);
        }
        if ((flags & 8) != 0)
        {
            putZigZag(v1);
        }
        if ((flags & 16) != 0)
        {
            putZigZag(v2);
        }
        if ((flags & 32) != 0)
        {
            putZigZag(v3);
        }
        if ((flags & 64) != 0)
        {
            putZigZag(v4);
        }
        if ((flags & 128) != 0)
        {
            putZigZag(v5);
        }

        final int fingerprints = input.fingerprintCount();
        int shared = InputType.ARRIVE == input.type() ? window.longestPrefix(input) : 0;
        final long back = input.sequence() - window.foundSequence();
        if (back < 1)
        {
            shared = 0;
        }
        putVarLong((long)fingerprints << 1 | (shared > 0 ? 1 : 0));
        if (shared > 0)
        {
            putVarLong(back);
            putVarLong(shared);
        }
        for (int i = shared; i < fingerprints; i++)
        {
            buffer.putLong(position, input.fingerprintHi(i), JournalFrame.BYTE_ORDER);
            buffer.putLong(position + 8, input.fingerprintLo(i), JournalFrame.BYTE_ORDER);
            position += 16;
        }

        final int count = effects.size();
        putVarLong(count);
        int i = 0;
        while (i < count)
        {
            if (i > 0 && effects.sameExceptId(i, i - 1))
            {
                i = encodeRun(effects, i, count);
            }
            else
            {
                if (!encodeEffect(effects, i))
                {
                    out = null;
                    outArray = null;
                    error = "effect " + i + " has a code that is not a value of its enum";
                    return -1;
                }
                i++;
            }
        }

        out = null;
        outArray = null;
        window.add(input);
        return position - offset;
    }

    private boolean encodeEffect(final EffectList effects, final int i)
    {
        final short type = effects.typeCode(i);
        if (!JournalCodes.isValid(JournalCodes.EFFECT_TYPES, type) || type >= RUN)
        {
            return false;
        }
        putByte(type);
        final int maskAt = position;
        position += 2;
        int mask = 0;
        for (int c = 0; c < CODE_COLUMNS; c++)
        {
            final short code = effects.code(i, FIRST_CODE_COLUMN + c);
            if (code != EffectList.NULL_CODE)
            {
                if (!JournalCodes.isValid(CODE_TABLES[c], code))
                {
                    return false;
                }
                mask |= 1 << c;
                putByte(code);
            }
        }
        final long id = effects.id(i);
        final long owner = effects.owner(i);
        final long v1 = effects.value1(i);
        final long v2 = effects.value2(i);
        final long v3 = effects.value3(i);
        if (id != InputRecord.NULL_ID)
        {
            mask |= ID_BIT;
            putZigZag(id);
        }
        if (owner != InputRecord.NULL_ID)
        {
            mask |= OWNER_BIT;
            putZigZag(owner);
        }
        if (v1 != 0)
        {
            mask |= VALUE1_BIT;
            putZigZag(v1);
        }
        if (v2 != 0)
        {
            mask |= VALUE2_BIT;
            putZigZag(v2);
        }
        if (v3 != 0)
        {
            mask |= VALUE3_BIT;
            putZigZag(v3);
        }
        out.putShort(maskAt, (short)mask, JournalFrame.BYTE_ORDER);
        return true;
    }

    /**
     * Encode effects {@code from ..} that repeat effect {@code from - 1} except for their id as one run record.
     *
     * @return index of the first effect after the run.
     */
    private int encodeRun(final EffectList effects, final int from, final int count)
    {
        final int end = effects.runEnd(from - 1, from + 1, count);
        int segments = 1;
        long expected = effects.id(from) + 1;
        for (int i = from + 1; i < end; i++)
        {
            final long id = effects.id(i);
            if (id != expected)
            {
                segments++;
            }
            expected = id + 1;
        }
        putByte(RUN);
        putVarLong(segments);
        long previous = effects.id(from - 1);
        int i = from;
        while (i < end)
        {
            final long first = effects.id(i);
            int length = 1;
            while (i + length < end && effects.id(i + length) == first + length)
            {
                length++;
            }
            putZigZag(first - (previous + 1));
            putVarLong(length);
            previous = first + length - 1;
            i += length;
        }
        return end;
    }

    /**
     * Decode a body into reused records.
     *
     * @param buffer  holding the body.
     * @param offset  of the body.
     * @param length  of the body.
     * @param input   record to fill (reset here); it must hold {@code fingerprintCount} fingerprints, see
     *                {@link #fingerprintCount}.
     * @param effects list to fill (cleared here).
     * @return the result code; check {@link #error()} first: non-null means the body is bad.
     */
    public int decode(
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final InputRecord input,
        final EffectList effects)
    {
        return decode(buffer, offset, length, SHARED_FINGERPRINTS_VERSION, input, effects);
    }

    /**
     * Decode a body written with a given schema version into reused records; a version-3 {@code ARRIVE} joins the
     * fingerprint window.
     *
     * @param buffer        holding the body.
     * @param offset        of the body.
     * @param length        of the body.
     * @param schemaVersion the version in the frame's message header (2 or 3).
     * @param input         record to fill (reset here); it must hold {@code fingerprintCount} fingerprints, see
     *                      {@link #fingerprintCount}.
     * @param effects       list to fill (cleared here).
     * @return the result code; check {@link #error()} first: non-null means the body is bad.
     */
    public int decode(
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final int schemaVersion,
        final InputRecord input,
        final EffectList effects)
    {
        in = buffer;
        position = offset;
        limit = offset + length;
        overrun = false;
        error = null;
        badValue = false;

        final long sequence = getVarLong();
        final long timestampNs = getZigZag();
        final short type = (short)getByte();
        final int flags = getByte();
        final long resultCode = getZigZag();
        final long request = (flags & 2) != 0 ? getZigZag() : InputRecord.NULL_ID;
        final long op = (flags & 4) != 0 ? getZigZag() : InputRecord.NULL_ID;
        final long v1 = (flags & 8) != 0 ? getZigZag() : 0;
        final long v2 = (flags & 16) != 0 ? getZigZag() : 0;
        final long v3 = (flags & 32) != 0 ? getZigZag() : 0;
        final long v4 = (flags & 64) != 0 ? getZigZag() : 0;
        final long v5 = (flags & 128) != 0 ? getZigZag() : 0;
        final boolean sharing = schemaVersion >= SHARED_FINGERPRINTS_VERSION;
        final long field = getVarLong();
        final long fingerprints = sharing ? field >>> 1 : field;
        final long back = sharing && (field & 1) != 0 ? getVarLong() : 0;
        final long shared = sharing && (field & 1) != 0 ? getVarLong() : 0;
        if (overrun)
        {
            return fail("document body of " + length + " bytes ends inside the input");
        }
        if (!JournalCodes.isValid(JournalCodes.INPUT_TYPES, type))
        {
            badValue = true;
            return fail("input type " + type + " out of range");
        }
        if (resultCode != (int)resultCode)
        {
            return fail("result code " + resultCode + " out of range");
        }
        if (fingerprints > input.fingerprintCapacity() || (fingerprints - shared) * 16 > limit - position)
        {
            return fail("fingerprint count " + fingerprints + " does not fit the frame");
        }
        if ((field & 1) != 0 && sharing && (shared < 1 || shared > fingerprints || back < 1 || back >= sequence))
        {
            return fail("shared fingerprints " + shared + " of " + fingerprints + " from " + back +
                " documents back are out of range");
        }

        input.reset()
            .type(InputType.get(type))
            .sequence(sequence)
            .timestampNs(timestampNs)
            .ok((flags & 1) != 0)
            .request(request)
            .op(op)
            .value1(v1)
            .value2(v2)
            .value3(v3)
            .value4(v4)
            .value5(v5);
        if (shared > 0 && !window.copyPrefix(sequence - back, (int)shared, input))
        {
            return fail("fingerprints refer to document " + (sequence - back) + ", which is not an ARRIVE of the " +
                "last " + FingerprintWindow.MAX_ENTRIES + " with that many fingerprints");
        }
        for (long i = shared; i < fingerprints; i++)
        {
            input.addFingerprint(buffer.getLong(position, JournalFrame.BYTE_ORDER),
                buffer.getLong(position + 8, JournalFrame.BYTE_ORDER));
            position += 16;
        }

        final long count = getVarLong();
        if (overrun || count > JournalFrame.MAX_GROUP_COUNT)
        {
            return fail("effect count " + count + " does not fit the frame");
        }
        effects.clear();
        while (effects.size() < count)
        {
            final int tag = getByte();
            if (overrun)
            {
                return fail("document body ends after " + effects.size() + " of " + count + " effects");
            }
            if (RUN == tag)
            {
                if (!decodeRun(effects, (int)count))
                {
                    return fail(null == error ? "run after effect " + effects.size() + " does not fit" : error);
                }
            }
            else if (!decodeEffect(effects, (short)tag))
            {
                return fail(null == error ? "effect " + effects.size() + " does not fit the frame" : error);
            }
        }
        if (position != limit)
        {
            return fail("document body has " + (limit - position) + " bytes after its last effect");
        }
        in = null;
        if (sharing)
        {
            window.add(input);
        }
        return (int)resultCode;
    }

    /**
     * The fingerprint count a body declares, to size the input record before {@link #decode}.
     *
     * @param buffer holding the body.
     * @param offset of the body.
     * @param length of the body.
     * @return the count, or -1 when the body is too short to say.
     */
    public long fingerprintCount(final DirectBuffer buffer, final int offset, final int length)
    {
        return fingerprintCount(buffer, offset, length, SHARED_FINGERPRINTS_VERSION);
    }

    /**
     * The fingerprint count a body written with a given schema version declares.
     *
     * @param buffer        holding the body.
     * @param offset        of the body.
     * @param length        of the body.
     * @param schemaVersion the version in the frame's message header.
     * @return the count, or -1 when the body is too short to say.
     */
    public long fingerprintCount(final DirectBuffer buffer, final int offset, final int length, final int schemaVersion)
    {
        in = buffer;
        position = offset;
        limit = offset + length;
        overrun = false;
        getVarLong();
        getZigZag();
        getByte();
        final int flags = getByte();
        getZigZag();
        for (int bit = 2; bit <= 128; bit <<= 1)
        {
            if ((flags & bit) != 0)
            {
                getZigZag();
            }
        }
        final long field = getVarLong();
        final long count = schemaVersion >= SHARED_FINGERPRINTS_VERSION ? field >>> 1 : field;
        in = null;
        return overrun || count < 0 ? -1 : count;
    }

    /** @return whether the last failed {@link #decode} found an enum code out of range (not a size problem). */
    public boolean badValue()
    {
        return badValue;
    }

    /** @return why the last {@link #decode} failed, or null when it succeeded. */
    public String error()
    {
        return error;
    }

    private boolean decodeEffect(final EffectList effects, final short type)
    {
        if (!JournalCodes.isValid(JournalCodes.EFFECT_TYPES, type))
        {
            badValue = true;
            error = "effect " + effects.size() + " has unknown effect type " + type;
            return false;
        }
        final int mask = getShort();
        if (overrun)
        {
            return false;
        }
        if ((mask & ~KNOWN_MASK_BITS) != 0)
        {
            error = "effect " + effects.size() + " has unknown column bits 0x" + Integer.toHexString(mask);
            return false;
        }
        final int index = effects.add(EffectType.get(type));
        for (int c = 0; c < CODE_COLUMNS; c++)
        {
            if ((mask & (1 << c)) != 0)
            {
                final short code = (short)getByte();
                if (!JournalCodes.isValidOrNull(CODE_TABLES[c], code))
                {
                    badValue = true;
                    error = "effect " + index + " (" + EffectType.get(type) + ") has an enum code out of range";
                    return false;
                }
                effects.code(index, FIRST_CODE_COLUMN + c, code);
            }
        }
        effects
            .id(index, (mask & ID_BIT) != 0 ? getZigZag() : InputRecord.NULL_ID)
            .owner(index, (mask & OWNER_BIT) != 0 ? getZigZag() : InputRecord.NULL_ID)
            .value1(index, (mask & VALUE1_BIT) != 0 ? getZigZag() : 0)
            .value2(index, (mask & VALUE2_BIT) != 0 ? getZigZag() : 0)
            .value3(index, (mask & VALUE3_BIT) != 0 ? getZigZag() : 0);
        return !overrun;
    }

    private boolean decodeRun(final EffectList effects, final int count)
    {
        final int template = effects.size() - 1;
        if (template < 0)
        {
            error = "a run before the first effect";
            return false;
        }
        final long segments = getVarLong();
        if (overrun || segments < 1 || segments > count - effects.size())
        {
            return false;
        }
        long previous = effects.id(template);
        for (long s = 0; s < segments; s++)
        {
            final long first = previous + 1 + getZigZag();
            final long length = getVarLong();
            if (overrun || length < 1 || length > count - effects.size())
            {
                return false;
            }
            for (long k = 0; k < length; k++)
            {
                effects.addCopy(effects, template);
                effects.id(effects.size() - 1, first + k);
            }
            previous = first + length - 1;
        }
        return true;
    }

    private int fail(final String message)
    {
        error = message;
        in = null;
        return 0;
    }

    private void putByte(final int value)
    {
        if (null != outArray)
        {
            outArray[outBase + position++] = (byte)value;
        }
        else
        {
            out.putByte(position++, (byte)value);
        }
    }

    private void putVarLong(final long value)
    {
        long v = value;
        while ((v & ~0x7FL) != 0)
        {
            putByte((int)((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        putByte((int)v);
    }

    private void putZigZag(final long value)
    {
        putVarLong((value << 1) ^ (value >> 63));
    }

    private int getByte()
    {
        if (position >= limit)
        {
            overrun = true;
            return 0;
        }
        return in.getByte(position++) & 0xFF;
    }

    private int getShort()
    {
        if (position + 2 > limit)
        {
            overrun = true;
            return 0;
        }
        final int v = in.getShort(position, JournalFrame.BYTE_ORDER) & 0xFFFF;
        position += 2;
        return v;
    }

    private long getVarLong()
    {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7)
        {
            if (position >= limit)
            {
                overrun = true;
                return 0;
            }
            final int b = in.getByte(position++);
            result |= (long)(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
            {
                return result;
            }
        }
        overrun = true;
        return 0;
    }

    private long getZigZag()
    {
        final long v = getVarLong();
        return (v >>> 1) ^ -(v & 1);
    }
}
