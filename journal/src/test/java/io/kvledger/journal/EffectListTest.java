package io.kvledger.journal;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class EffectListTest
{
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
}
