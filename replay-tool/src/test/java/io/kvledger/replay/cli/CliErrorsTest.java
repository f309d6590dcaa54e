package io.kvledger.replay.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad journals and bad usage: exit 2 with one line on stderr and never a stack trace (unless --verbose); a torn
 * tail is readable with a warning.
 */
class CliErrorsTest
{
    @TempDir
    static Path dir;
    static Path clean;
    static Path missing;
    static Path empty;
    static Path notADirectory;
    static Path truncated;
    static Path truncatedToNothing;
    static Path flipped;
    static Path flippedHeader;
    static Path torn;
    static Path zeroedTail;

    @BeforeAll
    static void writeJournals() throws IOException
    {
        clean = CliJournals.clean(dir.resolve("clean"));
        missing = dir.resolve("missing");
        empty = Files.createDirectories(dir.resolve("empty"));
        notADirectory = Files.writeString(dir.resolve("file.txt"), "not a journal");

        truncated = dir.resolve("truncated");
        truncateTo(CliJournals.copy(clean, truncated), 100_000);
        truncatedToNothing = dir.resolve("truncated-to-nothing");
        truncateTo(CliJournals.copy(clean, truncatedToNothing), 1_000);

        flipped = dir.resolve("flipped");
        // Inside the payload of a document in the middle of the journal, so its CRC no longer matches.
        final Path flippedQueue = CliJournals.copy(clean, flipped);
        CliJournals.flip(flippedQueue, frame(flippedQueue, 150) + 14, 8);
        flippedHeader = dir.resolve("flipped-header");
        final Path queue = CliJournals.copy(clean, flippedHeader);
        CliJournals.flip(queue, firstFrame(queue) + 24, 4);

        torn = CliJournals.tornCopy(clean, dir.resolve("torn"));

        zeroedTail = dir.resolve("zeroed-tail");
        // From the Chronicle document of input 150 to the end of the written bytes, as a lost writeback leaves it.
        final Path zeroedQueue = CliJournals.copy(clean, zeroedTail);
        zeroFrom(zeroedQueue, frame(zeroedQueue, 150) - 4);
    }

    static Stream<String> journalCommands()
    {
        return Stream.of("check", "replay", "stats", "dump", "inspect", "timeline", "shrink");
    }

    private static Object[] command(final String name, final Path journal)
    {
        final List<Object> args = new ArrayList<>(List.of(name, journal));
        if ("timeline".equals(name))
        {
            args.addAll(List.of("--slot", "mamba:0"));
        }
        if ("shrink".equals(name))
        {
            args.addAll(List.of("--out", dir.resolve("shrink-" + journal.getFileName())));
        }
        return args.toArray();
    }

    @ParameterizedTest
    @MethodSource("journalCommands")
    void shouldRefuseAMissingDirectory(final String name)
    {
        final String error = kvledger(command(name, missing)).failsWithOneLine();

        assertEquals("kvledger: not a journal: no such directory: " + missing, error);
    }

    @ParameterizedTest
    @MethodSource("journalCommands")
    void shouldRefuseAnEmptyDirectory(final String name)
    {
        final String error = kvledger(command(name, empty)).failsWithOneLine();

        assertTrue(error.startsWith("kvledger: empty journal: "), error);
    }

    @Test
    void shouldRefuseAFile()
    {
        final String error = kvledger("check", notADirectory).failsWithOneLine();

        assertEquals("kvledger: not a journal: not a directory: " + notADirectory, error);
    }

    @ParameterizedTest
    @MethodSource("journalCommands")
    void shouldRefuseATruncatedQueueFile(final String name)
    {
        final String error = kvledger(command(name, truncatedToNothing)).failsWithOneLine();

        assertTrue(error.startsWith("kvledger: corrupt journal " + truncatedToNothing + ": "), error);
        assertTrue(error.contains("truncated"), error);
    }

    @ParameterizedTest
    @ValueSource(strings = {"check", "replay", "stats", "inspect", "timeline", "shrink"})
    void shouldRefuseAJournalTruncatedAfterSomeDocuments(final String name)
    {
        final String error = kvledger(command(name, truncated)).failsWithOneLine();

        assertTrue(error.startsWith("kvledger: corrupt journal " + truncated + ": document "), error);
        assertTrue(error.contains("is truncated"), error);
    }

    @ParameterizedTest
    @ValueSource(strings = {"check", "replay", "stats", "inspect", "timeline", "shrink"})
    void shouldRefuseFlippedBytes(final String name)
    {
        final String error = kvledger(command(name, flipped)).failsWithOneLine();

        assertTrue(error.startsWith("kvledger: corrupt journal " + flipped + ": document "), error);
        assertTrue(error.contains("crc mismatch"), error);
    }

