package io.kvledger.journal;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

class JournalRoundTripTest
{
    @TempDir
    Path tempDir;

    @ParameterizedTest
    @ValueSource(longs = { 1, 7, 42, 1825793762, -5 })
    void shouldRoundTripEveryInputAndEffectType(final long seed)
    {
        final Random random = new Random(seed);
        final JournalHeader header = JournalTestData.header(seed);
        final List<InputRecord> inputs = new ArrayList<>();
        final List<Integer> results = new ArrayList<>();
        final List<EffectList> effectLists = new ArrayList<>();

        final Path dir = tempDir.resolve("journal-" + seed);
        try (JournalWriter writer = JournalWriter.open(dir, header, false, JournalTestData.SMALL_BLOCK_SIZE))
        {
            long sequence = 0;
            for (int round = 0; round < 10; round++)
            {
                for (final InputType type : JournalTestData.INPUT_TYPES)
                {
                    final InputRecord input = new InputRecord(64);
                    JournalTestData.randomInput(random, input, ++sequence, type);
                    final EffectList effects = new EffectList(4);
                    if (0 == round)
                    {
                        for (final EffectType effectType : JournalTestData.EFFECT_TYPES)
                        {
                            JournalTestData.randomEffect(random, effects, effectType);
                        }
                    }
                    else
                    {
                        final int count = random.nextInt(3) == 0 ? 0 : random.nextInt(40);
                        for (int i = 0; i < count; i++)
                        {
                            JournalTestData.randomEffect(
                                random, effects, JournalTestData.EFFECT_TYPES[random.nextInt(
                                JournalTestData.EFFECT_TYPES.length)]);
                        }
                    }
                    final int resultCode = random.nextInt();
                    final long index = writer.append(input, resultCode, effects);
                    assertEquals(writer.lastIndex(), index);
                    inputs.add(input);
                    results.add(resultCode);
                    effectLists.add(effects);
                }
            }
        }

        final List<Long> indices = new ArrayList<>();
        final ReadOutcome outcome;
        try (JournalReader reader = JournalReader.open(dir))
        {
            outcome = reader.read(new JournalListener()
            {
                public void onHeader(final JournalHeader read, final JournalPosition position)
                {
                    JournalTestData.assertSameHeader(header, read);
                    assertEquals(0, position.ordinal());
                }

                public void onDocument(
                    final InputRecord input, final int resultCode, final EffectList effects,
                    final JournalPosition position)
                {
                    final int i = (int)input.sequence() - 1;
                    JournalTestData.assertSameDocument(
                        inputs.get(i), results.get(i), effectLists.get(i), input, resultCode, effects);
                    assertEquals(input.sequence(), position.ordinal());
                    indices.add(position.index());
                }
            });
            assertNotNull(reader.header());
            JournalTestData.assertSameHeader(header, reader.header());
        }

        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(inputs.size(), outcome.documents());
        assertEquals(inputs.size(), outcome.delivered());
        assertEquals(inputs.size(), outcome.lastSequence());
        assertEquals(inputs.size(), indices.size());
        for (int i = 1; i < indices.size(); i++)
        {
            assertEquals(indices.get(i - 1) + 1, indices.get(i), "indices of one cycle are consecutive");
        }
    }

    @Test
    void shouldRoundTripHeaderExtremes()
    {
        final JournalHeader header = JournalTestData.header(3)
            .createdNs(Long.MIN_VALUE)
            .seed(Long.MAX_VALUE)
            .pageSize(Integer.MIN_VALUE)
            .faultMask(-1L)
            .kvledgerVersion("")
            .label("x".repeat(10_000));
        final Path dir = tempDir.resolve("header");
        JournalWriter.open(dir, header, true, JournalTestData.SMALL_BLOCK_SIZE).close();

        final JournalHeader read = new JournalHeader();
        final ReadOutcome outcome = JournalReader.readHeaderOnly(dir, read);

        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(0, outcome.documents());
        JournalTestData.assertSameHeader(header, read);
    }

    @Test
    void shouldRoundTripEmptyAndLargeDocuments()
    {
        final Path dir = tempDir.resolve("large");
        final Random random = new Random(11);
        final InputRecord empty = new InputRecord(0).type(InputType.TICK).sequence(1);
        final EffectList none = new EffectList(1);
        final InputRecord large = new InputRecord(4096);
        JournalTestData.randomInput(random, large, 2, InputType.ARRIVE);
        for (int i = large.fingerprintCount(); i < 4096; i++)
        {
            large.addFingerprint(random.nextLong(), random.nextLong());
        }
        final EffectList many = new EffectList(16);
        for (int i = 0; i < 20_000; i++)
        {
            JournalTestData.randomEffect(
                random, many, JournalTestData.EFFECT_TYPES[i % JournalTestData.EFFECT_TYPES.length]);
        }

        try (JournalWriter writer = JournalWriter.open(dir, JournalTestData.header(5), false))
        {
            writer.append(empty, 0, none);
            writer.append(large, -1234, many);
        }

        final int[] seen = new int[1];
        final ReadOutcome outcome = JournalReader.open(dir).read(new JournalListener()
        {
            public void onDocument(
                final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
            {
                if (1 == input.sequence())
                {
                    JournalTestData.assertSameDocument(empty, 0, none, input, resultCode, effects);
                }
                else
                {
                    JournalTestData.assertSameDocument(large, -1234, many, input, resultCode, effects);
                }
                seen[0]++;
            }
        });

        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(2, seen[0]);
    }
}
