package io.kvledger.engine.ingress;

import io.kvledger.journal.InputRecord;
import net.openhft.hashing.LongTupleHashFunction;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FingerprinterTest
{
    private static final int PAGE_SIZE = 16;
    private static final long NAMESPACE = 0x1234_5678_9ABC_DEF0L;

    private final Fingerprinter fingerprinter = new Fingerprinter(PAGE_SIZE);

    @Test
    void shouldUseTheReferenceXxh128()
    {
        final long[] empty = LongTupleHashFunction.xx128().hashBytes(new byte[0]);

        assertEquals(0x99AA06D3014798D8L, empty[1], "XXH128 of no bytes, high half");
        assertEquals(0x6001C324468D497FL, empty[0], "XXH128 of no bytes, low half");
    }

    @Test
    void shouldMatchStraightforwardXxh128ChainOverLittleEndianBytes()
    {
        final int[] tokens = tokens(5 * PAGE_SIZE + 3, 1);
        final long[] hi = new long[8];
        final long[] lo = new long[8];

        final int pages = fingerprinter.fingerprint(NAMESPACE, tokens, tokens.length, hi, lo);

        assertEquals(5, pages);
        final long[][] expected = referenceChain(NAMESPACE, tokens, tokens.length, PAGE_SIZE);
        for (int i = 0; i < pages; i++)
        {
            assertEquals(expected[0][i], hi[i], "hi of page " + i);
            assertEquals(expected[1][i], lo[i], "lo of page " + i);
        }
    }

    @Test
    void shouldMatchTheReferenceChainForPagesHashedDirectly()
    {
        for (final int pageSize : new int[] {54, 55, 64, 128, 250, 251})
        {
            final Fingerprinter direct = new Fingerprinter(pageSize);
            final int[] tokens = tokens(7 * pageSize + 5, pageSize);
            final long[] hi = new long[8];
            final long[] lo = new long[8];

            final int pages = direct.fingerprint(NAMESPACE, tokens, tokens.length, hi, lo);

            assertEquals(7, pages);
            final long[][] expected = referenceChain(NAMESPACE, tokens, tokens.length, pageSize);
            for (int i = 0; i < pages; i++)
            {
                assertEquals(expected[0][i], hi[i], "page size " + pageSize + ", hi of page " + i);
                assertEquals(expected[1][i], lo[i], "page size " + pageSize + ", lo of page " + i);
            }
        }
    }

    @Test
    void shouldGiveSamePrefixTheSameFingerprints()
    {
        final int[] a = tokens(6 * PAGE_SIZE, 7);
        final int[] b = a.clone();
        b[3 * PAGE_SIZE + 5] += 1;
        final long[] aHi = new long[6];
        final long[] aLo = new long[6];
        final long[] bHi = new long[6];
        final long[] bLo = new long[6];

        fingerprinter.fingerprint(NAMESPACE, a, a.length, aHi, aLo);
        fingerprinter.fingerprint(NAMESPACE, b, b.length, bHi, bLo);

        for (int i = 0; i < 3; i++)
        {
            assertEquals(aHi[i], bHi[i]);
            assertEquals(aLo[i], bLo[i]);
        }
        for (int i = 3; i < 6; i++)
        {
            assertTrue(aHi[i] != bHi[i] || aLo[i] != bLo[i], "page " + i + " follows the changed page");
        }
    }

    @Test
    void shouldGiveDifferentNamespacesAllDifferentFingerprints()
    {
        final int[] tokens = tokens(8 * PAGE_SIZE, 3);
        final long[] aHi = new long[8];
        final long[] aLo = new long[8];
        final long[] bHi = new long[8];
        final long[] bLo = new long[8];

        fingerprinter.fingerprint(Fingerprinter.namespaceId("tenant-a"), tokens, tokens.length, aHi, aLo);
        fingerprinter.fingerprint(Fingerprinter.namespaceId("tenant-b"), tokens, tokens.length, bHi, bLo);

        for (int i = 0; i < 8; i++)
        {
            for (int j = 0; j < 8; j++)
            {
                assertTrue(aHi[i] != bHi[j] || aLo[i] != bLo[j], "pages " + i + " and " + j);
            }
        }
    }

    @Test
    void shouldReturnTailTokenCount()
    {
        final int[] tokens = tokens(3 * PAGE_SIZE + 5, 11);
        final InputRecord record = new InputRecord(16);

        final int tail = fingerprinter.fingerprint(NAMESPACE, tokens, tokens.length, record);

        assertEquals(5, tail);
        assertEquals(5, fingerprinter.tailTokens());
        assertEquals(3, record.fingerprintCount());
    }

    @Test
    void shouldFingerprintNothingForLessThanOnePage()
    {
        final int[] tokens = tokens(PAGE_SIZE - 1, 2);
        final long[] hi = new long[1];
        final long[] lo = new long[1];

        assertEquals(0, fingerprinter.fingerprint(NAMESPACE, tokens, tokens.length, hi, lo));
        assertEquals(PAGE_SIZE - 1, fingerprinter.tailTokens());
    }

    @Test
    void shouldAppendTheSameFingerprintsToAnInputRecord()
    {
        final int[] tokens = tokens(4 * PAGE_SIZE + 1, 5);
        final long[] hi = new long[4];
        final long[] lo = new long[4];
        final InputRecord record = new InputRecord(8);
        record.addFingerprint(42, 43);

        fingerprinter.fingerprint(NAMESPACE, tokens, tokens.length, hi, lo);
        fingerprinter.fingerprint(NAMESPACE, tokens, tokens.length, record);

        assertEquals(5, record.fingerprintCount());
        for (int i = 0; i < 4; i++)
        {
            assertEquals(hi[i], record.fingerprintHi(i + 1));
            assertEquals(lo[i], record.fingerprintLo(i + 1));
        }
    }

    @Test
    void shouldRejectARecordWithoutRoomAndAppendNothing()
    {
        final int[] tokens = tokens(4 * PAGE_SIZE, 5);
        final InputRecord record = new InputRecord(3);

        assertThrows(IllegalArgumentException.class,
            () -> fingerprinter.fingerprint(NAMESPACE, tokens, tokens.length, record));
        assertEquals(0, record.fingerprintCount());
    }

    @Test
    void shouldContinueAChainFromItsParent()
    {
        final int[] tokens = tokens(7 * PAGE_SIZE + 2, 9);
        final long[] whole = new long[7];
        final long[] wholeLo = new long[7];
        fingerprinter.fingerprint(NAMESPACE, tokens, tokens.length, whole, wholeLo);

        final long[] hi = new long[7];
        final long[] lo = new long[7];
        final int first = fingerprinter.fingerprint(NAMESPACE, 0, 0, tokens, 0, 3 * PAGE_SIZE, hi, lo, 0);
        final int rest = fingerprinter.fingerprint(
            NAMESPACE, hi[2], lo[2], tokens, 3 * PAGE_SIZE, tokens.length - 3 * PAGE_SIZE, hi, lo, 3);

        assertEquals(3, first);
        assertEquals(4, rest);
        assertEquals(2, fingerprinter.tailTokens());
        for (int i = 0; i < 7; i++)
        {
            assertEquals(whole[i], hi[i]);
            assertEquals(wholeLo[i], lo[i]);
        }
    }

    @Test
    void shouldExtendAPreviousChainWithTheSameFingerprintsAsTheWholeChain()
    {
        final int[] history = tokens(11 * PAGE_SIZE + 9, 21);
        for (final int turnEnd : new int[] { 0, PAGE_SIZE - 1, 3 * PAGE_SIZE + 4, 7 * PAGE_SIZE, history.length })
        {
            final long[] whole = new long[11];
            final long[] wholeLo = new long[11];
            final int wholePages = fingerprinter.fingerprint(NAMESPACE, history, history.length, whole, wholeLo);

            final long[] hi = new long[11];
            final long[] lo = new long[11];
            final int done = fingerprinter.fingerprint(NAMESPACE, history, turnEnd, hi, lo);
            final long lastHi = done > 0 ? hi[done - 1] : 77;
            final long lastLo = done > 0 ? lo[done - 1] : 78;
            final int pages = fingerprinter.extend(NAMESPACE, lastHi, lastLo, done, history, history.length, hi, lo);

            assertEquals(wholePages, pages);
            assertEquals(9, fingerprinter.tailTokens());
            for (int i = 0; i < pages; i++)
            {
                assertEquals(whole[i], hi[i], "hi of page " + i + " after a turn of " + turnEnd + " tokens");
                assertEquals(wholeLo[i], lo[i], "lo of page " + i + " after a turn of " + turnEnd + " tokens");
            }

            final InputRecord record = new InputRecord(16);
            for (int i = 0; i < done; i++)
            {
                record.addFingerprint(hi[i], lo[i]);
            }
            final int tail = fingerprinter.extend(NAMESPACE, lastHi, lastLo, done, history, history.length, record);
            assertEquals(9, tail);
            assertEquals(pages, record.fingerprintCount());
            for (int i = 0; i < pages; i++)
            {
                assertEquals(whole[i], record.fingerprintHi(i));
                assertEquals(wholeLo[i], record.fingerprintLo(i));
            }
        }
    }

    @Test
    void shouldHashOnlyTheNewPagesWhenExtending()
    {
        final int[] history = tokens(6 * PAGE_SIZE, 23);
        final long[] hi = new long[6];
        final long[] lo = new long[6];
        fingerprinter.fingerprint(NAMESPACE, history, history.length, hi, lo);
        final long[] sentinelHi = { 1, 2, 3, 4, hi[4], hi[5] };
        final long[] sentinelLo = { 5, 6, 7, 8, lo[4], lo[5] };
        final long[] extendedHi = sentinelHi.clone();
        final long[] extendedLo = sentinelLo.clone();

        fingerprinter.extend(NAMESPACE, hi[3], lo[3], 4, history, history.length, extendedHi, extendedLo);

        assertEquals(Arrays.toString(sentinelHi), Arrays.toString(extendedHi), "pages before pagesDone untouched");
        assertEquals(Arrays.toString(sentinelLo), Arrays.toString(extendedLo));
        extendedHi[4] = 0;
        fingerprinter.extend(NAMESPACE, hi[3] + 1, lo[3], 4, history, history.length, extendedHi, extendedLo);
        assertNotEquals(hi[4], extendedHi[4], "the new pages hang off the given last fingerprint");
    }

    @Test
    void shouldRejectAPagesDoneOutOfRange()
    {
        final int[] tokens = tokens(3 * PAGE_SIZE + 2, 5);
        final long[] hi = new long[4];
        final long[] lo = new long[4];

        assertThrows(IllegalArgumentException.class,
            () -> fingerprinter.extend(NAMESPACE, 1, 2, 4, tokens, tokens.length, hi, lo));
        assertThrows(IllegalArgumentException.class,
            () -> fingerprinter.extend(NAMESPACE, 1, 2, -1, tokens, tokens.length, new InputRecord(4)));
    }

    @Test
    void shouldHashNamespaceNamesStably() throws Exception
    {
        final byte[] digest = MessageDigest.getInstance("SHA-256").digest("tenant-a".getBytes(StandardCharsets.UTF_8));
        final long expected = ByteBuffer.wrap(digest, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();

        assertEquals(expected, Fingerprinter.namespaceId("tenant-a"));
        assertNotEquals(Fingerprinter.namespaceId("tenant-a"), Fingerprinter.namespaceId("tenant-b"));
    }

    @Test
    void shouldNotAllocatePerCallAfterWarmUp()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final int[] tokens = tokens(64 * PAGE_SIZE + 7, 13);
        final long[] hi = new long[64];
        final long[] lo = new long[64];
        final InputRecord record = new InputRecord(64);
        for (int i = 0; i < 2_000; i++)
        {
            fingerprinter.fingerprint(i, tokens, tokens.length, hi, lo);
            fingerprinter.fingerprint(i, tokens, tokens.length, record.reset());
            fingerprinter.extend(i, hi[40], lo[40], 41, tokens, tokens.length, hi, lo);
            fingerprinter.extend(i, hi[40], lo[40], 41, tokens, tokens.length, record.reset());
        }

        final long threadId = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(threadId);
        for (int i = 0; i < 2_000; i++)
        {
            fingerprinter.fingerprint(i, tokens, tokens.length, hi, lo);
            fingerprinter.fingerprint(i, tokens, tokens.length, record.reset());
            fingerprinter.extend(i, hi[40], lo[40], 41, tokens, tokens.length, hi, lo);
            fingerprinter.extend(i, hi[40], lo[40], 41, tokens, tokens.length, record.reset());
        }
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        assertTrue(allocated < 4_096, "allocated " + allocated + " bytes over 8000 calls");
    }

    @Test
    void shouldRejectANonPositivePageSize()
    {
        assertThrows(IllegalArgumentException.class, () -> new Fingerprinter(0));
    }

    private static long[][] referenceChain(
        final long namespace, final int[] tokens, final int count, final int pageSize)
    {
        final int pages = count / pageSize;
        final long[][] result = new long[2][pages];
        long parentHi = 0;
        long parentLo = 0;
        for (int page = 0; page < pages; page++)
        {
            final ByteBuffer input = ByteBuffer.allocate(8 + 16 + 4 * pageSize).order(ByteOrder.LITTLE_ENDIAN);
            input.putLong(namespace);
            input.putLong(parentHi);
            input.putLong(parentLo);
            for (int i = 0; i < pageSize; i++)
            {
                input.putInt(tokens[page * pageSize + i]);
            }
            final long[] hash = LongTupleHashFunction.xx128().hashBytes(input.array());
            parentHi = hash[1];
            parentLo = hash[0];
            result[0][page] = parentHi;
            result[1][page] = parentLo;
        }
        return result;
    }

    private static int[] tokens(final int count, final long seed)
    {
        final Random random = new Random(seed);
        final int[] tokens = new int[count];
        for (int i = 0; i < count; i++)
        {
            tokens[i] = random.nextInt(200_000) - 1000;
        }
        return tokens;
    }
}
