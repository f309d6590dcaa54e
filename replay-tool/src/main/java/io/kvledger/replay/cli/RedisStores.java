package io.kvledger.replay.cli;

import io.kvledger.engine.store.L3StoreFactory;
import io.kvledger.engine.store.RedisConnector;
import io.kvledger.engine.store.RedisL3Store;

import java.time.Duration;
import java.util.List;

/**
 * The command line's side of {@code --store redis}: connect before the run starts (a wrong or unreachable URI is
 * one line and exit 2, before any journal is written), and one summary line of the store's counters afterwards.
 */
final class RedisStores
{
    /**
     * Longest {@code --redis-timeout-ms}: an hour. Lettuce keeps its timeouts in int milliseconds (a value above
     * 2^31 - 1 failed the connection as "integer overflow", a larger one as "long overflow", blaming Redis), and one
     * operation waiting longer would hold the store's only I/O thread, and the run, for as long.
     */
    static final long MAX_TIMEOUT_MS = 3_600_000;

    private RedisStores()
    {
    }

    /**
     * Connect to Redis and make the store factory of a run.
     *
     * @param uris      {@code --redis} values.
     * @param namespace {@code --redis-namespace}.
     * @param timeoutMs {@code --redis-timeout-ms}.
     * @return the factory, holding the open connections.
     * @throws CliException when an argument is wrong or Redis cannot be reached.
     */
    static L3StoreFactory connect(final List<String> uris, final String namespace, final long timeoutMs)
    {
        if (uris.isEmpty())
        {
            throw new CliException("--store redis needs --redis URI (redis://HOST:PORT; repeat it for the seeds " +
                "of a Redis Cluster)");
        }
        Flags.range("--redis-timeout-ms", timeoutMs, 1, MAX_TIMEOUT_MS, "ms", "how long one Redis operation may " +
            "wait for its answers");
        try
        {
            return RedisL3Store.factory(RedisConnector.connect(uris, namespace, Duration.ofMillis(timeoutMs)));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException(ex.getMessage());
        }
    }
}
