package io.kvledger.engine.store;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.counters.CountersFile;
import io.kvledger.engine.counters.CountersPublisher;
import io.kvledger.engine.counters.CountersSnapshot;
import io.kvledger.engine.counters.KvCounter;
import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A networked store's timeouts, lost and re-established connections reach the counters file (and so `stat` and
 * `/metrics`), not only the run's summary.
 */
class StoreConnectionCountersTest
{
    @Test
    void shouldPublishTheStoresTimeoutsDisconnectsAndReconnects(@TempDir final Path dir)
    {
        final EngineConfig config = EngineConfig.builder().pageSize(4).deviceKvPages(16).deviceMambaSlots(4)
            .hostKvPages(8).hostMambaSlots(2).maxRequests(4).maxRequestPages(4).maxOps(16).build();
        final HostDeviceBackend device = new HostDeviceBackend(new DeviceConfig().deviceKvPages(16)
            .deviceMambaSlots(4).hostKvPages(8).hostMambaSlots(2));
        try (MemoryL3Store store = new MemoryL3Store(device))
        {
            store.stats().addTimeouts(3);
            store.stats().addDisconnects(2);
            store.stats().addReconnects(1);
            final CountersPublisher counters = CountersPublisher.open(dir.resolve(CountersFile.FILE_NAME),
                new CacheStateMachine(config), null, null, store, null, 0, null);
            counters.close(false);

            final CountersSnapshot snapshot = CountersSnapshot.read(CountersFile.openReadOnly(dir).reader());
            assertEquals(3, snapshot.get(KvCounter.STORE_TIMEOUTS));
            assertEquals(2, snapshot.get(KvCounter.STORE_DISCONNECTS));
            assertEquals(1, snapshot.get(KvCounter.STORE_RECONNECTS));
        }
        finally
        {
            device.close();
        }
    }
}
