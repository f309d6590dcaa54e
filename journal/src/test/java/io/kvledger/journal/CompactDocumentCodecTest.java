package io.kvledger.journal;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The compact document body: every effect comes back individually with every column, runs of effects that differ
 * only in their id shrink to ranges, and no corruption of the bytes makes the decoder throw.
 */
class CompactDocumentCodecTest
{
    private final CompactDocumentCodec codec = new CompactDocumentCodec();
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(1024);
    private final InputRecord decodedInput = new InputRecord(256);
    private final EffectList decoded = new EffectList(16);

    @Test
    void shouldWriteSixtyFourConsecutiveSlotTransitionsAsOneRange()
    {
        final InputRecord input = new InputRecord(4).type(InputType.ADMIT).sequence(1_503).timestampNs(1_503)
            .request(301);
        final EffectList effects = new EffectList(128);
        lock(effects, 45, 301, 345);
        for (int slot = 16_736; slot < 16_736 + 64; slot++)
        {
            transition(effects, slot, SlotState.FREE, SlotState.REQUEST, 301, InputRecord.NULL_ID);
        }
        final int i = effects.add(EffectType.ADMITTED);
        effects.owner(i, 301).value1(i, 64).value3(i, -1);

        final int length = roundTrip(input, 0, effects);
        assertTrue(length <= 60, "66 effects in " + length + " bytes");
    }

    @Test
    void shouldKeepScatteredIdsAndReversedOrderInARun()
    {
        final InputRecord input = new InputRecord(4).type(InputType.FINISH).sequence(9).request(7).value1(5);
        final EffectList effects = new EffectList(16);
        final long[] slots = {2714, 2715, 2702, 2703, 2704, 9, 8, 7, 0, Long.MAX_VALUE, Long.MIN_VALUE, -1, 5};
        for (final long slot : slots)
        {
            transition(effects, slot, SlotState.REQUEST, SlotState.NODE, 155, 1501);
        }
        transition(effects, 3, SlotState.REQUEST, SlotState.NODE, 156, 1501);
        transition(effects, 4, SlotState.REQUEST, SlotState.NODE, 156, 1501);
        roundTrip(input, -3, effects);
    }

    @Test
    void shouldRoundTripRandomDocumentsWithRepeats()
    {
        final Random random = new Random(11);
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        for (int doc = 0; doc < 2_000; doc++)
        {
            input.reset();
            JournalTestData.randomInput(random, input, 1 + random.nextInt(1 << 20),
                JournalTestData.INPUT_TYPES[random.nextInt(JournalTestData.INPUT_TYPES.length)]);
            effects.clear();
            final int count = random.nextInt(40);
            for (int e = 0; e < count; e++)
            {
                if (effects.size() > 0 && random.nextInt(3) == 0)
                {
                    final int repeats = 1 + random.nextInt(20);
                    for (int r = 0; r < repeats; r++)
                    {
                        effects.addCopy(effects, effects.size() - 1);
                        final long id = random.nextInt(4) == 0 ? random.nextLong() :
                            effects.id(effects.size() - 2) + (random.nextInt(3) == 0 ? random.nextInt(9) - 4 : 1);
                        effects.id(effects.size() - 1, id);
                    }
                }
                else
                {
                    JournalTestData.randomEffect(random, effects,
                        JournalTestData.EFFECT_TYPES[random.nextInt(JournalTestData.EFFECT_TYPES.length)]);
                }
            }
            roundTrip(input, random.nextInt(), effects);
        }
    }

    @Test
    void shouldNeverThrowOnTruncatedOrFlippedBytes()
    {
        final Random random = new Random(5);
        final InputRecord input = new InputRecord(8);
        JournalTestData.randomInput(random, input, 77, InputType.ARRIVE);
        final EffectList effects = new EffectList(64);
        for (int e = 0; e < 30; e++)
        {
            JournalTestData.randomEffect(random, effects, JournalTestData.EFFECT_TYPES[e % 25]);
            effects.addCopy(effects, effects.size() - 1);
            effects.id(effects.size() - 1, effects.id(effects.size() - 2) + 1);
        }
        buffer.checkLimit(CompactDocumentCodec.maxLength(input, effects));
        final int length = codec.encode(buffer, 0, input, 3, effects);
        for (int cut = 0; cut < length; cut++)
        {
            codec.decode(buffer, 0, cut, decodedInput, decoded);
            assertTrue(null != codec.error(), "a body cut to " + cut + " of " + length + " bytes was accepted");
        }
        final byte[] original = new byte[length];
        buffer.getBytes(0, original);
        for (int round = 0; round < 20_000; round++)
        {
            buffer.putBytes(0, original);
            final int flips = 1 + random.nextInt(3);
            for (int f = 0; f < flips; f++)
            {
                final int at = random.nextInt(length);
                buffer.putByte(at, (byte)(buffer.getByte(at) ^ (1 + random.nextInt(255))));
            }
            codec.decode(buffer, 0, length, decodedInput, decoded);
        }
    }

    private int roundTrip(final InputRecord input, final int resultCode, final EffectList effects)
    {
        buffer.checkLimit(CompactDocumentCodec.maxLength(input, effects));
        final int length = codec.encode(buffer, 0, input, resultCode, effects);
        assertTrue(length <= CompactDocumentCodec.maxLength(input, effects));
        assertEquals(input.fingerprintCount(), codec.fingerprintCount(buffer, 0, length));
        final int result = codec.decode(buffer, 0, length, decodedInput, decoded);
        assertNull(codec.error());
        assertEquals(resultCode, result);
        assertTrue(input.sameAs(decodedInput), "input differs");
        assertEquals(-1, effects.firstDifference(decoded), "effects differ");
        return length;
    }

    private static void lock(final EffectList effects, final long node, final long request, final long receipt)
    {
        final int i = effects.add(EffectType.LOCKED);
        effects.id(i, node).toState(i, SlotState.REQUEST).owner(i, request).value1(i, receipt);
    }

    private static void transition(final EffectList effects, final long slot, final SlotState from,
        final SlotState to, final long owner, final long previousOwner)
    {
        final int i = effects.add(EffectType.SLOT_TRANSITION);
        effects.pool(i, Pool.DEVICE_KV).id(i, slot).fromState(i, from).toState(i, to).owner(i, owner)
            .value1(i, previousOwner);
    }
}
