package io.kvledger.engine.device;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BatchCopierTest
{
    @Test
    void shouldSayWhyWhenTheDriverLacksTheCallAndNeverThrowOnLoad()
    {
        final BatchCopier copier = BatchCopier.load(8);
        if (copier.available())
        {
            assertEquals("", copier.whyNot());
            assertTrue(copier.describe().startsWith("cuMemcpyBatchAsync"), copier.describe());
        }
        else
        {
            assertFalse(copier.whyNot().isEmpty(), "a copier without the call says why");
            assertTrue(copier.whyNot().contains("cuMemcpyBatchAsync"), copier.whyNot());
            assertEquals("no cuMemcpyBatchAsync", copier.describe());
        }
    }

    @Test
    void shouldRefuseMoreCopiesThanItsCapacityBeforeAnyDriverCall()
    {
        final BatchCopier copier = BatchCopier.load(2);
        final long[] three = new long[3];
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> copier.enqueue(three, three, three, 3, true, null));
        assertTrue(refused.getMessage().contains("3 copies"), refused.getMessage());
    }
}
