package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * A document as the engine thread hands it to the {@link Journaller}: the input record and effect list copied
 * column by column in native byte order, no encoding, so that the engine thread pays a few bulk copies and the
 * journaller thread does the encoding. Lives only in memory between the two threads; never written to disk.
 * <pre>
 *   long   sequence, timestampNs, request, op, value1 .. value5        (bytes 0 .. 71)
 *   int    result code                                                 (72)
 *   short  input type code; byte ok; byte 0                            (76)
 *   int    fingerprint count f; int effect count e                     (80, 84)
 *   long   fingerprint hi[f], then lo[f]                               (88)
 *   long   effect longs[e * 5]  (id, owner, value1 .. value3)
 *   short  effect codes[e * 10] (type, pool, states, component, op kind, role, reason, request states)
 * </pre>
 * Offsets are from the message start, which must be 8-byte aligned (ring records are).
 */
final class RawDocument
{
    /** Bytes before the fingerprints. */
    static final int FIXED_LENGTH = 88;
    private static final int EFFECT_LENGTH = 5 * Long.BYTES + 10 * Short.BYTES;

    private final ByteBuffer bytes;
    private final LongBuffer longs;
    private final ShortBuffer shorts;

    /**
     * @param buffer the memory both threads share (the ring's), in native byte order.
     */
    RawDocument(final ByteBuffer buffer)
    {
        bytes = buffer.duplicate().order(java.nio.ByteOrder.nativeOrder());
        longs = bytes.asLongBuffer();
        shorts = bytes.asShortBuffer();
    }

    /**
     * @return bytes of the raw form of a document.
     */
    static int length(final InputRecord input, final EffectList effects)
    {
        return FIXED_LENGTH + 2 * Long.BYTES * input.fingerprintCount() + EFFECT_LENGTH * effects.size();
    }

    /**
     * Write a document's raw form at {@code index} (8-byte aligned), {@link #length} bytes.
     */
    void write(final int index, final InputRecord input, final int resultCode, final EffectList effects)
    {
        bytes.putLong(index, input.sequence());
        bytes.putLong(index + 8, input.timestampNs());
        bytes.putLong(index + 16, input.request());
        bytes.putLong(index + 24, input.op());
        bytes.putLong(index + 32, input.value1());
        bytes.putLong(index + 40, input.value2());
        bytes.putLong(index + 48, input.value3());
        bytes.putLong(index + 56, input.value4());
        bytes.putLong(index + 64, input.value5());
        bytes.putInt(index + 72, resultCode);
        bytes.putShort(index + 76, input.type().value());
        bytes.put(index + 78, (byte)(input.ok() ? 1 : 0));
        bytes.put(index + 79, (byte)0);
        final int fingerprints = input.fingerprintCount();
        final int count = effects.size();
        bytes.putInt(index + 80, fingerprints);
        bytes.putInt(index + 84, count);
        final int longAt = (index + FIXED_LENGTH) / Long.BYTES;
        input.putFingerprints(longs, longAt);
        final int effectLongAt = longAt + 2 * fingerprints;
        effects.putColumns(longs, effectLongAt, shorts, (effectLongAt + 5 * count) * 4);
    }

    /**
     * Fingerprint count of the raw document at {@code index}, to size the record before {@link #read}.
     */
    int fingerprintCount(final int index)
    {
        return bytes.getInt(index + 80);
    }

    /**
     * Read the raw document at {@code index} into a record (holding {@link #fingerprintCount} fingerprints) and a
     * list.
     *
     * @return the result code.
     */
    int read(final int index, final InputRecord input, final EffectList effects)
    {
        input.reset()
            .sequence(bytes.getLong(index))
            .timestampNs(bytes.getLong(index + 8))
            .request(bytes.getLong(index + 16))
            .op(bytes.getLong(index + 24))
            .value1(bytes.getLong(index + 32))
            .value2(bytes.getLong(index + 40))
            .value3(bytes.getLong(index + 48))
            .value4(bytes.getLong(index + 56))
            .value5(bytes.getLong(index + 64))
            .type(InputType.get(bytes.getShort(index + 76)))
            .ok(bytes.get(index + 78) != 0);
        final int fingerprints = bytes.getInt(index + 80);
        final int count = bytes.getInt(index + 84);
        final int longAt = (index + FIXED_LENGTH) / Long.BYTES;
        input.getFingerprints(fingerprints, longs, longAt);
        final int effectLongAt = longAt + 2 * fingerprints;
        effects.getColumns(count, longs, effectLongAt, shorts, (effectLongAt + 5 * count) * 4);
        return bytes.getInt(index + 72);
    }
}
