package io.kvledger.engine.store;

import io.kvledger.engine.device.HostDeviceBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kvledger.engine.store.RecordingStoreListener.QUERY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The L3 store contract on a real three-node Redis Cluster made with {@code redis-cli --cluster create}: the
 * batches of one operation span the nodes that own its keys.
 */
class RedisClusterL3StoreTest extends L3StoreContract
{
    private static RedisServers redis;
    private static int namespaces;

    private String namespace;

    @BeforeAll
    static void startCluster()
    {
        redis = RedisServers.cluster(3);
    }

    @AfterAll
    static void stopCluster()
    {
        if (null != redis)
        {
            redis.close();
        }
    }

    L3Store newStore(final HostDeviceBackend staging)
    {
        namespace = "c" + (namespaces++);
        return new RedisL3Store(connect(), staging);
    }

    L3Store newStoreWithLimits(final HostDeviceBackend staging, final int maxPagesPerOp, final int planCount)
    {
        return new RedisL3Store(connect(), staging, maxPagesPerOp, planCount);
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
        RedisL3StoreTest.flipContentByte((RedisL3Store)store, ((RedisL3Store)store).pageKey(hi, lo));
        return true;
    }

    private RedisConnector connect()
    {
        return RedisConnector.connect(redis.uris(), namespace, RedisConnector.DEFAULT_TIMEOUT);
    }

    @Test
    void shouldNotCountATopologyRefreshsOwnConnectionsAsDisconnectsOrReconnects() throws Exception
    {
        final RedisConnector connector = ((RedisL3Store)store).connector();
        final java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger closed = new java.util.concurrent.atomic.AtomicInteger();
        final reactor.core.Disposable watch = connector.eventBus().get().subscribe((event) ->
        {
            if (event instanceof io.lettuce.core.event.connection.ConnectionActivatedEvent)
            {
                opened.incrementAndGet();
            }
            else if (event instanceof io.lettuce.core.event.connection.ConnectionDeactivatedEvent)
            {
                closed.incrementAndGet();
            }
        });
        try
        {
            for (int refresh = 1; refresh <= 2; refresh++)
            {
                connector.refreshTopology();
                // Each refresh opens a connection per node and closes it when the topology is read.
                final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
                while (opened.get() < 3 * refresh || closed.get() < opened.get())
                {
                    assertTrue(System.nanoTime() < deadline, "refresh " + refresh + ": " + opened + " connections " +
                        "opened, " + closed + " closed");
                    Thread.sleep(5);
                }
            }
        }
        finally
        {
            watch.dispose();
        }

        assertEquals(0, store.stats().disconnects(), "a refresh connection closed by design is no disconnect");
        assertEquals(0, store.stats().reconnects(), "a refresh connection opened is no reconnect");
        assertTrue(connector.connected());
    }

    @Test
    void shouldSpreadOneQueryAcrossEveryNodeAndFindTheCluster()
    {
        assertTrue(((RedisL3Store)store).connector().cluster());
        fillPages(0, PAGES, 3);
        writePages(1, new int[]{ 0, 1, 2, 3, 4, 5, 6, 7 }, -1);
        int nodesWithKeys = 0;
        for (int n = 0; n < 3; n++)
        {
            if (!redis.node(n).cli("dbsize").trim().equals("0"))
            {
                nodesWithKeys++;
            }
        }
        assertTrue(nodesWithKeys >= 2, "8 pages should land on more than one node: " + nodesWithKeys);

        store.query(2, hi, lo, 0, PAGES);
        assertEquals(PAGES, listener.next(QUERY, 2).pages);
        assertEquals(PAGES, store.pageCount());
    }

    @Test
    void shouldFindTheClusterFromOneSeed()
    {
        final RedisConnector one = RedisConnector.connect(java.util.List.of(redis.node(1).uri()), "seed",
            RedisConnector.DEFAULT_TIMEOUT);
        try
        {
            assertTrue(one.cluster(), "a single URI of a cluster node connects to the cluster");
        }
        finally
        {
            one.close();
        }
    }
}
