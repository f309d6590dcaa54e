package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.counters.CountersFile;
import io.kvledger.engine.runtime.KvLedger;
import io.kvledger.engine.runtime.KvLedgerOptions;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.JournalReader;
import io.kvledger.journal.ReadStatus;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.replay.check.JournalStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code kvledger stat}: the counters of a live controller read by a second JVM, checked against the journal's
 * {@code stats} at the end; the text table; bad input; {@code --metrics-port} usage; {@link Progress} staying quiet.
 */
class StatCommandTest
{
    private static final List<String> BUILD_NOTES_FLAGS = List.of(
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED");

    @Test
    void shouldReadALiveRunFromASecondProcessAndAgreeWithTheJournalStats(@TempDir final Path dir) throws Exception
    {
        final EngineConfig config = EngineConfig.builder().pageSize(16).deviceKvPages(1024).deviceMambaSlots(64)
            .hostKvPages(2048).hostMambaSlots(128).maxRequests(512).maxRequestPages(64).maxOps(1024)
            .kvPageBytes(1024).mambaStateBytes(4096).prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE).build();
        final KvLedgerOptions options = new KvLedgerOptions();
        options.config = config;
        options.journalDir = dir.resolve("journal");
        options.store = KvLedgerOptions.StoreKind.MEMORY;
        options.ringSize = 1024;
        final WorkloadOptions workload = new WorkloadOptions();
        workload.kind = WorkloadKind.PR_BENCH;
        workload.requests = 120;
        workload.promptTokens = 512;
        workload.extendTokens = 64;

        final JsonNode live;
        final long appliedWhileLive;
        final KvLedger ledger = KvLedger.open(options);
        try
        {
            new ServingLoop(ledger.session(), config, Workload.build(workload)).run();
            live = statInChildJvm(options.journalDir, dir.resolve("live.err"));
            appliedWhileLive = ledger.loop().appliedSequence();
        }
        finally
        {
            ledger.close();
        }
        final JsonNode last = statInChildJvm(options.journalDir, dir.resolve("last.err"));

        assertEquals("running", live.get("state").asText());
        assertTrue(live.get("alive").asBoolean());
        assertEquals(ProcessHandle.current().pid(), live.get("pid").asLong());
        final long liveInputs = live.get("counters").get("inputs").asLong();
        assertTrue(liveInputs > 0 && liveInputs <= appliedWhileLive, liveInputs + " of " + appliedWhileLive);

        assertEquals("stopped", last.get("state").asText());
        assertFalse(last.get("alive").asBoolean());
        final JsonNode c = last.get("counters");
        for (final Map.Entry<String, JsonNode> counter : iterable(live.get("counters")))
        {
            if (counter.getKey().endsWith("Used") || counter.getKey().equals("opsInFlight") ||
                counter.getKey().equals("liveRequests") || counter.getKey().equals("ringFill") ||
                counter.getKey().equals("engineState") || counter.getKey().equals("stopTimeMs") ||
                counter.getKey().equals("parkedHits") || counter.getKey().equals("backupBacklog"))
            {
                continue;
            }
            assertTrue(counter.getValue().asLong() <= c.get(counter.getKey()).asLong(),
                counter.getKey() + " went back: " + counter.getValue() + " then " + c.get(counter.getKey()));
        }

        final JournalStats stats = new JournalStats();
        try (JournalReader reader = JournalReader.open(options.journalDir))
        {
            assertEquals(ReadStatus.CLEAN, reader.read(stats).status());
        }
        assertEquals(stats.documents(), c.get("inputs").asLong());
        assertEquals(stats.documents(), c.get("journalDocuments").asLong());
        assertEquals(stats.effects(), c.get("effects").asLong());
        assertEquals(stats.inputs(InputType.ARRIVE), c.get("arrivals").asLong());
        assertEquals(stats.inputs(InputType.ADMIT), c.get("admitInputs").asLong());
        assertEquals(stats.inputs(InputType.ACK), c.get("ackInputs").asLong());
        assertEquals(stats.inputs(InputType.FINISH), c.get("finishInputs").asLong());
        assertEquals(stats.admitted(), c.get("admitted").asLong());
        assertEquals(stats.admittedRequestPages(), c.get("prefixQueryPages").asLong());
        assertEquals(stats.prefixPages(), c.get("prefixHitPages").asLong());
        assertEquals(stats.loadedPages(), c.get("loadedPages").asLong());
        assertEquals(stats.loads(), c.get("loads").asLong());
        assertEquals(stats.defers(), c.get("defers").asLong());
        assertEquals(stats.drops(), c.get("drops").asLong());
        assertEquals(stats.waits(), c.get("waits").asLong());
        assertEquals(stats.rejects(), c.get("rejects").asLong());
        long refused = 0;
        for (final Map.Entry<Integer, Long> code : stats.resultCodes().entrySet())
        {
            refused += code.getKey() < 0 ? code.getValue() : 0;
        }
        assertEquals(refused, c.get("inputsRefused").asLong());
        assertTrue(stats.admitted() > 0 && stats.loadedPages() > 0, "the workload hit L3");
        assertEquals(stats.hitRate(), last.get("prefixCacheHitRate").asDouble(), 1e-9);
        assertEquals(0, c.get("opsInFlight").asLong());

        final CliRun table = CliRun.kvledger("stat", options.journalDir);
        assertEquals(0, table.exitCode(), table.err());
        assertTrue(table.lines().get(1).startsWith("engine stopped, pid " + ProcessHandle.current().pid()),
            table.out());
        assertTrue(table.out().contains("inputs applied"), table.out());
        assertTrue(table.out().contains(String.format(java.util.Locale.ROOT, "%,d", stats.documents())), table.out());

        final CliRun watch = CliRun.kvledger("stat", options.journalDir.resolve(CountersFile.FILE_NAME),
            "--watch", "0.1", "--count", "5", "--json");
        assertEquals(0, watch.exitCode(), watch.err());
        assertEquals(1, watch.lines().size(), "a stopped controller is shown once: " + watch.out());
    }

