package io.kvledger.engine.device;

import io.kvledger.journal.codec.Pool;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packing of copy batches into the copy kernel's entry table, in plain Java: entry layout, chunking of large
 * slots, launch groups at dependent copies, and that running each group's entries in any order gives what the
 * batch's copies give one after the other.
 */
class CopyPlannerTest
{
    private static final int KV = 4096;
    private static final int MAMBA = 65536;
    private static final int CHUNK = 16384;
    private static final int[] COUNTS = { 32, 8, 64, 8 };
    private static final int[] BYTES = { KV, MAMBA, KV, MAMBA };

    @Test
    void shouldWriteOneEntryPerPageWithPoolsOffsetsAndBytes()
    {
        final CopyPlanner planner = planner(64);
        final CopyBatch batch = batch(64);
        batch.add(Pool.HOST_KV, 7, Pool.DEVICE_KV, 3);
        batch.add(Pool.HOST_KV, 63, Pool.DEVICE_KV, 0);
        final UnsafeBuffer table = table(planner);

        assertEquals(2, planner.plan(batch, batch.count(), table));

        assertEntry(table, 0, 7L * KV, 3L * KV, Pool.HOST_KV, Pool.DEVICE_KV, KV);
        assertEntry(table, 1, 63L * KV, 0, Pool.HOST_KV, Pool.DEVICE_KV, KV);
        assertEquals(1, planner.groups(), "distinct slots: one launch");
        assertEquals(0, planner.groupStart(0));
        assertEquals(2, planner.groupEnd(0));
        assertEquals(2L * KV, planner.bytes());
    }

    @Test
    void shouldSplitALargeSlotIntoChunksCoveringItExactly()
    {
        final CopyPlanner planner = planner(4);
        final CopyBatch batch = batch(4).add(Pool.HOST_MAMBA, 5, Pool.DEVICE_MAMBA, 2);
        final UnsafeBuffer table = table(planner);

        assertEquals(MAMBA / CHUNK, planner.plan(batch, 1, table));
        for (int e = 0; e < MAMBA / CHUNK; e++)
        {
            assertEntry(table, e, 5L * MAMBA + (long)e * CHUNK, 2L * MAMBA + (long)e * CHUNK, Pool.HOST_MAMBA,
                Pool.DEVICE_MAMBA, CHUNK);
        }
        assertEquals(MAMBA, planner.bytes());
    }

    @Test
    void shouldLeaveALastShorterChunk()
    {
        final int[] bytes = { 48, 80, 48, 80 };
        final CopyPlanner planner = new CopyPlanner(COUNTS, bytes, 32, 4);
        final CopyBatch batch = batch(4).add(Pool.DEVICE_MAMBA, 1, Pool.HOST_MAMBA, 2);
        final UnsafeBuffer table = new UnsafeBuffer(ByteBuffer.allocateDirect(planner.tableBytes()));

        assertEquals(3, planner.plan(batch, 1, table));
        assertEntry(table, 0, 80, 160, Pool.DEVICE_MAMBA, Pool.HOST_MAMBA, 32);
        assertEntry(table, 1, 112, 192, Pool.DEVICE_MAMBA, Pool.HOST_MAMBA, 32);
        assertEntry(table, 2, 144, 224, Pool.DEVICE_MAMBA, Pool.HOST_MAMBA, 16);
    }

    @Test
    void shouldStartANewLaunchWhereACopyReadsWhatAnEarlierOneWrote()
    {
        final CopyPlanner planner = planner(8);
        final CopyBatch batch = batch(8)
            .add(Pool.HOST_MAMBA, 0, Pool.DEVICE_MAMBA, 0)
            .add(Pool.DEVICE_MAMBA, 0, Pool.DEVICE_MAMBA, 1)
            .add(Pool.DEVICE_MAMBA, 1, Pool.HOST_MAMBA, 1);
        final int perState = MAMBA / CHUNK;

        assertEquals(3 * perState, planner.plan(batch, 3, table(planner)));

        assertEquals(3, planner.groups(), "load, then copy on write, then backup: three launches");
        assertEquals(perState, planner.groupEnd(0));
        assertEquals(perState, planner.groupStart(1));
        assertEquals(2 * perState, planner.groupEnd(1));
        assertEquals(3 * perState, planner.groupEnd(2));
    }

