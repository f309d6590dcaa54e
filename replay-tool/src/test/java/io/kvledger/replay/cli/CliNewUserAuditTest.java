package io.kvledger.replay.cli;

import io.kvledger.engine.sim.WorkloadOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a black-box audit of the command line as a new user meets it found: flags accepted and then ignored or
 * misread, and messages that do not say what the README says they say. Each case is refused up front with one line,
 * exit 2, and nothing created or changed.
 */
class CliNewUserAuditTest
{
    @TempDir
    static Path dir;
    static Path journal;

    @BeforeAll
    static void journal()
    {
        journal = CliJournals.clean(dir.resolve("clean"));
    }

    /**
     * A seed names a configuration; seeds run S, S+1, ... from the default 1 and never wrap past 2^63-1 into the
     * negatives, so a negative first seed is outside the seed space (and named its report directory seed--1).
     */
    @Test
    void shouldRefuseANegativeFirstSeedBeforeExploring()
    {
        final Path out = dir.resolve("explore-negative");

        final String error = kvledger("explore", "--first-seed", -1, "--seeds", 1, "--out", out).failsWithOneLine();

        assertEquals("kvledger: --first-seed -1 is out of range: 0 or more (seeds run S, S+1, ... up to " +
            "9,223,372,036,854,775,807 and never wrap)", error);
        assertFalse(Files.exists(out), "nothing written");
        kvledger("explore", "--first-seed", 0, "--seeds", 1, "--out", dir.resolve("explore-zero")).exits(0);
    }

    /** {@code bench --device} only chooses the device of --data-path; any other mode ignored it. */
    @Test
    void shouldRefuseBenchDeviceOutsideTheDataPath()
    {
        final Path store = dir.resolve("bench-store");
        assertEquals("kvledger: --device is for --data-path, not --store-bench",
            kvledger("bench", "--device=host", "--store-bench", "--store-mib", 1, "--store-dir", store)
                .failsWithOneLine());
        assertFalse(Files.exists(store), "no store directory is created");
        assertEquals("kvledger: --device is for --data-path, not --trace",
            kvledger("bench", "--device", "host", "--trace", "pr-bench").failsWithOneLine());
        assertEquals("kvledger: --device is for --data-path, not the recorded run",
            kvledger("bench", "--device", "host").failsWithOneLine());
    }

    /** An empty OTHER was reported as an empty JOURNAL. */
    @Test
    void shouldNameOtherWhenTheSecondJournalOfCompareIsEmpty()
    {
        assertEquals("kvledger: no journal given: OTHER is empty",
            kvledger("compare", journal, "").failsWithOneLine());
        assertEquals("kvledger: no journal given: JOURNAL is empty",
            kvledger("compare", "", journal).failsWithOneLine());
    }

    /** The README: "the one line names the flag, its range and why"; a zero timeout said only "must be positive". */
    @Test
    void shouldNameTheRangeOfAZeroRedisTimeout()
    {
        final Path newJournal = dir.resolve("redis-zero");
        for (final String ms : List.of("0", "-5"))
        {
            final String error = kvledger("run", "--journal", newJournal, "--store", "redis", "--redis",
                "redis://127.0.0.1:1", "--redis-timeout-ms", ms).failsWithOneLine();

            assertEquals("kvledger: --redis-timeout-ms " + ms + " is out of range: 1 to 3,600,000 ms (how long one " +
                "Redis operation may wait for its answers)", error);
            assertFalse(Files.exists(newJournal), "no journal directory is created");
        }
    }

    /**
     * A journal directory holds its journal alone (run refuses an L3 store inside the journal it creates); an
     * existing journal given as --store-dir got the store's kv/ and mamba/ trees written into it.
     */
    @Test
    void shouldRefuseAStoreDirectoryInsideAnExistingJournal() throws IOException
    {
        final Map<Path, byte[]> before = contents(journal);
        for (final Path storeDir : List.of(journal, journal.resolve("l3")))
        {
            final Path newJournal = dir.resolve("run-into-journal");

            final String error = kvledger("run", "--journal", newJournal, "--store-dir", storeDir, "--requests", 1,
                "--prompt-tokens", 64).failsWithOneLine();

            assertEquals("kvledger: --store-dir " + storeDir + " is inside the journal directory " +
                journal.toRealPath() + ": give the L3 store a directory of its own", error);
            assertFalse(Files.exists(newJournal), "no journal directory is created");
        }
        final Map<Path, byte[]> after = contents(journal);
        assertEquals(before.keySet(), after.keySet(), "no file added to the journal directory");
        for (final Map.Entry<Path, byte[]> file : before.entrySet())
        {
            assertArrayEquals(file.getValue(), after.get(file.getKey()), file.getKey().toString());
        }
    }

    /**
     * Nor does any other command write into an existing journal's directory: a new journal, explore's findings and a
     * demo's journals, stores and report each need a directory of their own (nothing was refused before).
     */
    @Test
    void shouldRefuseEveryOutputDirectoryInsideAnExistingJournal() throws IOException
    {
        final Map<Path, byte[]> before = contents(journal);
        final Path inside = journal.resolve("out");
        final String where = " is inside the journal directory " + journal.toRealPath() + ": give ";
        assertEquals("kvledger: --journal " + inside + where + "the journal a directory of its own",
            kvledger("run", "--journal", inside, "--requests", 1, "--prompt-tokens", 64).failsWithOneLine());
        assertEquals("kvledger: --out " + inside + where + "the findings a directory of its own",
            kvledger("explore", "--seeds", 1, "--out", inside).failsWithOneLine());
        assertEquals("kvledger: --dir " + inside + where + "the demo's journals, stores and report a directory of " +
            "its own", kvledger("demo", "--dir", inside).failsWithOneLine());
        assertFalse(Files.exists(inside));
        assertEquals(before.keySet(), contents(journal).keySet(), "no file added to the journal directory");
    }

