package io.kvledger.replay.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every class of bad value, through the real command tree: out-of-range numbers per flag, NaN and negative rates,
 * zero counts, directories that cannot be written. Each is refused up front with one line naming the flag, its range
 * and why, exit 2, nothing on stdout, and nothing created (no journal directory, no store, no demo directory).
 */
class CliBadInputTest
{
    @TempDir
    static Path dir;
    static Path journal;
    static Path store;
    static Path aFile;

    @BeforeAll
    static void paths() throws IOException
    {
        journal = dir.resolve("journal");
        store = dir.resolve("l3");
        aFile = Files.writeString(dir.resolve("a-file"), "not a directory");
    }

    static Stream<Arguments> badRunValues()
    {
        return Stream.of(
            arguments("--prompt-tokens 0", "--prompt-tokens 0 is out of range: 64 to 1,048,576 tokens (each prompt " +
                "must hold at least one whole page of --page-size 64 tokens)"),
            arguments("--prompt-tokens 1", "--prompt-tokens 1 is out of range: 64 to 1,048,576 tokens"),
            arguments("--prompt-tokens 63", "--prompt-tokens 63 is out of range: 64 to 1,048,576 tokens"),
            arguments("--prompt-tokens -4096", "--prompt-tokens -4096 is out of range: 64 to 1,048,576 tokens"),
            arguments("--prompt-tokens 2000000", "--prompt-tokens 2000000 is out of range: 64 to 1,048,576 tokens"),
            arguments("--workload multi-turn --prompt-tokens 128", "--prompt-tokens 128 is out of range: 256 to " +
                "1,048,576 tokens (a multi-turn conversation's first turn, 1/4 of the prompt, must hold"),
            arguments("--workload random --prompt-tokens 100", "--prompt-tokens 100 is out of range: 128 to " +
                "1,048,576 tokens (a random workload's shared prefixes"),
            arguments("--page-size 1000000", "--page-size 1000000 is out of range: 1 to 65,536 tokens"),
            arguments("--page-size 0", "--page-size 0 is out of range: 1 to 65,536 tokens"),
            arguments("--page-size -64", "--page-size -64 is out of range: 1 to 65,536 tokens"),
            arguments("--page-size 8192", "--prompt-tokens 4096 is out of range: 8,192 to 1,048,576 tokens " +
                "(each prompt must hold at least one whole page of --page-size 8192 tokens)"),
            arguments("--page-size 1 --prompt-tokens 20000", "--prompt-tokens 20000 and --extend-tokens 512 at " +
                "--page-size 1 make 20,514 pages per request, more than 10,240 (one journal document records a " +
                "request's admission, 5 effects a page; raise --page-size)"),
            arguments("--page-size 1 --prompt-tokens 12000", "--prompt-tokens 12000 and --extend-tokens 512 at " +
                "--page-size 1 make 12,514 pages per request, more than 10,240"),
            arguments("--extend-tokens -1", "--extend-tokens -1 is out of range: 0 to 1,048,576 tokens"),
            arguments("--requests 0", "--requests 0 is out of range: 1 to 10,000,000 requests (a request writes " +
                "about 26 journal documents, so the most make a journal of about 50 GB)"),
            arguments("--requests -3", "--requests -3 is out of range: 1 to 10,000,000 requests"),
            arguments("--requests 10000001", "--requests 10000001 is out of range: 1 to 10,000,000 requests"),
            arguments("--kv-pages 1", "--kv-pages 1 is out of range: 2 to 4,194,304 pages"),
            arguments("--kv-pages -1", "--kv-pages -1 is out of range: 2 to 4,194,304 pages"),
            arguments("--mamba-slots 2", "--mamba-slots 2 is out of range: 3 to 1,048,576 slots (a running request " +
                "holds 2 Mamba slots and its checkpoint 1; 0 for a pure-attention model)"),
            arguments("--mamba-slots -1", "--mamba-slots -1 is out of range: 3 to 1,048,576 slots"),
            arguments("--kv-page-bytes 0", "--kv-page-bytes 0 is out of range: 8 to 67,108,864 bytes"),
            arguments("--kv-page-bytes 12", "--kv-page-bytes 12 is not a multiple of 8"),
            arguments("--mamba-state-bytes -8", "--mamba-state-bytes -8 is out of range: 8 to 268,435,456 bytes"),
            arguments("--kv-pages 1000000 --kv-page-bytes 67108864", "--kv-pages 1000000, --kv-page-bytes 67108864, " +
                "--mamba-slots 160 and --mamba-state-bytes 16384 need 63,012.0 GiB for the device pools and 8,192 + " +
                "256 host staging slots, more than the "),
            arguments("--requests 100000 --prompt-tokens 1000000 --page-size 256", "--requests 100000, " +
                "--prompt-tokens 1000000, --extend-tokens 512 and --page-size 256 need "),
            arguments("--retract-rate NaN", "--retract-rate NaN is out of range: 0 to 1 (the share of admitted " +
                "staged loads retracted)"),
            arguments("--retract-rate -0.1", "--retract-rate -0.1 is out of range: 0 to 1"),
            arguments("--retract-rate 1.5", "--retract-rate 1.5 is out of range: 0 to 1"),
            arguments("--abort-rate NaN", "--abort-rate NaN is out of range: 0 to 1"),
            arguments("--abort-rate Infinity", "--abort-rate Infinity is out of range: 0 to 1"),
            arguments("--abort-rate -1", "--abort-rate -1.0 is out of range: 0 to 1"),
            arguments("--copy-delay-us -1", "--copy-delay-us -1 is out of range: 0 to 1,000,000 microseconds"),
            arguments("--copy-delay-us 9223372036854775807", "--copy-delay-us 9223372036854775807 is out of range"));
    }

