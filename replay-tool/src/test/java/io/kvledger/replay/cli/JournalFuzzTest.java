package io.kvledger.replay.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fixed sample of the journal fuzz ({@link JournalFuzzer}; {@code scripts/fuzz-journal.sh} runs the whole of it):
 * a deterministic journal damaged at Chronicle's store header, its index, the first frames and seeded random bytes
 * of the documents (flipped, zeroed, set to 0xFF), truncated inside the header and at frame boundaries, and journals
 * kvledger did not write; every command that reads a journal must exit 0 with the intact journal's output (or one
 * warning line) or exit 2 with one line on stderr, never print an exception, never run past the time limit.
 */
class JournalFuzzTest
{
    @TempDir
    static Path dir;
    static JournalFuzzer fuzzer;
    static String queueFile;

    @BeforeAll
    static void writeJournal() throws IOException
    {
        final Path journal = CliJournals.clean(dir.resolve("clean"));
        // check, replay, stats --json, inspect --at 5 --json, timeline --slot node:1 --json, dump --json and shrink
        fuzzer = new JournalFuzzer(journal, Files.createDirectories(dir.resolve("work")), 30_000)
            .only(java.util.Set.of(0, 2, 3, 5, 7, 9, 10)).libraryOutputNotJudged();
        fuzzer.baseline();
        queueFile = fuzzer.dataLengths().keySet().stream().filter(name -> name.endsWith(".cq4")).findFirst()
            .orElseThrow();
    }

    @AfterAll
    static void stop()
    {
        if (null != fuzzer)
        {
            fuzzer.close();
        }
    }

    @Test
    void shouldKeepTheContractOnDamagedCopies()
    {
        final List<JournalFuzzer.Mutation> mutations = new ArrayList<>();
        final JournalFuzzer.Damage[] damages = JournalFuzzer.Damage.values();
        final long headerEnd = fuzzer.headerEnd(queueFile);
        final List<Long> frames = fuzzer.frameStarts(queueFile);
        final long firstFrame = frames.get(0);
        final long dataEnd = fuzzer.dataLengths().get(queueFile);
        // Chronicle's store header (its header document, the write position, the index fields), the index pages,
        // the index entries before the first frame and the first frame's own header.
        for (final long offset : new long[] {0, 3, 4, 6, 20, 29, 40, 56, 100, 150, 0x80f0, 0x8100, 0x10008,
            firstFrame, firstFrame + 3, firstFrame + 4, firstFrame + 8, firstFrame + 20})
        {
            mutations.add(new JournalFuzzer.Mutation(queueFile, offset, damages[(int)(offset % 3)]));
        }
        // The high byte of a middle document's Chronicle header set to 0xFF: "not complete", a length past the end.
        mutations.add(new JournalFuzzer.Mutation(queueFile, frames.get(frames.size() / 2) - 1,
            JournalFuzzer.Damage.ONES));
        final SplittableRandom random = new SplittableRandom(8);
        for (int i = 0; i < 10; i++)
        {
            mutations.add(new JournalFuzzer.Mutation(queueFile, headerEnd + random.nextLong(dataEnd - headerEnd),
                damages[random.nextInt(3)]));
        }
        for (final long cut : new long[] {0, 64, 4096, 0x8100, firstFrame + 1, frames.get(1) + 12,
            frames.get(frames.size() / 2), frames.get(frames.size() - 1) + 13})
        {
            mutations.add(new JournalFuzzer.Mutation(queueFile, cut, JournalFuzzer.Damage.TRUNCATE));
        }
        for (final long offset : new long[] {0, 9, 40})
        {
            mutations.add(new JournalFuzzer.Mutation("metadata.cq4t", offset, damages[(int)(offset % 3)]));
        }
        mutations.add(new JournalFuzzer.Mutation("metadata.cq4t", 100, JournalFuzzer.Damage.TRUNCATE));

        for (final JournalFuzzer.Mutation mutation : mutations)
        {
            fuzzer.fuzz(mutation);
        }

        assertFindingsNone();
        assertTrue(fuzzer.tally().getOrDefault("ok-2", 0) > 0, fuzzer.tally()::toString);
    }

    @Test
    void shouldKeepTheContractOnJournalsKvledgerDidNotWrite() throws IOException
    {
        final Path empty = Files.createDirectories(dir.resolve("foreign-empty"));
        final Path randomQueue = Files.createDirectories(dir.resolve("foreign-random"));
        final byte[] noise = new byte[65_536];
        new SplittableRandom(3).nextBytes(noise);
        Files.write(randomQueue.resolve("20260101F.cq4"), noise);
        Files.write(randomQueue.resolve("metadata.cq4t"), noise);
        final Path file = Files.writeString(dir.resolve("foreign-file"), "not a journal");
        final Path directoryAsQueue = Files.createDirectories(dir.resolve("foreign-dir").resolve("20260101F.cq4"));

        fuzzer.fuzzForeign("empty directory", empty);
        fuzzer.fuzzForeign("random queue file", randomQueue);
        fuzzer.fuzzForeign("a file", file);
        fuzzer.fuzzForeign("a directory named like a queue file", directoryAsQueue.getParent());

        assertFindingsNone();
    }

    private static void assertFindingsNone()
    {
        assertEquals("", fuzzer.findings().stream().map(Object::toString).collect(Collectors.joining("\n")),
            fuzzer.tally()::toString);
    }
}