    @Test
    void shouldStartANewLaunchForWriteAfterReadAndWriteAfterWrite()
    {
        final CopyPlanner planner = planner(8);
        final UnsafeBuffer table = table(planner);

        planner.plan(batch(8).add(Pool.DEVICE_KV, 4, Pool.HOST_KV, 9).add(Pool.HOST_KV, 1, Pool.DEVICE_KV, 4),
            2, table);
        assertEquals(2, planner.groups(), "a copy overwrites a slot an earlier copy still reads");

        planner.plan(batch(8).add(Pool.HOST_KV, 1, Pool.DEVICE_KV, 4).add(Pool.HOST_KV, 2, Pool.DEVICE_KV, 4),
            2, table);
        assertEquals(2, planner.groups(), "two copies write the same slot: the last must win");

        planner.plan(batch(8).add(Pool.HOST_KV, 1, Pool.DEVICE_KV, 4).add(Pool.HOST_KV, 1, Pool.DEVICE_KV, 5),
            2, table);
        assertEquals(1, planner.groups(), "two copies reading one slot are independent");
    }

    @Test
    void shouldPlanOnlyTheFirstCopiesOfAPartialBatch()
    {
        final CopyPlanner planner = planner(8);
        final CopyBatch batch = batch(8)
            .add(Pool.HOST_KV, 1, Pool.DEVICE_KV, 1)
            .add(Pool.HOST_KV, 2, Pool.DEVICE_KV, 2)
            .add(Pool.HOST_KV, 3, Pool.DEVICE_KV, 3);

        assertEquals(2, planner.plan(batch, 2, table(planner)));
        assertEquals(2L * KV, planner.bytes());
        assertEquals(0, planner.plan(batch, 0, table(planner)));
        assertEquals(0, planner.groups(), "nothing to launch");
    }

    @Test
    void shouldRefuseSlotSizesTheKernelCannotMove()
    {
        assertFalse(CopyPlanner.kernelCopyable(4104));
        assertTrue(CopyPlanner.kernelCopyable(4096));
        assertThrows(IllegalArgumentException.class,
            () -> new CopyPlanner(COUNTS, new int[]{ 4104, MAMBA, 4104, MAMBA }, CHUNK, 4));
        assertThrows(IllegalArgumentException.class, () -> new CopyPlanner(COUNTS, BYTES, 24, 4));
        assertThrows(IllegalArgumentException.class, () -> CopyPlanner.entriesFor(1 << 20, 1 << 30, 16));
    }

    @Test
    void shouldSizeTheTableForAFullBatchOfTheLargestSlots()
    {
        final CopyPlanner planner = planner(10);
        assertEquals(10 * (MAMBA / CHUNK), planner.maxEntries());
        assertEquals(planner.maxEntries() * CopyPlanner.ENTRY_BYTES, planner.tableBytes());
        final CopyBatch batch = batch(10);
        for (int i = 0; i < 10; i++)
        {
            batch.add(Pool.HOST_MAMBA, i % 8, Pool.DEVICE_MAMBA, (i + 3) % 8);
        }
        assertEquals(planner.maxEntries(), planner.plan(batch, 10, table(planner)));
    }

    @Test
    void shouldOrderEachLaunchByHostSlotWhenSorting()
    {
        final int[] counts = { 4096, 8, 4096, 8 };
        final CopyPlanner planner = new CopyPlanner(counts, BYTES, CHUNK, 300, true);
        final UnsafeBuffer table = new UnsafeBuffer(ByteBuffer.allocateDirect(planner.tableBytes()));
        final SplittableRandom random = new SplittableRandom(3);
        for (final int copies : new int[]{ 2, 20, 300 })
        {
            final CopyBatch batch = new CopyBatch(this, 0, 300, counts);
            batch.claimed();
            final int[] hostSlots = distinct(random, copies, counts[2]);
            for (int i = 0; i < copies; i++)
            {
                batch.add(Pool.HOST_KV, hostSlots[i], Pool.DEVICE_KV, i);
            }
            assertEquals(copies, planner.plan(batch, copies, table));
            assertEquals(1, planner.groups());
            final int[] sorted = hostSlots.clone();
            Arrays.sort(sorted);
            for (int e = 0; e < copies; e++)
            {
                final int slot = (int)(table.getLong(e * CopyPlanner.ENTRY_BYTES, ByteOrder.LITTLE_ENDIAN) / KV);
                assertEquals(sorted[e], slot, copies + " copies: entry " + e);
                final int copy = indexOf(hostSlots, slot);
                assertEntry(table, e, (long)slot * KV, (long)copy * KV, Pool.HOST_KV, Pool.DEVICE_KV, KV);
            }
        }
    }

