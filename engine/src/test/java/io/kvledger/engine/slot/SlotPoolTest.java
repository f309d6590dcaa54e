package io.kvledger.engine.slot;

import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlotPoolTest
{
    private static final long[] SEEDS = { 1L, 42L, 0xC0FFEEL, 20_260_401L };
    private static final int OPERATIONS = 100_000;
    private static final SlotState[] STATES =
        { SlotState.FREE, SlotState.REQUEST, SlotState.NODE, SlotState.OP, SlotState.PENDING_FREE };

    /** The legal-transition table written out from the Javadoc, independent of the implementation. */
    private static final Set<String> LEGAL = Set.of(
        "FREE>REQUEST", "FREE>NODE", "FREE>OP",
        "REQUEST>FREE", "REQUEST>NODE", "REQUEST>OP", "REQUEST>PENDING_FREE",
        "NODE>FREE", "NODE>NODE",
        "OP>FREE", "OP>REQUEST", "OP>NODE", "OP>OP", "OP>PENDING_FREE",
        "PENDING_FREE>FREE");

    private final EffectList list = new EffectList(16);
    private final Effects effects = new Effects(list);

    @Test
    void shouldHandOutAscendingIdsFirstThenMostRecentlyFreed()
    {
        final SlotPool pool = new SlotPool(Pool.DEVICE_KV, 4, effects);
        assertEquals(0, pool.allocate(SlotState.REQUEST, 7));
        assertEquals(1, pool.allocate(SlotState.REQUEST, 7));
        assertEquals(2, pool.allocate(SlotState.OP, 9));
        assertEquals(ResultCode.OK, pool.transition(1, SlotState.FREE, -1));
        assertEquals(ResultCode.OK, pool.transition(0, SlotState.FREE, -1));
        assertEquals(0, pool.allocate(SlotState.NODE, 3));
        assertEquals(1, pool.allocate(SlotState.NODE, 3));
        assertEquals(3, pool.allocate(SlotState.NODE, 3));
        assertEquals(SlotPool.NO_SLOT, pool.allocate(SlotState.NODE, 3));
        pool.verify();
    }

    @Test
    void shouldRecordTransitionWithPreviousOwner()
    {
        final SlotPool pool = new SlotPool(Pool.HOST_MAMBA, 2, effects);
        final int id = pool.allocate(SlotState.OP, 11);
        assertEquals(ResultCode.OK, pool.transition(id, SlotState.PENDING_FREE, 12));
        assertEquals(2, list.size());
        assertEquals(EffectType.SLOT_TRANSITION, list.type(1));
        assertEquals(Pool.HOST_MAMBA, list.pool(1));
        assertEquals(id, list.id(1));
        assertEquals(SlotState.OP, list.fromState(1));
        assertEquals(SlotState.PENDING_FREE, list.toState(1));
        assertEquals(12, list.owner(1));
        assertEquals(11, list.value1(1));
        assertEquals(1, pool.pendingFreeCount());
        assertEquals(1, pool.freeCount());
        pool.verify();
    }

    @Test
    void shouldRejectIllegalTransitionsWithoutChangingAnything()
    {
        final SlotPool pool = new SlotPool(Pool.DEVICE_KV, 3, effects);
        final int node = pool.allocate(SlotState.NODE, 5);
        final int request = pool.allocate(SlotState.REQUEST, 6);
        list.clear();
        final long hash = pool.stateHash();

        assertEquals(ResultCode.SLOT_ILLEGAL_TRANSITION, pool.transition(node, SlotState.REQUEST, 6));
        assertEquals(ResultCode.SLOT_ILLEGAL_TRANSITION, pool.transition(node, SlotState.NODE, 5));
        assertEquals(ResultCode.SLOT_ILLEGAL_TRANSITION, pool.transition(request, SlotState.REQUEST, 8));
        assertEquals(ResultCode.SLOT_ILLEGAL_TRANSITION, pool.transition(2, SlotState.FREE, -1));
        assertEquals(ResultCode.SLOT_ILLEGAL_TRANSITION, pool.transition(2, SlotState.PENDING_FREE, 1));
        assertEquals(ResultCode.SLOT_UNKNOWN, pool.transition(3, SlotState.FREE, -1));
        assertEquals(ResultCode.SLOT_UNKNOWN, pool.transition(-1, SlotState.FREE, -1));

        assertEquals(0, list.size());
        assertEquals(hash, pool.stateHash());
        assertEquals(ResultCode.OK, pool.transition(node, SlotState.NODE, 9));
        pool.verify();
    }

    @Test
    void shouldTakeExplicitFreeSlotOffTheFreeList()
    {
        final SlotPool pool = new SlotPool(Pool.DEVICE_MAMBA, 4, effects);
        assertEquals(ResultCode.OK, pool.transition(1, SlotState.NODE, 2));
        pool.verify();
        assertEquals(3, pool.freeCount());
        final Set<Integer> handed = new HashSet<>();
        for (int i = 0; i < 3; i++)
        {
            handed.add(pool.allocate(SlotState.REQUEST, 1));
        }
        assertEquals(Set.of(0, 2, 3), handed);
        pool.verify();
    }

    @Test
    void shouldDetectDoubleFreeThroughForceTransition()
    {
        final SlotPool pool = new SlotPool(Pool.DEVICE_MAMBA, 4, effects);
        final int id = pool.allocate(SlotState.REQUEST, 1);
        assertEquals(ResultCode.OK, pool.transition(id, SlotState.FREE, -1));
        pool.verify();
        list.clear();

        pool.forceTransition(id, SlotState.FREE, -1);
        assertEquals(1, list.size());
        assertEquals(SlotState.FREE, list.fromState(0));
        assertEquals(SlotState.FREE, list.toState(0));
        final IllegalStateException twice = assertThrows(IllegalStateException.class, pool::verify);
        assertTrue(twice.getMessage().startsWith("I12"), twice.getMessage());

        final int first = pool.allocate(SlotState.REQUEST, 2);
        assertThrows(IllegalStateException.class, pool::verify);
        final int second = pool.allocate(SlotState.REQUEST, 3);
        assertEquals(first, second);
        assertEquals(id, first);
        final IllegalStateException handedTwice = assertThrows(IllegalStateException.class, pool::verify);
        assertTrue(handedTwice.getMessage().contains("slot " + id), handedTwice.getMessage());
    }

    @Test
    void shouldGiveEqualHashesForEqualPools()
    {
        final SlotPool a = new SlotPool(Pool.DEVICE_KV, 8, effects);
        final SlotPool b = new SlotPool(Pool.DEVICE_KV, 8, effects);
        assertEquals(a.stateHash(), b.stateHash());
        a.allocate(SlotState.REQUEST, 4);
        assertNotEquals(a.stateHash(), b.stateHash());
        b.allocate(SlotState.REQUEST, 4);
        assertEquals(a.stateHash(), b.stateHash());
        a.transition(0, SlotState.OP, 4);
        b.transition(0, SlotState.OP, 5);
        assertNotEquals(a.stateHash(), b.stateHash());
    }

    @Test
    void shouldMatchNaiveOwnershipModelUnderRandomOperations()
    {
        for (final long seed : SEEDS)
        {
            runModel(seed);
        }
    }

    private void runModel(final long seed)
    {
        final int capacity = 48;
        final Random random = new Random(seed);
        final SlotPool pool = new SlotPool(Pool.HOST_KV, capacity, effects);
        final Map<Integer, long[]> model = new HashMap<>();
        final List<Integer> freeStack = new ArrayList<>();
        for (int id = 0; id < capacity; id++)
        {
            model.put(id, new long[] { SlotState.FREE.value(), -1 });
        }
        for (int id = capacity - 1; id >= 0; id--)
        {
            freeStack.add(id);
        }

        for (int step = 0; step < OPERATIONS; step++)
        {
            final String where = "seed=" + seed + " step=" + step;
            list.clear();
            final long hashBefore = pool.stateHash();
            if (random.nextInt(100) < 30)
            {
                final SlotState to = STATES[1 + random.nextInt(3)];
                final long owner = random.nextInt(8);
                final int expected = freeStack.isEmpty() ? SlotPool.NO_SLOT : freeStack.get(freeStack.size() - 1);
                final int id = pool.allocate(to, owner);
                assertEquals(expected, id, where);
                if (SlotPool.NO_SLOT == id)
                {
                    assertEquals(0, list.size(), where);
                    assertEquals(hashBefore, pool.stateHash(), where);
                }
                else
                {
                    freeStack.remove(freeStack.size() - 1);
                    assertEffect(where, id, SlotState.FREE, to, owner, -1);
                    model.put(id, new long[] { to.value(), owner });
                }
            }
            else
            {
                final int id = random.nextInt(capacity + 4) - 2;
                final long[] current = model.get(id);
                final SlotState to = STATES[random.nextInt(STATES.length)];
                final long owner;
                if (SlotState.FREE == to)
                {
                    owner = -1;
                }
                else if (null != current && random.nextInt(4) == 0)
                {
                    owner = current[1];
                }
                else
                {
                    owner = random.nextInt(6);
                }
                final int expected;
                if (null == current)
                {
                    expected = ResultCode.SLOT_UNKNOWN;
                }
                else
                {
                    final SlotState from = STATES[(int)current[0]];
                    final boolean sameOwner = from == to && current[1] == owner;
                    expected = LEGAL.contains(from + ">" + to) && !sameOwner ?
                        ResultCode.OK : ResultCode.SLOT_ILLEGAL_TRANSITION;
                }
                final int result = pool.transition(id, to, owner);
                assertEquals(expected, result, where + " " + (null == current ? "?" : STATES[(int)current[0]]) +
                    " -> " + to);
                if (ResultCode.OK != result)
                {
                    assertEquals(0, list.size(), where);
                    assertEquals(hashBefore, pool.stateHash(), where);
                }
                else
                {
                    final SlotState from = STATES[(int)current[0]];
                    assertEffect(where, id, from, to, owner, current[1]);
                    if (SlotState.FREE == from)
                    {
                        final int index = freeStack.indexOf(id);
                        final int last = freeStack.remove(freeStack.size() - 1);
                        if (index < freeStack.size())
                        {
                            freeStack.set(index, last);
                        }
                    }
                    if (SlotState.FREE == to)
                    {
                        freeStack.add(id);
                    }
                    model.put(id, new long[] { to.value(), owner });
                }
            }
            pool.verify();
            int pending = 0;
            for (int id = 0; id < capacity; id++)
            {
                final long[] expected = model.get(id);
                assertEquals(STATES[(int)expected[0]], pool.state(id), where + " slot " + id);
                assertEquals(expected[1], pool.owner(id), where + " slot " + id);
                pending += expected[0] == SlotState.PENDING_FREE.value() ? 1 : 0;
            }
            assertEquals(freeStack.size(), pool.freeCount(), where);
            assertEquals(pending, pool.pendingFreeCount(), where);
        }
    }

    private void assertEffect(final String where, final int id, final SlotState from, final SlotState to,
        final long owner, final long previousOwner)
    {
        assertEquals(1, list.size(), where);
        assertEquals(EffectType.SLOT_TRANSITION, list.type(0), where);
        assertEquals(Pool.HOST_KV, list.pool(0), where);
        assertEquals(id, list.id(0), where);
        assertEquals(from, list.fromState(0), where);
        assertEquals(to, list.toState(0), where);
        assertEquals(owner, list.owner(0), where);
        assertEquals(previousOwner, list.value1(0), where);
    }
}
