package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.engine.store.RedisConnector;
import io.kvledger.engine.store.RedisServers;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvledger run --store redis} end to end on real redis-server processes: two processes sharing one L3 as
 * two machines would, a server killed in the middle of a run and restarted, values corrupted by hand, a Redis
 * Cluster, and wrong URIs.
 */
class RedisRunCommandTest
{
    private static final Object[] WORKLOAD = {"--requests", 8, "--prompt-tokens", 1024, "--extend-tokens", 128};
    private static final Pattern STORE_LINE = Pattern.compile(
        "L3 store +redis store .*: ([\\d,]+) pages written, ([\\d,]+) read, ([\\d,]+) missing, ([\\d,]+) corrupt, " +
        "([\\d,]+) I/O errors \\(([\\d,]+) timeouts\\), ([\\d,]+) disconnects, ([\\d,]+) reconnects");

    private static RedisServers single;

    @BeforeAll
    static void startRedis()
    {
        single = RedisServers.persistentSingle();
    }

    @AfterAll
    static void stopRedis()
    {
        if (null != single)
        {
            single.close();
        }
    }

    @Test
    void shouldConnectToRedisOnceForARun(@TempDir final Path dir)
    {
        final long before = connectionsReceived();
        kvledger("run", "--store", "redis", "--redis", single.node(0).uri(), "--requests", 2, "--journal",
            dir.resolve("j")).exits(0);
        final long after = connectionsReceived();

        // Each INFO is a connection of its own; one connector opens an admin and a data connection. The flag
        // checks built a second connector before, never closed: 4.
        assertTrue(after - before - 1 <= 2, "connections made by the run: " + (after - before - 1));
    }

    private static long connectionsReceived()
    {
        final Matcher m = Pattern.compile("total_connections_received:(\\d+)")
            .matcher(single.node(0).cli("INFO", "stats"));
        assertTrue(m.find(), "INFO stats has total_connections_received");
        return Long.parseLong(m.group(1));
    }

    @Test
    void shouldLoadInASecondProcessWhatTheFirstProcessComputed(@TempDir final Path dir) throws Exception
    {
        final String uri = single.node(0).uri();
        final String first = runProcess(dir, "first", uri, "two-processes");
        final String second = runProcess(dir, "second", uri, "two-processes");

        assertTrue(first.contains("digest mismatches 0"), first);
        assertTrue(second.contains("digest mismatches 0"), second);
        assertTrue(count(first, 1) > 0, "the first process writes its pages to Redis:\n" + first);
        assertTrue(count(second, 2) > 0, "the second process reads them back:\n" + second);
        assertTrue(hitTokens(second) > hitTokens(first),
            "a fresh device with the same Redis loads both rounds from L3:\n" + first + "\n" + second);
        for (final String name : new String[]{"first", "second"})
        {
            kvledger("check", dir.resolve(name)).exits(0);
            assertTrue(kvledger("replay", dir.resolve(name)).exits(0).out().contains("identical"));
        }
    }

    @Test
    void shouldRecomputeWhileRedisIsDeadAndLoadAgainAfterItsRestart(@TempDir final Path dir) throws Exception
    {
        final String uri = single.node(0).uri();
        kvledger(run(dir.resolve("warm"), "fault", uri)).exits(0);

        final CompletableFuture<CliRun> during = CompletableFuture.supplyAsync(() ->
            kvledger(run(dir.resolve("during"), "fault", uri, "--copy-delay-us", 200_000)));
        awaitClients(3);
        // The run opens its journal only once it is connected to Redis; the clients count alone may still include
        // the warm run's connections while they close.
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!java.nio.file.Files.exists(dir.resolve("during").resolve("metadata.cq4t")))
        {
            assertTrue(System.nanoTime() < deadline, "the run never started its journal");
            Thread.sleep(5);
        }
        single.node(0).kill();
        Thread.sleep(500);
        single.node(0).start();
        final CliRun killed = during.get(5, TimeUnit.MINUTES).exits(0);

