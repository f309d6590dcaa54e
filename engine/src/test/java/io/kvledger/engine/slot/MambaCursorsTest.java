package io.kvledger.engine.slot;

import io.kvledger.engine.effect.Effects;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Pool;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MambaCursorsTest
{
    private final EffectList list = new EffectList(8);
    private final MambaCursors cursors = new MambaCursors(4, new Effects(list));

    @Test
    void shouldRecordObservedCursorsEvenWhenZero()
    {
        cursors.observe(2, 0, 0, 0);
        assertEquals(1, list.size());
        assertEquals(EffectType.CURSORS_OBSERVED, list.type(0));
        assertEquals(Pool.DEVICE_MAMBA, list.pool(0));
        assertEquals(2, list.id(0));
        assertTrue(cursors.clean(2));
    }

    @Test
    void shouldStayDirtyUntilReset()
    {
        final long clean = cursors.stateHash();
        cursors.observe(1, 5, 7, 1);
        assertFalse(cursors.clean(1));
        assertEquals(5, cursors.writePos(1));
        assertEquals(7, cursors.cacheBase(1));
        assertEquals(1, cursors.isFlush(1));
        assertEquals(5, list.value1(0));
        assertEquals(7, list.value2(0));
        assertEquals(1, list.value3(0));
        assertNotEquals(clean, cursors.stateHash());

        cursors.reset(1);
        assertTrue(cursors.clean(1));
        assertEquals(EffectType.CURSORS_RESET, list.type(1));
        assertEquals(Pool.DEVICE_MAMBA, list.pool(1));
        assertEquals(1, list.id(1));
        assertEquals(clean, cursors.stateHash());
    }

    @Test
    void shouldHashBySlot()
    {
        final MambaCursors other = new MambaCursors(4, new Effects(new EffectList(8)));
        cursors.observe(0, 3, 0, 0);
        other.observe(1, 3, 0, 0);
        assertNotEquals(cursors.stateHash(), other.stateHash());
    }
}
