package io.kvledger.engine.ingress;

import io.kvledger.journal.InputRecord;
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
    void shouldMatchStraightforwardSha256Chain() throws Exception
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
        }

        final long threadId = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(threadId);
        for (int i = 0; i < 2_000; i++)
        {
            fingerprinter.fingerprint(i, tokens, tokens.length, hi, lo);
            fingerprinter.fingerprint(i, tokens, tokens.length, record.reset());
        }
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        assertTrue(allocated < 4_096, "allocated " + allocated + " bytes over 4000 calls");
    }

    @Test
    void shouldRejectANonPositivePageSize()
    {
        assertThrows(IllegalArgumentException.class, () -> new Fingerprinter(0));
    }

    private static long[][] referenceChain(
        final long namespace, final int[] tokens, final int count, final int pageSize) throws Exception
    {
        final int pages = count / pageSize;
        final long[][] result = new long[2][pages];
        byte[] parent = new byte[16];
        for (int page = 0; page < pages; page++)
        {
            final ByteBuffer input = ByteBuffer.allocate(8 + 16 + 4 * pageSize).order(ByteOrder.LITTLE_ENDIAN);
            input.putLong(namespace);
            input.put(parent);
            for (int i = 0; i < pageSize; i++)
            {
                input.putInt(tokens[page * pageSize + i]);
            }
            final byte[] digest = MessageDigest.getInstance("SHA-256").digest(input.array());
            parent = Arrays.copyOf(digest, 16);
            final ByteBuffer fp = ByteBuffer.wrap(parent).order(ByteOrder.BIG_ENDIAN);
            result[0][page] = fp.getLong(0);
            result[1][page] = fp.getLong(8);
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