    @Test
    void shouldRefuseBadInputWithOneLineAndExitTwo(@TempDir final Path dir) throws IOException
    {
        final Path empty = Files.createDirectories(dir.resolve("empty"));
        final Path garbage = Files.write(dir.resolve("garbage.dat"), new byte[4096]);
        final Path tiny = Files.writeString(dir.resolve("tiny.dat"), "KVLC");
        final Path text = Files.createDirectories(dir.resolve("textdir"));
        Files.writeString(text.resolve(CountersFile.FILE_NAME), "not counters, but long enough to hold a header " +
            "of one hundred and twenty-eight bytes, so that the magic number is what gets checked here at last.");
        assertBad("no such file or directory", "stat", dir.resolve("missing"));
        assertBad("no counters file in", "stat", empty);
        assertBad("no directory given: DIR is empty", "stat", "");
        assertBad("is not a kvledger counters file", "stat", garbage);
        assertBad("is not a kvledger counters file", "stat", tiny);
        assertBad("is not a kvledger counters file", "stat", text);
        assertBad("--watch must be", "stat", empty, "--watch", "0");
        assertBad("--watch must be", "stat", empty, "--watch", "-1");
        assertBad("--watch must be", "stat", empty, "--watch", "NaN");
        assertBad("'abc' is not a double", "stat", empty, "--watch", "abc");
        assertBad("--count 0 is out of range: 1 to 2,147,483,647 (samples to print)", "stat", empty, "--watch", "1",
            "--count", "0");
        assertBad("--count needs --watch", "stat", empty, "--count", "3");
        assertBad("Missing required parameter", "stat");
        assertBad("--metrics-port must be", "run", "--metrics-port", "70000", "--journal", dir.resolve("j1"));
        assertBad("--metrics-port needs a live run", "run", "--metrics-port", "0", "--deterministic", "--journal",
            dir.resolve("j2"));
    }

