package io.kvledger.replay.cli;

import io.kvledger.journal.codec.DocumentDecoder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Black-box command-line contract (README, Commands: "2 bad input or usage (one line on stderr, never a stack trace
 * unless --verbose)"; docs/journal.md: "Documents before the stop are delivered and valid in every case"): every
 * command that reads a journal, given a path that is not a journal, a journal of a newer schema or one damaged at
 * its last document, exits 2 with one line that names the journal (and, for damage, the document), prints nothing
 * but the documents before the damage, creates no output, changes no byte of what it read and returns in bounded
 * time; an argument holding a line break still gets one line.
 */
class JournalArgumentContractTest
{
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    static Path dir;
    static Path clean;
    static String queueName;
    static long documents;
    static final Map<String, Path> JOURNALS = new TreeMap<>();

    @BeforeAll
    static void writeJournals() throws IOException
    {
        clean = CliJournals.clean(dir.resolve("clean"));
        documents = kvledger("check", clean, "--json").exits(0).json().get("documents").asLong();
        final Path queue = CliJournals.copy(clean, dir.resolve("probe"));
        queueName = queue.getFileName().toString();
        final List<Long> frames = frames(queue);
        final long last = frames.get(frames.size() - 1);
        assertEquals(documents + 1, frames.size(), "one frame per document and the header");

        JOURNALS.put("a regular file", Files.writeString(dir.resolve("notes.txt"), "not a journal\n"));
        JOURNALS.put("the queue file itself", clean.resolve(queueName));
        final Path foreign = Files.createDirectories(dir.resolve("foreign"));
        Files.writeString(foreign.resolve("readme.txt"), "hello\n");
        JOURNALS.put("a directory of other files", foreign);

        final Path queueDir = dir.resolve("queue-is-a-directory");
        Files.delete(CliJournals.copy(clean, queueDir));
        Files.createDirectory(queueDir.resolve(queueName));
        JOURNALS.put("a directory where the queue file should be", queueDir);

        final Path noMetadata = dir.resolve("no-metadata");
        CliJournals.copy(clean, noMetadata);
        Files.delete(noMetadata.resolve("metadata.cq4t"));
        JOURNALS.put("no metadata.cq4t", noMetadata);

        final Path newer = dir.resolve("newer-schema");
        newerSchema(CliJournals.copy(clean, newer), frames.get(0));
        JOURNALS.put("a newer schema", newer);

        final Path garbageOver = dir.resolve("garbage-over-last");
        overwrite(CliJournals.copy(clean, garbageOver), last + 16, 24);
        JOURNALS.put("garbage over the last document", garbageOver);

        final Path garbageAfter = dir.resolve("garbage-after-last");
        final Path afterQueue = CliJournals.copy(clean, garbageAfter);
        overwrite(afterQueue, frameEnd(afterQueue, last), 64);
        JOURNALS.put("garbage after the last document", garbageAfter);

        final Path cut = dir.resolve("cut-in-last");
        try (FileChannel channel = FileChannel.open(CliJournals.copy(clean, cut), StandardOpenOption.WRITE))
        {
            channel.truncate(last + 20);
        }
        JOURNALS.put("cut in the middle of the last document", cut);
    }

