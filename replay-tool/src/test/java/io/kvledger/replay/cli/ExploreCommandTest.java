package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.replay.check.LivenessMonitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvledger explore} through the real command line: one line per seed, a seed repeats exactly, a fault switch
 * is found and written under --out with its journal and shrunk reproducer, bad flags get one line and exit 2; and
 * {@code check --invariants} lists all twenty invariants with how each is checked.
 */
class ExploreCommandTest
{
    @TempDir
    Path dir;

    @Test
    void shouldRepeatOneSeedExactly()
    {
        final CliRun first = kvledger("explore", "--first-seed", 7, "--seeds", 1, "--out", dir.resolve("a"));
        final CliRun again = kvledger("explore", "--first-seed", 7, "--seeds", 1, "--out", dir.resolve("b"));

        final String line = first.lines().get(1);
        assertTrue(line.startsWith("seed 7  "), first.out());
        assertTrue(line.contains(" | req "), line);
        assertEquals(line, again.lines().get(1), "the same seed gives the same configuration and the same run");
        assertEquals(first.exitCode(), again.exitCode());
        assertTrue(first.lines().get(first.lines().size() - 1).startsWith("explored 1 seed(s) in "), first.out());
    }

    /**
     * Seed 3332 (timeout policy, 8 device pages): parked hits given up at admission once the deadline passed, whose
     * requests then waited for device pages, were reported as starved (L1) though the engine had let them go.
     */
    @Test
    void shouldRunSeed3332CleanWhereTheTimeoutPolicyGivesParkedHitsUp()
    {
        final CliRun run = kvledger("explore", "--first-seed", 3332, "--seeds", 1, "--out", dir.resolve("s"));

        assertEquals(0, run.exitCode(), run.out());
        assertTrue(run.lines().get(1).endsWith("| clean"), run.out());
    }

    /**
     * Seed 622059 (4 device Mamba slots, retract rates 0.40): chaos retracted the request at the head of the queue
     * each time its copy-on-write was in flight, 499 times, and it held the Mamba slots the three others needed, so
     * no request finished after it (L4). A livelock of the chaos, not of the controller: chaos now retracts one
     * request at most ServingLoop.MAX_CHAOS_RETRACTS times.
     */
    @Test
    void shouldRunSeed622059CleanWhereChaosRetractedOneRequestForEver()
    {
        final CliRun run = kvledger("explore", "--first-seed", 622059, "--seeds", 1, "--out", dir.resolve("r"));

        assertEquals(0, run.exitCode(), run.out());
        assertTrue(run.lines().get(1).endsWith("| clean"), run.out());
    }

    /**
     * Seed 1115896 (16 host staging pages, 40% of copies slow, wait-complete): a request's 15-page L3 hit stayed
     * parked while the write-back backlog drained through host staging, one slow store at a time, for more than the
     * 4,000 steps the progress rule allowed (L4), though every step was bound to end. A finished write-back now
     * counts as progress; a request that can never finish is still reported (seed 622059 without the chaos cap).
     */
    @Test
    void shouldRunSeed1115896CleanWhereAParkedHitWaitsForSlowWriteBacks()
    {
        final CliRun run = kvledger("explore", "--first-seed", 1115896, "--seeds", 1, "--out", dir.resolve("w"));

        assertEquals(0, run.exitCode(), run.out());
        assertTrue(run.lines().get(1).endsWith("| clean"), run.out());
    }

    @Test
    void shouldFindAFaultSwitchAndWriteItsJournalAndReproducer() throws Exception
    {
        final Path out = dir.resolve("found");

        final CliRun run = kvledger("explore", "--seeds", 5, "--fault", "UNLOCK_TWICE_ON_FINISH", "--out", out)
            .exits(KvledgerMain.EXIT_FOUND);

        assertTrue(run.out().contains(" | I5 at #"), run.out());
        final Path seedDir;
        try (var dirs = Files.list(out))
        {
            final List<Path> found = dirs.toList();
            assertEquals(1, found.size(), "stops at the first finding");
            seedDir = found.get(0);
        }
        final String report = Files.readString(seedDir.resolve("report.txt"));
        assertTrue(report.contains("found: I5 at document #"), report);
        assertTrue(report.contains("configuration: "), report);
        assertTrue(report.contains("history of node:"), report);
        assertTrue(report.contains("shrunk: "), report);
        final JsonNode check = kvledger("check", seedDir.resolve("shrunk"), "--json").exits(1).json();
        assertEquals("I5", check.get("violations").get(0).get("invariant").asText());
        assertTrue(check.get("documents").asLong() <= FaultMatrixTest.MAX_REPRODUCER, check.toString());
        kvledger("check", seedDir.resolve("journal"), "--json").exits(1);
    }

