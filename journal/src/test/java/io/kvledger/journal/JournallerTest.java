package io.kvledger.journal;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The journaller thread writes exactly the journal the engine thread would have written itself, in order, large
 * documents included; a failure of the writer stops it and is reported to the producer.
 */
class JournallerTest
{
    private static final int DOCUMENTS = 5_000;

    @TempDir
    Path tempDir;

    @Test
    void shouldWriteTheSameJournalAsAppendingInline()
    {
        final Path inline = tempDir.resolve("inline");
        final Path piped = tempDir.resolve("piped");
        final InputRecord input = new InputRecord(128);
        final EffectList effects = new EffectList(64);
        try (JournalWriter writer = JournalWriter.open(inline, JournalTestData.header(3), false))
        {
            for (long s = 1; s <= DOCUMENTS; s++)
            {
                JournalTestData.document(3, s, input, effects, 40);
                writer.append(input, (int)(s % 7), effects);
            }
        }
        try (Journaller journaller = Journaller.start(JournalWriter.open(piped, JournalTestData.header(3), false),
            4096, new BackoffIdleStrategy()))
        {
            long last = 0;
            for (long s = 1; s <= DOCUMENTS; s++)
            {
                JournalTestData.document(3, s, input, effects, 40);
                last = journaller.append(input, (int)(s % 7), effects);
                assertTrue(journaller.appendedSequence() <= last);
            }
            journaller.awaitAppended(last);
            assertEquals(DOCUMENTS, journaller.appendedSequence());
        }

        assertEquals(documents(inline), documents(piped));
    }

    @Test
    void shouldHandLargerDocumentsThanTheRingOverAloneAndKeepTheOrder()
    {
        final Path dir = tempDir.resolve("journal");
        final InputRecord input = new InputRecord(16);
        final EffectList effects = new EffectList(4096);
        try (Journaller journaller = Journaller.start(JournalWriter.open(dir, JournalTestData.header(4), false),
            4096, new BackoffIdleStrategy()))
        {
            for (long s = 1; s <= 60; s++)
            {
                input.reset().type(InputType.TICK).sequence(s).timestampNs(s);
                effects.clear();
                final int count = s % 3 == 0 ? 400 : 2;
                for (int i = 0; i < count; i++)
                {
                    effects.id(effects.add(EffectType.OP_QUEUED), s * 1_000 + i);
                }
                journaller.append(input, 0, effects);
            }
            assertTrue(journaller.maxRingDocument() < 400 * 8, "some documents must be larger than the ring takes");
        }

        final List<String> read = documents(dir);
        assertEquals(60, read.size());
        for (int s = 1; s <= 60; s++)
        {
            assertTrue(read.get(s - 1).startsWith(s + " "), read.get(s - 1));
            assertTrue(read.get(s - 1).endsWith(" " + (s % 3 == 0 ? 400 : 2)), read.get(s - 1));
        }
    }

    @Test
    void shouldShareFingerprintsAcrossRingAndLargeDocumentsAsAppendingInlineDoes()
    {
        final Path inline = tempDir.resolve("inline");
        final Path piped = tempDir.resolve("piped");
        final List<InputRecord> arrivals = new ArrayList<>();
        final java.util.Random random = new java.util.Random(8);
        final long[][] prompts = new long[12][];
        for (long s = 1; s <= 400; s++)
        {
            final int c = random.nextInt(prompts.length);
            final int added = random.nextInt(4) == 0 ? 40 + random.nextInt(60) : 1 + random.nextInt(6);
            final long[] previous = null == prompts[c] ? new long[0] : prompts[c];
            final long[] next = java.util.Arrays.copyOf(previous, Math.min(120, previous.length + added));
            for (int i = previous.length; i < next.length; i++)
            {
                next[i] = random.nextLong();
            }
            prompts[c] = next;
            final InputRecord input = new InputRecord(next.length).type(InputType.ARRIVE).sequence(s)
                .timestampNs(s).request(s);
            for (final long fingerprint : next)
            {
                input.addFingerprint(fingerprint, ~fingerprint);
            }
            arrivals.add(input);
        }
        final EffectList effects = new EffectList(4);
        try (JournalWriter writer = JournalWriter.open(inline, JournalTestData.header(7), false))
        {
            for (final InputRecord input : arrivals)
            {
                writer.append(input, 0, effects);
            }
        }
        try (Journaller journaller = Journaller.start(JournalWriter.open(piped, JournalTestData.header(7), false),
            4096, new BackoffIdleStrategy()))
        {
            assertTrue(journaller.maxRingDocument() < RawDocument.length(arrivals.get(0), effects) + 16 * 100,
                "some arrivals must be larger than the ring takes");
            for (final InputRecord input : arrivals)
            {
                journaller.append(input, 0, effects);
            }
        }

        for (final Path dir : new Path[] {inline, piped})
        {
            final List<InputRecord> read = new ArrayList<>();
            JournalReader.open(dir).read(new JournalListener()
            {
                public void onDocument(final InputRecord input, final int resultCode, final EffectList list,
                    final JournalPosition position)
                {
                    read.add(new InputRecord(input.fingerprintCount()).copyFrom(input));
                }
            });
            assertEquals(arrivals.size(), read.size());
            for (int i = 0; i < arrivals.size(); i++)
            {
                assertTrue(arrivals.get(i).sameAs(read.get(i)), dir + " document " + (i + 1) + " differs");
            }
        }
    }