        assertTrue(count(killed.out(), 5) > 0, "operations failed while Redis was dead:\n" + killed.out());
        assertTrue(count(killed.out(), 7) > 0, "the lost connection is counted:\n" + killed.out());
        assertTrue(killed.out().contains("digest mismatches 0"), killed.out());
        kvledger("check", dir.resolve("during")).exits(0);
        kvledger("replay", dir.resolve("during")).exits(0);

        final CliRun after = kvledger(run(dir.resolve("after"), "fault", uri)).exits(0);
        assertTrue(hitTokens(after.out()) > 0, "hits resume after the restart:\n" + after.out());
        assertEquals(0, count(after.out(), 5), after.out());
        kvledger("check", dir.resolve("after")).exits(0);
    }

    @Test
    void shouldWaitOutAStalledRedisUpToItsTimeoutAndNotGiveUpTheRun(@TempDir final Path dir) throws Exception
    {
        final String uri = single.node(0).uri();
        kvledger(run(dir.resolve("warm"), "stall", uri)).exits(0);

        // A Redis that stops answering (SIGSTOP: connections stay open) for longer than the serving loop's idle
        // steps last, but with a per-operation timeout longer still: each operation must wait its timeout out,
        // fail, and its request recompute; the run must not give up as if the engine had stopped making progress.
        final CompletableFuture<CliRun> during = CompletableFuture.supplyAsync(() ->
            kvledger(run(dir.resolve("during"), "stall", uri, "--copy-delay-us", 200_000,
                "--redis-timeout-ms", 10_000)));
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!java.nio.file.Files.exists(dir.resolve("during").resolve("metadata.cq4t")))
        {
            assertTrue(System.nanoTime() < deadline, "the run never started its journal");
            Thread.sleep(5);
        }
        single.node(0).pause();
        try
        {
            Thread.sleep(11_000);
        }
        finally
        {
            single.node(0).resume();
        }
        final CliRun stalled = during.get(5, TimeUnit.MINUTES).exits(0);

        assertTrue(count(stalled.out(), 6) > 0, "operations timed out while Redis was stopped:\n" + stalled.out());
        assertTrue(stalled.out().contains("digest mismatches 0"), stalled.out());
        kvledger("check", dir.resolve("during")).exits(0);
        kvledger("replay", dir.resolve("during")).exits(0);
    }

    @Test
    void shouldCatchValuesCorruptedByHandByTheirDigest(@TempDir final Path dir)
    {
        final String uri = single.node(0).uri();
        kvledger(run(dir.resolve("warm"), "corrupt", uri)).exits(0);
        final int corrupted = corruptEveryPage(uri, "corrupt");
        assertTrue(corrupted > 0);

        final CliRun run = kvledger(run(dir.resolve("read"), "corrupt", uri)).exits(0);
        assertTrue(count(run.out(), 4) > 0, "corrupt values are caught:\n" + run.out());
        final Matcher drops = Pattern.compile("drops +([\\d,]+)").matcher(run.out());
        assertTrue(drops.find() && Long.parseLong(drops.group(1).replace(",", "")) > 0,
            "each one fails its fetch and the request recomputes:\n" + run.out());
        assertTrue(run.out().contains("digest mismatches 0"), "nothing corrupt was loaded:\n" + run.out());
        final String dump = kvledger("dump", dir.resolve("read")).exits(0).out();
        assertTrue(dump.contains("OP_FAILED"), "a corrupt fetch is journaled as a failed op");
        kvledger("check", dir.resolve("read")).exits(0);
        kvledger("replay", dir.resolve("read")).exits(0);
    }

    @Test
    void shouldShareL3ThroughARedisClusterGivenItsSeeds(@TempDir final Path dir)
    {
        try (RedisServers cluster = RedisServers.cluster(3))
        {
            final List<Object> first = new ArrayList<>(
                List.of(run(dir.resolve("a"), "cluster", cluster.uris().get(0))));
            first.add("--redis");
            first.add(cluster.uris().get(1));
            first.add("--json");
            final JsonNode a = kvledger(first.toArray()).exits(0).json();
            final List<Object> second = new ArrayList<>(
                List.of(run(dir.resolve("b"), "cluster", cluster.uris().get(2))));
            second.add("--json");
            final JsonNode b = kvledger(second.toArray()).exits(0).json();

            assertTrue(a.get("store").asText().contains("Redis Cluster"), a.toString());
            assertTrue(b.get("hitTokens").asLong() > a.get("hitTokens").asLong(), a + "\n" + b);
            assertEquals(0, b.get("digestMismatches").asLong());
            kvledger("check", dir.resolve("b")).exits(0);
        }
    }

    @Test
    void shouldRefuseMissingWrongOrUnreachableRedisWithOneLine(@TempDir final Path dir)
    {
        assertTrue(kvledger("run", "--store", "redis", "--journal", dir.resolve("j")).failsWithOneLine()
            .contains("--store redis needs --redis URI"));
        assertTrue(kvledger("run", "--store", "redis", "--redis", "localhost:6379", "--journal", dir.resolve("j"))
            .failsWithOneLine().contains("bad Redis URI 'localhost:6379'"));
        assertTrue(kvledger("run", "--store", "redis", "--redis", "redis://127.0.0.1:1", "--journal",
            dir.resolve("j")).failsWithOneLine().contains("cannot connect to Redis at redis://127.0.0.1:1"));
        assertTrue(kvledger("run", "--redis", single.node(0).uri(), "--journal", dir.resolve("j"))
            .failsWithOneLine().contains("--redis is for --store redis"));
        assertTrue(!Files.exists(dir.resolve("j")), "nothing journaled");
    }

    @Test
    void shouldBenchTheFileStoreAgainstRedis()
    {
        final String out = kvledger("bench", "--store-bench", "--store-mib", 1, "--redis", single.node(0).uri())
            .exits(0).out();
        assertTrue(out.startsWith("store bench: 1 MiB"), out);
        assertTrue(out.lines().findFirst().orElse("").contains("(namespace kvledger-bench-" +
            ProcessHandle.current().pid() + ")"), "the header names the namespace the keys go to: " + out);
        for (final String cell : new String[]{"file   4 KiB   1 ", "redis  4 KiB   64 ", "file   64 KiB  64 ",
            "redis  64 KiB  1 "})
        {
            assertTrue(out.contains(cell), cell + " in\n" + out);
        }
        assertEquals("0", single.node(0).cli("eval", "return #redis.call('keys', 'kvledger-bench*')", "0").trim(),
            "the benchmark's keys are deleted");
    }

    /**
     * A {@code --redis-timeout-ms} too large is refused naming the flag and its range, before anything is created;
     * before, Lettuce's int milliseconds overflowed and the one line blamed Redis ({@code cannot connect to Redis at
     * ...: integer overflow}, or {@code long overflow}), and an hour and one millisecond was taken.
     */
    @Test
    void shouldRefuseARedisTimeoutOutOfRangeNamingTheFlag(@TempDir final Path dir)
    {
        for (final String ms : new String[]{"3600001", "100000000000", "9223372036854775807"})
        {
            final String line = kvledger(run(dir.resolve("j"), "timeout", single.node(0).uri(), "--redis-timeout-ms",
                ms)).failsWithOneLine();
            assertTrue(line.startsWith("kvledger: --redis-timeout-ms " + ms + " is out of range: 1 to 3,600,000 ms"),
                line);
            assertTrue(!Files.exists(dir.resolve("j")), "nothing journaled");
        }
    }

    /**
     * A Redis that fails the benchmark's operations and then the deletion of its keys, as one that goes away in the
     * middle of a Redis cell does (an ACL user without SET and SCAN makes it happen every time): the one line says
     * why the bench failed and that its keys were left behind; before, the clean-up's exception hid it
     * ({@code RedisCommandExecutionException: NOPERM ...}) and the cell's store was never closed.
     */
    @Test
    void shouldSayWhyTheStoreBenchFailedWhenDeletingItsKeysFailsToo()
    {
        final RedisServers.Node node = single.node(0);
        node.cli("ACL", "SETUSER", "bench-no-write", "on", ">pw", "~*", "&*", "+@all", "-set", "-scan");
        try
        {
            final CliRun bench = kvledger("bench", "--store-bench", "--store-mib", 1, "--redis",
                "redis://bench-no-write:pw@127.0.0.1:" + node.port()).exits(KvledgerMain.EXIT_BAD_INPUT);
            bench.assertNoStackTrace();
            final String err = bench.err().trim();
            assertEquals(1, err.split("\n").length, err);
            assertTrue(err.startsWith("kvledger: store bench: ") && err.contains(" failed operations, "), err);
            assertTrue(err.contains("the benchmark's keys in Redis redis://127.0.0.1:" + node.port()) &&
                err.contains("could not be deleted"), err);
        }
        finally
        {
            node.cli("ACL", "DELUSER", "bench-no-write");
        }
    }

    private static Object[] run(final Path journal, final String namespace, final String uri, final Object... more)
    {
        final List<Object> args = new ArrayList<>(List.of("run", "--store", "redis", "--redis", uri,
            "--redis-namespace", namespace, "--journal", journal));
        args.addAll(List.of(WORKLOAD));
        args.addAll(List.of(more));
        return args.toArray();
    }

    /** One {@code kvledger run} in its own JVM, as on another machine; returns its stdout. */
    private static String runProcess(final Path dir, final String name, final String uri, final String namespace)
        throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-") || argument.startsWith("--enable-native-access") ||
                argument.startsWith("--sun-misc-unsafe-memory-access") || argument.startsWith("-Dchronicle.") ||
                argument.startsWith("-Dorg.slf4j."))
            {
                command.add(argument);
            }
        }
        command.add("-Xmx512m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(KvledgerMain.class.getName());
        for (final Object arg : run(dir.resolve(name), namespace, uri))
        {
            command.add(String.valueOf(arg));
        }
        final Path out = dir.resolve(name + ".out");
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
            .start();
        if (!process.waitFor(5, TimeUnit.MINUTES))
        {
            process.destroyForcibly();
            throw new AssertionError("kvledger run did not finish: " + Files.readString(out));
        }
        final String text = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), text);
        return text;
    }

    private static long count(final String out, final int group)
    {
        final Matcher m = STORE_LINE.matcher(out);
        assertTrue(m.find(), "no L3 store line in:\n" + out);
        return Long.parseLong(m.group(group).replace(",", ""));
    }

    private static long hitTokens(final String out)
    {
        final Matcher m = Pattern.compile("L3 hit tokens +([\\d,]+)").matcher(out);
        assertTrue(m.find(), out);
        return Long.parseLong(m.group(1).replace(",", ""));
    }

    /**
     * Wait (bounded) until this many clients are connected (redis-cli itself is one; a run holds two): the run
     * under test has connected.
     */
    private static void awaitClients(final int clients) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true)
        {
            final Matcher m = Pattern.compile("connected_clients:(\\d+)").matcher(single.node(0).cli("info",
                "clients"));
            if (m.find() && Integer.parseInt(m.group(1)) >= clients)
            {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "the run never connected to Redis");
            Thread.sleep(5);
        }
    }

    /** Flip one content byte of every page value of a namespace, by hand, through a plain client. */
    private static int corruptEveryPage(final String uri, final String namespace)
    {
        int corrupted = 0;
        try (RedisConnector connector = RedisConnector.connect(List.of(uri), namespace, Duration.ofSeconds(5)))
        {
            @SuppressWarnings("unchecked")
            final StatefulRedisConnection<byte[], byte[]> admin =
                (StatefulRedisConnection<byte[], byte[]>)connector.adminConnection();
            final byte[] pattern = (namespace + ":p:*").getBytes(StandardCharsets.US_ASCII);
            final List<byte[]> keys = new ArrayList<>();
            ScanIterator.scan(admin.sync(), ScanArgs.Builder.matches(pattern)).forEachRemaining(keys::add);
            for (final byte[] key : keys)
            {
                final byte[] value = admin.sync().get(key);
                value[value.length - 1] ^= 0x01;
                admin.sync().set(key, value);
                corrupted++;
            }
        }
        return corrupted;
    }
}
