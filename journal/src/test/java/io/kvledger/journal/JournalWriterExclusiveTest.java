package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writers racing to create a journal in the same new directory (two {@code kvledger run --journal DIR} started
 * together, two embedders given the same directory): exactly one creates it, every other is refused with the reason,
 * and the journal holds the one writer's documents. Before, each passed the "already holds a journal" check before
 * any had created a file, all of them appended to the same queue, and the journal read CORRUPT at the second
 * writer's header ("unexpected second JournalHeader") while every writer had succeeded.
 */
class JournalWriterExclusiveTest
{
    private static final int WRITERS = 4;
    private static final int ROUNDS = 25;
    private static final int DOCUMENTS = 50;

    @TempDir
    Path tempDir;

    @Test
    void shouldLetExactlyOneOfWritersRacingForADirectoryCreateTheJournal() throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        try
        {
            for (int round = 0; round < ROUNDS; round++)
            {
                final Path dir = tempDir.resolve("journal-" + round);
                final CyclicBarrier start = new CyclicBarrier(WRITERS);
                final List<Future<String>> results = new ArrayList<>();
                for (int w = 0; w < WRITERS; w++)
                {
                    final int seed = w + 1;
                    results.add(pool.submit(() -> create(dir, seed, start)));
                }
                int created = 0;
                for (final Future<String> result : results)
                {
                    final String outcome = result.get(60, TimeUnit.SECONDS);
                    if ("created".equals(outcome))
                    {
                        created++;
                    }
                    else
                    {
                        assertTrue(outcome.contains("cannot create a journal in " + dir), outcome);
                    }
                }
                assertEquals(1, created, "round " + round + ": writers that created the journal");
                final ReadOutcome read;
                try (JournalReader reader = JournalReader.open(dir))
                {
                    read = reader.read(new JournalWriterTest.CountingListener());
                }
                assertEquals(ReadStatus.CLEAN, read.status(), "round " + round + ": " + read.message());
                assertEquals(DOCUMENTS, read.documents(), "round " + round);
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    private static String create(final Path dir, final int seed, final CyclicBarrier start) throws Exception
    {
        start.await(60, TimeUnit.SECONDS);
        final JournalWriter writer;
        try
        {
            writer = JournalWriter.open(dir, JournalTestData.header(seed), false, JournalTestData.SMALL_BLOCK_SIZE);
        }
        catch (final JournalException ex)
        {
            return ex.getMessage();
        }
        try (writer)
        {
            final InputRecord input = new InputRecord(4).type(InputType.TICK);
            final EffectList effects = new EffectList(4);
            for (int i = 1; i <= DOCUMENTS; i++)
            {
                writer.append(input.sequence(i), 0, effects);
            }
        }
        return "created";
    }
}
