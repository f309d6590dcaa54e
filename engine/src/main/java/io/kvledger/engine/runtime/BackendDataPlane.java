package io.kvledger.engine.runtime;

import io.kvledger.engine.device.ContentDigest;
import io.kvledger.engine.device.ContentPattern;
import io.kvledger.engine.device.DeviceBackend;
import io.kvledger.engine.api.DataPlane;
import io.kvledger.journal.codec.Pool;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The serving loop's view of real slot memory: fills and digests go to the device backend, expected digests are
 * computed on a scratch buffer with the same content generator. Serving thread only.
 */
public final class BackendDataPlane implements DataPlane
{
    private final DeviceBackend device;
    private final UnsafeBuffer scratch;

    /**
     * @param device the backend whose memory the controller manages.
     */
    public BackendDataPlane(final DeviceBackend device)
    {
        this.device = device;
        final int max = Math.max(device.slotBytes(Pool.DEVICE_KV), device.slotBytes(Pool.DEVICE_MAMBA));
        scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(max));
    }

    @Override
    public void fill(final Pool pool, final int slot, final long seed)
    {
        device.fill(pool, slot, seed);
    }

    @Override
    public long digest(final Pool pool, final int slot)
    {
        return device.digest(pool, slot);
    }

    @Override
    public long expectedDigest(final Pool pool, final long seed)
    {
        final int length = device.slotBytes(pool);
        ContentPattern.fill(scratch, 0, length, seed);
        return ContentDigest.digest(scratch, 0, length);
    }
}
