package io.kvledger.replay.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Damaged Chronicle files through the real {@code kvledger} process ({@link KvledgerMain#main} in a fresh JVM with the
 * launcher's flags, Chronicle's warnings switched on as the parent pom sets them): stderr holds exactly one line in
 * kvledger's own words, no library log line and no stack trace, the exit code is 2, and the journal's files are
 * byte for byte what they were.
 */
class CliProcessTest
{
    @TempDir
    static Path dir;
    static Path clean;

    @BeforeAll
    static void writeJournal()
    {
        clean = CliJournals.clean(dir.resolve("clean"));
    }

    @Test
    void shouldReadACleanJournalWithNothingOnStderr() throws Exception
    {
        final Result result = kvledger("check", clean.toString());

        assertEquals(0, result.exitCode, result.toString());
        assertEquals("", result.err, result.toString());
    }

    @Test
    void shouldRefuseAnEmptyMetadataFileWithOneLine() throws Exception
    {
        final Path journal = CliJournals.copy(clean, dir.resolve("empty-metadata")).getParent();
        Files.write(journal.resolve("metadata.cq4t"), new byte[0]);

        final String error = failsWithOneLine(journal, "check", journal.toString());

        assertTrue(error.startsWith("kvledger: corrupt journal " + journal + ": metadata.cq4t is empty"), error);
    }

    @Test
    void shouldRefuseAMissingMetadataFileWithOneLine() throws Exception
    {
        final Path journal = CliJournals.copy(clean, dir.resolve("no-metadata")).getParent();
        Files.delete(journal.resolve("metadata.cq4t"));

        final String error = failsWithOneLine(journal, "dump", journal.toString());

        assertTrue(error.startsWith("kvledger: corrupt journal " + journal + ": metadata.cq4t is missing"), error);
    }

    @Test
    void shouldRefuseAGarbageQueueFileWithOneLine() throws Exception
    {
        final Path queue = CliJournals.copy(clean, dir.resolve("garbage-queue"));
        final Path journal = queue.getParent();
        final byte[] garbage = new byte[64 * 1024];
        new java.util.Random(42).nextBytes(garbage);
        Files.write(queue, garbage);

        final String error = failsWithOneLine(journal, "replay", journal.toString());

        assertTrue(error.startsWith("kvledger: corrupt journal " + journal + ": queue file " + queue.getFileName() +
            " is not a Chronicle queue file: it starts with 0x"), error);
    }

    private static String failsWithOneLine(final Path journal, final String... args) throws Exception
    {
        final Map<String, byte[]> before = snapshot(journal);
        final Result result = kvledger(args);

        assertEquals(KvledgerMain.EXIT_BAD_INPUT, result.exitCode, result.toString());
        assertEquals("", result.out, result.toString());
        assertTrue(result.err.endsWith("\n"), result.toString());
        assertEquals(1, result.err.split("\n").length, "one line on stderr: " + result);
        assertFalse(result.err.contains("Exception"), result.toString());
        assertFalse(result.err.contains("WARN"), result.toString());
        assertFalse(result.err.contains("\tat "), result.toString());
        final Map<String, byte[]> after = snapshot(journal);
        assertEquals(before.keySet(), after.keySet(), "no journal file created or removed");
        for (final String name : before.keySet())
        {
            assertTrue(Arrays.equals(before.get(name), after.get(name)), name + " unchanged");
        }
        return result.err.trim();
    }

    private static Map<String, byte[]> snapshot(final Path journal) throws IOException
    {
        final Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(journal))
        {
            for (final Path file : list.toList())
            {
                files.put(file.getFileName().toString(), Files.readAllBytes(file));
            }
        }
        return files;
    }

    /** Run KvledgerMain in a new JVM with this JVM's module and system-property flags (the launcher's). */
    private static Result kvledger(final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        for (final String flag : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (flag.startsWith("--add-") || flag.startsWith("-Dchronicle") || flag.startsWith("-Dorg.slf4j"))
            {
                command.add(flag);
            }
        }
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(KvledgerMain.class.getName());
        command.addAll(List.of(args));
        final Path out = Files.createTempFile(dir, "out", ".txt");
        final Path err = Files.createTempFile(dir, "err", ".txt");
        final Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
            .start();
        if (!process.waitFor(120, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("kvledger " + String.join(" ", args) + " did not end in 120 s");
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    }

    private record Result(int exitCode, String out, String err)
    {
    }
}
