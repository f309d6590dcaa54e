package io.kvledger.engine.store;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.DefaultClientResources;
import reactor.core.Disposable;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The connections of a {@link RedisL3Store} to one Redis node or one Redis Cluster, made by {@link #connect}:
 * a pipelined connection (commands are sent only when the store flushes an operation's batch, one round trip per
 * batch; Lettuce routes each key to its cluster node and flushes every node at once) and a plain connection for
 * administrative reads (counting keys).
 * <p>
 * Failure policy: a lost connection is re-established automatically (backoff 10 ms doubling to 1 s) and counted;
 * while it is down, commands are rejected at once (never queued until the server returns), so an operation fails
 * instead of waiting; a command that gets no answer within the timeout is cancelled and its operation fails.
 * <p>
 * Thread ownership: {@link #connect} and {@link #close()} from any thread; the pipelined connection only from the
 * store's I/O thread; {@link #countKeys(byte[])} from any thread.
 */
public final class RedisConnector implements AutoCloseable
{
    /** Default time an operation waits for Redis before it fails. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** Default key namespace. */
    public static final String DEFAULT_NAMESPACE = "kvledger";

    /**
     * Least time Lettuce itself gives a connection attempt or a command (the handshake of a cold JVM on a busy
     * machine can take seconds); an operation's own, shorter timeout is enforced by the store.
     */
    private static final Duration CLIENT_TIMEOUT_FLOOR = Duration.ofSeconds(5);

    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final StatefulConnection<byte[], byte[]> pipelined;
    private final RedisClusterAsyncCommands<byte[], byte[]> async;
    private final StatefulConnection<byte[], byte[]> admin;
    private final RedisKeyCommands<byte[], byte[]> adminKeys;
    private final List<RedisURI> uris;
    private final boolean cluster;
    private final String namespace;
    private final Duration timeout;
    private final Disposable events;
    private final Object eventLock = new Object();
    private StoreStats stats;
    private final Map<String, Integer> awaitingReconnect = new HashMap<>();
    private long disconnects;
    private long reconnects;
    private volatile boolean closing;

    private RedisConnector(final ClientResources resources, final AbstractRedisClient client,
        final StatefulConnection<byte[], byte[]> pipelined, final RedisClusterAsyncCommands<byte[], byte[]> async,
        final StatefulConnection<byte[], byte[]> admin, final RedisKeyCommands<byte[], byte[]> adminKeys,
        final List<RedisURI> uris, final boolean cluster, final String namespace, final Duration timeout)
    {
        this.resources = resources;
        this.client = client;
        this.pipelined = pipelined;
        this.async = async;
        this.admin = admin;
        this.adminKeys = adminKeys;
        this.uris = uris;
        this.cluster = cluster;
        this.namespace = namespace;
        this.timeout = timeout;
        pipelined.setAutoFlushCommands(false);
        events = resources.eventBus().get().subscribe(this::onEvent);
    }

    /**
     * Connect to Redis: one URI is a single node (or, when that node runs in cluster mode, a seed of its cluster);
     * several URIs are seeds of one Redis Cluster.
     *
     * @param uris      {@code redis://[:password@]host:port[/db]} or {@code rediss://...}, at least one.
     * @param namespace prefix of every key, so several deployments can share one Redis.
     * @param timeout   how long an operation waits for an answer before it fails.
     * @return the connected connector.
     * @throws IllegalArgumentException for a malformed URI or namespace, or when Redis cannot be reached; the
     *                                  message is one line meant for a user.
     */
    // Lettuce 7 deprecates the adaptive refresh trigger builders without a replacement that keeps topology
    // refreshes on MOVED/ASK redirects; they still work, so they stay until Lettuce offers one.
    @SuppressWarnings("deprecation")
    public static RedisConnector connect(final List<String> uris, final String namespace, final Duration timeout)
    {
        if (uris.isEmpty())
        {
            throw new IllegalArgumentException("no Redis URI given (--redis redis://HOST:PORT)");
        }
        if (null == namespace || !NAMESPACE.matcher(namespace).matches())
        {
            throw new IllegalArgumentException("bad Redis key namespace '" + namespace +
                "' (1 to 64 of letters, digits, '.', '_', '-')");
        }
        if (timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("Redis timeout must be positive: " + timeout);
        }
        final Duration clientTimeout = timeout.compareTo(CLIENT_TIMEOUT_FLOOR) > 0 ? timeout : CLIENT_TIMEOUT_FLOOR;
        final List<RedisURI> parsed = new ArrayList<>(uris.size());
        for (final String uri : uris)
        {
            parsed.add(parse(uri, clientTimeout));
        }

        final ClientResources resources = DefaultClientResources.builder()
            .ioThreadPoolSize(2)
            .computationThreadPoolSize(1)
            .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
            .build();
        AbstractRedisClient client = null;
        try
        {
            boolean cluster = parsed.size() > 1;
            if (!cluster)
            {
                final RedisClient single = RedisClient.create(resources, parsed.get(0));
                client = single;
                single.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .socketOptions(SocketOptions.builder().connectTimeout(clientTimeout).build())
                    .timeoutOptions(TimeoutOptions.enabled(clientTimeout))
                    .build());
                final StatefulRedisConnection<byte[], byte[]> admin = single.connect(ByteArrayCodec.INSTANCE);
                final String info = admin.sync().info("cluster");
                if (null != info && info.contains("cluster_enabled:1"))
                {
                    admin.close();
                    single.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                    client = null;
                    cluster = true;
                }
                else
                {
                    final StatefulRedisConnection<byte[], byte[]> pipelined = single.connect(ByteArrayCodec.INSTANCE);
                    return new RedisConnector(resources, single, pipelined, pipelined.async(), admin, admin.sync(),
                        parsed, false, namespace, timeout);
                }
            }

            final RedisClusterClient clusterClient = RedisClusterClient.create(resources, parsed);
            client = clusterClient;
            clusterClient.setOptions(ClusterClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(clientTimeout).build())
                .timeoutOptions(TimeoutOptions.enabled(clientTimeout))
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers()
                    .build())
                .build());
            final StatefulRedisClusterConnection<byte[], byte[]> admin = clusterClient.connect(ByteArrayCodec.INSTANCE);
            final StatefulRedisClusterConnection<byte[], byte[]> pipelined =
                clusterClient.connect(ByteArrayCodec.INSTANCE);
            openEveryNode(admin);
            openEveryNode(pipelined);
            return new RedisConnector(resources, clusterClient, pipelined, pipelined.async(), admin, admin.sync(),
                parsed, true, namespace, timeout);
        }
        catch (final RuntimeException ex)
        {
            if (null != client)
            {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw new IllegalArgumentException("cannot connect to Redis at " + describe(uris) + ": " +
                rootMessage(ex), ex);
        }
    }

    /**
     * The key namespace.
     *
     * @return the prefix of every key, without its separator.
     */
    public String namespace()
    {
        return namespace;
    }

    /**
     * Whether the connector talks to a Redis Cluster.
     *
     * @return true for a cluster, false for a single node.
     */
    public boolean cluster()
    {
        return cluster;
    }

    /**
     * How long an operation waits for Redis.
     *
     * @return the timeout.
     */
    public Duration timeout()
    {
        return timeout;
    }

    /**
     * The URIs connected to, passwords hidden, for logs.
     *
     * @return the description.
     */
    public String describe()
    {
        final List<String> names = new ArrayList<>(uris.size());
        for (final RedisURI uri : uris)
        {
            names.add((uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort());
        }
        return (cluster ? "Redis Cluster " : "Redis ") + String.join(",", names) + " (namespace " + namespace + ")";
    }

    /**
     * Count keys that start with a prefix by scanning every node (SCAN, so it costs one pass over the keyspace;
     * for summaries and tests, never on the hot path); any thread.
     *
     * @param prefix key prefix, free of glob characters.
     * @return the number of distinct keys found.
     */
    public long countKeys(final byte[] prefix)
    {
        final byte[] pattern = new byte[prefix.length + 1];
        System.arraycopy(prefix, 0, pattern, 0, prefix.length);
        pattern[prefix.length] = '*';
        final Set<ByteBuffer> seen = new HashSet<>();
        synchronized (adminKeys)
        {
            final ScanIterator<byte[]> keys = ScanIterator.scan(adminKeys, ScanArgs.Builder.matches(pattern)
                .limit(1000));
            while (keys.hasNext())
            {
                seen.add(ByteBuffer.wrap(keys.next()));
            }
        }
        return seen.size();
    }

    /**
     * Delete every key that starts with a prefix (SCAN, then DEL in batches); for benchmarks and tests; any thread.
     *
     * @param prefix key prefix, free of glob characters.
     * @return the number of keys deleted.
     */
    public long deleteKeys(final byte[] prefix)
    {
        final byte[] pattern = new byte[prefix.length + 1];
        System.arraycopy(prefix, 0, pattern, 0, prefix.length);
        pattern[prefix.length] = '*';
        long deleted = 0;
        synchronized (adminKeys)
        {
            final List<byte[]> batch = new ArrayList<>();
            final ScanIterator<byte[]> keys = ScanIterator.scan(adminKeys, ScanArgs.Builder.matches(pattern)
                .limit(1000));
            while (keys.hasNext())
            {
                batch.add(keys.next());
            }
            for (final byte[] key : batch)
            {
                deleted += adminKeys.del(key);
            }
        }
        return deleted;
    }

    /**
     * Administrative commands on keys (tests corrupt or remove values through it); any thread, one at a time.
     *
     * @return synchronous key commands on the plain connection.
     */
    public RedisKeyCommands<byte[], byte[]> adminKeys()
    {
        return adminKeys;
    }

    /**
     * Administrative connection (tests use it to write values by hand).
     *
     * @return the plain connection.
     */
    public StatefulConnection<byte[], byte[]> adminConnection()
    {
        return admin;
    }

    /**
     * Whether both connections (the pipelined data connection and the admin one) are open now. After Redis comes
     * back, the two reconnect one after the other; an operation sent before the data connection is back fails.
     *
     * @return true when every connection of this connector is open.
     */
    public boolean connected()
    {
        return pipelined.isOpen() && admin.isOpen();
    }

    RedisClusterAsyncCommands<byte[], byte[]> async()
    {
        return async;
    }

    void flush()
    {
        pipelined.flushCommands();
    }

    byte[] prefix(final char kind)
    {
        return (namespace + ':' + kind + ':').getBytes(StandardCharsets.US_ASCII);
    }

    void countInto(final StoreStats stats)
    {
        synchronized (eventLock)
        {
            this.stats = stats;
            stats.addDisconnects(disconnects);
            stats.addReconnects(reconnects);
        }
    }

    /**
     * Close both connections and the client's threads (waits up to 2 s).
     */
    public void close()
    {
        closing = true;
        events.dispose();
        try
        {
            pipelined.close();
            admin.close();
        }
        finally
        {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /**
     * Count the losses and returns of this connector's connections. The client's event bus also carries the
     * short-lived connections of a cluster topology refresh, which open and close by design: so a loss is counted at
     * the first reconnection attempt of a connection that went down (only a connection closed by surprise is
     * reconnected), and a return is an activation towards a node that such a connection is reconnecting to.
     */
    private void onEvent(final Event event)
    {
        if (closing)
        {
            return;
        }
        synchronized (eventLock)
        {
            if (event instanceof ReconnectAttemptEvent attempt && attempt.getAttempt() == 1)
            {
                awaitingReconnect.merge(node(attempt.remoteAddress()), 1, Integer::sum);
                disconnects++;
                if (null != stats)
                {
                    stats.addDisconnects(1);
                }
            }
            else if (event instanceof ConnectionActivatedEvent activated && awaited(node(activated.remoteAddress())))
            {
                reconnects++;
                if (null != stats)
                {
                    stats.addReconnects(1);
                }
            }
        }
    }

    private boolean awaited(final String node)
    {
        final Integer waiting = awaitingReconnect.get(node);
        if (null == waiting)
        {
            return false;
        }
        if (waiting > 1)
        {
            awaitingReconnect.put(node, waiting - 1);
        }
        else
        {
            awaitingReconnect.remove(node);
        }
        return true;
    }

    /** A node's address as "ip:port", whether or not the socket address was resolved. */
    private static String node(final SocketAddress address)
    {
        if (address instanceof InetSocketAddress inet)
        {
            return (null == inet.getAddress() ? inet.getHostString() : inet.getAddress().getHostAddress()) + ":" +
                inet.getPort();
        }
        return String.valueOf(address);
    }

    /**
     * Refresh the cluster's topology now, as Lettuce's adaptive triggers do by themselves (tests); no-op on a single
     * node.
     */
    void refreshTopology()
    {
        if (client instanceof RedisClusterClient clusterClient)
        {
            clusterClient.refreshPartitions();
        }
    }

    /**
     * The client's event bus, where Lettuce publishes connection events (tests).
     *
     * @return the event bus.
     */
    io.lettuce.core.event.EventBus eventBus()
    {
        return resources.eventBus();
    }

    /**
     * Node connections are made lazily, and a command sent while its node's connection is still being made is
     * rejected (commands are never queued while disconnected): open every node's connection up front.
     */
    private static void openEveryNode(final StatefulRedisClusterConnection<byte[], byte[]> connection)
    {
        for (final RedisClusterNode node : connection.getPartitions())
        {
            connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
        }
    }

    private static RedisURI parse(final String uri, final Duration timeout)
    {
        if (null == uri || !(uri.startsWith("redis://") || uri.startsWith("rediss://")))
        {
            throw new IllegalArgumentException("bad Redis URI '" + uri + "' (expected redis://HOST:PORT)");
        }
        final RedisURI parsed;
        try
        {
            parsed = RedisURI.create(uri);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException("bad Redis URI '" + uri + "': " + rootMessage(ex), ex);
        }
        if (null == parsed.getHost() || parsed.getHost().isEmpty())
        {
            throw new IllegalArgumentException("bad Redis URI '" + uri + "': no host");
        }
        parsed.setTimeout(timeout);
        return parsed;
    }

    private static String describe(final List<String> uris)
    {
        final List<String> safe = new ArrayList<>(uris.size());
        for (final String uri : uris)
        {
            safe.add(uri.replaceAll("//[^@/]*@", "//"));
        }
        return String.join(", ", Collections.unmodifiableList(safe));
    }

    private static String rootMessage(final Throwable ex)
    {
        Throwable cause = ex;
        while (null != cause.getCause() && cause.getCause() != cause)
        {
            cause = cause.getCause();
        }
        final String message = null == cause.getMessage() ? cause.getClass().getSimpleName() : cause.getMessage();
        return message.replace('\n', ' ').replace("Exception", "error");
    }
}
