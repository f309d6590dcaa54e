package io.kvledger.engine.store;

import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.engine.ingress.Fingerprinter;
import io.kvledger.journal.codec.Pool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

import static io.kvledger.engine.store.RecordingStoreListener.FETCH;
import static io.kvledger.engine.store.RecordingStoreListener.QUERY;
import static io.kvledger.engine.store.RecordingStoreListener.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis going away under a running store, on a real redis-server: killed (connection lost) and paused (no answer).
 * Every operation still completes, as a failed one, within the timeout; the connection comes back by itself and is
 * counted; stored pages are found again after the restart (the server keeps an append-only file).
 */
class RedisFaultTest
{
    private static final int PAGES = 4;
    private static final Duration TIMEOUT = Duration.ofMillis(500);

    private static RedisServers redis;

    private final RecordingStoreListener listener = new RecordingStoreListener();
    private final long[] hi = new long[PAGES];
    private final long[] lo = new long[PAGES];
    private HostDeviceBackend staging;
    private RedisConnector connector;
    private RedisL3Store store;

    @BeforeAll
    static void startRedis()
    {
        redis = RedisServers.persistentSingle();
    }

    @AfterAll
    static void stopRedis()
    {
        if (null != redis)
        {
            redis.close();
        }
    }

    @BeforeEach
    void setUp()
    {
        final int[] tokens = new int[PAGES * 16];
        for (int i = 0; i < tokens.length; i++)
        {
            tokens[i] = 7 * i + 3;
        }
        new Fingerprinter(16).fingerprint(Fingerprinter.namespaceId("fault-test"), tokens, tokens.length, hi, lo);
        staging = new HostDeviceBackend(new DeviceConfig().hostKvPages(32).hostMambaSlots(2));
        connector = RedisConnector.connect(redis.uris(), "fault", TIMEOUT);
        store = new RedisL3Store(connector, staging);
        store.start(listener);
        for (int i = 0; i < PAGES; i++)
        {
            staging.fill(Pool.HOST_KV, i, 100 + i);
        }
        final WritePlan write = store.claimWrite();
        for (int i = 0; i < PAGES; i++)
        {
            write.page(hi[i], lo[i], i);
        }
        store.write(1, write);
        assertTrue(listener.next(WRITE, 1).ok);
    }

    @AfterEach
    void tearDown()
    {
        // a test that failed half-way must not leave the shared server killed or paused for the next one
        if (redis.node(0).running())
        {
            redis.node(0).resume();
        }
        else
        {
            redis.node(0).start();
        }
        store.close();
        staging.close();
    }

    @Test
    void shouldFailEveryOperationWhileRedisIsDownAndResumeAfterItsRestart()
    {
        redis.node(0).kill();

        store.write(2, store.claimWrite().page(hi[0], lo[0], 0));
        assertFalse(listener.next(WRITE, 2).ok, "a write to a dead Redis fails");
        store.fetch(3, fullFetch());
        assertFalse(listener.next(FETCH, 3).ok, "a fetch from a dead Redis fails");
        store.query(4, hi, lo, 0, PAGES);
        assertEquals(0, listener.next(QUERY, 4).pages, "a query to a dead Redis finds nothing");
        assertTrue(store.stats().ioErrors() >= 3, store.stats().toString());
        // Lettuce reports the lost connection on its event bus, after the failed operations may have returned
        await(() -> store.stats().disconnects() >= 1, "the disconnect counted");

        redis.node(0).start();
        awaitReconnect();

        store.query(5, hi, lo, 0, PAGES);
        assertEquals(PAGES, listener.next(QUERY, 5).pages, "pages written before the kill are found again");
        store.fetch(6, fullFetch());
        final RecordingStoreListener.Completion done = listener.next(FETCH, 6);
        assertTrue(done.ok);
        assertEquals(PAGES, done.pages);
        for (int i = 0; i < PAGES; i++)
        {
            assertEquals(staging.digest(Pool.HOST_KV, i), staging.digest(Pool.HOST_KV, 16 + i));
        }
    }

    @Test
    void shouldTimeOutAFetchFromARedisThatStoppedAnsweringAndCarryOnWhenItAnswersAgain()
    {
        redis.node(0).pause();
        store.fetch(2, fullFetch());
        final RecordingStoreListener.Completion stalled = listener.next(FETCH, 2);
        assertFalse(stalled.ok, "no answer within the timeout is a failed fetch, not a hang");
        assertEquals(1, store.stats().timeouts());
        redis.node(0).resume();

        store.fetch(3, fullFetch());
        final RecordingStoreListener.Completion done = listener.next(FETCH, 3);
        assertTrue(done.ok);
        assertEquals(PAGES, done.pages);
    }

    @Test
    void shouldRefuseBadOrUnreachableUrisWithOneLine()
    {
        final IllegalArgumentException scheme = assertThrows(IllegalArgumentException.class,
            () -> RedisConnector.connect(List.of("http://127.0.0.1:1"), "x", TIMEOUT));
        assertEquals("bad Redis URI 'http://127.0.0.1:1' (expected redis://HOST:PORT)", scheme.getMessage());

        final String deadUri = redis.uris().get(0).replace(":" + redis.node(0).port(), ":1");
        final IllegalArgumentException dead = assertThrows(IllegalArgumentException.class,
            () -> RedisConnector.connect(List.of(deadUri), "x", TIMEOUT));
        assertTrue(dead.getMessage().startsWith("cannot connect to Redis at redis://127.0.0.1:1: "),
            dead.getMessage());
        assertFalse(dead.getMessage().contains("\n"), dead.getMessage());

        assertThrows(IllegalArgumentException.class,
            () -> RedisConnector.connect(redis.uris(), "no spaces", TIMEOUT));
    }

    private FetchPlan fullFetch()
    {
        final FetchPlan fetch = store.claimFetch();
        for (int i = 0; i < PAGES; i++)
        {
            fetch.page(hi[i], lo[i], 16 + i);
        }
        return fetch;
    }

    private void awaitReconnect()
    {
        await(() -> store.stats().reconnects() > 0 && connector.connected(), "a reconnection");
    }

    private void await(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "no " + what + " within 30 s: " + store.stats() +
                ", connected " + connector.connected());
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError(ex);
            }
        }
    }
}
