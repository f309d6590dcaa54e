package io.kvledger.journal;

import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.core.time.SystemTimeProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A journal on a full file system: the append that finds no room throws a one-line {@link JournalException} and
 * writes nothing; every append that returned reads back, the journal checks clean, and nothing is torn. Against a
 * stand-in file system that fills at a chosen byte, and, where the test may mount one (root on Linux), against a real
 * 2 MiB tmpfs, where without the reservation the append meets a SIGBUS in the mapped file and ends in a torn document.
 */
class JournalDiskFullTest
{
    private static final long SEED = 5;
    private static final int MAX_EFFECTS = 40;

    @TempDir
    Path tempDir;

    private final List<SmallTmpfs> mounts = new ArrayList<>();

    @AfterEach
    void unmount() throws Exception
    {
        for (final SmallTmpfs mount : mounts)
        {
            mount.close();
        }
    }

    @Test
    void shouldRefuseTheAppendThatFindsNoRoomAndGoOnWhenRoomIsMade()
    {
        final Path dir = tempDir.resolve("journal");
        final JournalSpaceTest.FakeBlocks blocks = new JournalSpaceTest.FakeBlocks(1L << 20);
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        long returned = 0;
        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(SEED), false,
            JournalTestData.SMALL_BLOCK_SIZE, SystemTimeProvider.INSTANCE, new JournalSpace(blocks)))
        {
            JournalException failure = null;
            for (int sequence = 1; null == failure && sequence < 100_000; sequence++)
            {
                JournalTestData.document(SEED, sequence, input, effects, MAX_EFFECTS);
                try
                {
                    writer.append(input, sequence, effects);
                    returned = sequence;
                }
                catch (final JournalException ex)
                {
                    failure = ex;
                }
            }
            assertNotNull(failure, "a megabyte of room must run out");
            assertTrue(failure.getMessage().contains("no space left on the device"), failure.getMessage());
            assertTrue(failure.getMessage().contains("document " + (returned + 1)), failure.getMessage());
            assertEquals(returned, writer.lastSequence());
            final long stillFull = returned + 1;
            assertThrows(JournalException.class, () -> writer.append(input, (int)stillFull, effects));

            blocks.room = 4L << 20;
            writer.append(input, (int)stillFull, effects);
            returned++;
        }
        assertTrue(returned > 100, "documents before the file system filled: " + returned);
        assertReadsBack(dir, returned);
    }

    @Test
    void shouldRefuseToCreateAJournalWithoutRoomAndLeaveNothingThatRefusesTheRetry() throws Exception
    {
        final Path dir = tempDir.resolve("journal");
        final JournalSpaceTest.FakeBlocks blocks = new JournalSpaceTest.FakeBlocks(0);
        final JournalException ex = assertThrows(JournalException.class, () -> JournalWriter.open(dir,
            JournalTestData.header(SEED), false, JournalTestData.SMALL_BLOCK_SIZE, SystemTimeProvider.INSTANCE,
            new JournalSpace(blocks)));
        assertTrue(ex.getMessage().startsWith("cannot create a journal in " + dir + ": cannot reserve"),
            ex.getMessage());
        assertTrue(ex.getMessage().contains("no space left on the device"), ex.getMessage());
        try (var files = Files.list(dir))
        {
            assertTrue(files.noneMatch((file) -> file.toString().endsWith(".cq4") || file.toString().endsWith(".cq4t")),
                "the half-made queue is removed");
        }

        blocks.room = Long.MAX_VALUE;
        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(SEED), false,
            JournalTestData.SMALL_BLOCK_SIZE, SystemTimeProvider.INSTANCE, new JournalSpace(blocks)))
        {
            final InputRecord input = new InputRecord(64);
            final EffectList effects = new EffectList(64);
            JournalTestData.document(SEED, 1, input, effects, MAX_EFFECTS);
            writer.append(input, 1, effects);
        }
        assertReadsBack(dir, 1);
    }

    @Test
    void shouldReserveInEveryQueueFileTheJournalRollsTo()
    {
        final Path dir = tempDir.resolve("journal");
        final JournalSpaceTest.FakeBlocks blocks = new JournalSpaceTest.FakeBlocks(Long.MAX_VALUE);
        final SetTimeProvider clock = new SetTimeProvider(TimeUnit.DAYS.toNanos(20_000) + TimeUnit.HOURS.toNanos(1));
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(SEED), false,
            JournalTestData.SMALL_BLOCK_SIZE, clock, new JournalSpace(blocks)))
        {
            for (int sequence = 1; sequence <= 30; sequence++)
            {
                JournalTestData.document(SEED, sequence, input, effects, MAX_EFFECTS);
                writer.append(input, sequence, effects);
                if (0 == sequence % 10)
                {
                    clock.advanceNanos(TimeUnit.DAYS.toNanos(1));
                }
            }
        }
        final List<String> queueFiles = new ArrayList<>();
        for (final Path file : JournalTestData.queueFiles(dir))
        {
            queueFiles.add("open " + file);
        }
        assertEquals(3, queueFiles.size());
        assertEquals(queueFiles, blocks.opened.subList(1, blocks.opened.size()), "metadata.cq4t, then each day's file");
        assertTrue(blocks.opened.get(0).endsWith("metadata.cq4t"), blocks.opened.get(0));
        assertReadsBack(dir, 30);
    }

    @Test
    void shouldStopCleanlyOnAFullTmpfsWritingInline() throws Exception
    {
        final Path mount = mountTmpfs();
        final long returned = fillInline(mount.resolve("journal"), false);
        assertReadsBack(mount.resolve("journal"), returned);
    }

    @Test
    void shouldStopCleanlyOnAFullTmpfsWithThePretoucherAhead() throws Exception
    {
        final Path mount = mountTmpfs();
        final long returned = fillInline(mount.resolve("journal"), true);
        assertReadsBack(mount.resolve("journal"), returned);
    }

    @Test
    void shouldStopCleanlyOnAFullTmpfsWithThePretoucherTouchingThroughItsOwnMapping() throws Exception
    {
        // Where madvise(MADV_POPULATE_WRITE) is missing (Linux before 5.14) the pretoucher writes each page itself;
        // a page of a hole on a full file system then stopped the JVM with a SIGBUS in the compare-and-swap.
        final Path mount = mountTmpfs();
        System.setProperty("kvledger.journal.noPopulate", "true");
        final long returned;
        try
        {
            returned = fillInline(mount.resolve("journal"), true);
        }
        finally
        {
            System.clearProperty("kvledger.journal.noPopulate");
        }
        assertReadsBack(mount.resolve("journal"), returned);
    }

    @Test
    void shouldStopTheJournallerCleanlyOnAFullTmpfs() throws Exception
    {
        final Path mount = mountTmpfs();
        final Path dir = mount.resolve("journal");
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        final Journaller journaller = Journaller.start(JournalWriter.open(dir, JournalTestData.header(SEED), false,
            true));
        try
        {
            for (int sequence = 1; null == journaller.failure() && sequence < 1_000_000; sequence++)
            {
                JournalTestData.document(SEED, sequence, input, effects, MAX_EFFECTS);
                try
                {
                    journaller.append(input, sequence, effects);
                }
                catch (final JournalException ex)
                {
                    break;
                }
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (null == journaller.failure() && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
            assertNotNull(journaller.failure(), "two megabytes must run out");
            assertTrue(journaller.failure().getMessage().contains("no space left on the device"),
                journaller.failure().getMessage());
        }
        finally
        {
            try
            {
                journaller.close();
            }
            catch (final JournalException ignore)
            {
                // close reports the failure again
            }
        }
        assertReadsBack(dir, journaller.appendedSequence());
    }

    private static long fillInline(final Path dir, final boolean pretouch)
    {
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        long returned = 0;
        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(SEED), false, pretouch))
        {
            final JournalException failure = assertThrows(JournalException.class, () ->
            {
                for (int sequence = 1; sequence < 1_000_000; sequence++)
                {
                    JournalTestData.document(SEED, sequence, input, effects, MAX_EFFECTS);
                    writer.append(input, sequence, effects);
                }
            });
            assertTrue(failure.getMessage().contains("no space left on the device"), failure.getMessage());
            assertTrue(!failure.getMessage().contains("\n"), failure.getMessage());
            returned = writer.lastSequence();
        }
        assertTrue(returned > 100, "documents before the file system filled: " + returned);
        return returned;
    }

    private static void assertReadsBack(final Path dir, final long documents)
    {
        final InputRecord expectedInput = new InputRecord(64);
        final EffectList expectedEffects = new EffectList(64);
        final ReadOutcome outcome = JournalReader.open(dir).read(new JournalWriterTest.CountingListener()
        {
            @Override
            public void onDocument(
                final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
            {
                JournalTestData.document(SEED, input.sequence(), expectedInput, expectedEffects, MAX_EFFECTS);
                JournalTestData.assertSameDocument(expectedInput, (int)input.sequence(), expectedEffects, input,
                    resultCode, effects);
            }
        });
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(documents, outcome.documents(), outcome.message());
    }

    /** A 2 MiB tmpfs under the test's directory, or the test is skipped where it cannot be mounted. */
    private Path mountTmpfs() throws Exception
    {
        final SmallTmpfs tmpfs = SmallTmpfs.mountOrSkip(tempDir, "2m");
        mounts.add(tmpfs);
        return tmpfs.path();
    }
}
