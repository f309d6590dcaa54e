package io.kvledger.replay.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The memory a journal's header makes the commands take: a journal with the largest pools kvledger writes checks
 * within the launcher's heap for {@code check} (slots are made when touched, not per pool slot up front), and a header
 * claiming more than kvledger ever writes is refused with one line before anything is sized by it (dump, which sizes
 * nothing, still shows it).
 */
class JournalSizesTest
{
    /** The launcher's heap for check ({@code kvledger}: -Xmx256m), the bound for what one check may allocate. */
    private static final long CHECK_HEAP = 256L << 20;

    @TempDir
    static Path dir;
    static Path largestPool;
    static Path hugePool;

    @BeforeAll
    static void writeJournals()
    {
        final Path clean = CliJournals.clean(dir.resolve("clean"));
        largestPool = CliJournals.rewrite(clean, dir.resolve("largest-pool"),
            h -> h.deviceKvPages(RunLimits.MAX_KV_PAGES).maxNodes(RunLimits.MAX_KV_PAGES + 2), 0, null);
        hugePool = CliJournals.rewrite(clean, dir.resolve("huge-pool"), h -> h.deviceKvPages(Integer.MAX_VALUE), 0,
            null);
    }

    @Test
    void shouldCheckAJournalWithTheLargestPoolKvledgerWritesWithinTheLaunchersHeap()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        kvledger("check", largestPool).exits(KvledgerMain.EXIT_CLEAN);
        final long before = threads.getThreadAllocatedBytes(thread);

        final CliRun run = kvledger("check", largestPool).exits(KvledgerMain.EXIT_CLEAN);

        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(run.firstLine().endsWith(" documents, clean"), run.out());
        assertTrue(allocated < CHECK_HEAP / 4, "check of a 4,194,304-page pool allocated " + allocated + " bytes");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"check", "replay", "inspect", "timeline --slot kv:3", "stats", "shrink --out OUT"})
    void shouldRefuseAHeaderClaimingAPoolLargerThanKvledgerWrites(final String command)
    {
        final String[] words = command.split(" ");
        final Object[] args = new Object[words.length + 1];
        args[0] = words[0];
        args[1] = hugePool;
        for (int i = 1; i < words.length; i++)
        {
            args[i + 1] = "OUT".equals(words[i]) ? dir.resolve("shrunk") : words[i];
        }

        assertEquals("kvledger: corrupt journal " + hugePool + ": its header claims 2,147,483,647 device KV pages " +
            "(deviceKvPages), outside 0 to 4,194,304, the most kvledger writes", kvledger(args).failsWithOneLine());
        final CliRun dump = kvledger("dump", hugePool, "--limit", 1).exits(KvledgerMain.EXIT_CLEAN);
        assertTrue(dump.out().contains("pools: deviceKv=2147483647 "), "dump shows such a header as it is");
    }
}
