package io.kvledger.journal;

import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Child process of {@link JournalCrashIT}: appends seeded documents as fast as it can and reports how many have
 * been appended, until it is killed.
 */
public final class CrashWriterMain
{
    /** Block size of the journals it writes: small, so many trials stay cheap. */
    static final long BLOCK_SIZE = 1024 * 1024;

    /** Effects per document, at most. */
    static final int MAX_EFFECTS = 12;

    private CrashWriterMain()
    {
    }

    /**
     * Append documents 1, 2, 3 ... until killed.
     *
     * @param args journal directory, seed, most documents to append before idling.
     * @throws InterruptedException never in practice; the process is killed while sleeping.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final Path dir = Paths.get(args[0]);
        final long seed = Long.parseLong(args[1]);
        final long maxDocuments = Long.parseLong(args[2]);
        final PrintStream out = System.out;

        final JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(seed), false, BLOCK_SIZE);
        out.println("started");
        out.flush();

        final InputRecord input = new InputRecord(64);
        final EffectList effects = new EffectList(MAX_EFFECTS);
        for (long sequence = 1; sequence <= maxDocuments; sequence++)
        {
            JournalTestData.document(seed, sequence, input, effects, MAX_EFFECTS);
            writer.append(input, (int)sequence, effects);
            if (0 == (sequence & 255))
            {
                out.println("appended " + sequence);
                out.flush();
            }
        }
        out.println("appended " + maxDocuments);
        out.println("done");
        out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