    @Test
    void shouldNameTheRangeOfTheAdmissionRules()
    {
        for (final int rules : new int[]{0, 8})
        {
            assertEquals("kvledger: --admission-rules " + rules + " is out of range: 1 to 7 (the versions of the " +
                "admission rules; the default is 6)", kvledger("run", "--admission-rules", rules, "--journal",
                dir.resolve("rules-" + rules)).failsWithOneLine());
            assertFalse(Files.exists(dir.resolve("rules-" + rules)));
        }
    }

    /** A --minutes budget shorter than the JVM's warm-up explored no seed and exited 0, "every seed clean". */
    @Test
    void shouldExploreAtLeastOneSeedWhateverTheMinutes()
    {
        final CliRun run = kvledger("explore", "--minutes", 0.000_001, "--out", dir.resolve("explore-minutes"),
            "--json").exits(0);

        assertEquals(1, run.json().get("seeds").asLong(), run.out());
        assertEquals(1, run.json().get("firstSeed").asLong(), run.out());
    }

    /** {@code bench --repeats 0}: the range line the other counts give, not "must be >= 1: 0". */
    @Test
    void shouldNameTheRangeOfZeroRepeats()
    {
        assertEquals("kvledger: --repeats 0 is out of range: 1 or more runs (timed runs per measurement; the median " +
            "is shown)", kvledger("bench", "--device", "cuda", "--data-path", "--repeats", 0).failsWithOneLine());
    }

    /**
     * Two demos without --dir started in the same second: the second was refused ("--dir kvledger-out/demo-... is not
     * empty", a flag it was not given) or, had both checked before either wrote, would have shared one directory.
     * Each default directory is now claimed by creating it.
     */
    @Test
    void shouldGiveDemosOfTheSameSecondDirectoriesOfTheirOwn() throws IOException
    {
        final Path parent = dir.resolve("demos");

        final Path first = DemoCommand.claimDirectory(parent, "20261202-050555");
        Files.writeString(first.resolve("report.html"), "the first demo's");
        final Path second = DemoCommand.claimDirectory(parent, "20261202-050555");
        final Path third = DemoCommand.claimDirectory(parent, "20261202-050555");

        assertEquals(parent.resolve("demo-20261202-050555"), first);
        assertEquals(parent.resolve("demo-20261202-050555-2"), second);
        assertEquals(parent.resolve("demo-20261202-050555-3"), third);
        try (Stream<Path> entries = Files.list(second))
        {
            assertEquals(0, entries.count(), "a new, empty directory");
        }
        assertEquals("the first demo's", Files.readString(first.resolve("report.html")));
    }

    /**
     * The README: a --deterministic run writes no counters file. stat on its journal said only that run writes one,
     * which is what the user had just typed.
     */
    @Test
    void shouldSayThatADeterministicRunWritesNoCountersFile()
    {
        final Path deterministic = dir.resolve("deterministic");
        kvledger("run", "--deterministic", "--requests", 2, "--prompt-tokens", 64, "--journal", deterministic).exits(0);

        assertEquals("kvledger: no counters file in " + deterministic + " (kvledger-counters.dat is written by " +
            "kvledger run and KvLedger.open; a run --deterministic writes none)",
            kvledger("stat", deterministic).failsWithOneLine());
    }

    /**
     * run --requests N served 4 requests for a multi-turn N of 1 to 7 (whole conversations of 4 turns) and N + 8 for
     * a random one (a warm-up request per shared prefix); the help said "requests (random) or conversation turns in
     * all (multi-turn)". The help now says what is served, with the workload's own numbers.
     */
    @Test
    void shouldDescribeWhatRunRequestsServesPerWorkload()
    {
        final WorkloadOptions defaults = new WorkloadOptions();
        final String help = kvledger("run", "--help").exits(0).out().replaceAll("\\s+", " ");

        assertTrue(help.contains("requests after " + defaults.prefixes + " warm-ups that write the shared prefixes " +
            "(random)"), help);
        assertTrue(help.contains("conversation turns in all, rounded down to whole conversations of " +
            defaults.turns + " turns, at least one (multi-turn)"), help);
        assertEquals(defaults.turns, served("multi-turn", 5));
        assertEquals(defaults.turns, served("multi-turn", 1));
        assertEquals(3 + defaults.prefixes, served("random", 3));
    }

    /**
     * --abort-rate picks the requests that abort (each with that chance, when it is drawn), as its help says; the
     * range line called it "the chance per step that a running request is aborted".
     */
    @Test
    void shouldDescribeTheAbortRateAsTheHelpDoes()
    {
        final Path newJournal = dir.resolve("abort-rate");

        assertEquals("kvledger: --abort-rate 1.5 is out of range: 0 to 1 (the share of requests aborted mid-way)",
            kvledger("run", "--journal", newJournal, "--abort-rate", 1.5).failsWithOneLine());
        assertTrue(kvledger("run", "--help").out().contains("Share of requests aborted mid-way"));
    }

    private static long served(final String workload, final int requests)
    {
        final Path runJournal = dir.resolve("served-" + workload + "-" + requests);
        return kvledger("run", "--deterministic", "--workload", workload, "--requests", requests, "--journal",
            runJournal, "--json").exits(0).json().get("requests").asLong();
    }

    private static Map<Path, byte[]> contents(final Path directory) throws IOException
    {
        final Map<Path, byte[]> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(directory))
        {
            for (final Path path : walk.toList())
            {
                files.put(directory.relativize(path), Files.isRegularFile(path) ? Files.readAllBytes(path) :
                    new byte[0]);
            }
        }
        return files;
    }
}