    @ParameterizedTest(name = "truncated to {0} bytes")
    @ValueSource(longs = {4096, 32768})
    void shouldNameAQueueFileTruncatedAtAPageBoundaryBeforeTheFirstDocument(final long length) throws IOException
    {
        final Path journal = dir.resolve("page-truncated-" + length);
        final Path queue = CliJournals.copy(clean, journal);
        truncateTo(queue, length);

        for (final String name : List.of("check", "dump", "replay"))
        {
            assertEquals("kvledger: corrupt journal " + journal + ": the queue file " + queue.getFileName() + " is " +
                "truncated before the first document (" + length + " bytes; Chronicle's index points past its end)",
                kvledger(command(name, journal)).failsWithOneLine());
        }
    }

    @Test
    void shouldNameAQueueFileWhoseIndexIsDamagedBeforeTheFirstDocument() throws IOException
    {
        final Path journal = dir.resolve("flipped-at-0x10");
        final Path queue = CliJournals.copy(clean, journal);
        CliJournals.flip(queue, 0x10, 2);

        final String error = kvledger("check", journal).failsWithOneLine();

        assertEquals("kvledger: corrupt journal " + journal + ": the queue file " + queue.getFileName() + " is " +
            "damaged before the first document (Chronicle Queue cannot decode its header or index)", error);
    }

    @Test
    void shouldRefuseADamagedHeader()
    {
        final String error = kvledger("replay", flippedHeader).failsWithOneLine();

        assertTrue(error.startsWith("kvledger: corrupt journal " + flippedHeader + ": document 0 "), error);
    }

    @Test
    void shouldPrintTheReadableDocumentsOfACorruptJournalBeforeTheError()
    {
        final CliRun run = kvledger("dump", flipped).exits(2);

        assertTrue(run.out().startsWith("kvledger: 0.1.0\n"), run.out());
        assertTrue(run.out().contains("\n#1 t=0 ARRIVE "), run.out());
        assertEquals(1, run.err().split("\n").length, run.err());
        assertTrue(run.err().startsWith("kvledger: corrupt journal "), run.err());
        run.assertNoStackTrace();
    }

    @Test
    void shouldProceedOnTheCompleteDocumentsOfATornJournalWithAWarning()
    {
        final long documents = kvledger("check", clean, "--json").exits(0).json().get("documents").asLong();

        final CliRun check = kvledger("check", torn).exits(0);
        assertEquals("journal: " + documents + " documents, clean", check.firstLine());
        assertEquals(1, check.err().split("\n").length, check.err());
        assertTrue(check.err().startsWith("warning: torn tail after document " + documents + ": "), check.err());

        final CliRun replay = kvledger("replay", torn).exits(0);
        assertTrue(replay.firstLine().startsWith("identical: " + documents + " documents, stateHash 0x"),
            replay.out());
    }

    /**
     * The last pages of a journal are zero from a document boundary on while Chronicle's store header still records
     * the last document written: the commands proceed on the documents before the zeros with one warning line, as
     * for a torn tail. They used to say "clean" with no warning.
     */
    @Test
    void shouldProceedOnAJournalWhoseLastPagesAreLostWithAWarning()
    {
        final CliRun check = kvledger("check", zeroedTail).exits(0);
        assertEquals("journal: 149 documents, clean", check.firstLine());
        assertEquals(1, check.err().split("\n").length, check.err());
        assertTrue(check.err().startsWith("warning: torn tail after document 149: read the header and 149 " +
            "documents; the journal ends early: "), check.err());
        assertTrue(check.err().contains(" after 150 Chronicle documents, but Chronicle's store header records "),
            check.err());

        final CliRun replay = kvledger("replay", zeroedTail).exits(0);
        assertTrue(replay.firstLine().startsWith("identical: 149 documents, stateHash 0x"), replay.out());
        assertEquals(check.err(), replay.err());
    }

    @Test
    void shouldShowTheStackTraceOnlyWithVerbose()
    {
        final CliRun quiet = kvledger("check", missing);
        final CliRun verbose = kvledger("check", missing, "--verbose");

        quiet.exits(2).assertNoStackTrace();
        verbose.exits(2);
        assertTrue(verbose.err().startsWith("kvledger: not a journal: no such directory: "), verbose.err());
        assertTrue(verbose.err().contains("\tat io.kvledger.replay.cli."), verbose.err());
    }

