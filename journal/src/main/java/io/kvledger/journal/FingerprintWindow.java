package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;

/**
 * The page fingerprints of the recent {@code ARRIVE} documents of one journal, kept the same way by the writer and
 * by every reader, so that an {@code ARRIVE} whose prompt begins like an earlier one's (the next turn of a
 * conversation, a shared system prompt, a prompt sent again with more tokens) is written as a reference to that
 * earlier document plus its new fingerprints only (schema version 3, {@link CompactDocumentCodec}). A page
 * fingerprint is a 128-bit hash and cannot be compressed; it can only be not written twice.
 * <p>
 * What the window holds is a function of the journal's documents alone: every {@code ARRIVE} document with 1 to
 * {@link #MAX_ENTRY_FINGERPRINTS} fingerprints, whatever its result code, is added in journal order after it is
 * encoded or decoded; the oldest entries leave first, whenever more than {@link #MAX_ENTRIES} entries or more than
 * {@link #MAX_FINGERPRINTS} fingerprints would be held. A journal is read from its start (its {@code JournalHeader}
 * resets the window), so every reader holds exactly what the writer held at each document and a reference always
 * resolves; a reference that does not (a damaged journal) is a decoding error, never a guess. These limits are part
 * of schema version 3: a writer must never reference what a reader of that version would have dropped.
 * <p>
 * The writer finds a candidate through an index of each entry's first fingerprint (the latest entry wins), then
 * takes the longest common prefix with it: fingerprints chain (page {@code i} hashes page {@code i - 1}'s), so the
 * latest prompt that starts the same way is the one to continue. Memory grows with use up to about 4 MiB of
 * fingerprints; allocation-free once grown. Not thread-safe: one encoding or decoding thread at a time.
 */
public final class FingerprintWindow
{
    /** Most {@code ARRIVE} documents held. */
    public static final int MAX_ENTRIES = 4096;

    /** Most fingerprints held, all entries together (4 MiB of them). */
    public static final int MAX_FINGERPRINTS = 1 << 18;

    /** Largest fingerprint list added; a larger {@code ARRIVE} is written whole and not added. */
    public static final int MAX_ENTRY_FINGERPRINTS = MAX_FINGERPRINTS / 4;

    /** Room allocated with the first entry: 1 MiB, a few hundred prompts, so most journals never grow it. */
    private static final int INITIAL_FINGERPRINTS = 1 << 16;
    private static final int EMPTY = -1;

    private long[] hi = new long[0];
    private long[] lo = new long[0];
    private long fingerprintHead;

    // The entries' columns and their index are allocated whole (about 140 KiB): a window that grew them as a journal
    // got longer paid the growth again in every new journal's first thousands of documents.
    private final long[] entrySequence = new long[MAX_ENTRIES];
    private final long[] entryStart = new long[MAX_ENTRIES];
    private final int[] entryCount = new int[MAX_ENTRIES];
    private long entryHead;
    private long entryTail;

    private final int[] index = newIndex(4 * MAX_ENTRIES);
    private int indexSize;

    private long foundSequence;

    /** Forget every entry (a new journal starts). */
    public void reset()
    {
        fingerprintHead = 0;
        entryHead = 0;
        entryTail = 0;
        java.util.Arrays.fill(index, EMPTY);
        indexSize = 0;
    }

    /** @return entries held. */
    public int size()
    {
        return (int)(entryHead - entryTail);
    }

    /**
     * Writer side: the longest prefix of an input's fingerprints that the latest held entry starting with the same
     * fingerprint shares; {@link #foundSequence()} then names that entry's document.
     *
     * @param input an input with fingerprints.
     * @return pages shared (0 when no entry starts with the input's first fingerprint).
     */
    public int longestPrefix(final InputRecord input)
    {
        final int count = input.fingerprintCount();
        if (0 == count || 0 == indexSize)
        {
            return 0;
        }
        final long firstHi = input.fingerprintHi(0);
        final long firstLo = input.fingerprintLo(0);
        final int slot = findSlot(firstHi, firstLo);
        if (slot < 0)
        {
            return 0;
        }
        final long entry = entryNumber(index[slot]);
        final int e = entrySlot(entry);
        final int length = Math.min(count, entryCount[e]);
        final long start = entryStart[e];
        final int mask = hi.length - 1;
        int shared = 0;
        while (shared < length)
        {
            final int at = (int)(start + shared) & mask;
            if (hi[at] != input.fingerprintHi(shared) || lo[at] != input.fingerprintLo(shared))
            {
                break;
            }
            shared++;
        }
        foundSequence = entrySequence[e];
        return shared;
    }

    /** @return the document sequence of the entry {@link #longestPrefix} last matched. */
    public long foundSequence()
    {
        return foundSequence;
    }

    /**
     * Reader side: append the first {@code count} fingerprints of the entry written by document {@code sequence}
     * to an input.
     *
     * @param sequence document of the entry.
     * @param count    fingerprints to copy.
     * @param into     receives them; it must have room.
     * @return false when no held entry has that sequence or it holds fewer fingerprints (nothing is appended).
     */
    public boolean copyPrefix(final long sequence, final int count, final InputRecord into)
    {
        long low = entryTail;
        long high = entryHead - 1;
        while (low <= high)
        {
            final long middle = (low + high) >>> 1;
            final int e = entrySlot(middle);
            final long s = entrySequence[e];
            if (s < sequence)
            {
                low = middle + 1;
            }
            else if (s > sequence)
            {
                high = middle - 1;
            }
            else
            {
                if (count > entryCount[e] || count > into.fingerprintCapacity() - into.fingerprintCount())
                {
                    return false;
                }
                final int mask = hi.length - 1;
                final int at = (int)entryStart[e] & mask;
                final int beforeWrap = Math.min(count, hi.length - at);
                into.addFingerprints(hi, lo, at, beforeWrap);
                into.addFingerprints(hi, lo, 0, count - beforeWrap);
                return true;
            }
        }
        return false;
    }

