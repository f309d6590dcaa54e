package io.kvledger.journal;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine thread's hand-over form: every document comes back exactly (every effect, every column, in order), and
 * a run of effects equal but for ids counting up by one crosses as one record.
 */
class RawDocumentTest
{
    private final ByteBuffer memory = ByteBuffer.allocateDirect(1 << 20);
    private final RawDocument raw = new RawDocument(memory);
    private final InputRecord back = new InputRecord(256);
    private final EffectList backEffects = new EffectList(4);

    @Test
    void shouldCollapseARunOfConsecutiveSlotsIntoOneRecord()
    {
        final InputRecord input = new InputRecord(4).type(InputType.ADMIT).sequence(9).timestampNs(9).request(3);
        final EffectList effects = new EffectList(8);
        for (int slot = 100; slot < 164; slot++)
        {
            effects.addSlotTransition(Pool.DEVICE_KV, slot, SlotState.FREE, SlotState.REQUEST, 3, -1);
        }
        effects.addSlotTransition(Pool.DEVICE_KV, 300, SlotState.FREE, SlotState.REQUEST, 3, -1);
        effects.addSlotTransition(Pool.DEVICE_KV, 301, SlotState.FREE, SlotState.NODE, 3, -1);

        assertEquals(RawDocument.FIXED_LENGTH + 3 * RawDocument.RECORD_LENGTH, raw.length(input, effects),
            "slots 100..163 are one record, slot 300 starts another (a gap), 301 a third (another state)");
        assertRoundTrip(input, 5, effects);
    }

    @Test
    void shouldGiveBackEveryDocumentExactly()
    {
        final Random random = new Random(42);
        final InputRecord input = new InputRecord(200);
        final EffectList effects = new EffectList(4);
        for (int d = 1; d <= 2_000; d++)
        {
            JournalTestData.document(42, d, input, effects, random.nextInt(60));
            // Runs of every shape: ids counting up, equal ids, ids counting down, runs broken by one column.
            final int runs = random.nextInt(4);
            for (int k = 0; k < runs; k++)
            {
                final long first = random.nextInt(1_000) - 500;
                final int length = 1 + random.nextInt(70);
                final int step = random.nextInt(3) - 1;
                final int broken = random.nextInt(length + 1);
                for (int i = 0; i < length; i++)
                {
                    final int e = effects.add(EffectType.LOCKED);
                    effects.id(e, first + (long)i * step).owner(e, 7).value1(e, i == broken ? 1 : 0);
                }
            }
            assertRoundTrip(input, d % 5 - 2, effects);
        }
    }

    private void assertRoundTrip(final InputRecord input, final int resultCode, final EffectList effects)
    {
        final int length = raw.length(input, effects);
        assertTrue(length <= RawDocument.FIXED_LENGTH + 16 * input.fingerprintCount() +
            RawDocument.RECORD_LENGTH * effects.size());
        memory.put(8 + length, (byte)0x5A);
        raw.write(8, input, resultCode, effects);
        assertEquals(input.fingerprintCount(), raw.fingerprintCount(8));

        assertEquals(resultCode, raw.read(8, back, backEffects));
        assertTrue(input.sameAs(back), "input of document " + input.sequence());
        assertEquals(-1, effects.firstDifference(backEffects), "effects of document " + input.sequence());
        assertEquals((byte)0x5A, memory.get(8 + length), "the write stays within the length");
    }
}
