package io.kvledger.journal;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded generators of headers, inputs and effects, and comparison helpers, shared by the journal tests.
 */
final class JournalTestData
{
    static final InputType[] INPUT_TYPES = valid(InputType.values()).toArray(new InputType[0]);
    static final EffectType[] EFFECT_TYPES = valid(EffectType.values()).toArray(new EffectType[0]);
    static final long SMALL_BLOCK_SIZE = 64L * 1024;

    private JournalTestData()
    {
    }

    static JournalHeader header(final long seed)
    {
        final Random random = new Random(seed);
        return new JournalHeader()
            .createdNs(random.nextLong())
            .seed(seed)
            .pageSize(1 + random.nextInt(64))
            .deviceKvPages(random.nextInt(100_000))
            .deviceMambaSlots(random.nextInt(1_000))
            .hostKvPages(random.nextInt(100_000))
            .hostMambaSlots(random.nextInt(1_000))
            .trackingSlots(random.nextInt(64))
            .maxStagedDefers(random.nextInt(10))
            .maxRequests(random.nextInt(512))
            .maxRequestPages(random.nextInt(4096))
            .prefetchThresholdPages(random.nextInt(64))
            .prefetchPolicy(pick(random, valid(PrefetchPolicy.values())))
            .prefetchTimeoutNs(random.nextLong())
            .hybrid(random.nextBoolean())
            .deviceKind(pick(random, valid(DeviceKind.values())))
            .kvPageBytes(random.nextInt())
            .mambaStateBytes(random.nextInt())
            .faultMask(random.nextLong())
            .maxNodes(random.nextInt())
            .maxOps(random.nextInt())
            .admissionRules(1 + random.nextInt(JournalHeader.LATEST_ADMISSION_RULES))
            .prefetchTimeoutPerKiNs(random.nextInt(1 << 30))
            .kvledgerVersion("0.1.0-test+" + Long.toHexString(random.nextLong()))
            .label("seed " + seed + " \u00e9\u00e8 \u2603");
    }

    /**
     * Write a journal of {@code documents} documents ({@link #document} with seed 8, 8 effects each) with small
     * blocks, appended inline and closed.
     *
     * @param dir       the journal directory.
     * @param documents how many.
     * @return {@code dir}.
     */
    static Path write(final Path dir, final int documents)
    {
        try (JournalWriter writer = JournalWriter.open(dir, header(8), false, SMALL_BLOCK_SIZE))
        {
            final InputRecord input = new InputRecord(64);
            final EffectList effects = new EffectList(16);
            for (int i = 1; i <= documents; i++)
            {
                document(8, i, input, effects, 8);
                writer.append(input, i, effects);
            }
        }
        return dir;
    }

    /**
     * Fill an input deterministically from a seed and a sequence: the same pair always gives the same document.
     */
    static void document(
        final long seed, final long sequence, final InputRecord input, final EffectList effects, final int maxEffects)
    {
        final Random random = new Random(seed * 0x9E3779B97F4A7C15L + sequence);
        randomInput(random, input, sequence, INPUT_TYPES[random.nextInt(INPUT_TYPES.length)]);
        effects.clear();
        final int count = random.nextInt(maxEffects + 1);
        for (int i = 0; i < count; i++)
        {
            randomEffect(random, effects, EFFECT_TYPES[random.nextInt(EFFECT_TYPES.length)]);
        }
    }

    static void randomInput(final Random random, final InputRecord input, final long sequence, final InputType type)
    {
        input.reset()
            .type(type)
            .sequence(sequence)
            .timestampNs(random.nextLong())
            .ok(random.nextInt(4) != 0)
            .request(randomId(random))
            .op(randomId(random))
            .value1(randomValue(random))
            .value2(randomValue(random))
            .value3(randomValue(random))
            .value4(randomValue(random))
            .value5(randomValue(random));
        final int fingerprints = InputType.ARRIVE == type ?
            random.nextInt(Math.min(64, input.fingerprintCapacity()) + 1) : random.nextInt(3);
        for (int i = 0; i < Math.min(fingerprints, input.fingerprintCapacity()); i++)
        {
            input.addFingerprint(random.nextLong(), random.nextLong());
        }
    }

    static void randomEffect(final Random random, final EffectList effects, final EffectType type)
    {
        final int index = effects.add(type);
        effects.id(index, randomId(random)).owner(index, randomId(random))
            .value1(index, randomValue(random)).value2(index, randomValue(random)).value3(index, randomValue(random));
        code(random, effects, index, 1, valid(Pool.values()));
        code(random, effects, index, 2, valid(SlotState.values()));
        code(random, effects, index, 3, valid(SlotState.values()));
        code(random, effects, index, 4, valid(Component.values()));
        code(random, effects, index, 5, valid(OpKind.values()));
        code(random, effects, index, 6, valid(Role.values()));
        code(random, effects, index, 7, valid(Reason.values()));
        code(random, effects, index, 8, valid(RequestState.values()));
        code(random, effects, index, 9, valid(RequestState.values()));
    }