    /**
     * A progress finding is shrunk too: with the parked-hit bug, seed 11 starves a parked hit (L1) after thousands of
     * documents; the reproducer written under --out still shows L1 (as {@code shrink --liveness} reads it back from
     * disk) in at most 40 inputs (measured: 5,487 -> 35; L1 counts {@link LivenessMonitor#STARVED_PASSES} passes,
     * one PASS_END each, so no reproducer is shorter than that).
     */
    @Test
    void shouldWriteAShrunkReproducerForAProgressFinding() throws Exception
    {
        final Path out = dir.resolve("starved");

        final CliRun run = kvledger("explore", "--first-seed", 11, "--seeds", 1, "--fault", "PARKED_HIT_NEVER_SERVED",
            "--out", out).exits(KvledgerMain.EXIT_FOUND);

        assertTrue(run.out().contains(" | L1 parked-hit-starved at #"), run.out());
        final Path seedDir = out.resolve("seed-11");
        final String report = Files.readString(seedDir.resolve("report.txt"));
        assertTrue(report.contains("found: L1 parked-hit-starved at document #"), report);
        final Matcher shrunk = Pattern.compile("shrunk: (\\d+) -> (\\d+) inputs \\(L1 parked-hit-starved, ")
            .matcher(report);
        assertTrue(shrunk.find(), report);
        final long before = Long.parseLong(shrunk.group(1));
        final long after = Long.parseLong(shrunk.group(2));
        assertTrue(after <= FaultMatrixTest.MAX_REPRODUCER, report);
        assertTrue(after * 20 < before, report);
        assertTrue(report.contains("\nreproducer: L1 parked-hit-starved at input #" + after + ": "), report);

        // The reproducer on disk: no invariant breaks, and read back it shows the same progress rule at its end.
        final JsonNode check = kvledger("check", seedDir.resolve("shrunk"), "--json").exits(0).json();
        assertEquals(after, check.get("documents").asLong());
        final CliRun again = kvledger("shrink", seedDir.resolve("shrunk"), "--liveness", "--out", dir.resolve("again"))
            .exits(KvledgerMain.EXIT_FOUND);
        assertTrue(again.out().contains("\nfirst progress finding of the journal: #" + after +
            " L1 parked-hit-starved "), again.out());
    }

    @Test
    void shouldPrintOneJsonObject()
    {
        final JsonNode json = kvledger("explore", "--seeds", 2, "--json", "--keep-going", "--out", dir.resolve("j"))
            .json();

        assertEquals(2, json.get("seeds").asLong());
        assertTrue(json.get("documents").asLong() > 0, json.toString());
        assertTrue(json.has("seedsPerMinute") && json.has("documentsPerSecond") && json.has("findings"),
            json.toString());
    }

    @Test
    void shouldRefuseBadFlagsWithOneLine()
    {
        assertTrue(kvledger("explore", "--seeds", 0).failsWithOneLine().contains("--seeds"));
        assertTrue(kvledger("explore", "--seeds", 3, "--minutes", 1).failsWithOneLine().contains("not both"));
        assertTrue(kvledger("explore", "--minutes", -1).failsWithOneLine().contains("--minutes"));
        assertTrue(kvledger("explore", "--fault", "NO_SUCH_SWITCH").failsWithOneLine().contains("NO_SUCH_SWITCH"));
        assertTrue(kvledger("explore", "--seeds", "many").failsWithOneLine().contains("many"));
    }

    @Test
    void shouldListEveryInvariantWithHowItIsChecked()
    {
        final CliRun run = kvledger("check", "--invariants").exits(0);
        final JsonNode json = kvledger("check", "--invariants", "--json").exits(0).json();

        assertEquals(20, json.size());
        for (int i = 0; i < 20; i++)
        {
            assertEquals("I" + (i + 1), json.get(i).get("invariant").asText());
            assertTrue(run.out().contains("\nI" + (i + 1) + " "), run.out());
            assertTrue(!json.get(i).get("how").asText().isEmpty());
        }
        assertTrue(run.firstLine().contains("of 20 invariants checked"), run.out());
    }
}