    @Test
    void shouldSortBackupsByTheirHostDestinationAndKeepDeviceOnlyCopiesFirst()
    {
        final CopyPlanner planner = new CopyPlanner(COUNTS, BYTES, MAMBA, 8, true);
        final CopyBatch batch = batch(8)
            .add(Pool.DEVICE_MAMBA, 0, Pool.HOST_MAMBA, 5)
            .add(Pool.DEVICE_KV, 2, Pool.HOST_KV, 40)
            .add(Pool.DEVICE_MAMBA, 1, Pool.DEVICE_MAMBA, 2)
            .add(Pool.DEVICE_KV, 3, Pool.HOST_KV, 9);
        final UnsafeBuffer table = table(planner);

        assertEquals(4, planner.plan(batch, 4, table));

        assertEquals(1, planner.groups());
        assertEntry(table, 0, MAMBA, 2L * MAMBA, Pool.DEVICE_MAMBA, Pool.DEVICE_MAMBA, MAMBA);
        assertEntry(table, 1, 3L * KV, 9L * KV, Pool.DEVICE_KV, Pool.HOST_KV, KV);
        assertEntry(table, 2, 2L * KV, 40L * KV, Pool.DEVICE_KV, Pool.HOST_KV, KV);
        assertEntry(table, 3, 0, 5L * MAMBA, Pool.DEVICE_MAMBA, Pool.HOST_MAMBA, MAMBA);
    }

    @Test
    void shouldRecordTheLargestEntryOfEachLaunch()
    {
        final CopyPlanner planner = planner(8);
        final CopyBatch batch = batch(8)
            .add(Pool.HOST_KV, 1, Pool.DEVICE_KV, 1)
            .add(Pool.DEVICE_KV, 1, Pool.HOST_KV, 2)
            .add(Pool.HOST_MAMBA, 0, Pool.DEVICE_MAMBA, 0);

        planner.plan(batch, 3, table(planner));

        assertEquals(2, planner.groups());
        assertEquals(KV, planner.groupMaxBytes(0));
        assertEquals(CHUNK, planner.groupMaxBytes(1), "a Mamba state moves in chunks");
    }

    @Test
    void shouldLeaveLargeCopiesOfAOneLaunchBatchToTheCopyEngine()
    {
        final CopyPlanner planner = new CopyPlanner(COUNTS, BYTES, CHUNK, 8, false, MAMBA, 1);
        final CopyBatch batch = batch(8)
            .add(Pool.HOST_KV, 1, Pool.DEVICE_KV, 1)
            .add(Pool.HOST_MAMBA, 2, Pool.DEVICE_MAMBA, 3)
            .add(Pool.HOST_KV, 2, Pool.DEVICE_KV, 2)
            .add(Pool.HOST_MAMBA, 4, Pool.DEVICE_MAMBA, 5);
        final UnsafeBuffer table = table(planner);

        assertEquals(2 + MAMBA / CHUNK, planner.plan(batch, 4, table), "two pages and the second state's chunks");

        assertEquals(1, planner.directCount(), "at most splitMaxCopies");
        assertEquals(1, planner.directCopy(0), "the first large copy");
        assertEquals(1, planner.groups());
        assertEntry(table, 0, KV, KV, Pool.HOST_KV, Pool.DEVICE_KV, KV);
        assertEntry(table, 1, 2L * KV, 2L * KV, Pool.HOST_KV, Pool.DEVICE_KV, KV);
        assertEntry(table, 2, 4L * MAMBA, 5L * MAMBA, Pool.HOST_MAMBA, Pool.DEVICE_MAMBA, CHUNK);
        assertEquals(2L * KV + 2L * MAMBA, planner.bytes(), "bytes count the copy engine's copies too");
    }

    @Test
    void shouldSplitNothingFromABatchOfSeveralLaunchesOrBetweenHostSlots()
    {
        final CopyPlanner planner = new CopyPlanner(COUNTS, BYTES, CHUNK, 8, false, MAMBA, 4);
        final UnsafeBuffer table = table(planner);

        planner.plan(batch(8).add(Pool.HOST_MAMBA, 0, Pool.DEVICE_MAMBA, 0)
            .add(Pool.DEVICE_MAMBA, 0, Pool.DEVICE_MAMBA, 1), 2, table);
        assertEquals(2, planner.groups());
        assertEquals(0, planner.directCount(), "copies of a batch of several launches keep their order");
        assertEquals(2 * (MAMBA / CHUNK), planner.entries());

        planner.plan(batch(8).add(Pool.HOST_MAMBA, 0, Pool.HOST_MAMBA, 1).add(Pool.DEVICE_MAMBA, 2,
            Pool.DEVICE_MAMBA, 3), 2, table);
        assertEquals(1, planner.directCount(), "device to device may go, host to host may not");
        assertEquals(1, planner.directCopy(0));

        planner.plan(batch(8).add(Pool.HOST_MAMBA, 0, Pool.DEVICE_MAMBA, 0), 1, table);
        assertEquals(0, planner.entries(), "a lone state goes to the copy engine entirely");
        assertEquals(1, planner.directCount());
        assertEquals(MAMBA, planner.bytes());
    }