    static void assertSameHeader(final JournalHeader expected, final JournalHeader actual)
    {
        assertEquals(JournalPrinter.describeHeader(expected), JournalPrinter.describeHeader(actual));
        assertEquals(expected.createdNs(), actual.createdNs());
        assertEquals(expected.seed(), actual.seed());
        assertEquals(expected.pageSize(), actual.pageSize());
        assertEquals(expected.deviceKvPages(), actual.deviceKvPages());
        assertEquals(expected.deviceMambaSlots(), actual.deviceMambaSlots());
        assertEquals(expected.hostKvPages(), actual.hostKvPages());
        assertEquals(expected.hostMambaSlots(), actual.hostMambaSlots());
        assertEquals(expected.trackingSlots(), actual.trackingSlots());
        assertEquals(expected.maxStagedDefers(), actual.maxStagedDefers());
        assertEquals(expected.maxRequests(), actual.maxRequests());
        assertEquals(expected.maxRequestPages(), actual.maxRequestPages());
        assertEquals(expected.prefetchThresholdPages(), actual.prefetchThresholdPages());
        assertEquals(expected.prefetchPolicy(), actual.prefetchPolicy());
        assertEquals(expected.prefetchTimeoutNs(), actual.prefetchTimeoutNs());
        assertEquals(expected.hybrid(), actual.hybrid());
        assertEquals(expected.deviceKind(), actual.deviceKind());
        assertEquals(expected.kvPageBytes(), actual.kvPageBytes());
        assertEquals(expected.mambaStateBytes(), actual.mambaStateBytes());
        assertEquals(expected.faultMask(), actual.faultMask());
        assertEquals(expected.maxNodes(), actual.maxNodes());
        assertEquals(expected.maxOps(), actual.maxOps());
        assertEquals(expected.admissionRules(), actual.admissionRules());
        assertEquals(expected.prefetchTimeoutPerKiNs(), actual.prefetchTimeoutPerKiNs());
        assertEquals(expected.kvledgerVersion(), actual.kvledgerVersion());
        assertEquals(expected.label(), actual.label());
    }

    static void assertSameDocument(
        final InputRecord expectedInput,
        final int expectedResult,
        final EffectList expectedEffects,
        final InputRecord input,
        final int resultCode,
        final EffectList effects)
    {
        if (!expectedInput.sameAs(input))
        {
            fail("input differs: expected " + JournalPrinter.describeInput(expectedInput) + " fingerprints " +
                expectedInput.fingerprintCount() + ", read " + JournalPrinter.describeInput(input) + " fingerprints " +
                input.fingerprintCount());
        }
        assertEquals(expectedResult, resultCode, "result code of " + input.sequence());
        final int difference = expectedEffects.firstDifference(effects);
        if (difference >= 0)
        {
            final String expected = difference < expectedEffects.size() ?
                JournalPrinter.describeEffect(expectedEffects, difference) : "none";
            final String read = difference < effects.size() ?
                JournalPrinter.describeEffect(effects, difference) : "none";
            fail("effect " + difference + " of " + input.sequence() + " differs: expected " + expected +
                ", read " + read);
        }
    }

    static List<Path> queueFiles(final Path directory)
    {
        try (Stream<Path> files = Files.list(directory))
        {
            final List<Path> queueFiles = new ArrayList<>();
            files.filter((file) -> file.getFileName().toString().endsWith(".cq4")).sorted().forEach(queueFiles::add);
            assertTrue(!queueFiles.isEmpty(), "no queue file in " + directory);
            return queueFiles;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static void deleteRecursively(final Path directory)
    {
        if (!Files.exists(directory))
        {
            return;
        }
        try (Stream<Path> files = Files.walk(directory))
        {
            files.sorted(Comparator.reverseOrder()).forEach(JournalTestData::deleteQuietly);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static void deleteQuietly(final Path file)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static long randomId(final Random random)
    {
        switch (random.nextInt(4))
        {
            case 0:
                return InputRecord.NULL_ID;
            case 1:
                return random.nextLong();
            default:
                return random.nextInt(10_000);
        }
    }

    private static long randomValue(final Random random)
    {
        switch (random.nextInt(5))
        {
            case 0:
                return 0;
            case 1:
                return random.nextLong();
            case 2:
                return random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
            default:
                return random.nextInt(100_000);
        }
    }

    private static <E extends Enum<E>> void code(
        final Random random, final EffectList effects, final int index, final int column, final List<E> values)
    {
        if (random.nextInt(4) == 0)
        {
            effects.code(index, column, EffectList.NULL_CODE);
        }
        else
        {
            effects.code(index, column, codeOf(pick(random, values)));
        }
    }

    private static short codeOf(final Enum<?> value)
    {
        try
        {
            return ((Number)value.getClass().getMethod("value").invoke(value)).shortValue();
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static <E> E pick(final Random random, final List<E> values)
    {
        return values.get(random.nextInt(values.size()));
    }

    private static <E extends Enum<E>> List<E> valid(final E[] values)
    {
        final List<E> valid = new ArrayList<>();
        for (final E value : values)
        {
            if (!"NULL_VAL".equals(value.name()))
            {
                valid.add(value);
            }
        }
        return valid;
    }
}
