package io.kvledger.engine.store;

import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.journal.codec.Pool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kvledger.engine.store.RecordingStoreListener.FETCH;
import static io.kvledger.engine.store.RecordingStoreListener.QUERY;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The L3 store contract on a real single-node redis-server, plus what is Redis's own: values checked by their
 * digest, binary keys, one connector per store. Each test uses its own key namespace on the shared server.
 */
class RedisL3StoreTest extends L3StoreContract
{
    private static RedisServers redis;
    private static int namespaces;

    private String namespace;

    @BeforeAll
    static void startRedis()
    {
        redis = RedisServers.single();
    }

    @AfterAll
    static void stopRedis()
    {
        if (null != redis)
        {
            redis.close();
        }
    }

    L3Store newStore(final HostDeviceBackend staging)
    {
        namespace = "t" + (namespaces++);
        return new RedisL3Store(connect(namespace), staging);
    }

    L3Store newStoreWithLimits(final HostDeviceBackend staging, final int maxPagesPerOp, final int planCount)
    {
        return new RedisL3Store(connect(namespace), staging, maxPagesPerOp, planCount);
    }

    void vanishPage(final L3Store store, final long hi, final long lo)
    {
        final RedisL3Store redisStore = (RedisL3Store)store;
        assertEquals(1, redisStore.connector().adminKeys().del(redisStore.pageKey(hi, lo)));
    }

    void vanishMamba(final L3Store store, final long hi, final long lo)
    {
        final RedisL3Store redisStore = (RedisL3Store)store;
        assertEquals(1, redisStore.connector().adminKeys().del(redisStore.mambaKey(hi, lo)));
    }

    @Override
    boolean corruptPage(final L3Store store, final long hi, final long lo)
    {
        flipContentByte((RedisL3Store)store, ((RedisL3Store)store).pageKey(hi, lo));
        return true;
    }

    /** Flip one content byte of a stored value by hand, on a single node or a cluster. */
    @SuppressWarnings("unchecked")
    static void flipContentByte(final RedisL3Store store, final byte[] key)
    {
        final io.lettuce.core.api.StatefulConnection<byte[], byte[]> admin = store.connector().adminConnection();
        final io.lettuce.core.cluster.api.sync.RedisClusterCommands<byte[], byte[]> sync =
            admin instanceof io.lettuce.core.cluster.api.StatefulRedisClusterConnection ?
            ((io.lettuce.core.cluster.api.StatefulRedisClusterConnection<byte[], byte[]>)admin).sync() :
            ((io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]>)admin).sync();
        final byte[] value = sync.get(key);
        value[FileL3Store.HEADER_LENGTH + 100] ^= 0x40;
        sync.set(key, value);
    }

    static RedisConnector connect(final String namespace)
    {
        return RedisConnector.connect(redis.uris(), namespace, RedisConnector.DEFAULT_TIMEOUT);
    }

    @Test
    void shouldKeyByNamespaceAndBinaryFingerprintAndStoreTheDigest()
    {
        final long[] expected = fillPages(0, 1, 6);
        writePages(1, new int[]{ 0 }, -1);
        final RedisL3Store redisStore = (RedisL3Store)store;
        final byte[] key = redisStore.pageKey(hi[0], lo[0]);
        final byte[] prefix = (namespace + ":p:").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(prefix.length + 16, key.length);
        assertArrayEquals(prefix, java.util.Arrays.copyOf(key, prefix.length));
        final java.nio.ByteBuffer fingerprint = java.nio.ByteBuffer.wrap(key, prefix.length, 16);
        assertEquals(hi[0], fingerprint.getLong());
        assertEquals(lo[0], fingerprint.getLong());

        @SuppressWarnings("unchecked")
        final io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]> admin =
            (io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]>)redisStore.connector().adminConnection();
        final java.nio.ByteBuffer value = java.nio.ByteBuffer.wrap(admin.sync().get(key))
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(FileL3Store.HEADER_LENGTH + staging.slotBytes(Pool.HOST_KV), value.capacity());
        assertEquals(FileL3Store.MAGIC, value.getInt(0));
        assertEquals(expected[0], value.getLong(32));
    }

    @Test
    void shouldCloseTheFactorysConnectionsWhenItMadeNoStore()
    {
        final RedisConnector connector = connect("unused");
        final L3StoreFactory factory = RedisL3Store.factory(connector);
        assertTrue(connector.connected());

        factory.close();

        assertFalse(connector.connected(), "a run that failed before its store was made leaves no connection open");
        factory.close();
    }

    @Test
    void shouldLeaveTheConnectionsToTheStoreItMade()
    {
        final RedisConnector connector = connect("made");
        final L3StoreFactory factory = RedisL3Store.factory(connector);
        final HostDeviceBackend otherStaging = new HostDeviceBackend(
            new io.kvledger.engine.device.DeviceConfig().hostKvPages(8).hostMambaSlots(2));
        final L3Store made = factory.create(otherStaging, 8, 4);
        try
        {
            factory.close();
            assertTrue(connector.connected(), "the store owns the connections once made");
            assertThrows(IllegalStateException.class, () -> factory.create(otherStaging, 8, 4));
        }
        finally
        {
            made.close();
            otherStaging.close();
        }
        assertFalse(connector.connected());
    }

    @Test
    void shouldShareOneNamespaceBetweenTwoStoresAsTwoMachinesWould()
    {
        final long[] expected = fillPages(0, 4, 11);
        writePages(1, new int[]{ 0, 1, 2, 3 }, -1);

        final RecordingStoreListener other = new RecordingStoreListener();
        final HostDeviceBackend otherStaging = new HostDeviceBackend(
            new io.kvledger.engine.device.DeviceConfig().hostKvPages(64).hostMambaSlots(4));
        final L3Store second = new RedisL3Store(connect(namespace), otherStaging);
        try
        {
            second.start(other);
            second.query(1, hi, lo, 0, PAGES);
            assertEquals(4, other.next(QUERY, 1).pages);
            final FetchPlan fetch = second.claimFetch();
            for (int i = 0; i < 4; i++)
            {
                fetch.page(hi[i], lo[i], 8 + i);
            }
            second.fetch(2, fetch);
            assertEquals(4, other.next(FETCH, 2).pages);
            for (int i = 0; i < 4; i++)
            {
                assertEquals(expected[i], otherStaging.digest(Pool.HOST_KV, 8 + i));
            }
        }
        finally
        {
            second.close();
            otherStaging.close();
        }
    }
}
