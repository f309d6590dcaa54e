package io.kvledger.replay.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code kvledger run} with its journal on a file system that fills up during the run (a real 2 MiB tmpfs, where the
 * test may mount one: root on Linux): one line naming the full file system, exit 2, no stack trace, and the journal
 * left behind checks clean, inline and through the journaller thread.
 */
class RunJournalDiskFullTest
{
    @TempDir
    Path dir;

    private Path mount;

    @AfterEach
    void unmount() throws Exception
    {
        if (null != mount)
        {
            run("umount", "-l", mount.toString());
        }
    }

    @Test
    void shouldStopWithOneLineAndLeaveAJournalThatChecksCleanWritingInline() throws Exception
    {
        runOnAFullFileSystem("--no-journal-thread");
    }

    @Test
    void shouldStopWithOneLineAndLeaveAJournalThatChecksCleanThroughTheJournaller() throws Exception
    {
        runOnAFullFileSystem("--journal-thread");
    }

    private void runOnAFullFileSystem(final String journalThread) throws Exception
    {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"), "tmpfs is Linux's");
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        final Path target = Files.createDirectories(dir.resolve("tmpfs"));
        assumeTrue(0 == run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", target.toString()),
            "cannot mount a tmpfs here");
        mount = target;
        final Path journal = mount.resolve("journal");

        final CliRun run = kvledger("run", "--journal", journal, "--store", "memory", "--requests", "256",
            journalThread).exits(KvledgerMain.EXIT_BAD_INPUT);

        run.assertNoStackTrace();
        final String[] lines = run.err().trim().split("\n");
        assertEquals(1, lines.length, run.err());
        assertTrue(lines[0].startsWith("kvledger: kvledger engine stopped: "), lines[0]);
        assertTrue(lines[0].contains("no space left on the device"), lines[0]);
        final CliRun check = kvledger("check", journal).exits(KvledgerMain.EXIT_CLEAN);
        assertTrue(check.out().contains("clean"), check.out());
    }

    private static int run(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(20, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            return -1;
        }
        return process.exitValue();
    }
}
