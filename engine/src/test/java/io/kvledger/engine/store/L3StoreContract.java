package io.kvledger.engine.store;

import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.engine.ingress.Fingerprinter;
import io.kvledger.journal.codec.Pool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static io.kvledger.engine.store.RecordingStoreListener.FETCH;
import static io.kvledger.engine.store.RecordingStoreListener.QUERY;
import static io.kvledger.engine.store.RecordingStoreListener.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semantics every {@link L3Store} must have; {@link FileL3StoreTest} and {@link MemoryL3StoreTest} run it.
 */
abstract class L3StoreContract
{
    static final int PAGES = 8;

    final RecordingStoreListener listener = new RecordingStoreListener();
    final long[] hi = new long[PAGES];
    final long[] lo = new long[PAGES];
    HostDeviceBackend staging;
    L3Store store;

    abstract L3Store newStore(HostDeviceBackend staging);

    abstract void vanishPage(L3Store store, long hi, long lo) throws Exception;

    abstract void vanishMamba(L3Store store, long hi, long lo) throws Exception;

    /**
     * Flip one content byte of a stored page by hand, as a bad disk or a bad client would.
     *
     * @return false when the store's objects cannot be reached from outside (the test is skipped).
     */
    boolean corruptPage(final L3Store store, final long hi, final long lo) throws Exception
    {
        return false;
    }

    @BeforeEach
    void setUp()
    {
        final int[] tokens = new int[PAGES * 16];
        final Random random = new Random(17);
        for (int i = 0; i < tokens.length; i++)
        {
            tokens[i] = random.nextInt(50_000);
        }
        new Fingerprinter(16).fingerprint(Fingerprinter.namespaceId("store-test"), tokens, tokens.length, hi, lo);

        staging = new HostDeviceBackend(new DeviceConfig().hostKvPages(64).hostMambaSlots(4));
        store = newStore(staging);
        store.start(listener);
    }

    @AfterEach
    void tearDown()
    {
        store.close();
        staging.close();
    }

    @Test
    void shouldAnswerAQueryOfAnEmptyStoreWithNothing()
    {
        store.query(1, hi, lo, 0, PAGES);

        final RecordingStoreListener.Completion answer = listener.next(QUERY, 1);
        assertEquals(0, answer.pages);
        assertEquals(0, answer.mambaPages);
    }

    @Test
    void shouldFetchIdenticalBytesAfterAWrite()
    {
        final long[] expected = fillPages(0, 4, 500);
        staging.fill(Pool.HOST_MAMBA, 0, 900);
        final long expectedMamba = staging.digest(Pool.HOST_MAMBA, 0);
        final WritePlan write = store.claimWrite();
        for (int i = 0; i < 4; i++)
        {
            write.page(hi[i], lo[i], i);
        }
        write.mamba(hi[3], lo[3], 0);
        store.write(2, write);
        assertTrue(listener.next(WRITE, 2).ok);

        final FetchPlan fetch = store.claimFetch();
        for (int i = 0; i < 4; i++)
        {
            fetch.page(hi[i], lo[i], 10 + i);
        }
        fetch.mamba(hi[3], lo[3], 1);
        store.fetch(3, fetch);

        final RecordingStoreListener.Completion done = listener.next(FETCH, 3);
        assertTrue(done.ok);
        assertEquals(4, done.pages);
        assertTrue(done.mambaRead);
        for (int i = 0; i < 4; i++)
        {
            assertEquals(expected[i], staging.digest(Pool.HOST_KV, 10 + i));
        }
        assertEquals(expectedMamba, staging.digest(Pool.HOST_MAMBA, 1));
        assertEquals(4, store.pageCount());
        assertEquals(1, store.mambaCount());
    }

    @Test
    void shouldReportConsecutivePresentPagesAndTheDeepestMambaState()
    {
        fillPages(0, PAGES, 1);
        staging.fill(Pool.HOST_MAMBA, 0, 2);
        writePages(10, new int[]{ 0, 1, 2, 4 }, -1);
        writePages(11, new int[0], 1);
        writePages(12, new int[0], 4);

        store.query(20, hi, lo, 0, 6);
        store.query(21, hi, lo, 4, 2);
        store.query(22, hi, lo, 1, 2);
        store.query(23, hi, lo, 2, 1);

        final RecordingStoreListener.Completion fromStart = listener.next(QUERY, 20);
        assertEquals(3, fromStart.pages);
        assertEquals(2, fromStart.mambaPages);
        final RecordingStoreListener.Completion fromFour = listener.next(QUERY, 21);
        assertEquals(1, fromFour.pages);
        assertEquals(1, fromFour.mambaPages);
        final RecordingStoreListener.Completion fromOne = listener.next(QUERY, 22);
        assertEquals(2, fromOne.pages);
        assertEquals(1, fromOne.mambaPages);
        final RecordingStoreListener.Completion noState = listener.next(QUERY, 23);
        assertEquals(1, noState.pages);
        assertEquals(0, noState.mambaPages);
    }

    @Test
    void shouldCopyQueryFingerprintsBeforeReturning()
    {
        fillPages(0, 2, 1);
        writePages(1, new int[]{ 0, 1 }, -1);
        final long[] callerHi = hi.clone();
        final long[] callerLo = lo.clone();

        store.query(2, callerHi, callerLo, 0, 2);
        callerHi[0] = 0;
        callerLo[0] = 0;

        assertEquals(2, listener.next(QUERY, 2).pages);
    }

