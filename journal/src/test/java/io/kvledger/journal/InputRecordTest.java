package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fingerprints appended in bulk are the ones appended one by one, after what the record already held.
 */
class InputRecordTest
{
    @Test
    void shouldAppendFingerprintsInBulkAfterThoseAlreadyHeld()
    {
        final long[] hi = {10, 11, 12, 13, 14};
        final long[] lo = {20, 21, 22, 23, 24};
        final InputRecord bulk = new InputRecord(8).type(InputType.ARRIVE).addFingerprint(1, 2);
        bulk.addFingerprints(hi, lo, 1, 3).addFingerprints(hi, lo, 0, 0);
        final InputRecord single = new InputRecord(8).type(InputType.ARRIVE).addFingerprint(1, 2);
        for (int i = 1; i <= 3; i++)
        {
            single.addFingerprint(hi[i], lo[i]);
        }
        assertEquals(4, bulk.fingerprintCount());
        assertEquals(12, bulk.fingerprintHi(2));
        assertEquals(23, bulk.fingerprintLo(3));
        assertTrue(bulk.sameAs(single));
    }

    @Test
    void shouldRefuseMoreFingerprintsThanItsCapacityAndKeepWhatItHeld()
    {
        final InputRecord input = new InputRecord(2).type(InputType.ARRIVE).addFingerprint(1, 2);
        assertThrows(IllegalStateException.class, () -> input.addFingerprints(new long[2], new long[2], 0, 2));
        assertEquals(1, input.fingerprintCount());
        assertEquals(1, input.fingerprintHi(0));
    }
}