    @ParameterizedTest(name = "run {0}")
    @MethodSource("badRunValues")
    void shouldRefuseAnOutOfRangeRunValueBeforeCreatingAnything(final String flags, final String message)
    {
        final List<Object> args = new ArrayList<>(List.of("run", "--journal", journal, "--store-dir", store));
        args.addAll(List.of(flags.split(" ")));

        final String error = kvledger(args.toArray()).failsWithOneLine();

        assertTrue(error.startsWith("kvledger: " + message), error);
        assertFalse(Files.exists(journal), "no journal directory is created");
        assertFalse(Files.exists(store), "no store directory is created");
    }

    @Test
    void shouldRefuseAStoreDirectoryInsideTheJournalDirectory()
    {
        for (final Path inside : List.of(journal, journal.resolve("l3")))
        {
            final String error = kvledger("run", "--journal", journal, "--store-dir", inside).failsWithOneLine();

            assertEquals("kvledger: --store-dir " + inside + " is inside the journal directory " + journal +
                ": give the L3 store a directory of its own", error);
            assertFalse(Files.exists(journal), "no journal directory is created");
        }
    }

    static Stream<Arguments> badCounts()
    {
        return Stream.of(
            arguments("bench --iterations 0", "--iterations 0 is out of range: 2 to 10,000 iterations (the first " +
                "quarter, at least one, warms up"),
            arguments("bench --iterations 1", "--iterations 1 is out of range: 2 to 10,000 iterations"),
            arguments("bench --iterations -5", "--iterations -5 is out of range: 2 to 10,000 iterations"),
            arguments("bench --requests 0", "--requests 0 is out of range: 1 to 1,024 requests"),
            arguments("bench --requests 5000", "--requests 5000 is out of range: 1 to 1,024 requests"),
            arguments("demo --requests 0", "--requests 0 is out of range: 1 to 512 prompts (the demo's engine is " +
                "sized for 512 live requests"),
            arguments("demo --requests -1", "--requests -1 is out of range: 1 to 512 prompts"),
            arguments("demo --requests 100000", "--requests 100000 is out of range: 1 to 512 prompts"),
            arguments("dump JOURNAL --limit 0", "--limit 0 is out of range: 1 or more documents (leave it out to " +
                "print every document)"),
            arguments("dump JOURNAL --limit -2", "--limit -2 is out of range: 1 or more documents"),
            arguments("dump JOURNAL --from -1", "--from -1 is out of range: 1 or more"),
            arguments("inspect JOURNAL --at -1", "--at -1 is out of range: 0 or more"),
            arguments("shrink JOURNAL --out OUT --max-runs 0", "--max-runs 0 is out of range: 1 or more runs"),
            arguments("shrink JOURNAL --out OUT --max-seconds -1", "--max-seconds -1 is out of range: 1 or more " +
                "seconds"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCounts")
    void shouldRefuseZeroAndNegativeCounts(final String command, final String message)
    {
        final Path demo = dir.resolve("demo");
        final Path out = dir.resolve("shrunk");
        final List<Object> args = new ArrayList<>();
        for (final String word : command.split(" "))
        {
            args.add("JOURNAL".equals(word) ? dir.resolve("no-journal-needed") : "OUT".equals(word) ? out : word);
        }
        if ("demo".equals(args.get(0)))
        {
            args.addAll(List.of("--dir", demo));
        }

        final String error = kvledger(args.toArray()).failsWithOneLine();

        assertTrue(error.startsWith("kvledger: " + message), error);
        assertFalse(Files.exists(demo), "no demo directory is created");
        assertFalse(Files.exists(out), "no shrink output is created");
    }

    static Stream<Arguments> badBenchFlags()
    {
        final String storeMib = "is out of range: 1 to 1,024 MiB (written then fetched per cell; the four " +
            "file-store cells keep up to 4 GiB on disk until the end)";
        final String iterations = "is out of range: 2 to 10,000 iterations (the first quarter, at least one, warms " +
            "up; each applies the whole recorded run)";
        return Stream.of(
            arguments("--store-bench --store-mib 1000000", "--store-mib 1000000 " + storeMib),
            arguments("--store-bench --store-mib 2147483647", "--store-mib 2147483647 " + storeMib),
            arguments("--store-bench --store-mib 0", "--store-mib 0 " + storeMib),
            arguments("--trace pr-bench --iterations -5", "--iterations -5 " + iterations),
            arguments("--trace pr-bench --iterations 2000000000", "--iterations 2000000000 " + iterations),
            arguments("--store-bench --iterations -5", "--iterations -5 " + iterations),
            arguments("--store-bench --iterations 1 --store-mib 1", "--iterations 1 " + iterations),
            arguments("--repeats=0", "--repeats needs --data-path"),
            arguments("--repeats 3", "--repeats needs --data-path"),
            arguments("--store-mib 4", "--store-mib needs --store-bench"),
            arguments("--store-dir STORE", "--store-dir needs --store-bench"),
            arguments("--redis redis://127.0.0.1:1", "--redis needs --store-bench"),
            arguments("--store-bench --trace=pr-bench", "give --trace or --store-bench, not both"),
            arguments("--data-path --device cuda --trace pr-bench", "give --data-path or --trace, not both"),
            arguments("--data-path --device cuda --store-bench", "give --data-path or --store-bench, not both"),
            arguments("--no-pretouch", "--no-pretouch needs --trace"),
            arguments("--trace pr-bench --requests 8", "--requests is for the recorded run, not --trace"),
            arguments("--trace pr-bench --workload random", "--workload is for the recorded run, not --trace"),
            arguments("--trace pr-bench --counters", "--counters is for the recorded run, not --trace"),
            arguments("--store-bench --counters", "--counters is for the recorded run, not --store-bench"),
            arguments("--store-bench --iterations 4", "--iterations is for the recorded run and --trace, not " +
                "--store-bench"),
            arguments("--store-bench --json", "--json needs --trace"),
            arguments("--store-bench --store-mib 1 --store-dir AFILE", "--store-dir AFILE: not a directory; the " +
                "store bench's file store cannot be written there"));
    }

    @ParameterizedTest(name = "bench {0}")
    @MethodSource("badBenchFlags")
    void shouldRefuseBadOrConflictingBenchFlagsBeforeMeasuring(final String flags, final String message)
    {
        final List<Object> args = new ArrayList<>(List.of("bench"));
        for (final String word : flags.split(" "))
        {
            args.add(word.replace("AFILE", aFile.toString()).replace("STORE", store.toString()));
        }

        final String error = kvledger(args.toArray()).failsWithOneLine();

        assertEquals("kvledger: " + message.replace("AFILE", aFile.toString()), error);
        assertFalse(Files.exists(store), "no store directory is created");
    }

    @Test
    void shouldLeaveNoTemporaryStoreDirectoryWhenRedisCannotBeReached() throws IOException
    {
        final Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        final List<Path> before = storeBenchDirectories(tmp);

        final String error = kvledger("bench", "--store-bench", "--store-mib", 1, "--redis", "redis://127.0.0.1:1")
            .failsWithOneLine();

        assertTrue(error.startsWith("kvledger: cannot connect to Redis at redis://127.0.0.1:1"), error);
        assertEquals(before, storeBenchDirectories(tmp));
    }

    private static List<Path> storeBenchDirectories(final Path tmp) throws IOException
    {
        try (Stream<Path> files = Files.list(tmp))
        {
            return files.filter(f -> f.getFileName().toString().startsWith("kvledger-store-bench")).sorted().toList();
        }
    }

    @Test
    void shouldRefuseAnExploreOutputThatCannotBeWrittenBeforeExploring()
    {
        final Path out = dir.resolve("explored");

        assertEquals("kvledger: --out " + aFile.resolve("x") + ": cannot be created: " + aFile.toAbsolutePath() +
            " is not a directory; the findings cannot be written there",
            kvledger("explore", "--seeds", 1, "--out=" + aFile.resolve("x")).failsWithOneLine());
        assertEquals("kvledger: --record needs --keep-going (without it the first finding is written and exploring " +
            "stops)", kvledger("explore", "--seeds", 1, "--record=0", "--out", out).failsWithOneLine());
        assertEquals("kvledger: --first-seed 9223372036854775807 with --seeds 2 runs past the largest seed, " +
            "9,223,372,036,854,775,807", kvledger("explore", "--first-seed=9223372036854775807", "--seeds=2",
            "--out", out).failsWithOneLine());
        assertFalse(Files.exists(out));
    }

    @Test
    void shouldTryCreatingAnOutputDirectoryWherePermissionsDoNotTell()
    {
        final Path proc = Path.of("/proc");
        assumeTrue(Files.isDirectory(proc.resolve("self")), "Linux /proc");

        final String explore = kvledger("explore", "--seeds", 1, "--out=/proc/kvledger-x").failsWithOneLine();
        final String run = kvledger("run", "--journal=/proc/kvledger-x", "--store-dir", store).failsWithOneLine();

        assertTrue(explore.startsWith("kvledger: --out /proc/kvledger-x: cannot be created: "), explore);
        assertTrue(run.startsWith("kvledger: --journal /proc/kvledger-x: cannot be created: "), run);
        assertFalse(Files.exists(store), "no store directory is created");
    }

    static Stream<Arguments> ignoredRunFlags()
    {
        return Stream.of(
            arguments("--store file --redis-timeout-ms=-5", "--redis-timeout-ms is for --store redis (the store is " +
                "file)"),
            arguments("--redis-namespace=", "--redis-namespace is for --store redis (the store is file)"),
            arguments("--store memory --redis-timeout-ms 100", "--redis-timeout-ms is for --store redis (the store " +
                "is memory)"),
            arguments("--io-backend=direct", "--io-backend is for --device cuda (the device is host)"),
            arguments("--deterministic --device cuda --io-backend direct", "--io-backend is for --device cuda (the " +
                "device is simulated)"),
            arguments("--deterministic --store memory", "--store is not used by --deterministic, which simulates " +
                "the device and the L3 store in one thread"),
            arguments("--deterministic --device host", "--device is not used by --deterministic, which simulates " +
                "the device and the L3 store in one thread"),
            arguments("--deterministic --copy-delay-us 5", "--copy-delay-us is not used by --deterministic, which " +
                "simulates the device and the L3 store in one thread"),
            arguments("--deterministic --no-journal-thread", "--journal-thread is not used by --deterministic, " +
                "which simulates the device and the L3 store in one thread"),
            arguments("--store memory", "--store-dir is for --store file (the store is memory)"),
            arguments("--deterministic", "--store-dir is not used by --deterministic, which simulates the device " +
                "and the L3 store in one thread"));
    }

    @ParameterizedTest(name = "run {0}")
    @MethodSource("ignoredRunFlags")
    void shouldRefuseARunFlagThatTheChosenStoreOrDeviceWouldIgnore(final String flags, final String message)
    {
        final List<Object> args = new ArrayList<>(List.of("run", "--journal", journal, "--store-dir", store));
        args.addAll(List.of(flags.split(" ")));

        assertEquals("kvledger: " + message, kvledger(args.toArray()).failsWithOneLine());
        assertFalse(Files.exists(journal), "no journal directory is created");
        assertFalse(Files.exists(store), "no store directory is created");
    }

    @Test
    void shouldRefuseAMetricsPortInUseBeforeCreatingTheJournal() throws IOException
    {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
            java.net.InetAddress.getLoopbackAddress()))
        {
            final int port = taken.getLocalPort();

            final String error = kvledger("run", "--requests", 1, "--metrics-port", port, "--journal", journal,
                "--store-dir", store).failsWithOneLine();

            assertTrue(error.startsWith("kvledger: --metrics-port " + port + ": cannot listen on 127.0.0.1:" + port +
                ": "), error);
            assertFalse(Files.exists(journal), "no header-only journal is left behind");
        }
    }

    @Test
    void shouldRefuseAJournalDirectoryThatExistsOrCannotBeCreated() throws IOException
    {
        final Path existing = Files.createDirectories(dir.resolve("existing-journal"));

        assertEquals("kvledger: --journal " + existing + " already exists; the journal needs a new directory",
            kvledger("run", "--journal", existing, "--store-dir", store).failsWithOneLine());
        assertEquals("kvledger: --journal " + aFile.resolve("journal") + ": cannot be created: " +
            aFile.toAbsolutePath() + " is not a directory; the journal cannot be written there",
            kvledger("run", "--journal", aFile.resolve("journal"), "--store-dir", store).failsWithOneLine());
        assertFalse(Files.exists(store));
    }

    @Test
    void shouldSayWhyTheStoreDirectoryCannotBeUsed()
    {
        assertEquals("kvledger: --store-dir " + aFile + ": not a directory; the L3 store cannot be written there",
            kvledger("run", "--journal", journal, "--store-dir", aFile).failsWithOneLine());
        assertEquals("kvledger: --store-dir " + aFile.resolve("l3") + ": cannot be created: " +
            aFile.toAbsolutePath() + " is not a directory; the L3 store cannot be written there",
            kvledger("run", "--journal", journal, "--store-dir", aFile.resolve("l3")).failsWithOneLine());
        assertFalse(Files.exists(journal));
    }

    @Test
    void shouldSayThatAStoreUnderAReadOnlyDirectoryCannotBeCreated()
    {
        final Path procSelf = Path.of("/proc/self");
        assumeTrue(Files.isDirectory(procSelf) && !Files.isWritable(procSelf), "a read-only /proc/self (Linux)");

        final String error = kvledger("run", "--journal", journal, "--store-dir", procSelf.resolve("l3"))
            .failsWithOneLine();

        assertTrue(error.startsWith("kvledger: --store-dir /proc/self/l3: cannot be created: /proc/self is not " +
            "writable"), error);
        assertFalse(Files.exists(journal));
    }

    @Test
    void shouldSayThatAReadOnlyStoreDirectoryIsNotWritable() throws IOException
    {
        final Path readOnly = Files.createDirectories(dir.resolve("read-only-l3"));
        assertTrue(readOnly.toFile().setWritable(false, false));
        try
        {
            assumeFalse(Files.isWritable(readOnly), "permissions do not bind this user (root)");

            final String error = kvledger("run", "--journal", journal, "--store-dir", readOnly).failsWithOneLine();

            assertTrue(error.startsWith("kvledger: --store-dir " + readOnly + ": not writable (permissions r-xr-xr-x"),
                error);
            assertTrue(error.endsWith("; the L3 store cannot be written there"), error);
            assertFalse(Files.exists(journal));
        }
        finally
        {
            readOnly.toFile().setWritable(true, true);
        }
    }

    @Test
    void shouldSayWhyAnOutputCannotBeWritten()
    {
        final Path clean = CliJournals.clean(dir.resolve("clean-for-outputs"));

        assertEquals("kvledger: cannot write the html report " + aFile.resolve("report.html") + ": not a directory: " +
            aFile + " is a file", kvledger("check", clean, "--html", aFile.resolve("report.html")).failsWithOneLine());
        assertEquals("kvledger: --out " + aFile.resolve("min") + ": cannot be created: " + aFile.toAbsolutePath() +
            " is not a directory; the reduced journal cannot be written there",
            kvledger("shrink", clean, "--out", aFile.resolve("min")).failsWithOneLine());
        assertEquals("kvledger: bad --slot: slot id 99999999999 in 'mamba:99999999999' is larger than any pool",
            kvledger("timeline", clean, "--slot", "mamba:99999999999").failsWithOneLine());
        assertEquals("kvledger: no journal given: JOURNAL is empty", kvledger("stats", "").failsWithOneLine());
        assertEquals("kvledger: --journal is empty; give a directory",
            kvledger("run", "--journal", "", "--store-dir", store).failsWithOneLine());
    }

    @Test
    void shouldRefuseAnOutputInsideTheJournalBeingReadAndKeepTheJournal() throws IOException
    {
        final Path clean = CliJournals.clean(dir.resolve("clean-not-overwritten"));
        final Path metadata = clean.resolve("metadata.cq4t");
        final Path queueFile;
        try (Stream<Path> files = Files.list(clean))
        {
            queueFile = files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        final byte[] metadataBefore = Files.readAllBytes(metadata);
        final byte[] queueBefore = Files.readAllBytes(queueFile);

        for (final Path inside : List.of(metadata, queueFile, clean.resolve("report.html"), clean,
            clean.resolve("sub/../metadata.cq4t")))
        {
            assertEquals("kvledger: --html " + inside + " is inside the journal " + clean + " being read; the html " +
                "report must be written outside it", kvledger("check", "--html=" + inside, clean).failsWithOneLine());
        }
        assertEquals("kvledger: --out " + clean.resolve("min") + " is inside the journal " + clean + " being read; " +
            "the reduced journal must be written outside it",
            kvledger("shrink", clean, "--out", clean.resolve("min")).failsWithOneLine());

        assertTrue(java.util.Arrays.equals(metadataBefore, Files.readAllBytes(metadata)), "metadata unchanged");
        assertTrue(java.util.Arrays.equals(queueBefore, Files.readAllBytes(queueFile)), "queue file unchanged");
        assertFalse(Files.exists(clean.resolve("report.html")));
        assertFalse(Files.exists(clean.resolve("min")));
        kvledger("check", clean).exits(KvledgerMain.EXIT_CLEAN);
    }

    @Test
    void shouldRefuseToOverwriteAnExistingHtmlFileBeforeChecking() throws IOException
    {
        final Path clean = CliJournals.clean(dir.resolve("clean-for-existing-html"));
        final Path existing = Files.writeString(dir.resolve("mine.html"), "keep me");

        assertEquals("kvledger: --html " + existing + " already exists; give a new file (the html report does not " +
            "overwrite one)", kvledger("check", clean, "--html", existing).failsWithOneLine());
        assertEquals("keep me", Files.readString(existing));
    }

    @Test
    void shouldRefuseADemoDirectoryThatIsAFileOrNotEmpty() throws IOException
    {
        final Path used = Files.createDirectories(dir.resolve("used-demo"));
        Files.writeString(used.resolve("keep.txt"), "mine");

        assertEquals("kvledger: --dir " + aFile + ": not a directory; the demo's journals, stores and report cannot " +
            "be written there", kvledger("demo", "--dir", aFile).failsWithOneLine());
        assertEquals("kvledger: --dir " + used + " is not empty; the demo needs a new or empty directory",
            kvledger("demo", "--dir", used).failsWithOneLine());
    }
}