    static Stream<Arguments> commandsAndJournals()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final String command : List.of("check", "replay", "stats", "dump", "inspect", "timeline", "shrink",
            "compare", "compare with"))
        {
            for (final String journal : List.of("a regular file", "the queue file itself", "a directory of other files",
                "a directory where the queue file should be", "no metadata.cq4t", "a newer schema",
                "garbage over the last document", "garbage after the last document",
                "cut in the middle of the last document"))
            {
                cases.add(arguments(command, journal));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("commandsAndJournals")
    void shouldRefuseWithOneLineNamingTheJournalAndChangeNothing(final String command, final String journal)
    {
        final Path path = JOURNALS.get(journal);
        final Path read = Files.isDirectory(path) ? path : path.getParent();
        final Map<String, String> before = digests(read);
        final Path out = dir.resolve("out-" + command + "-" + path.getFileName());
        final List<Object> args = new ArrayList<>(List.of(command, path));
        if ("compare".equals(command))
        {
            args.add(clean);
        }
        if ("compare with".equals(command))
        {
            // the damaged journal as the second one, read on the feed's thread
            args.clear();
            args.addAll(List.of("compare", clean, path));
        }
        if ("timeline".equals(command))
        {
            args.addAll(List.of("--slot", "mamba:0"));
        }
        if ("shrink".equals(command))
        {
            args.addAll(List.of("--out", out));
        }

        final AtomicReference<CliRun> result = new AtomicReference<>();
        assertTimeoutPreemptively(LIMIT, () -> result.set(kvledger(args.toArray())));
        final CliRun run = result.get().exits(KvledgerMain.EXIT_BAD_INPUT);

        assertTrue(run.err().endsWith("\n"), run.err());
        assertEquals(1, run.err().split("\n").length, () -> "one line on stderr:\n" + run.err());
        run.assertNoStackTrace();
        final String error = run.err().trim();
        assertTrue(error.startsWith("kvledger: "), error);
        assertTrue(error.contains(path.toString()), () -> "names the path: " + error);
        assertFalse(Files.exists(out), "no shrink output for a journal that cannot be read");
        assertEquals(before, digests(read), "reading changes no byte of the journal");
        if (!"dump".equals(command))
        {
            assertEquals("", run.out(), "nothing on stdout");
        }
        final String lastDocument = "document " + documents + " ";
        switch (journal)
        {
            case "a newer schema" ->
            {
                assertTrue(error.startsWith("kvledger: unsupported journal " + path + ": "), error);
                assertTrue(error.contains("schema version " + (DocumentDecoder.SCHEMA_VERSION + 1) +
                    " is newer than"), error);
                assertEquals("", run.out(), "nothing of a journal this build cannot read");
            }
            case "garbage over the last document", "cut in the middle of the last document" ->
                assertDamageAt(command, run, path, lastDocument, documents - 1);
            case "garbage after the last document" ->
                assertDamageAt(command, run, path, "document " + (documents + 1) + " ", documents);
            default -> assertEquals("", run.out(), "nothing on stdout");
        }
    }

    /** The line names the journal, the document and the queue file; dump printed every document before it. */
    private static void assertDamageAt(final String command, final CliRun run, final Path path, final String where,
        final long lastGood)
    {
        final String error = run.err().trim();
        assertTrue(error.startsWith("kvledger: corrupt journal " + path + ": " + where), error);
        assertTrue(error.contains(queueName), () -> "names the queue file: " + error);
        if ("dump".equals(command))
        {
            assertTrue(run.out().contains("\n#" + lastGood + " t="), "the documents before the damage");
            assertFalse(run.out().contains("\n#" + (lastGood + 1) + " t="), "nothing of the damaged document");
        }
    }

    static Stream<Arguments> badFlags()
    {
        return Stream.of(
            arguments("dump JOURNAL --limit abc", "kvledger dump: Invalid value for option '--limit': 'abc' is not"),
            arguments("dump JOURNAL --limit 99999999999999999999", "kvledger dump: Invalid value for option '--limit'"),
            arguments("dump JOURNAL --from -5", "kvledger: --from -5 is out of range"),
            arguments("inspect JOURNAL --at -1", "kvledger: --at -1 is out of range"),
            arguments("inspect JOURNAL --at 1e3", "kvledger inspect: Invalid value for option '--at'"),
            arguments("shrink JOURNAL --out OUT --max-runs -1", "kvledger: --max-runs -1 is out of range"),
            arguments("shrink JOURNAL --out OUT --max-seconds NaN",
                "kvledger shrink: Invalid value for option '--max-seconds'"),
            arguments("shrink JOURNAL", "kvledger shrink: Missing required option: '--out=DIR'"),
            arguments("shrink JOURNAL --out OUT --out OUT", "kvledger shrink: option '--out' (DIR) should be " +
                "specified only once"),
            arguments("timeline JOURNAL --slot foo:1", "kvledger: bad --slot: unknown pool 'foo'"),
            arguments("timeline JOURNAL --slot mamba:-1", "kvledger: bad --slot: negative id in 'mamba:-1'"),
            arguments("timeline JOURNAL --slot mamba:abc", "kvledger: bad --slot: bad id in 'mamba:abc'"),
            arguments("timeline JOURNAL --slot mamba:1 --slot kv:2", "kvledger timeline: option '--slot'"),
            arguments("check JOURNAL JOURNAL", "kvledger check: Unmatched argument"),
            arguments("check JOURNAL --json=maybe", "kvledger check: Invalid value for option '--json'"),
            arguments("replay JOURNAL --fail-fast", "kvledger replay: Unknown option: '--fail-fast'"),
            arguments("stats JOURNAL --at 3", "kvledger stats: Unknown options: '--at', '3'"),
            arguments("run --journal-thread --no-journal-thread --journal OUT", "kvledger run: option " +
                "'--journal-thread' should be specified only once"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFlags")
    void shouldRefuseABadOrConflictingFlagWithOneLine(final String command, final String message)
    {
        final Path out = dir.resolve("flag-out");
        final List<Object> args = new ArrayList<>();
        for (final String word : command.split(" "))
        {
            args.add("JOURNAL".equals(word) ? clean : "OUT".equals(word) ? out : word);
        }
        final Map<String, String> before = digests(clean);

        final AtomicReference<CliRun> result = new AtomicReference<>();
        assertTimeoutPreemptively(LIMIT, () -> result.set(kvledger(args.toArray())));
        final String error = result.get().failsWithOneLine();

        assertTrue(error.startsWith(message), error);
        assertFalse(Files.exists(out), "nothing created");
        assertEquals(before, digests(clean));
    }

    /**
     * A path, a command or a flag holding a line break (a file name may hold one) is still answered with one line,
     * and the line keeps what follows the break instead of naming a shorter path or word.
     */
    @Test
    void shouldAnswerAnArgumentHoldingALineBreakWithOneLine()
    {
        final Path missing = dir.resolve("lost\nquokka");
        final String error = kvledger("check", missing).failsWithOneLine();
        assertTrue(error.startsWith("kvledger: not a journal: no such directory: "), error);
        assertTrue(error.contains("quokka"), () -> "the whole path: " + error);

        final String command = kvledger("frob\nnicate").failsWithOneLine();
        assertTrue(command.startsWith("kvledger: unknown command 'frob"), command);
        assertTrue(command.contains("nicate"), command);

        final String flag = kvledger("check", clean, "--bo\ngus").failsWithOneLine();
        assertTrue(flag.startsWith("kvledger check: Unknown option: '--bo"), flag);
        assertTrue(flag.contains("gus"), flag);

        final String slot = kvledger("timeline", clean, "--slot", "foo\nbar:1").failsWithOneLine();
        assertTrue(slot.startsWith("kvledger: bad --slot: "), slot);
        assertTrue(slot.contains("bar"), slot);
    }

    /** File offsets of the journal frames (0 = the header), found by the magic 8 bytes into each. */
    private static List<Long> frames(final Path queue) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(queue);
        final List<Long> frames = new ArrayList<>();
        for (int i = 8; i + 4 <= bytes.length; i++)
        {
            if (bytes[i] == 0x47 && bytes[i + 1] == 0x4C && bytes[i + 2] == 0x56 && bytes[i + 3] == 0x4B)
            {
                frames.add((long)i - 8);
            }
        }
        return frames;
    }

    /** Where Chronicle's next document header would go after a frame: its end, rounded up to 4 bytes. */
    private static long frameEnd(final Path queue, final long frame) throws IOException
    {
        try (FileChannel channel = FileChannel.open(queue, StandardOpenOption.READ))
        {
            final ByteBuffer length = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(length, frame);
            return frame + 12 + length.getInt(0) + 3 & ~3L;
        }
    }

    /** Raise the schema version in the header frame's SBE message header and give the frame a matching CRC. */
    private static void newerSchema(final Path queue, final long frame) throws IOException
    {
        try (FileChannel channel = FileChannel.open(queue, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer head = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(head, frame);
            final int length = head.getInt(0);
            final ByteBuffer payload = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(payload, frame + 12);
            // messageHeader: blockLength, templateId, schemaId, version (uint16 each)
            payload.putShort(6, (short)(DocumentDecoder.SCHEMA_VERSION + 1));
            final CRC32 crc = new CRC32();
            crc.update(payload.array());
            head.putInt(4, (int)crc.getValue());
            channel.write(head.rewind(), frame);
            channel.write(payload.rewind(), frame + 12);
        }
    }

    /**
     * Overwrite bytes with garbage: 0x0F332211 over and over, which as a Chronicle header reads as a complete data
     * document of 255 MB (not one being written, so not a torn tail).
     */
    private static void overwrite(final Path file, final long offset, final int count) throws IOException
    {
        final byte[] garbage = new byte[count];
        final byte[] word = {0x11, 0x22, 0x33, 0x0F};
        for (int i = 0; i < count; i++)
        {
            garbage[i] = word[i & 3];
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(offset);
            raf.write(garbage);
        }
    }

    /** SHA-256 of every file of a directory, by name (the counters file is not part of the journal). */
    private static Map<String, String> digests(final Path directory)
    {
        final Map<String, String> digests = new TreeMap<>();
        try (Stream<Path> files = Files.list(directory))
        {
            for (final Path file : (Iterable<Path>)files::iterator)
            {
                if (Files.isRegularFile(file))
                {
                    final MessageDigest sha = MessageDigest.getInstance("SHA-256");
                    digests.put(file.getFileName().toString(), HexFormat.of().formatHex(
                        sha.digest(Files.readAllBytes(file))));
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
        return digests;
    }
}