    @Test
    void shouldRefuseAnUnknownFlagWithOneLineAndAHint()
    {
        final String error = kvledger("check", clean, "--bogus").failsWithOneLine();

        assertEquals("kvledger check: Unknown option: '--bogus' (see kvledger check --help)", error);
    }

    @Test
    void shouldSuggestTheFlagThatWasMeant()
    {
        final String error = kvledger("check", clean, "--jsn").failsWithOneLine();

        assertEquals("kvledger check: Unknown option: '--jsn'; did you mean --json? (see kvledger check --help)",
            error);
    }

    @Test
    void shouldRefuseAnUnknownCommand()
    {
        assertEquals("kvledger: unknown command 'frobnicate' (see kvledger --help)",
            kvledger("frobnicate").failsWithOneLine());
        assertEquals("kvledger: unknown command 'chek'; did you mean check? (see kvledger --help)",
            kvledger("chek", clean).failsWithOneLine());
    }

    @Test
    void shouldRefuseAMissingArgumentOrABadValue()
    {
        assertEquals("kvledger check: Missing required parameter: 'JOURNAL' (see kvledger check --help)",
            kvledger("check").failsWithOneLine());
        assertEquals("kvledger inspect: Invalid value for option '--at': 'soon' is not a long " +
            "(see kvledger inspect --help)", kvledger("inspect", clean, "--at", "soon").failsWithOneLine());
        assertEquals("kvledger timeline: Missing required option: '--slot=POOL:ID' (see kvledger timeline --help)",
            kvledger("timeline", clean).failsWithOneLine());
        assertEquals("kvledger: --from 0 is out of range: 1 or more (documents are numbered from 1)",
            kvledger("dump", clean, "--from", 0).failsWithOneLine());
    }

    @Test
    void shouldNameTheCommandsWhenNoneIsGiven()
    {
        final String error = kvledger().failsWithOneLine();

        assertTrue(error.startsWith("kvledger: no command given; commands: run, demo, bench, check, replay, "), error);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"run", "demo", "bench", "check", "replay", "timeline", "inspect", "stats", "stat", "dump",
        "shrink", "explore", "faults"})
    void shouldPrintTheVersionForEverySubcommandAsTheTopLevelDoes(final String command)
    {
        final String expected = kvledger("--version").exits(0).out();

        assertEquals(expected, kvledger(command, "-V").exits(0).out());
        assertEquals(expected, kvledger(command, "--version").exits(0).out());
        assertTrue(kvledger(command, "--help").exits(0).out().contains("-V, --version"));
    }

    @Test
    void shouldPrintTheVersionAndTheHelp()
    {
        final CliRun version = kvledger("--version").exits(0);
        assertTrue(version.firstLine().startsWith("kvledger 0.1.0 (journal schema "), version.out());

        final CliRun help = kvledger("--help").exits(0);
        assertTrue(help.out().startsWith("Usage: kvledger "), help.out());
        for (final String name : List.of("check", "replay", "timeline", "inspect", "stats", "dump", "shrink",
            "faults"))
        {
            assertTrue(help.out().contains("\n  " + name + " "), help.out());
        }

        final CliRun checkHelp = kvledger("check", "-h").exits(0);
        assertTrue(checkHelp.out().contains("--fail-fast"), checkHelp.out());
    }

    private static void truncateTo(final Path file, final long length) throws IOException
    {
        try (var channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE))
        {
            channel.truncate(length);
        }
    }

    /** Zero a file from an offset to its last non-zero byte (a queue file's unused end stays sparse). */
    private static void zeroFrom(final Path file, final long offset) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > offset && 0 == bytes[end - 1])
        {
            end--;
        }
        try (var raf = new java.io.RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(offset);
            raf.write(new byte[(int)(end - offset)]);
        }
    }

    /** Byte offset of the first journal frame (the header): its magic "KVLG" sits 8 bytes into it. */
    private static long firstFrame(final Path file) throws IOException
    {
        return frame(file, 0);
    }

    /** File offset of journal frame {@code n} (0 = the header), found by its magic. */
    private static long frame(final Path file, final int n) throws IOException
    {
        int seen = 0;
        final byte[] bytes = Files.readAllBytes(file);
        for (int i = 0; i + 4 <= bytes.length; i += 4)
        {
            if (bytes[i] == 0x47 && bytes[i + 1] == 0x4C && bytes[i + 2] == 0x56 && bytes[i + 3] == 0x4B &&
                seen++ == n)
            {
                return i - 8;
            }
        }
        throw new IllegalStateException("no journal frame in " + file);
    }
}
