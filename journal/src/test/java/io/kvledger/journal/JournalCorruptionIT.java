package io.kvledger.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Truncates and bit-flips copies of a real journal; every read must end CLEAN, TORN_TAIL or CORRUPT, deliver only
 * documents equal to the originals, and return promptly.
 */
class JournalCorruptionIT
{
    private static final long SEED = 0x5EED_C0DEL;
    private static final int DOCUMENTS = 300;
    private static final int TRIALS = 1_000;
    /**
     * A read that runs this long is a hang. A trial normally takes a few milliseconds. The one trial that once ran
     * past an earlier 10 s guard was a real hang: a queue file cut to a length that is not a multiple of four made
     * the scan for stray frames re-read its last bytes forever (fixed; {@code JournalReaderTest} pins it). Every
     * trial slower than {@link #SLOW_TRIAL_MS} is printed with its damage.
     */
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);
    private static final long SLOW_TRIAL_MS = 2_000;

    @TempDir
    Path tempDir;

    private final List<InputRecord> inputs = new ArrayList<>();
    private final List<EffectList> effectLists = new ArrayList<>();
    private final JournalHeader header = JournalTestData.header(SEED);

    @Test
    void shouldEndEveryDamagedReadCleanTornOrCorrupt() throws IOException
    {
        damageCopies(writeOriginal(tempDir.resolve("original")));
    }

    /**
     * The same for a journal the {@link Journaller} wrote: batches of frames in one Chronicle document, and
     * conversations whose {@code ARRIVE}s share their first fingerprints (schema version 3).
     */
    @Test
    void shouldEndEveryDamagedReadOfBatchesAndSharedFingerprintsCleanTornOrCorrupt() throws IOException
    {
        final Path original = writeOriginalThroughTheJournaller(tempDir.resolve("original"));
        final java.util.Set<Long> chronicleDocuments = new java.util.HashSet<>();
        JournalReader.open(original).read(new JournalListener()
        {
            public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
                final JournalPosition position)
            {
                chronicleDocuments.add(position.index());
            }
        });
        assertTrue(chronicleDocuments.size() < DOCUMENTS, DOCUMENTS + " documents in " + chronicleDocuments.size() +
            " Chronicle documents: no batch to damage");
        damageCopies(original);
    }

    private void damageCopies(final Path original) throws IOException
    {
        final ReadOutcome clean = JournalReader.open(original).read(new Verifier(-1));
        assertEquals(ReadStatus.CLEAN, clean.status(), clean.message());
        assertEquals(DOCUMENTS, clean.documents());

        final String queueName = clean.stopFile();
        final byte[] queueBytes = Files.readAllBytes(original.resolve(queueName));
        final int writtenEnd = (int)clean.stopOffset();
        assertTrue(writtenEnd > 0 && writtenEnd < queueBytes.length, "written region ends at " + writtenEnd);

        final List<Path> untouched = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(original))
        {
            for (final Path file : files)
            {
                if (!file.getFileName().toString().equals(queueName))
                {
                    untouched.add(file);
                }
            }
        }

        final Random random = new Random(SEED);
        final Map<ReadStatus, Integer> tally = new EnumMap<>(ReadStatus.class);
        final long start = System.nanoTime();
        for (int trial = 0; trial < TRIALS; trial++)
        {
            final Path copy = Files.createDirectory(tempDir.resolve("trial-" + trial));
            for (final Path file : untouched)
            {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
            final String damage = damage(random, queueBytes, writtenEnd, copy.resolve(queueName));

            final int number = trial;
            final Verifier verifier = new Verifier(trial);
            final long trialStart = System.nanoTime();
            final ReadOutcome outcome = assertTimeoutPreemptively(
                HANG_GUARD, () -> JournalReader.open(copy).read(verifier), () -> "trial " + number + ": " + damage);
            final long trialMs = (System.nanoTime() - trialStart) / 1_000_000;
            if (trialMs > SLOW_TRIAL_MS)
            {
                System.out.println("JournalCorruptionIT: slow trial " + trial + " (" + trialMs + " ms, " +
                    outcome.status() + "): " + damage);
            }

            check(trial, damage, outcome, verifier);
            tally.merge(outcome.status(), 1, Integer::sum);
            JournalTestData.deleteRecursively(copy);
        }

        System.out.println("JournalCorruptionIT: " + TRIALS + " trials in " +
            (System.nanoTime() - start) / 1_000_000 + " ms, outcomes " + tally);
    }

    private static String damage(final Random random, final byte[] original, final int writtenEnd, final Path file)
        throws IOException
    {
        if (random.nextInt(3) == 0)
        {
            final int length = random.nextInt(writtenEnd);
            Files.write(file, Arrays.copyOf(original, length));
            return "truncated to " + length + " bytes";
        }

        final byte[] damaged = original.clone();
        final StringBuilder what = new StringBuilder();
        final int changes = 1 + random.nextInt(8);
        for (int i = 0; i < changes; i++)
        {
            final int offset = random.nextInt(writtenEnd);
            if (random.nextBoolean())
            {
                final int bit = random.nextInt(8);
                damaged[offset] ^= (byte)(1 << bit);
                what.append(" flip bit ").append(bit).append(" at 0x").append(Integer.toHexString(offset));
            }
            else
            {
                final byte value = (byte)random.nextInt(256);
                damaged[offset] = value;
                what.append(" byte 0x").append(Integer.toHexString(value & 0xFF)).append(" at 0x")
                    .append(Integer.toHexString(offset));
            }
        }
        Files.write(file, damaged);
        return what.toString().trim();
    }

    private static void check(final int trial, final String damage, final ReadOutcome outcome, final Verifier verifier)
    {
        final String context = "trial " + trial + " (" + damage + "): " + outcome;
        assertNotNull(outcome, context);
        if (null != verifier.failure)
        {
            fail(context + ": " + verifier.failure);
        }
        switch (outcome.status())
        {
            case CLEAN:
            case TORN_TAIL:
                assertTrue(verifier.headerSeen, context);
                break;
            case CORRUPT:
                assertTrue(outcome.message().contains("document ") || outcome.message().contains("queue file ") ||
                    outcome.message().contains("Chronicle"), "unlocated message, " + context);
                break;
            default:
                fail("unexpected status, " + context);
        }
        assertFalse(outcome.message().isEmpty(), context);
        assertEquals(verifier.documents, outcome.delivered(), context);
        assertEquals(verifier.documents, outcome.documents(), context);
        assertEquals(verifier.documents, outcome.lastSequence(), context);
    }

    private Path writeOriginalThroughTheJournaller(final Path dir)
    {
        final Random random = new Random(SEED);
        final long[][] conversations = new long[6][];
        try (Journaller journaller = Journaller.start(
            JournalWriter.open(dir, header, false, JournalTestData.SMALL_BLOCK_SIZE), 1 << 16,
            new org.agrona.concurrent.BackoffIdleStrategy()))
        {
            for (int sequence = 1; sequence <= DOCUMENTS; sequence++)
            {
                final InputRecord input = new InputRecord(64);
                final EffectList effects = new EffectList(8);
                JournalTestData.document(SEED, sequence, input, effects, 12);
                if (random.nextInt(3) == 0)
                {
                    final int c = random.nextInt(conversations.length);
                    final long[] previous = null == conversations[c] ? new long[0] : conversations[c];
                    final long[] next = Arrays.copyOf(previous, Math.min(60, previous.length + 1 + random.nextInt(5)));
                    for (int i = previous.length; i < next.length; i++)
                    {
                        next[i] = random.nextLong();
                    }
                    conversations[c] = next;
                    input.reset().type(io.kvledger.journal.codec.InputType.ARRIVE).sequence(sequence)
                        .timestampNs(sequence).request(sequence);
                    for (final long fingerprint : next)
                    {
                        input.addFingerprint(fingerprint, fingerprint * 31);
                    }
                }
                journaller.append(input, sequence * 3, effects);
                inputs.add(input);
                effectLists.add(effects);
            }
        }
        return dir;
    }

    private Path writeOriginal(final Path dir)
    {
        try (JournalWriter writer = JournalWriter.open(dir, header, false, JournalTestData.SMALL_BLOCK_SIZE))
        {
            for (int sequence = 1; sequence <= DOCUMENTS; sequence++)
            {
                final InputRecord input = new InputRecord(64);
                final EffectList effects = new EffectList(8);
                JournalTestData.document(SEED, sequence, input, effects, 12);
                writer.append(input, sequence * 3, effects);
                inputs.add(input);
                effectLists.add(effects);
            }
        }
        return dir;
    }

    private final class Verifier implements JournalListener
    {
        private final int trial;
        private boolean headerSeen;
        private long documents;
        private String failure;

        Verifier(final int trial)
        {
            this.trial = trial;
        }

        public void onHeader(final JournalHeader read, final JournalPosition position)
        {
            try
            {
                JournalTestData.assertSameHeader(header, read);
                headerSeen = true;
            }
            catch (final AssertionError ex)
            {
                failure = "trial " + trial + " header differs: " + ex.getMessage();
            }
        }

        public void onDocument(
            final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
        {
            try
            {
                assertTrue(headerSeen);
                assertEquals(documents + 1, input.sequence());
                final int i = (int)input.sequence() - 1;
                JournalTestData.assertSameDocument(inputs.get(i), (i + 1) * 3, effectLists.get(i), input, resultCode,
                    effects);
                documents++;
            }
            catch (final AssertionError ex)
            {
                if (null == failure)
                {
                    failure = "document " + input.sequence() + ": " + ex.getMessage();
                }
            }
        }
    }
}