    @Test
    void shouldPackAMegabyteChunkAndLargeOffsetsIntoSixteenBytes()
    {
        final int[] counts = { 4, 1 << 16, 4, 1 << 16 };
        final int[] bytes = { 1 << 20, 1 << 20, 1 << 20, 1 << 20 };
        final CopyPlanner planner = new CopyPlanner(counts, bytes, 1 << 20, 2);
        final CopyBatch batch = new CopyBatch(this, 0, 2, counts);
        batch.claimed();
        batch.add(Pool.HOST_MAMBA, 65_535, Pool.DEVICE_MAMBA, 40_000);
        final UnsafeBuffer table = table(planner);

        assertEquals(1, planner.plan(batch, 1, table));

        assertEntry(table, 0, 65_535L << 20, 40_000L << 20, Pool.HOST_MAMBA, Pool.DEVICE_MAMBA, 1 << 20);
        assertThrows(IllegalArgumentException.class, () -> new CopyPlanner(counts, bytes, (1 << 20) + 16, 2));
    }

    @Test
    void shouldGiveAWarpToASmallPageAndABlockToALargeChunk()
    {
        assertEquals(32, KernelLauncher.groupThreads(0, 256, 16));
        assertEquals(32, KernelLauncher.groupThreads(0, 256, 4096), "4 KiB: 32 threads x 8 words");
        assertEquals(64, KernelLauncher.groupThreads(0, 256, 4112));
        assertEquals(128, KernelLauncher.groupThreads(0, 256, 16384));
        assertEquals(256, KernelLauncher.groupThreads(0, 256, 32768));
        assertEquals(256, KernelLauncher.groupThreads(0, 256, 1 << 20), "at most the block");
        assertEquals(32, KernelLauncher.groupThreads(0, 96, 32768), "a power of two dividing the block");
        assertEquals(64, KernelLauncher.groupThreads(64, 256, 32768), "the configured number wins");
    }

    /**
     * Random batches with dependencies: executing each launch group's entries in reverse and in shuffled order,
     * group after group, must leave the same bytes as executing the batch's copies in order.
     */
    @Test
    void shouldMatchInOrderCopiesWhateverTheOrderWithinALaunch()
    {
        final int[] counts = { 6, 4, 6, 4 };
        final int[] bytes = { 64, 160, 64, 160 };
        final CopyPlanner unsorted = new CopyPlanner(counts, bytes, 48, 12);
        final CopyPlanner sorting = new CopyPlanner(counts, bytes, 48, 12, true);
        final UnsafeBuffer table = new UnsafeBuffer(ByteBuffer.allocateDirect(unsorted.tableBytes()));
        final SplittableRandom random = new SplittableRandom(7);
        final CopyBatch batch = new CopyBatch(this, 0, 12, counts);
        for (int round = 0; round < 2_000; round++)
        {
            batch.claimed();
            final int copies = 1 + random.nextInt(12);
            for (int i = 0; i < copies; i++)
            {
                final boolean kv = random.nextBoolean();
                final Pool src = Pool.values()[(kv ? 0 : 1) + (random.nextBoolean() ? 2 : 0)];
                final Pool dst = Pool.values()[(kv ? 0 : 1) + (random.nextBoolean() ? 2 : 0)];
                batch.add(src, random.nextInt(counts[src.ordinal()]), dst, random.nextInt(counts[dst.ordinal()]));
            }
            final byte[][] memory = memory(counts, bytes, random.nextLong());
            final byte[][] expected = copyOf(memory);
            for (int i = 0; i < copies; i++)
            {
                final int length = bytes[batch.srcPool(i).ordinal()];
                System.arraycopy(expected[batch.srcPool(i).ordinal()], batch.srcSlot(i) * length,
                    expected[batch.dstPool(i).ordinal()], batch.dstSlot(i) * length, length);
            }

            final CopyPlanner planner = round % 2 == 0 ? unsorted : sorting;
            planner.plan(batch, copies, table);
            final byte[][] reversed = copyOf(memory);
            final byte[][] shuffled = copyOf(memory);
            for (int g = 0; g < planner.groups(); g++)
            {
                runConcurrently(table, planner.groupStart(g), planner.groupEnd(g), reversed, null);
                runConcurrently(table, planner.groupStart(g), planner.groupEnd(g), shuffled, random);
            }
            for (int p = 0; p < 4; p++)
            {
                assertArrayEquals(expected[p], reversed[p], "round " + round + " pool " + p);
                assertArrayEquals(expected[p], shuffled[p], "round " + round + " pool " + p);
            }
            batch.released();
        }
    }

