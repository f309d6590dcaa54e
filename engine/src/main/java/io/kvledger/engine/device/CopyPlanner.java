package io.kvledger.engine.device;

import io.kvledger.journal.codec.Pool;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Packs a {@link CopyBatch} into the entry table of the copy kernel ({@code copy.ptx}): one 16-byte entry per
 * chunk of at most {@link #chunkBytes()} bytes, each naming a source and destination pool and byte offset, and
 * splits the table into launch groups where a copy depends on an earlier copy of the same batch.
 * <p>
 * A batch keeps the host backend's meaning: its copies take effect in order. One kernel launch runs its entries
 * in any order at once, so a new group starts at a copy that reads a slot an earlier copy of the group writes,
 * or writes a slot an earlier copy of the group reads or writes (a Mamba state loaded then copied on write, for
 * example); loads and backups of distinct slots stay one launch. Hazards are found with per-slot stamps, so
 * planning is linear in the batch and allocation-free.
 * <p>
 * With {@code sortByHost}, the copies of each launch group are written in the order of their host slots (a radix
 * sort, allocation-free): the scattered pages of one launch then reach host memory in rising address order.
 * Within a group the order does not matter to the result, only to how host memory is walked. Each group also
 * records its largest entry ({@link #groupMaxBytes(int)}), from which the backend picks how many threads copy
 * one entry.
 * <p>
 * With a split size, a batch that is one launch group leaves up to {@code splitMaxCopies} copies of at least
 * that many bytes (between host and device, or device and device) out of the table: the backend moves them with
 * the copy engine on a side stream while the kernel moves the rest ({@link #directCount()}).
 * <p>
 * Entry layout, 16 bytes, little-endian: u64 x = source offset (bits 0-47) | source pool (bits 48-49) |
 * destination pool (bits 50-51); u64 y = destination offset (bits 0-47) | 16-byte words minus one (bits 48-63, so
 * a chunk is at most 1 MiB). Pools are {@link Pool#ordinal()}s. Thread ownership: one planner per issuing thread.
 */
final class CopyPlanner
{
    /** Bytes of one table entry. */
    static final int ENTRY_BYTES = 16;
    /** Most bytes one entry can move: its word count has 16 bits. */
    static final int MAX_CHUNK_BYTES = 1 << 20;
    /** Bits of a byte offset in an entry. */
    static final int OFFSET_BITS = 48;
    /** Mask of a byte offset in an entry. */
    static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    /** The kernel moves 16-byte words: every slot size and chunk must be a multiple of this. */
    static final int WORD_BYTES = 16;

    private static final int POOLS = 4;
    private static final int RADIX = 256;
    private static final int INSERTION_SORT_MAX = 24;

    private final int[] slotBytes;
    private final int chunkBytes;
    private final int maxEntries;
    private final int[][] readStamp = new int[POOLS][];
    private final int[][] writeStamp = new int[POOLS][];
    private final int[] groupEnd;
    private final int[] groupMaxBytes;
    private final int[] groupCopyEnd;
    private final boolean sortByHost;
    private final int[] order;
    private final long[] keys;
    private final long[] sorted;
    private final int[] digitCounts = new int[RADIX];
    private final int splitMinBytes;
    private final int[] directCopies;
    private int directCount;
    private int stamp;
    private int groups;
    private int entries;
    private long bytes;

    /**
     * A planner for batches of up to {@code maxCopies} copies over pools of the given sizes.
     *
     * @param slotCounts slots per pool, indexed by {@link Pool#ordinal()}.
     * @param slotBytes  bytes per slot per pool; multiples of {@link #WORD_BYTES}.
     * @param chunkBytes most bytes one entry (one thread block) moves; a multiple of {@link #WORD_BYTES}.
     * @param maxCopies  most copies in one batch.
     * @throws IllegalArgumentException for sizes the kernel cannot move.
     */
    CopyPlanner(final int[] slotCounts, final int[] slotBytes, final int chunkBytes, final int maxCopies)
    {
        this(slotCounts, slotBytes, chunkBytes, maxCopies, false);
    }

    /**
     * A planner for batches of up to {@code maxCopies} copies over pools of the given sizes.
     *
     * @param slotCounts slots per pool, indexed by {@link Pool#ordinal()}.
     * @param slotBytes  bytes per slot per pool; multiples of {@link #WORD_BYTES}.
     * @param chunkBytes most bytes one entry moves; a multiple of {@link #WORD_BYTES}.
     * @param maxCopies  most copies in one batch.
     * @param sortByHost write each launch group's copies in the order of their host slots.
     * @throws IllegalArgumentException for sizes the kernel cannot move.
     */
    CopyPlanner(
        final int[] slotCounts, final int[] slotBytes, final int chunkBytes, final int maxCopies,
        final boolean sortByHost)
    {
        this(slotCounts, slotBytes, chunkBytes, maxCopies, sortByHost, 0, 0);
    }

    /**
     * A planner for batches of up to {@code maxCopies} copies over pools of the given sizes.
     *
     * @param slotCounts     slots per pool, indexed by {@link Pool#ordinal()}.
     * @param slotBytes      bytes per slot per pool; multiples of {@link #WORD_BYTES}.
     * @param chunkBytes     most bytes one entry moves; a multiple of {@link #WORD_BYTES}.
     * @param maxCopies      most copies in one batch.
     * @param sortByHost     write each launch group's copies in the order of their host slots.
     * @param splitMinBytes  copies of at least this many bytes go to the copy engine; 0 for none.
     * @param splitMaxCopies at most this many of them per batch.
     * @throws IllegalArgumentException for sizes the kernel cannot move.
     */
    CopyPlanner(
        final int[] slotCounts, final int[] slotBytes, final int chunkBytes, final int maxCopies,
        final boolean sortByHost, final int splitMinBytes, final int splitMaxCopies)
    {
        if (chunkBytes < WORD_BYTES || chunkBytes % WORD_BYTES != 0 || chunkBytes > MAX_CHUNK_BYTES)
        {
            throw new IllegalArgumentException("kernel chunk must be a positive multiple of 16 bytes, at most 1 MiB: " +
                chunkBytes);
        }
        int largest = 0;
        for (int p = 0; p < POOLS; p++)
        {
            if (!kernelCopyable(slotBytes[p]))
            {
                throw new IllegalArgumentException("the copy kernel needs slot sizes that are multiples of 16 bytes: " +
                    Pool.values()[p] + " has " + slotBytes[p]);
            }
            largest = Math.max(largest, slotBytes[p]);
            readStamp[p] = new int[slotCounts[p]];
            writeStamp[p] = new int[slotCounts[p]];
        }
        this.slotBytes = slotBytes.clone();
        this.chunkBytes = chunkBytes;
        this.maxEntries = entriesFor(maxCopies, largest, chunkBytes);
        final int copies = Math.max(1, maxCopies);
        this.groupEnd = new int[copies];
        this.groupMaxBytes = new int[copies];
        this.groupCopyEnd = new int[copies];
        this.sortByHost = sortByHost;
        this.order = new int[copies];
        this.keys = new long[sortByHost ? copies : 0];
        this.sorted = new long[sortByHost ? copies : 0];
        this.splitMinBytes = splitMaxCopies > 0 ? splitMinBytes : 0;
        this.directCopies = new int[Math.max(0, splitMaxCopies)];
    }

    /**
     * Whether a slot size can go through the kernel.
     *
     * @param slotBytes bytes of one slot.
     * @return true for a positive multiple of 16.
     */
    static boolean kernelCopyable(final int slotBytes)
    {
        return slotBytes > 0 && slotBytes % WORD_BYTES == 0;
    }

    /**
     * Table entries needed, at most, for a batch.
     *
     * @param maxCopies  copies in the batch.
     * @param slotBytes  largest slot size.
     * @param chunkBytes bytes per entry.
     * @return the entry count of a full batch of the largest slots.
     */
    static int entriesFor(final int maxCopies, final int slotBytes, final int chunkBytes)
    {
        final long perCopy = (slotBytes + (long)chunkBytes - 1) / chunkBytes;
        final long total = perCopy * maxCopies;
        if (total > Integer.MAX_VALUE / ENTRY_BYTES)
        {
            throw new IllegalArgumentException("copy table too large: " + maxCopies + " copies of " + slotBytes +
                " bytes in chunks of " + chunkBytes);
        }
        return (int)total;
    }

    /**
     * Most entries one planned batch can take.
     *
     * @return the entry capacity a table buffer needs.
     */
    int maxEntries()
    {
        return maxEntries;
    }

    /**
     * Bytes a table buffer needs.
     *
     * @return {@link #maxEntries()} times {@link #ENTRY_BYTES}.
     */
    int tableBytes()
    {
        return maxEntries * ENTRY_BYTES;
    }

    /**
     * Bytes one entry moves at most.
     *
     * @return the chunk size.
     */
    int chunkBytes()
    {
        return chunkBytes;
    }

    /**
     * Write the entries of the first {@code limit} copies of a batch into a table and find its launch groups.
     *
     * @param batch the batch (claimed or submitted; read only).
     * @param limit copies to plan, from the first; less than {@code batch.count()} for an injected partial failure.
     * @param table receives the entries from index 0; at least {@link #tableBytes()} long.
     * @return the number of entries written.
     */
    int plan(final CopyBatch batch, final int limit, final MutableDirectBuffer table)
    {
        groups = 0;
        entries = 0;
        bytes = 0;
        directCount = 0;
        if (limit <= 0)
        {
            return 0;
        }

        nextStamp();
        for (int i = 0; i < limit; i++)
        {
            final int src = batch.srcPool(i).ordinal();
            final int dst = batch.dstPool(i).ordinal();
            final int srcSlot = batch.srcSlot(i);
            final int dstSlot = batch.dstSlot(i);
            if (writeStamp[src][srcSlot] == stamp || writeStamp[dst][dstSlot] == stamp ||
                readStamp[dst][dstSlot] == stamp)
            {
                groupCopyEnd[groups++] = i;
                nextStamp();
            }
            readStamp[src][srcSlot] = stamp;
            writeStamp[dst][dstSlot] = stamp;
            order[i] = i;
        }
        groupCopyEnd[groups++] = limit;

        int first = 0;
        for (int g = 0; g < groups; g++)
        {
            final int end = groupCopyEnd[g];
            if (sortByHost && end - first > 1)
            {
                sortByHostSlot(batch, first, end);
            }
            int largest = 0;
            for (int k = first; k < end; k++)
            {
                final int i = order[k];
                if (groups == 1 && directCount < directCopies.length && splitsOff(batch, i))
                {
                    directCopies[directCount++] = i;
                    bytes += slotBytes[batch.srcPool(i).ordinal()];
                    continue;
                }
                largest = Math.max(largest, write(batch, i, table));
            }
            groupEnd[g] = entries;
            groupMaxBytes[g] = largest;
            first = end;
        }

        return entries;
    }

    /** Whether copy {@code i} goes to the copy engine: large enough, and not host to host. */
    private boolean splitsOff(final CopyBatch batch, final int i)
    {
        final Pool src = batch.srcPool(i);
        return splitMinBytes > 0 && slotBytes[src.ordinal()] >= splitMinBytes &&
            (CopyBatch.isDevice(src) || CopyBatch.isDevice(batch.dstPool(i)));
    }

    /** Write the entries of copy {@code i}; returns the largest entry's bytes. */
    private int write(final CopyBatch batch, final int i, final MutableDirectBuffer table)
    {
        final int src = batch.srcPool(i).ordinal();
        final int dst = batch.dstPool(i).ordinal();
        final int length = slotBytes[src];
        final long srcBase = (long)batch.srcSlot(i) * length;
        final long dstBase = (long)batch.dstSlot(i) * slotBytes[dst];
        for (int offset = 0; offset < length; offset += chunkBytes)
        {
            final int piece = Math.min(chunkBytes, length - offset);
            final int at = entries * ENTRY_BYTES;
            table.putLong(at, srcBase + offset | (long)src << OFFSET_BITS | (long)dst << (OFFSET_BITS + 2),
                ByteOrder.LITTLE_ENDIAN);
            table.putLong(at + 8, dstBase + offset | (long)((piece >>> 4) - 1) << OFFSET_BITS,
                ByteOrder.LITTLE_ENDIAN);
            entries++;
        }
        bytes += length;
        return Math.min(chunkBytes, length);
    }

    /**
     * Order copies {@code from .. to - 1} of {@link #order} by host pool and slot (the source's when it is host
     * memory, else the destination's; device-only copies first), stable: insertion sort for few copies, else an
     * LSD radix sort over the bytes of the key that differ.
     */
    private void sortByHostSlot(final CopyBatch batch, final int from, final int to)
    {
        final int n = to - from;
        final long firstKey = hostKey(batch, order[from]);
        long differ = 0;
        for (int k = 0; k < n; k++)
        {
            final int i = order[from + k];
            final long key = hostKey(batch, i);
            keys[k] = key << 32 | i;
            differ |= key ^ firstKey;
        }
        if (n <= INSERTION_SORT_MAX)
        {
            for (int k = 1; k < n; k++)
            {
                final long v = keys[k];
                int j = k - 1;
                while (j >= 0 && keys[j] > v)
                {
                    keys[j + 1] = keys[j];
                    j--;
                }
                keys[j + 1] = v;
            }
        }
        else
        {
            radixSort(n, differ);
        }
        for (int k = 0; k < n; k++)
        {
            order[from + k] = (int)keys[k];
        }
    }

    /** LSD radix sort of {@code keys[0 .. n - 1]} by their upper 32 bits, skipping bytes no two keys differ in. */
    private void radixSort(final int n, final long differ)
    {
        long[] in = keys;
        long[] out = sorted;
        for (int shift = 32; shift < 64; shift += 8)
        {
            if ((differ >>> (shift - 32) & 0xFF) == 0)
            {
                continue;
            }
            Arrays.fill(digitCounts, 0);
            for (int k = 0; k < n; k++)
            {
                digitCounts[(int)(in[k] >>> shift) & 0xFF]++;
            }
            int sum = 0;
            for (int d = 0; d < RADIX; d++)
            {
                final int c = digitCounts[d];
                digitCounts[d] = sum;
                sum += c;
            }
            for (int k = 0; k < n; k++)
            {
                out[digitCounts[(int)(in[k] >>> shift) & 0xFF]++] = in[k];
            }
            final long[] t = in;
            in = out;
            out = t;
        }
        if (in != keys)
        {
            System.arraycopy(in, 0, keys, 0, n);
        }
    }

    /** Host pool and slot of a copy as a non-negative 31-bit key; 0 for a device-only copy. */
    private static long hostKey(final CopyBatch batch, final int i)
    {
        final Pool src = batch.srcPool(i);
        final Pool pool = CopyBatch.isDevice(src) ? batch.dstPool(i) : src;
        if (CopyBatch.isDevice(pool))
        {
            return 0;
        }
        final int slot = pool == src ? batch.srcSlot(i) : batch.dstSlot(i);
        return (pool == Pool.HOST_MAMBA ? 1L << 30 : 0) + slot + 1;
    }

    /**
     * Copies of the last plan left out of the table for the copy engine (only when the plan is one launch group).
     *
     * @return how many; see {@link #directCopy(int)}.
     */
    int directCount()
    {
        return directCount;
    }

    /**
     * A copy of the last plan for the copy engine.
     *
     * @param k from 0 to {@link #directCount()} - 1.
     * @return the copy's index in the batch.
     */
    int directCopy(final int k)
    {
        return directCopies[k];
    }

    /**
     * Bytes of the largest entry of a launch group of the last plan.
     *
     * @param group group index.
     * @return the most bytes one entry of the group moves.
     */
    int groupMaxBytes(final int group)
    {
        return groupMaxBytes[group];
    }

    /**
     * Launch groups of the last plan: group {@code g} is entries {@code groupStart(g) .. groupEnd(g) - 1}, and
     * must finish before group {@code g + 1} starts.
     *
     * @return the number of launches the last plan needs (0 for an empty plan).
     */
    int groups()
    {
        return groups;
    }

    /**
     * First entry of a launch group.
     *
     * @param group group index.
     * @return the entry index where it starts.
     */
    int groupStart(final int group)
    {
        return group == 0 ? 0 : groupEnd[group - 1];
    }

    /**
     * One past the last entry of a launch group.
     *
     * @param group group index.
     * @return the entry index where the next group starts.
     */
    int groupEnd(final int group)
    {
        return groupEnd[group];
    }

    /**
     * Entries of the last plan.
     *
     * @return the entry count.
     */
    int entries()
    {
        return entries;
    }

    /**
     * Bytes the last plan moves, the copy engine's copies included.
     *
     * @return the sum of the planned copies' slot sizes.
     */
    long bytes()
    {
        return bytes;
    }

    private void nextStamp()
    {
        stamp++;
        if (stamp == Integer.MAX_VALUE)
        {
            for (int p = 0; p < POOLS; p++)
            {
                Arrays.fill(readStamp[p], 0);
                Arrays.fill(writeStamp[p], 0);
            }
            stamp = 1;
        }
    }
}
