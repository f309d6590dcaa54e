package io.kvledger.journal;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EffectListTest
{
    /** A list never holds more effects than one journal document takes, so a full list fails before the journal. */
    @Test
    void shouldHoldAtMostTheJournalsGroupLimit()
    {
        final EffectList list = new EffectList(16);
        for (int i = 0; i < JournalFrame.MAX_GROUP_COUNT; i++)
        {
            list.add(EffectType.NODE_DELETED);
        }
        assertEquals(JournalFrame.MAX_GROUP_COUNT, list.size());
        assertThrows(IllegalStateException.class, () -> list.add(EffectType.NODE_DELETED));
    }

    @Test
    void shouldGrowAndKeepEffectsInOrder()
    {
        final EffectList list = new EffectList(1);
        for (int i = 0; i < 100; i++)
        {
            final int index = list.add(EffectType.SLOT_TRANSITION);
            list.pool(index, Pool.DEVICE_MAMBA).id(index, i).fromState(index, SlotState.FREE)
                .toState(index, SlotState.REQUEST);
        }
        assertEquals(100, list.size());
        assertEquals(57, list.id(57));
        assertEquals(SlotState.REQUEST, list.toState(99));
        assertEquals(EffectList.NULL_CODE, list.reasonCode(3));
    }

    @Test
    void shouldCopyAWholeListGrowingWhenNeeded()
    {
        final EffectList source = new EffectList(4);
        for (int i = 0; i < 40; i++)
        {
            final int index = source.add(EffectType.SLOT_TRANSITION);
            source.pool(index, Pool.DEVICE_KV).id(index, i).owner(index, 1000 + i).fromState(index, SlotState.FREE)
                .toState(index, SlotState.NODE);
        }
        final EffectList copy = new EffectList(2);
        copy.id(copy.add(EffectType.NODE_DELETED), 7);

        copy.copyFrom(source);

        assertEquals(40, copy.size());
        assertEquals(-1, source.firstDifference(copy));
        copy.copyFrom(new EffectList(1));
        assertEquals(0, copy.size());
    }

    @Test
    void shouldReportFirstDifference()
    {
        final EffectList a = new EffectList(4);
        final EffectList b = new EffectList(4);
        for (int i = 0; i < 3; i++)
        {
            a.id(a.add(EffectType.NODE_DELETED), i);
            b.id(b.add(EffectType.NODE_DELETED), i == 2 ? 9 : i);
        }
        assertEquals(2, a.firstDifference(b));
        b.clear();
        for (int i = 0; i < 3; i++)
        {
            b.addCopy(a, i);
        }
        assertEquals(-1, a.firstDifference(b));
    }

    @Test
    void shouldAddASlotTransitionInOneGoAsAddAndTheSettersWould()
    {
        final EffectList oneGo = new EffectList(1);
        final EffectList bySetters = new EffectList(1);
        for (int slot = 0; slot < 40; slot++)
        {
            final Pool pool = slot % 2 == 0 ? Pool.DEVICE_KV : Pool.HOST_MAMBA;
            final SlotState from = slot % 3 == 0 ? SlotState.FREE : SlotState.REQUEST;
            assertEquals(slot, oneGo.addSlotTransition(pool, slot, from, SlotState.NODE, slot * 7L, -1));
            final int i = bySetters.add(EffectType.SLOT_TRANSITION);
            bySetters.pool(i, pool).id(i, slot).fromState(i, from).toState(i, SlotState.NODE).owner(i, slot * 7L)
                .value1(i, -1);
        }
        assertEquals(-1, oneGo.firstDifference(bySetters));
    }

    @Test
    void shouldSeeADifferenceInAnySingleColumn()
    {
        final EffectList list = new EffectList(4);
        for (int column = 0; column < 15; column++)
        {
            list.clear();
            for (int copy = 0; copy < 2; copy++)
            {
                final int i = list.add(EffectType.LOCKED);
                for (int c = 1; c < 10; c++)
                {
                    list.code(i, c, (short)(c + 1));
                }
                list.id(i, 5).owner(i, 6).value1(i, 7).value2(i, 8).value3(i, 9);
            }
            assertTrue(list.sameAs(0, list, 1));
            assertTrue(list.sameExceptId(0, 1));
            if (column < 10)
            {
                list.code(1, column, column == 0 ? EffectType.UNLOCKED.value() : (short)200);
            }
            else if (column == 10)
            {
                list.id(1, 55);
            }
            else if (column == 11)
            {
                list.owner(1, 66);
            }
            else if (column == 12)
            {
                list.value1(1, 77);
            }
            else if (column == 13)
            {
                list.value2(1, 88);
            }
            else
            {
                list.value3(1, 99);
            }
            assertFalse(list.sameAs(0, list, 1), "column " + column);
            assertEquals(column == 10, list.sameExceptId(0, 1), "column " + column);
            assertEquals(column == 10 ? 2 : 1, list.runEnd(0, 1, 2), "column " + column);
            assertEquals(1, list.firstDifference(copyOf(list, 0)), "column " + column);
        }
    }

    @Test
    void shouldEndARunWhereScanningEachEffectAgainstThePreviousEnds()
    {
        final java.util.Random random = new java.util.Random(3);
        final EffectList list = new EffectList(8);
        for (int trial = 0; trial < 2_000; trial++)
        {
            list.clear();
            final int size = 1 + random.nextInt(40);
            for (int i = 0; i < size; i++)
            {
                // Few distinct values, so that runs of every length occur.
                list.addSlotTransition(random.nextInt(4) == 0 ? Pool.HOST_KV : Pool.DEVICE_KV, random.nextInt(3),
                    SlotState.FREE, random.nextInt(5) == 0 ? SlotState.NODE : SlotState.REQUEST,
                    random.nextInt(6) == 0 ? 2 : 1, 0);
                if (random.nextInt(10) == 0)
                {
                    list.value3(i, 1);
                }
            }
            for (int base = 0; base < size; base++)
            {
                int expected = base + 1;
                while (expected < size && list.sameExceptId(expected, expected - 1))
                {
                    expected++;
                }
                assertEquals(expected, list.runEnd(base, base + 1, size), "trial " + trial + " base " + base);
            }
        }
    }

    private static EffectList copyOf(final EffectList list, final int index)
    {
        final EffectList copy = new EffectList(2);
        copy.addCopy(list, index);
        copy.addCopy(list, index);
        return copy;
    }
}
