package io.kvledger.engine.sim;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class L3TagsTest
{
    @Test
    void shouldAgreeWithAMapThroughGrowthOverwritesAndMisses()
    {
        final SplittableRandom random = new SplittableRandom(7);
        final L3Tags tags = new L3Tags();
        final Map<List<Long>, Long> model = new HashMap<>();
        for (int i = 0; i < 200_000; i++)
        {
            // few distinct high halves and small low halves: many keys share a home slot or a half
            final long hi = random.nextInt(64);
            final long lo = random.nextInt(5_000);
            final boolean state = random.nextInt(4) == 0;
            final long tag = random.nextLong();
            tags.put(hi, lo, state, tag);
            model.put(List.of(hi, lo, state ? 1L : 0L), tag);
        }
        assertEquals(model.size(), tags.size());
        for (long hi = 0; hi < 64; hi++)
        {
            for (long lo = 0; lo < 5_000; lo += 7)
            {
                for (final boolean state : new boolean[]{ false, true })
                {
                    final Long expected = model.get(List.of(hi, lo, state ? 1L : 0L));
                    assertEquals(null != expected, tags.contains(hi, lo, state));
                    assertEquals(null != expected ? expected : -1L, tags.get(hi, lo, state, -1L));
                }
            }
        }
    }

    @Test
    void shouldKeepPagesAndStatesApart()
    {
        final L3Tags tags = new L3Tags();
        tags.put(1, 2, false, 10);
        assertTrue(tags.contains(1, 2, false));
        assertFalse(tags.contains(1, 2, true));
        tags.put(1, 2, true, 20);
        assertEquals(10, tags.get(1, 2, false, 0));
        assertEquals(20, tags.get(1, 2, true, 0));
        tags.put(1, 2, false, 11);
        assertEquals(11, tags.get(1, 2, false, 0));
        assertEquals(2, tags.size());
        assertFalse(tags.contains(2, 1, false));
    }
}
