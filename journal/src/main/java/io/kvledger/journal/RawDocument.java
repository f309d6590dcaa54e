package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;

/**
 * A document as the engine thread hands it to the {@link Journaller}: the input record and the effect list copied in
 * native byte order, no encoding, so that the engine thread pays a few plain copies and the journaller thread does
 * the encoding. A run of effects equal but for ids counting up by one (the slot transitions of an admission, the
 * pages of a node) crosses as one record with its length: a 64-page cold admission's document is a sixth of its
 * column-by-column size, and it is the engine thread's writes into ring memory the other core last read that cost.
 * Lives only in memory between the two threads; never written to disk.
 * <pre>
 *   long   sequence, timestampNs, request, op, value1 .. value5        (bytes 0 .. 71)
 *   int    result code                                                 (72)
 *   short  input type code; byte ok; byte 0                            (76)
 *   int    fingerprint count f; int effect count e                     (80, 84)
 *   int    record count r; int 0                                       (88, 92)
 *   long   fingerprint hi[f], then lo[f]                               (96)
 *   record[r], 64 bytes each: long id, owner, value1 .. value3; short codes[10] (type, pool, states, component,
 *          op kind, role, reason, request states); int n: the record stands for n effects, ids id .. id + n - 1
 * </pre>
 * Offsets are from the message start, which must be 8-byte aligned (ring records are).
 * <p>
 * Threads: {@link #length} then {@link #write} on the producer thread (they share the run scan), {@link #read} on the
 * consumer thread; the views are used with absolute indexes only.
 */
final class RawDocument
{
    /** Bytes before the fingerprints. */
    static final int FIXED_LENGTH = 96;
    /** Bytes of one record. */
    static final int RECORD_LENGTH = 64;
    private static final int COUNT_OFFSET = 60;

    private final ByteBuffer bytes;
    private final LongBuffer longs;
    /** Producer only: where each record's run ends, from the last {@link #length}. */
    private int[] runEnds = new int[256];
    private int records;

    /**
     * @param buffer the memory both threads share (the ring's), in native byte order.
     */
    RawDocument(final ByteBuffer buffer)
    {
        bytes = buffer.duplicate().order(java.nio.ByteOrder.nativeOrder());
        longs = bytes.asLongBuffer();
    }

    /**
     * Bytes of the raw form of a document; finds its runs for the {@link #write} that follows. Producer thread.
     *
     * @param input   the input.
     * @param effects its effects.
     * @return bytes.
     */
    int length(final InputRecord input, final EffectList effects)
    {
        final int size = effects.size();
        if (size > runEnds.length)
        {
            runEnds = new int[Math.max(size, 2 * runEnds.length)];
        }
        int count = 0;
        for (int i = 0; i < size; i = runEnds[count++])
        {
            runEnds[count] = effects.idRunEnd(i);
        }
        records = count;
        return FIXED_LENGTH + 2 * Long.BYTES * input.fingerprintCount() + RECORD_LENGTH * count;
    }

    /**
     * Write a document's raw form at {@code index} (8-byte aligned), the {@link #length} just computed for it.
     * Producer thread.
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
        bytes.putInt(index + 80, fingerprints);
        bytes.putInt(index + 84, effects.size());
        bytes.putInt(index + 88, records);
        bytes.putInt(index + 92, 0);
        input.putFingerprints(longs, (index + FIXED_LENGTH) / Long.BYTES);
        int at = index + FIXED_LENGTH + 2 * Long.BYTES * fingerprints;
        int from = 0;
        for (int r = 0; r < records; r++)
        {
            final int end = runEnds[r];
            effects.putRow(from, bytes, at);
            bytes.putInt(at + COUNT_OFFSET, end - from);
            at += RECORD_LENGTH;
            from = end;
        }
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
     * list, every run expanded. Consumer thread.
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
        final int recordCount = bytes.getInt(index + 88);
        input.getFingerprints(fingerprints, longs, (index + FIXED_LENGTH) / Long.BYTES);
        effects.clear();
        int at = index + FIXED_LENGTH + 2 * Long.BYTES * fingerprints;
        for (int r = 0; r < recordCount; r++)
        {
            effects.addRun(bytes, at, bytes.getInt(at + COUNT_OFFSET));
            at += RECORD_LENGTH;
        }
        return bytes.getInt(index + 72);
    }
}