    /**
     * Add an input's fingerprints when it is an {@code ARRIVE} with 1 to {@link #MAX_ENTRY_FINGERPRINTS} of them;
     * called for every document in journal order, once it is encoded or decoded.
     *
     * @param input the document's input, its sequence set.
     */
    public void add(final InputRecord input)
    {
        final int count = input.fingerprintCount();
        if (InputType.ARRIVE != input.type() || 0 == count || count > MAX_ENTRY_FINGERPRINTS)
        {
            return;
        }
        while (entryHead - entryTail == MAX_ENTRIES ||
            (entryHead > entryTail && fingerprintHead + count - entryStart[entrySlot(entryTail)] > MAX_FINGERPRINTS))
        {
            evictOldest();
        }
        ensureFingerprintRoom(count);

        final long start = fingerprintHead;
        final int mask = hi.length - 1;
        for (int i = 0; i < count; i++)
        {
            final int at = (int)(start + i) & mask;
            hi[at] = input.fingerprintHi(i);
            lo[at] = input.fingerprintLo(i);
        }
        fingerprintHead += count;

        final long entry = entryHead++;
        final int e = entrySlot(entry);
        entrySequence[e] = input.sequence();
        entryStart[e] = start;
        entryCount[e] = count;
        putIndex(entry, input.fingerprintHi(0), input.fingerprintLo(0));
    }

    private void evictOldest()
    {
        final long entry = entryTail;
        final int e = entrySlot(entry);
        final int at = (int)entryStart[e] & (hi.length - 1);
        final int slot = findSlot(hi[at], lo[at]);
        if (slot >= 0 && entryNumber(index[slot]) == entry)
        {
            removeSlot(slot);
        }
        entryTail++;
    }

    private int entrySlot(final long entry)
    {
        return (int)entry & (entrySequence.length - 1);
    }

    /** The index stores entry numbers modulo 2^31; the live ones are within MAX_ENTRIES of the head. */
    private long entryNumber(final int stored)
    {
        return entryHead - ((int)entryHead - stored & 0x7FFF_FFFF);
    }

    private void ensureFingerprintRoom(final int count)
    {
        final long held = entryHead > entryTail ? fingerprintHead - entryStart[entrySlot(entryTail)] : 0;
        if (held + count <= hi.length)
        {
            return;
        }
        int capacity = Math.max(INITIAL_FINGERPRINTS, hi.length);
        while (held + count > capacity)
        {
            capacity <<= 1;
        }
        final long[] newHi = new long[capacity];
        final long[] newLo = new long[capacity];
        final long from = fingerprintHead - held;
        for (long p = from; p < fingerprintHead; p++)
        {
            newHi[(int)p & (capacity - 1)] = hi[(int)p & (hi.length - 1)];
            newLo[(int)p & (capacity - 1)] = lo[(int)p & (lo.length - 1)];
        }
        hi = newHi;
        lo = newLo;
    }

    private static int[] newIndex(final int capacity)
    {
        final int[] table = new int[capacity];
        java.util.Arrays.fill(table, EMPTY);
        return table;
    }

    private void putIndex(final long entry, final long keyHi, final long keyLo)
    {
        final int existing = findSlot(keyHi, keyLo);
        if (existing >= 0)
        {
            index[existing] = (int)entry & 0x7FFF_FFFF;
            return;
        }
        int slot = home(keyHi, keyLo);
        while (EMPTY != index[slot])
        {
            slot = (slot + 1) & (index.length - 1);
        }
        index[slot] = (int)entry & 0x7FFF_FFFF;
        indexSize++;
    }

    private int findSlot(final long keyHi, final long keyLo)
    {
        final int mask = index.length - 1;
        int slot = home(keyHi, keyLo);
        while (EMPTY != index[slot])
        {
            final int at = (int)entryStart[entrySlot(entryNumber(index[slot]))] & (hi.length - 1);
            if (hi[at] == keyHi && lo[at] == keyLo)
            {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    private void removeSlot(final int slot)
    {
        final int mask = index.length - 1;
        int hole = slot;
        int j = slot;
        while (true)
        {
            j = (j + 1) & mask;
            if (EMPTY == index[j])
            {
                break;
            }
            final int at = (int)entryStart[entrySlot(entryNumber(index[j]))] & (hi.length - 1);
            final int h = home(hi[at], lo[at]);
            if (((j - h) & mask) >= ((j - hole) & mask))
            {
                index[hole] = index[j];
                hole = j;
            }
        }
        index[hole] = EMPTY;
        indexSize--;
    }

    private int home(final long keyHi, final long keyLo)
    {
        final long h = (keyHi * 0x9E3779B97F4A7C15L) ^ Long.rotateLeft(keyLo * 0xC2B2AE3D27D4EB4FL, 29);
        return (int)(h ^ (h >>> 32)) & (index.length - 1);
    }
}
