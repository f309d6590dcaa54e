package io.kvledger.engine.device;

import io.kvledger.journal.codec.Pool;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * One pool's slots in off-heap memory: zeroed direct buffers of at most 1 GiB each holding whole slots, and one
 * fixed {@link UnsafeBuffer} view per slot made at construction. Views are immutable and safe to share; the
 * memory is released by the garbage collector once no view is reachable, so a late reader never sees freed memory.
 */
final class SlotMemory
{
    private static final int MAX_CHUNK_BYTES = 1 << 30;
    private static final int ALIGNMENT = 64;

    private final Pool pool;
    private final int slotBytes;
    private final UnsafeBuffer[] slots;

    SlotMemory(final Pool pool, final int slotCount, final int slotBytes)
    {
        this.pool = pool;
        this.slotBytes = slotBytes;
        this.slots = new UnsafeBuffer[slotCount];

        final int slotsPerChunk = Math.max(1, MAX_CHUNK_BYTES / slotBytes);
        int slot = 0;
        while (slot < slotCount)
        {
            final int inChunk = Math.min(slotsPerChunk, slotCount - slot);
            final ByteBuffer chunk = BufferUtil.allocateDirectAligned(
                alignedCapacity((long)inChunk * slotBytes), ALIGNMENT);
            for (int i = 0; i < inChunk; i++)
            {
                slots[slot + i] = new UnsafeBuffer(chunk, i * slotBytes, slotBytes);
            }
            slot += inChunk;
        }
    }

    Pool pool()
    {
        return pool;
    }

    int slotBytes()
    {
        return slotBytes;
    }

    int slotCount()
    {
        return slots.length;
    }

    UnsafeBuffer slot(final int slot)
    {
        if (slot < 0 || slot >= slots.length)
        {
            throw new IllegalArgumentException(pool + " slot " + slot + " out of range 0.." + (slots.length - 1));
        }
        return slots[slot];
    }

    private static int alignedCapacity(final long bytes)
    {
        final long aligned = (bytes + ALIGNMENT - 1) & -ALIGNMENT;
        if (aligned > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("chunk too large: " + bytes);
        }
        return (int)aligned;
    }
}