    /** Like a launch: every entry reads the memory as it was when the launch started, then all write. */
    private static void runConcurrently(
        final UnsafeBuffer table, final int from, final int to, final byte[][] memory, final SplittableRandom random)
    {
        final int[] order = new int[to - from];
        for (int i = 0; i < order.length; i++)
        {
            order[i] = to - 1 - i;
        }
        if (null != random)
        {
            for (int i = order.length - 1; i > 0; i--)
            {
                final int j = random.nextInt(i + 1);
                final int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        final byte[][] before = copyOf(memory);
        for (final int e : order)
        {
            final Decoded d = decode(table, e);
            System.arraycopy(before[d.src], (int)d.srcOffset, memory[d.dst], (int)d.dstOffset, d.bytes);
        }
    }

    private static byte[][] memory(final int[] counts, final int[] bytes, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final byte[][] memory = new byte[4][];
        for (int p = 0; p < 4; p++)
        {
            memory[p] = new byte[counts[p] * bytes[p]];
            for (int i = 0; i < memory[p].length; i++)
            {
                memory[p][i] = (byte)random.nextInt(256);
            }
        }
        return memory;
    }

    private static byte[][] copyOf(final byte[][] memory)
    {
        final byte[][] copy = new byte[memory.length][];
        for (int p = 0; p < memory.length; p++)
        {
            copy[p] = Arrays.copyOf(memory[p], memory[p].length);
        }
        return copy;
    }

    private static int[] distinct(final SplittableRandom random, final int n, final int bound)
    {
        final int[] ids = new int[bound];
        for (int i = 0; i < bound; i++)
        {
            ids[i] = i;
        }
        for (int i = 0; i < n; i++)
        {
            final int j = i + random.nextInt(bound - i);
            final int t = ids[i];
            ids[i] = ids[j];
            ids[j] = t;
        }
        return Arrays.copyOf(ids, n);
    }

    private static int indexOf(final int[] values, final int value)
    {
        for (int i = 0; i < values.length; i++)
        {
            if (values[i] == value)
            {
                return i;
            }
        }
        return -1;
    }

    private static CopyPlanner planner(final int maxCopies)
    {
        return new CopyPlanner(COUNTS, BYTES, CHUNK, maxCopies);
    }

    private CopyBatch batch(final int capacity)
    {
        final CopyBatch batch = new CopyBatch(this, 0, capacity, COUNTS);
        batch.claimed();
        return batch;
    }

    private static UnsafeBuffer table(final CopyPlanner planner)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(planner.tableBytes()));
    }

    private static void assertEntry(final UnsafeBuffer table, final int entry, final long srcOffset,
        final long dstOffset, final Pool src, final Pool dst, final int bytes)
    {
        final Decoded d = decode(table, entry);
        assertEquals(srcOffset, d.srcOffset, "source offset of entry " + entry);
        assertEquals(dstOffset, d.dstOffset, "destination offset of entry " + entry);
        assertEquals(src.ordinal(), d.src, "source pool of entry " + entry);
        assertEquals(dst.ordinal(), d.dst, "destination pool of entry " + entry);
        assertEquals(bytes, d.bytes, "bytes of entry " + entry);
    }

    /** An entry as the kernel reads it: x = source offset | pools at bits 48 and 50, y = destination | words - 1. */
    private static Decoded decode(final UnsafeBuffer table, final int entry)
    {
        final int at = entry * CopyPlanner.ENTRY_BYTES;
        final long x = table.getLong(at, ByteOrder.LITTLE_ENDIAN);
        final long y = table.getLong(at + 8, ByteOrder.LITTLE_ENDIAN);
        return new Decoded(x & CopyPlanner.OFFSET_MASK, y & CopyPlanner.OFFSET_MASK, (int)(x >>> 48 & 3),
            (int)(x >>> 50 & 3), (int)((y >>> 48) + 1) * 16);
    }

    private record Decoded(long srcOffset, long dstOffset, int src, int dst, int bytes)
    {
    }
}
