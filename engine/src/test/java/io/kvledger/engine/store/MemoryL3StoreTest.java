package io.kvledger.engine.store;

import io.kvledger.engine.device.HostDeviceBackend;

import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryL3StoreTest extends L3StoreContract
{
    L3Store newStore(final HostDeviceBackend staging)
    {
        return new MemoryL3Store(staging);
    }

    L3Store newStoreWithLimits(final HostDeviceBackend staging, final int maxPagesPerOp, final int planCount)
    {
        return new MemoryL3Store(staging, maxPagesPerOp, planCount);
    }

    void vanishPage(final L3Store store, final long hi, final long lo)
    {
        assertTrue(((MemoryL3Store)store).removePage(hi, lo));
    }

    void vanishMamba(final L3Store store, final long hi, final long lo)
    {
        assertTrue(((MemoryL3Store)store).removeMamba(hi, lo));
    }
}
