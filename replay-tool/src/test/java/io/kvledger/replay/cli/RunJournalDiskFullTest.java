package io.kvledger.replay.cli;

import io.kvledger.journal.SmallTmpfs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvledger run} with its journal on a file system that fills up during the run (a real 2 MiB tmpfs, where the
 * test may mount one: root on Linux): one line naming the full file system, exit 2, no stack trace, and the journal
 * left behind checks clean, inline and through the journaller thread.
 */
class RunJournalDiskFullTest
{
    @TempDir
    Path dir;

    private SmallTmpfs tmpfs;

    @AfterEach
    void unmount() throws Exception
    {
        if (null != tmpfs)
        {
            tmpfs.close();
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
        tmpfs = SmallTmpfs.mountOrSkip(dir, "2m");
        final Path journal = tmpfs.path().resolve("journal");

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
}