    @Test
    void shouldRefuseADamagedLabelLengthWithOneLineAndSurviveRandomDamage(@TempDir final Path dir) throws IOException
    {
        final Path original = dir.resolve("original.dat");
        final CountersFile written = CountersFile.create(original);
        for (final String label : List.of("requests", "loads", "drops", "bytes moved"))
        {
            written.manager().allocate(label);
        }
        written.markReady();
        final byte[] bytes = Files.readAllBytes(original);
        CliRun.kvledger("stat", original).exits(KvledgerMain.EXIT_CLEAN);

        final Path hugeLabel = Files.write(dir.resolve("huge-label.dat"), bytes);
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(hugeLabel.toFile(), "rw"))
        {
            file.seek(CountersFile.HEADER_LENGTH + org.agrona.concurrent.status.CountersReader.LABEL_OFFSET);
            file.writeInt(Integer.reverseBytes(0x7fff_ffff));
        }
        assertBad(hugeLabel + " is a damaged counters file (counter 0 has a label length of 2147483647 bytes, at " +
            "most 380)", "stat", hugeLabel);

        for (int seed = 1; seed <= 40; seed++)
        {
            final java.util.Random random = new java.util.Random(seed);
            final byte[] damaged = bytes.clone();
            for (int i = 0; i < 200; i++)
            {
                damaged[CountersFile.HEADER_LENGTH + random.nextInt(damaged.length - CountersFile.HEADER_LENGTH)] =
                    (byte)random.nextInt(256);
            }
            final Path file = Files.write(dir.resolve("damaged-" + seed + ".dat"), damaged);
            final CliRun run = CliRun.kvledger("stat", file);
            if (KvledgerMain.EXIT_CLEAN != run.exitCode())
            {
                assertBad("is a damaged counters file", "stat", file);
            }
        }
    }

    /**
     * Damaged buffer lengths in the header that still pass the size check: lengths that are not whole counter
     * records, or that leave no room for one counter. Before, Agrona's reader threw at the first counter and the
     * line was an internal exception ({@code IllegalArgumentException: counter id 0 out of range: 0 -
     * maxCounterId=-1}, {@code IndexOutOfBoundsException: Range [512, 512 + 4) out of bounds for length 513}).
     */
    @Test
    void shouldRefuseDamagedBufferLengthsInTheHeaderWithOneLine(@TempDir final Path dir) throws IOException
    {
        final Path original = dir.resolve("original.dat");
        final CountersFile written = CountersFile.create(original);
        written.manager().allocate("requests");
        written.markReady();
        final byte[] bytes = Files.readAllBytes(original);
        final int[][] lengths = {{1000, 100}, {100, 10}, {512, 1}, {65_536, 1}, {513, 128}, {600, 100}};
        for (final int[] pair : lengths)
        {
            final Path damaged = Files.write(dir.resolve("lengths-" + pair[0] + "-" + pair[1] + ".dat"), bytes);
            try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(damaged.toFile(), "rw"))
            {
                file.seek(8);
                file.writeInt(Integer.reverseBytes(pair[0]));
                file.writeInt(Integer.reverseBytes(pair[1]));
            }
            assertBad(damaged + " is a damaged counters file (buffer lengths " + pair[0] + " and " + pair[1],
                "stat", damaged);
        }
    }

    @Test
    void shouldKeepProgressQuietUnlessEnabledAndClearItsLine()
    {
        final StringWriter quiet = new StringWriter();
        final Progress off = new Progress(new PrintWriter(quiet), false);
        off.draw("never");
        off.update("check", 1, 2, "documents");
        off.close();
        assertEquals("", quiet.toString());
        assertFalse(off.due());
        assertFalse(Progress.NONE.enabled());

        final StringWriter shown = new StringWriter();
        final Progress on = new Progress(new PrintWriter(shown), true);
        on.draw("check: 10 documents");
        on.close();
        assertEquals("\r\033[Kcheck: 10 documents\r\033[K", shown.toString());
        on.close();
        assertEquals("\r\033[Kcheck: 10 documents\r\033[K", shown.toString(), "closing twice clears once");
    }

    private static void assertBad(final String expected, final Object... args)
    {
        final CliRun run = CliRun.kvledger(args);
        assertEquals(KvledgerMain.EXIT_BAD_INPUT, run.exitCode(), run.out() + run.err());
        assertEquals("", run.out());
        final String[] lines = run.err().split("\n");
        assertEquals(1, lines.length, "one line: " + run.err());
        assertTrue(lines[0].contains(expected), run.err());
        assertFalse(run.err().contains("Exception"), run.err());
    }

    @Test
    void shouldShowACrashedRunAsStoppedWithAnUptimeThatNoLongerGrows(@TempDir final Path dir) throws Exception
    {
        final Path journal = dir.resolve("journal");
        final List<String> command = javaCommand();
        command.addAll(List.of(KvledgerMain.class.getName(), "run", "--requests", "64", "--prompt-tokens", "256",
            "--copy-delay-us", "20000", "--store", "memory", "--no-journal-thread", "--journal", journal.toString()));
        final Process child = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(dir.resolve("run.out").toFile()).start();
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (inputsApplied(journal) < 50)
            {
                assertTrue(child.isAlive(), "the run ended before it could be killed");
                if (System.nanoTime() > deadline)
                {
                    fail("the run applied no inputs in 60 s");
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
        finally
        {
            child.destroyForcibly(); // SIGKILL: the controller never closes its counters file
            assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        }

        final JsonNode first = CliRun.MAPPER.readTree(CliRun.kvledger("stat", journal, "--json").exits(0).out());
        while (System.currentTimeMillis() <= first.get("readAtMs").asLong() + 20)
        {
            TimeUnit.MILLISECONDS.sleep(5);
        }
        final JsonNode second = CliRun.MAPPER.readTree(CliRun.kvledger("stat", journal, "--json").exits(0).out());

        assertEquals("stopped (process " + child.pid() + " ended without closing)", second.get("state").asText());
        assertFalse(second.get("alive").asBoolean());
        assertTrue(second.get("uptimeSeconds").asDouble() > 0, second.toString());
        assertEquals(first.get("uptimeSeconds").asDouble(), second.get("uptimeSeconds").asDouble(),
            "a crashed run's uptime ends at its last sign of life, not at the time of reading");
        assertEquals(first.get("rates").get("inputs").asDouble(), second.get("rates").get("inputs").asDouble());
    }

    private static long inputsApplied(final Path journal)
    {
        if (!Files.exists(journal.resolve(CountersFile.FILE_NAME)))
        {
            return 0;
        }
        try
        {
            final CountersFile file = CountersFile.openReadOnly(journal);
            return io.kvledger.engine.counters.CountersSnapshot.read(file.reader())
                .get(io.kvledger.engine.counters.KvCounter.INPUTS);
        }
        catch (final IllegalArgumentException stillBeingCreated)
        {
            return 0;
        }
    }

    private static List<String> javaCommand()
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        return command;
    }

    /** Run {@code kvledger stat DIR --json} in a child JVM and parse its one line. */
    private static JsonNode statInChildJvm(final Path journal, final Path stderr) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags());
        command.add("-Xmx128m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(KvledgerMain.class.getName());
        command.add("stat");
        command.add(journal.toString());
        command.add("--json");
        final Process child = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        final byte[] out = child.getInputStream().readAllBytes();
        if (!child.waitFor(60, TimeUnit.SECONDS))
        {
            child.destroyForcibly();
            fail("kvledger stat did not end");
        }
        assertEquals(0, child.exitValue(), Files.readString(stderr, StandardCharsets.UTF_8));
        final String line = new String(out, StandardCharsets.UTF_8).trim();
        assertFalse(line.contains("\n"), "one JSON line: " + line);
        return CliRun.MAPPER.readTree(line);
    }

    private static List<String> jvmFlags()
    {
        final List<String> flags = new ArrayList<>();
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-") || argument.startsWith("--enable-native-access") ||
                argument.startsWith("--sun-misc-unsafe-memory-access"))
            {
                flags.add(argument);
            }
        }
        return flags.isEmpty() ? BUILD_NOTES_FLAGS : flags;
    }

    private static Iterable<Map.Entry<String, JsonNode>> iterable(final JsonNode node)
    {
        return node.properties();
    }
}