    @Test
    void shouldRefuseAnOutOfOrderSequenceOnTheProducer()
    {
        try (Journaller journaller = Journaller.start(JournalWriter.open(tempDir.resolve("j"),
            JournalTestData.header(5), false)))
        {
            final InputRecord input = new InputRecord(4).type(InputType.TICK);
            final EffectList effects = new EffectList(4);
            journaller.append(input.sequence(1), 0, effects);
            final JournalException ex = assertThrows(JournalException.class,
                () -> journaller.append(input.sequence(3), 0, effects));
            assertTrue(ex.getMessage().contains("expected 2"), ex.getMessage());
            assertEquals(2, journaller.append(input.sequence(2), 0, effects));
        }
    }

    @Test
    void shouldStopOnAWriterFailureAndReportItToTheProducer()
    {
        final Path dir = tempDir.resolve("j");
        final JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(6), false);
        final Journaller journaller = Journaller.start(writer, 4096, new BackoffIdleStrategy());
        final InputRecord input = new InputRecord(4).type(InputType.TICK);
        final EffectList effects = new EffectList(4);
        journaller.append(input.sequence(1), 0, effects);
        journaller.awaitAppended(1);
        writer.close();
        journaller.append(input.sequence(2), 0, effects);

        assertStoppedAfterTheFirstDocument(journaller, dir, input, effects);
    }

    @Test
    void shouldStopWhenTheJournallerThreadCannotEncodeADocument()
    {
        final Path dir = tempDir.resolve("j");
        final Journaller journaller = Journaller.start(JournalWriter.open(dir, JournalTestData.header(8), false));
        final InputRecord input = new InputRecord(4).type(InputType.TICK);
        final EffectList effects = new EffectList(4);
        journaller.append(input.sequence(1), 0, effects);
        effects.code(effects.add(EffectType.OP_QUEUED), 1, (short)200);
        journaller.append(input.sequence(2), 0, effects);

        assertStoppedAfterTheFirstDocument(journaller, dir, input, effects);
    }

    /**
     * Document 2 failed on the journaller thread: waiting for it and offering more fail with the reason, document 1
     * stays appended and the journal reads clean up to it.
     */
    private static void assertStoppedAfterTheFirstDocument(final Journaller journaller, final Path dir,
        final InputRecord input, final EffectList effects)
    {
        final JournalException ex = assertThrows(JournalException.class, () -> journaller.awaitAppended(2));
        assertTrue(ex.getMessage().startsWith("the journal stopped: "), ex.getMessage());
        assertNotNull(journaller.failure());
        assertThrows(JournalException.class, () -> journaller.append(input.sequence(3), 0, effects));
        assertEquals(1, journaller.appendedSequence());
        journaller.close();

        final ReadOutcome outcome = JournalReader.open(dir).read(new JournalWriterTest.CountingListener());
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(1, outcome.documents());
    }

    @Test
    void shouldSyncBeforeReportingAppendedWhenTheWriterSyncs()
    {
        final Path dir = tempDir.resolve("j");
        try (Journaller journaller = Journaller.start(JournalWriter.open(dir, JournalTestData.header(7), true)))
        {
            final InputRecord input = new InputRecord(4).type(InputType.TICK);
            final EffectList effects = new EffectList(4);
            for (long s = 1; s <= 50; s++)
            {
                journaller.append(input.sequence(s), 0, effects);
            }
            journaller.awaitAppended(50);
            assertEquals(50, journaller.writer().lastSequence());
        }
        final ReadOutcome outcome = JournalReader.open(dir).read(new JournalWriterTest.CountingListener());
        assertEquals(50, outcome.documents());
    }

    private static List<String> documents(final Path dir)
    {
        final List<String> out = new ArrayList<>();
        final ReadOutcome outcome = JournalReader.open(dir).read(new JournalListener()
        {
            public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
                final JournalPosition position)
            {
                final StringBuilder line = new StringBuilder();
                line.append(input.sequence()).append(' ').append(JournalPrinter.describeInput(input)).append(' ')
                    .append(resultCode);
                for (int i = 0; i < effects.size(); i++)
                {
                    line.append(" | ").append(JournalPrinter.describeEffect(effects, i));
                }
                line.append(' ').append(effects.size());
                out.add(line.toString());
            }
        });
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        return out;
    }
}
