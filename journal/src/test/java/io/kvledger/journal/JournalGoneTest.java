package io.kvledger.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A journal directory removed while it is written takes every document with it (the writer's mapping keeps the
 * unlinked file alive until it closes): the writer notices within {@link JournalWriter#PRESENCE_CHECK_INTERVAL}
 * appends and refuses every append from then on, and its close says so, rather than a run ending as if its journal
 * existed.
 */
class JournalGoneTest
{
    @TempDir
    Path tempDir;

    @Test
    void shouldRefuseAppendsOnceTheQueueFileIsGone()
    {
        final Path dir = tempDir.resolve("journal");
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        final JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(3), false,
            JournalTestData.SMALL_BLOCK_SIZE);
        append(writer, input, effects, 10);
        JournalTestData.deleteRecursively(dir);

        final JournalException gone = assertThrows(JournalException.class,
            () -> append(writer, input, effects, JournalWriter.PRESENCE_CHECK_INTERVAL));
        assertTrue(gone.getMessage().contains("is gone"), gone.getMessage());
        final long refusedAt = writer.lastSequence() + 1;
        assertTrue(refusedAt <= 10 + JournalWriter.PRESENCE_CHECK_INTERVAL, "noticed at " + refusedAt);
        assertTrue(gone.getMessage().contains(writer.lastSequence() + " documents so far"), gone.getMessage());
        assertThrows(JournalException.class, () -> append(writer, input, effects, 1), "refused from then on");
        assertEquals(refusedAt - 1, writer.lastSequence(), "nothing appended after");

        final JournalException atClose = assertThrows(JournalException.class, writer::close);
        assertTrue(atClose.getMessage().contains("is gone"), atClose.getMessage());
        writer.close();
    }

    @Test
    void shouldSayAtCloseThatTheJournalIsGone() throws Exception
    {
        final Path dir = tempDir.resolve("journal");
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        final JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(3), false, true);
        append(writer, input, effects, 25);
        JournalTestData.deleteRecursively(dir);

        final JournalException ex = assertThrows(JournalException.class, writer::close);
        assertTrue(ex.getMessage().contains("25 documents so far"), ex.getMessage());
        assertTrue(ex.getMessage().contains(dir.toString()), ex.getMessage());
        assertTrue(!Files.exists(dir));

        final Path kept = tempDir.resolve("kept");
        try (JournalWriter other = JournalWriter.open(kept, JournalTestData.header(3), false))
        {
            append(other, input, effects, 25);
        }
        assertEquals(ReadStatus.CLEAN, JournalReader.open(kept).read(new JournalWriterTest.CountingListener())
            .status(), "a journal left in place closes quietly");
    }

    @Test
    void shouldSayThroughTheJournallerCloseThatTheJournalIsGone()
    {
        final Path dir = tempDir.resolve("journal");
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        final Journaller journaller = Journaller.start(JournalWriter.open(dir, JournalTestData.header(3), false));
        for (int sequence = 1; sequence <= 25; sequence++)
        {
            JournalTestData.document(3, sequence, input, effects, 20);
            journaller.append(input, sequence, effects);
        }
        journaller.awaitAppended(25);
        JournalTestData.deleteRecursively(dir);

        final JournalException ex = assertThrows(JournalException.class, journaller::close);
        assertTrue(ex.getMessage().contains("is gone"), ex.getMessage());
    }

    private static void append(final JournalWriter writer, final InputRecord input, final EffectList effects,
        final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final long sequence = writer.lastSequence() + 1;
            JournalTestData.document(3, sequence, input, effects, 20);
            writer.append(input, 0, effects);
        }
    }
}
