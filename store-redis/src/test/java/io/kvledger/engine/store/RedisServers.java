package io.kvledger.engine.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Real {@code redis-server} processes for tests: a single node or a Redis Cluster (made with
 * {@code redis-cli --cluster create}), each on 127.0.0.1 only, on a free port, in its own temporary directory.
 * Every wait is bounded; {@link #close()} kills every process and removes the directories (call it from
 * {@code @AfterAll}; a JVM shutdown hook does it too if a test run dies first).
 * <p>
 * Thread ownership: one test thread.
 */
public final class RedisServers implements AutoCloseable
{
    private static final long START_TIMEOUT_MS = 20_000;

    private final List<Node> nodes = new ArrayList<>();
    private final Path root;
    private final boolean cluster;
    private final Thread shutdownHook = new Thread(this::killAll, "redis-servers-cleanup");

    private RedisServers(final boolean cluster, final int count, final boolean persistent)
    {
        this.cluster = cluster;
        try
        {
            root = Files.createTempDirectory("kvledger-redis");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try
        {
            for (int i = 0; i < count; i++)
            {
                nodes.add(startNode(root.resolve("node" + i), cluster, persistent));
            }
            if (cluster)
            {
                createCluster();
            }
        }
        catch (final RuntimeException | Error ex)
        {
            close();
            throw ex;
        }
    }

    /**
     * Start one node, without persistence.
     *
     * @return the running server.
     */
    public static RedisServers single()
    {
        return new RedisServers(false, 1, false);
    }

    /**
     * Start one node whose data survives a kill and restart (append-only file, fsync always).
     *
     * @return the running server.
     */
    public static RedisServers persistentSingle()
    {
        return new RedisServers(false, 1, true);
    }

    /**
     * Start a Redis Cluster of masters, no replicas, all slots assigned.
     *
     * @param count nodes, at least 3.
     * @return the running cluster.
     */
    public static RedisServers cluster(final int count)
    {
        return new RedisServers(true, count, false);
    }

    /**
     * A node.
     *
     * @param i node index.
     * @return the node.
     */
    public Node node(final int i)
    {
        return nodes.get(i);
    }

    /**
     * URIs of every node, for {@code --redis} (several seeds mean a cluster).
     *
     * @return {@code redis://127.0.0.1:PORT} of each node.
     */
    public List<String> uris()
    {
        final List<String> uris = new ArrayList<>();
        for (final Node node : nodes)
        {
            uris.add(node.uri());
        }
        return uris;
    }

    /**
     * Kill every node and remove the directories.
     */
    public void close()
    {
        killAll();
        try
        {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (final IllegalStateException ignore)
        {
            // the JVM is already shutting down and runs the hook
        }
        try (Stream<Path> files = Files.walk(root))
        {
            files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
        catch (final IOException ignore)
        {
            // temporary directory; best effort
        }
    }

    private void killAll()
    {
        for (final Node node : nodes)
        {
            node.kill();
        }
    }

    /**
     * Start a node on a free port, trying another port when the chosen one was taken in the meantime (another
     * build on the same machine may start servers too).
     */
    private static Node startNode(final Path dir, final boolean cluster, final boolean persistent)
    {
        IllegalStateException failure = null;
        for (int attempt = 0; attempt < 3; attempt++)
        {
            final Node node = new Node(dir, freePort(cluster), cluster, persistent);
            try
            {
                node.start();
                return node;
            }
            catch (final IllegalStateException ex)
            {
                failure = ex;
            }
        }
        throw failure;
    }

    private void createCluster()
    {
        final List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        for (final Node node : nodes)
        {
            command.add("127.0.0.1:" + node.port);
        }
        command.add("--cluster-replicas");
        command.add("0");
        command.add("--cluster-yes");
        final String out = run(command, 60);
        if (!out.contains("[OK] All 16384 slots covered"))
        {
            throw new IllegalStateException("redis-cli --cluster create failed:\n" + out);
        }
        for (final Node node : nodes)
        {
            node.awaitClusterOk();
        }
    }

    static String run(final List<String> command, final long timeoutSeconds)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new IllegalStateException("timed out: " + String.join(" ", command));
            }
            return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot run " + command.get(0) + " (install the Debian package " +
                "redis-server)", ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    private static int freePort(final boolean cluster)
    {
        for (int attempt = 0; attempt < 100; attempt++)
        {
            final int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                port = socket.getLocalPort();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            if (!cluster)
            {
                return port;
            }
            if (port + 10_000 <= 65_535)
            {
                try (ServerSocket bus = new ServerSocket(port + 10_000, 1, InetAddress.getLoopbackAddress()))
                {
                    if (bus.isBound())
                    {
                        return port;
                    }
                }
                catch (final IOException busy)
                {
                    // try another port
                }
            }
        }
        throw new IllegalStateException("no free port pair for a cluster node");
    }

    /** One redis-server process. */
    public static final class Node
    {
        private final Path dir;
        private final int port;
        private final boolean cluster;
        private final boolean persistent;
        private Process process;

        Node(final Path dir, final int port, final boolean cluster, final boolean persistent)
        {
            this.dir = dir;
            this.port = port;
            this.cluster = cluster;
            this.persistent = persistent;
        }

        /**
         * The node's port on 127.0.0.1.
         *
         * @return the port.
         */
        public int port()
        {
            return port;
        }

        /**
         * The node's URI.
         *
         * @return {@code redis://127.0.0.1:PORT}.
         */
        public String uri()
        {
            return "redis://127.0.0.1:" + port;
        }

        /**
         * Start the process (again, after {@link #kill()}, on the same port and directory) and wait until it
         * answers PING.
         */
        public void start()
        {
            final List<String> command = new ArrayList<>(List.of("redis-server",
                "--bind", "127.0.0.1", "--port", Integer.toString(port), "--dir", dir.toString(),
                "--save", "", "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning",
                "--appendonly", persistent ? "yes" : "no"));
            if (persistent)
            {
                command.addAll(List.of("--appendfsync", "always"));
            }
            if (cluster)
            {
                command.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", "2000"));
            }
            try
            {
                Files.createDirectories(dir);
                process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot start redis-server (install the Debian package " +
                    "redis-server)", ex);
            }
            final long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
            while (!cli("ping").contains("PONG"))
            {
                if (!process.isAlive() || System.currentTimeMillis() > deadline)
                {
                    kill();
                    throw new IllegalStateException("redis-server on port " + port + " did not start; log:\n" +
                        readLog());
                }
                sleep(20);
            }
        }

        /**
         * @return whether the process is running (paused counts as running).
         */
        public boolean running()
        {
            final Process p = process;
            return null != p && p.isAlive();
        }

        /**
         * Kill the process (SIGKILL) and wait for it to end; no-op when not running.
         */
        public void kill()
        {
            final Process p = process;
            if (null != p && p.isAlive())
            {
                resume();
                p.destroyForcibly();
                try
                {
                    p.waitFor(10, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * Stop the process without killing it (SIGSTOP): connections stay open and nothing answers.
         */
        public void pause()
        {
            signal("-STOP");
        }

        /**
         * Let a paused process go on (SIGCONT).
         */
        public void resume()
        {
            signal("-CONT");
        }

        /**
         * Run a redis-cli command against this node.
         *
         * @param args the command and its arguments.
         * @return redis-cli's output.
         */
        public String cli(final String... args)
        {
            final List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p",
                Integer.toString(port)));
            command.addAll(List.of(args));
            return run(command, 10);
        }

        private void awaitClusterOk()
        {
            final long deadline = System.currentTimeMillis() + START_TIMEOUT_MS * 2;
            while (!cli("cluster", "info").contains("cluster_state:ok"))
            {
                if (System.currentTimeMillis() > deadline)
                {
                    throw new IllegalStateException("cluster not ok at port " + port + ": " + cli("cluster", "info"));
                }
                sleep(50);
            }
        }

        private void signal(final String signal)
        {
            final Process p = process;
            if (null != p && p.isAlive())
            {
                run(List.of("kill", signal, Long.toString(p.pid())), 10);
            }
        }

        private String readLog()
        {
            try
            {
                return Files.readString(dir.resolve("redis.log"));
            }
            catch (final IOException ex)
            {
                return "(no log)";
            }
        }

        private static void sleep(final long ms)
        {
            try
            {
                Thread.sleep(ms);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", ex);
            }
        }
    }
}
