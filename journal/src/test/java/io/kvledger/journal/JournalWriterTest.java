package io.kvledger.journal;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JournalWriterTest
{
    @TempDir
    Path tempDir;

    @Test
    void shouldRefuseDirectoryThatHoldsJournal()
    {
        final Path dir = tempDir.resolve("journal");
        JournalWriter.open(dir, JournalTestData.header(1), false, JournalTestData.SMALL_BLOCK_SIZE).close();

        final JournalException ex = assertThrows(
            JournalException.class, () -> JournalWriter.open(dir, JournalTestData.header(2), false));
        assertTrue(ex.getMessage().contains("already holds a journal"), ex.getMessage());
    }

    @Test
    void shouldRefusePathThatIsAFile() throws IOException
    {
        final Path file = Files.writeString(tempDir.resolve("file"), "x");

        assertThrows(JournalException.class, () -> JournalWriter.open(file, JournalTestData.header(2), false));
    }

    @Test
    void shouldCreateMissingDirectoriesAndAcceptEmptyOne() throws IOException
    {
        JournalWriter.open(tempDir.resolve("a/b/c"), JournalTestData.header(1), false).close();
        final Path empty = Files.createDirectory(tempDir.resolve("empty"));
        JournalWriter.open(empty, JournalTestData.header(1), false).close();

        assertEquals(ReadStatus.CLEAN, JournalReader.readHeaderOnly(empty, new JournalHeader()).status());
    }

    @Test
    void shouldRefuseOutOfOrderSequenceAndAppendNothing()
    {
        final Path dir = tempDir.resolve("journal");
        final InputRecord input = new InputRecord(4).type(InputType.TICK);
        final EffectList effects = new EffectList(4);
        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(1), false))
        {
            writer.append(input.sequence(1), 0, effects);
            assertThrows(JournalException.class, () -> writer.append(input.sequence(3), 0, effects));
            assertThrows(JournalException.class, () -> writer.append(input.sequence(1), 0, effects));
            writer.append(input.sequence(2), 0, effects);
            assertEquals(2, writer.lastSequence());
        }

        final ReadOutcome outcome = JournalReader.open(dir).read(new CountingListener());
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(2, outcome.documents());
    }

    @Test
    void shouldRefuseDocumentLargerThanAQuarterBlockAndStayReadable()
    {
        final Path dir = tempDir.resolve("journal");
        final EffectList effects = new EffectList(16);
        final Random random = new Random(5);
        for (int i = 0; i < 1_000; i++)
        {
            JournalTestData.randomEffect(random, effects, EffectType.SLOT_TRANSITION);
        }
        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(1), false,
            JournalTestData.SMALL_BLOCK_SIZE))
        {
            final InputRecord input = new InputRecord(4).type(InputType.TICK).sequence(1);
            final JournalException ex = assertThrows(JournalException.class, () -> writer.append(input, 0, effects));
            assertTrue(ex.getMessage().contains("larger than " + writer.maxFrameLength()), ex.getMessage());
            effects.clear();
            writer.append(input, 0, effects);
        }

        final ReadOutcome outcome = JournalReader.open(dir).read(new CountingListener());
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(1, outcome.documents());
    }

    @Test
    void shouldRefuseEffectWithoutTypeOrWithUnknownCode()
    {
        try (JournalWriter writer = JournalWriter.open(tempDir.resolve("j"), JournalTestData.header(1), false))
        {
            final InputRecord input = new InputRecord(4).type(InputType.TICK).sequence(1);
            final EffectList effects = new EffectList(4);
            effects.code(effects.add(EffectType.NODE_DELETED), 1, (short)77);
            assertThrows(JournalException.class, () -> writer.append(input, 0, effects));
            effects.clear();
            effects.add(EffectType.NULL_VAL);
            assertThrows(JournalException.class, () -> writer.append(input, 0, effects));
            assertEquals(0, writer.lastSequence());
        }
    }

    @Test
    void shouldSyncEveryDocumentWhenAsked()
    {
        final Path dir = tempDir.resolve("journal");
        final List<Long> indices = new ArrayList<>();
        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(1), true))
        {
            assertTrue(writer.syncEachDocument());
            final InputRecord input = new InputRecord(4);
            final EffectList effects = new EffectList(4);
            for (int i = 1; i <= 50; i++)
            {
                JournalTestData.document(9, i, input, effects, 10);
                indices.add(writer.append(input, i, effects));
            }
            writer.sync();
        }

        final List<Long> read = new ArrayList<>();
        final ReadOutcome outcome = JournalReader.open(dir).read(new CountingListener()
        {
            public void onDocument(
                final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
            {
                read.add(position.index());
            }
        });
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(indices, read);
    }

    @Test
    void shouldHandTheWriterToTheThreadThatAppends() throws InterruptedException
    {
        final Path dir = tempDir.resolve("journal");
        final JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(1), false);
        final Throwable[] failure = new Throwable[1];
        final Thread engine = new Thread(() ->
        {
            try
            {
                final InputRecord input = new InputRecord(4);
                final EffectList effects = new EffectList(4);
                for (int i = 1; i <= 10; i++)
                {
                    JournalTestData.document(4, i, input, effects, 4);
                    writer.append(input, 0, effects);
                }
                writer.sync();
            }
            catch (final Throwable ex)
            {
                failure[0] = ex;
            }
        }, "engine");
        engine.start();
        engine.join();
        writer.close();

        assertEquals(null, failure[0]);
        assertEquals(10, JournalReader.open(dir).read(new CountingListener()).documents());
        assertThrows(IllegalStateException.class, writer::sync);
    }

    @Test
    void shouldAppendWithoutAllocatingAfterWarmUp()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final int documents = 100_000;
        final InputRecord[] inputs = new InputRecord[64];
        final EffectList[] effects = new EffectList[64];
        for (int i = 0; i < inputs.length; i++)
        {
            inputs[i] = new InputRecord(64);
            effects[i] = new EffectList(32);
            JournalTestData.document(17, i + 1, inputs[i], effects[i], 20);
        }

        try (JournalWriter writer = JournalWriter.open(tempDir.resolve("journal"), JournalTestData.header(1), false))
        {
            long sequence = 0;
            for (int i = 0; i < documents; i++)
            {
                writer.append(inputs[i & 63].sequence(++sequence), i, effects[i & 63]);
            }

            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < documents; i++)
            {
                writer.append(inputs[i & 63].sequence(++sequence), i, effects[i & 63]);
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

            assertTrue(allocated < documents, documents + " appends allocated " + allocated + " bytes; one object " +
                "per append would be at least " + 16 * documents);
        }
    }

    @Test
    void shouldPretouchAheadWithoutChangingWhatIsRead(@TempDir final Path dir) throws Exception
    {
        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(64);
        final int documents = 3_000;
        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(5), false, true))
        {
            assertTrue(writer.pretouching());
            writer.pretouchShortLead();
            for (int sequence = 1; sequence <= documents; sequence++)
            {
                JournalTestData.document(5, sequence, input, effects, 40);
                writer.append(input, sequence, effects);
            }
            // The toucher runs on its own thread; give it a bounded while to catch up, then it must have touched.
            for (int i = 0; i < 1_000 && writer.pretouchedPages() == 0; i++)
            {
                Thread.sleep(10);
            }
            assertTrue(writer.pretouchedPages() > 0, "no page touched ahead of the writer");
            if (System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux"))
            {
                assertTrue(writer.pretouchPopulating(), "the pages ahead are populated in the writer's own mapping");
            }
            Thread.sleep(50);
            // With the short lead (a journaller's), never further ahead than AHEAD_BYTES (the queue file is 16 MiB
            // and more; Chronicle's own header and index pages at its start are allowed a megabyte).
            final long touchedBytes = writer.pretouchedPages() * 4096;
            assertTrue(touchedBytes <= writer.appendedBytes() + QueuePretoucher.AHEAD_BYTES + (1 << 20),
                touchedBytes + " bytes touched for " + writer.appendedBytes() + " appended");
        }
        final ReadOutcome outcome = JournalReader.open(dir).read(new CountingListener());
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(documents, outcome.documents());
    }

    static class CountingListener implements JournalListener
    {
        public void onDocument(
            final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
        {
        }
    }
}