    @Test
    void shouldShortReadWhenAPageVanished() throws Exception
    {
        fillPages(0, 4, 1);
        writePages(1, new int[]{ 0, 1, 2, 3 }, -1);
        vanishPage(store, hi[2], lo[2]);

        final FetchPlan fetch = store.claimFetch();
        for (int i = 0; i < 4; i++)
        {
            fetch.page(hi[i], lo[i], 20 + i);
        }
        store.fetch(2, fetch);

        final RecordingStoreListener.Completion done = listener.next(FETCH, 2);
        assertTrue(done.ok);
        assertEquals(2, done.pages);
        assertFalse(done.mambaRead);
        assertEquals(1, store.stats().missing());
    }

    @Test
    void shouldFailAFetchOfACorruptPageAndCountItAsCorruptOnly() throws Exception
    {
        fillPages(0, 3, 4);
        writePages(1, new int[]{ 0, 1, 2 }, -1);
        org.junit.jupiter.api.Assumptions.assumeTrue(corruptPage(store, hi[1], lo[1]), "no outside access");
        staging.fill(Pool.HOST_KV, 21, 999);
        final long untouched = staging.digest(Pool.HOST_KV, 21);

        store.fetch(2, store.claimFetch().page(hi[0], lo[0], 20).page(hi[1], lo[1], 21).page(hi[2], lo[2], 22));

        final RecordingStoreListener.Completion done = listener.next(FETCH, 2);
        assertFalse(done.ok, "a corrupt object fails the fetch, in every store");
        assertEquals(1, done.pages);
        assertEquals(1, store.stats().corrupt());
        assertEquals(0, store.stats().missing(), "a corrupt object is not also counted as missing");
        assertEquals(untouched, staging.digest(Pool.HOST_KV, 21), "the corrupt page never reaches staging");
        store.query(3, hi, lo, 0, 3);
        assertEquals(1, listener.next(QUERY, 3).pages, "the corrupt object is removed");
    }

    @Test
    void shouldShortReadWhenTheMambaStateVanished() throws Exception
    {
        fillPages(0, 2, 1);
        staging.fill(Pool.HOST_MAMBA, 0, 3);
        writePages(1, new int[]{ 0, 1 }, 1);
        vanishMamba(store, hi[1], lo[1]);

        store.fetch(2, store.claimFetch().page(hi[0], lo[0], 5).page(hi[1], lo[1], 6).mamba(hi[1], lo[1], 2));

        final RecordingStoreListener.Completion done = listener.next(FETCH, 2);
        assertTrue(done.ok);
        assertEquals(2, done.pages);
        assertFalse(done.mambaRead);
    }

    @Test
    void shouldReplaceAStoredPage()
    {
        fillPages(0, 1, 1);
        writePages(1, new int[]{ 0 }, -1);
        final long replaced = fillPages(0, 1, 2)[0];
        writePages(2, new int[]{ 0 }, -1);

        store.fetch(3, store.claimFetch().page(hi[0], lo[0], 30));

        assertEquals(1, listener.next(FETCH, 3).pages);
        assertEquals(replaced, staging.digest(Pool.HOST_KV, 30));
        assertEquals(1, store.pageCount());
    }

    @Test
    void shouldRunManyQueuedOperationsInOrder()
    {
        final long[] expected = fillPages(0, PAGES, 40);
        for (int op = 0; op < 200; op++)
        {
            final int page = op % PAGES;
            store.write(op, store.claimWrite().page(hi[page], lo[page], page));
        }
        for (int op = 0; op < 200; op++)
        {
            assertTrue(listener.next(WRITE, op).ok);
        }

        for (int op = 200; op < 400; op++)
        {
            final int page = op % PAGES;
            store.fetch(op, store.claimFetch().page(hi[page], lo[page], 32 + page));
        }
        for (int op = 200; op < 400; op++)
        {
            assertEquals(1, listener.next(FETCH, op).pages);
        }
        for (int page = 0; page < PAGES; page++)
        {
            assertEquals(expected[page], staging.digest(Pool.HOST_KV, 32 + page));
        }
        assertEquals(PAGES, store.pageCount());
    }

    @Test
    void shouldRejectMisusedPlans()
    {
        final FetchPlan fetch = store.claimFetch();
        assertThrows(IllegalArgumentException.class, () -> fetch.page(1, 2, 64));
        assertThrows(IllegalArgumentException.class, () -> fetch.mamba(1, 2, 4));
        store.fetch(1, fetch);
        assertThrows(IllegalStateException.class, () -> store.fetch(2, fetch));
        assertThrows(IllegalArgumentException.class, () -> store.query(3, hi, lo, 4, PAGES));
        listener.next(FETCH, 1);
    }

    @Test
    void shouldRunOutOfPlansOnlyWhileTheyAreClaimed()
    {
        final L3Store small = newStoreWithLimits(staging, 16, 1);
        try
        {
            small.start(listener);
            final WritePlan only = small.claimWrite();
            assertNull(small.tryClaimWrite());
            small.write(5, only);
            listener.next(WRITE, 5);
            assertNotEquals(null, small.claimWrite());
        }
        finally
        {
            small.close();
        }
    }

    abstract L3Store newStoreWithLimits(HostDeviceBackend staging, int maxPagesPerOp, int planCount);

    long[] fillPages(final int firstSlot, final int count, final long seed)
    {
        final long[] digests = new long[count];
        for (int i = 0; i < count; i++)
        {
            staging.fill(Pool.HOST_KV, firstSlot + i, seed * 1_000 + i);
            digests[i] = staging.digest(Pool.HOST_KV, firstSlot + i);
        }
        return digests;
    }

    void writePages(final long op, final int[] pages, final int mambaAtPage)
    {
        final WritePlan plan = store.claimWrite();
        for (final int page : pages)
        {
            plan.page(hi[page], lo[page], page);
        }
        if (mambaAtPage >= 0)
        {
            plan.mamba(hi[mambaAtPage], lo[mambaAtPage], 0);
        }
        store.write(op, plan);
        assertTrue(listener.next(WRITE, op).ok);
    }
}
