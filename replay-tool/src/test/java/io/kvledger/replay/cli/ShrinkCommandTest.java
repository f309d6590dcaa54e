package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvledger shrink}: the retract bug's journal shrinks to a few inputs that {@code check} reports with the
 * same invariant and that {@code replay} reproduces identically.
 */
class ShrinkCommandTest extends CleanAndBuggyJournals
{
    private static final Pattern SHRUNK =
        Pattern.compile("shrunk (\\d+) -> (\\d+) inputs \\(invariant (I\\d+)\\), written to (.+)");


    @Test
    void shouldShrinkToASmallJournalThatBreaksTheSameInvariant()
    {
        final Path out = dir.resolve("shrunk");
        final JsonNode original = kvledger("check", buggy, "--json").exits(1).json();

        final CliRun run = kvledger("shrink", buggy, "--out", out).exits(1);

        final Matcher shrunk = SHRUNK.matcher(run.firstLine());
        assertTrue(shrunk.matches(), run.out());
        final long before = Long.parseLong(shrunk.group(1));
        final int after = Integer.parseInt(shrunk.group(2));
        assertEquals(original.get("documents").asLong(), before);
        assertTrue(after < 20 && after < before, run.out());
        assertEquals("I13", shrunk.group(3));
        assertEquals(original.get("violations").get(0).get("invariant").asText(), shrunk.group(3));
        assertEquals(out.toString(), shrunk.group(4));
        assertEquals(after, run.lines().stream().filter(line -> line.matches("#\\d+ t=\\d+ [A-Z_]+.* -> .+")).count(),
            run.out());
        assertTrue(run.out().contains("\nviolation of the reduced journal: #" + after + " I13 "), run.out());
        assertTrue(run.out().contains("\ndelta debugging: "), run.out());

        final JsonNode check = kvledger("check", out, "--json").exits(1).json();
        assertEquals(after, check.get("documents").asLong());
        assertEquals("I13", check.get("violations").get(0).get("invariant").asText());
        assertEquals(after, check.get("violations").get(0).get("seq").asLong());

        final JsonNode replay = kvledger("replay", out, "--json").exits(0).json();
        assertTrue(replay.get("identical").asBoolean(), replay.toString());
        assertEquals(after, replay.get("documents").asLong());
    }

    /**
     * {@code --liveness}: the journal of explore's seed 17 with the oversize-backup bug breaks no invariant and ends
     * with the backlog stuck (L5); it shrinks to a few inputs that end the same way (the first finding of the reduced
     * journal read back from disk is L5 at its last input). Without the flag the journal is clean.
     */
    @Test
    void shouldShrinkAProgressFindingWithLiveness()
    {
        final Path explored = dir.resolve("explored");
        kvledger("explore", "--first-seed", 17, "--seeds", 1, "--fault", "OVERSIZE_BACKUP_BLOCKS", "--out", explored)
            .exits(KvledgerMain.EXIT_FOUND);
        final Path journal = explored.resolve("seed-17").resolve("journal");
        kvledger("shrink", journal, "--out", dir.resolve("not-asked")).exits(0);

        final CliRun run = kvledger("shrink", journal, "--liveness", "--out", dir.resolve("stuck")).exits(1);

        final Matcher shrunk = Pattern.compile("shrunk (\\d+) -> (\\d+) inputs \\(progress rule L5 backlog-stuck\\), " +
            "written to .+").matcher(run.firstLine());
        assertTrue(shrunk.matches(), run.out());
        final int after = Integer.parseInt(shrunk.group(2));
        assertTrue(after <= FaultMatrixTest.MAX_REPRODUCER && after * 20 < Long.parseLong(shrunk.group(1)), run.out());
        assertTrue(run.out().contains("\nprogress finding of the reduced journal: #" + after + " L5 backlog-stuck "),
            run.out());
        assertTrue(run.out().contains("\ndelta debugging: " + shrunk.group(1) + " inputs of the whole journal "),
            run.out());
        assertEquals(after, kvledger("check", dir.resolve("stuck"), "--json").exits(0).json().get("documents")
            .asLong());
        final CliRun again = kvledger("shrink", dir.resolve("stuck"), "--liveness", "--out", dir.resolve("again"))
            .exits(1);
        assertTrue(again.out().contains("\nfirst progress finding of the journal: #" + after + " L5 backlog-stuck "),
            again.out());
    }

    @Test
    void shouldSayWhenThereIsNothingToShrink()
    {
        final Path out = dir.resolve("nothing");

        final CliRun run = kvledger("shrink", clean, "--out", out).exits(0);

        assertTrue(run.firstLine().startsWith("nothing to shrink: journal is clean ("), run.out());
        assertTrue(!Files.exists(out) || isEmpty(out));
    }

    @Test
    void shouldStillWriteAReproducerWhenTheBudgetRunsOut()
    {
        final Path out = dir.resolve("capped");

        final CliRun run = kvledger("shrink", buggy, "--out", out, "--max-runs", 2).exits(1);

        assertTrue(run.out().contains("\nstopped at the budget (--max-runs 2, --max-seconds 60): the sequence " +
            "may not be minimal\n"), run.out());
        assertEquals("I13", kvledger("check", out, "--json").exits(1).json().get("violations").get(0)
            .get("invariant").asText());
        assertTrue(kvledger("replay", out, "--json").exits(0).json().get("identical").asBoolean());
    }

    @Test
    void shouldRefuseAJournalThisEngineDoesNotReproduce()
    {
        final Path otherBuild = CliJournals.rewrite(buggy, dir.resolve("other-build"), h -> h.faultMask(0), 0, null);

        final String error = kvledger("shrink", otherBuild, "--out", dir.resolve("not-reproduced"))
            .failsWithOneLine();

        assertTrue(error.startsWith("kvledger: re-executing the "), error);
        assertTrue(error.contains(" does not break I13 again "), error);
    }

    @Test
    void shouldRefuseAnOutputDirectoryThatIsNotEmpty() throws IOException
    {
        final Path out = Files.createDirectories(dir.resolve("used"));
        Files.writeString(out.resolve("keep.txt"), "mine");

        final String error = kvledger("shrink", buggy, "--out", out).failsWithOneLine();

        assertEquals("kvledger: --out " + out + " is not empty; give a new or empty directory", error);
        assertEquals("mine", Files.readString(out.resolve("keep.txt")));
    }

    /**
     * An empty {@code --out} names no directory. It was taken as the working directory: from a non-empty one the
     * error said "--out  is not empty"; from an empty one shrink reported "written to " and exit 1, while Chronicle put
     * the reduced journal's queue file at the file system root ("" + "/" + name) and left only metadata.cq4t behind.
     */
    @Test
    void shouldRefuseAnEmptyOutputDirectoryName()
    {
        assertEquals("kvledger: --out is empty; give a directory",
            kvledger("shrink", buggy, "--out", "").failsWithOneLine());
        assertEquals("kvledger: --out is empty; give a directory",
            kvledger("shrink", buggy, "--out", " ").failsWithOneLine());
    }

    @Test
    void shouldRequireTheOutputDirectory()
    {
        final CliRun run = kvledger("shrink", buggy).exits(2);

        assertEquals("kvledger shrink: Missing required option: '--out=DIR' (see kvledger shrink --help)\n",
            run.err());
    }

    private static boolean isEmpty(final Path directory)
    {
        try (var entries = Files.list(directory))
        {
            return entries.findAny().isEmpty();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
