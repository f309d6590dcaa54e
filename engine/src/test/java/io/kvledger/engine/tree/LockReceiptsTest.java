package io.kvledger.engine.tree;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The receipt map against a plain {@link HashMap}: receipts held for a long time while many others come and go
 * (so that held receipts collide in the map's low bits and its probe runs wrap and shift back), releases in random
 * order, unknown and already released receipts.
 */
class LockReceiptsTest
{
    @Test
    void mapsEveryHeldReceiptToItsSlotWhateverTheOrderOfReleases()
    {
        final int capacity = 40;
        final LockReceipts receipts = new LockReceipts(capacity);
        final Map<Long, Integer> model = new HashMap<>();
        final List<Long> held = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(7);
        for (int step = 0; step < 200_000; step++)
        {
            final boolean add = held.isEmpty() || (!receipts.full() && random.nextInt(100) < 52);
            if (add)
            {
                final long receipt = receipts.add(random.nextInt(100), (byte)1, (byte)1, step);
                final int slot = receipts.slotOf(receipt);
                assertEquals(receipt, receipts.receiptAt(slot));
                model.put(receipt, slot);
                held.add(receipt);
            }
            else
            {
                // mostly the oldest (FIFO-ish), sometimes any: a few receipts stay held for a long time
                final int at = random.nextInt(100) < 70 ? random.nextInt(Math.min(3, held.size())) :
                    random.nextInt(held.size());
                final long receipt = held.remove(at);
                final int slot = receipts.take(receipt);
                assertEquals((int)model.remove(receipt), slot);
                receipts.free(slot);
                assertEquals(-1, receipts.take(receipt), "a released receipt is not held");
                assertEquals(-1, receipts.slotOf(receipt));
            }
            if (0 == step % 1000)
            {
                for (final Map.Entry<Long, Integer> e : model.entrySet())
                {
                    assertEquals((int)e.getValue(), receipts.slotOf(e.getKey()));
                }
            }
            assertEquals(model.size(), receipts.mappedCount());
            assertEquals(model.size(), receipts.count());
        }
        assertEquals(-1, receipts.slotOf(0));
        assertEquals(-1, receipts.slotOf(-5));
        assertEquals(-1, receipts.take(receipts.nextReceipt()));
    }
}
