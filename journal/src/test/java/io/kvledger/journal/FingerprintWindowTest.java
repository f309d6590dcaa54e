package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Schema version 3's shared fingerprints: an {@code ARRIVE} that begins like a recent one is written as a reference
 * plus its new fingerprints, a reader that decodes the journal in order gets every fingerprint back, the window
 * stays bounded, and a reference a reader cannot resolve is an error, never a guess.
 */
class FingerprintWindowTest
{
    private final CompactDocumentCodec writer = new CompactDocumentCodec();
    private final CompactDocumentCodec reader = new CompactDocumentCodec();
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(1 << 16);
    private final InputRecord decoded = new InputRecord(FingerprintWindow.MAX_ENTRY_FINGERPRINTS + 8);
    private final EffectList effects = new EffectList(4);
    private final EffectList decodedEffects = new EffectList(4);
    private long sequence;

    @Test
    void shouldWriteTheNextTurnOfAConversationAsItsNewPagesOnly()
    {
        final long[][] turn1 = chain(7, 64);
        final int first = roundTrip(arrive(turn1, 64));
        final long[][] turn2 = extend(turn1, 8, 99);
        final int second = roundTrip(arrive(turn2, 72));

        assertTrue(first > 64 * 16, "first turn " + first + " bytes");
        assertTrue(second < 8 * 16 + 24, "second turn (64 pages shared, 8 new) " + second + " bytes");
    }

    @Test
    void shouldShareOnlyTheCommonPrefixWhenPromptsDiverge()
    {
        final long[][] system = chain(3, 16);
        roundTrip(arrive(extend(system, 20, 1), 36));
        final int length = roundTrip(arrive(extend(system, 10, 2), 26));

        assertTrue(length < 10 * 16 + 24, "16 shared, 10 new: " + length + " bytes");
    }

    @Test
    void shouldNotShareWithDocumentsThatAreNotArrivals()
    {
        final long[][] prompt = chain(5, 12);
        final InputRecord hit = arrive(prompt, 12).type(InputType.STORAGE_HIT);
        roundTrip(hit);
        final int length = roundTrip(arrive(prompt, 12));

        assertTrue(length >= 12 * 16, "nothing to share with: " + length + " bytes");
    }

    @Test
    void shouldRoundTripRandomConversationsThroughEvictionAndGrowth()
    {
        final Random random = new Random(17);
        final long[][][] conversations = new long[300][][];
        long saved = 0;
        for (int doc = 0; doc < 20_000; doc++)
        {
            final int c = random.nextInt(conversations.length);
            final int newPages = random.nextInt(10) == 0 ? 200 + random.nextInt(3_000) : 1 + random.nextInt(20);
            if (null == conversations[c] || conversations[c][0].length + newPages > 4_096 || random.nextInt(8) == 0)
            {
                conversations[c] = chain(random.nextLong(), newPages);
            }
            else
            {
                conversations[c] = extend(conversations[c], newPages, random.nextLong());
            }
            final InputRecord input = arrive(conversations[c], conversations[c][0].length);
            if (random.nextInt(20) == 0)
            {
                input.type(InputType.ADMIT);
            }
            final int length = roundTrip(input);
            saved += 16L * input.fingerprintCount() - length;
        }
        assertTrue(saved > 0, "sharing saved " + saved + " bytes");
        assertTrue(writer.window().size() <= FingerprintWindow.MAX_ENTRIES);
        assertEquals(writer.window().size(), reader.window().size());
    }

    @Test
    void shouldStopSharingWithAnArrivalOnceItLeftTheWindow()
    {
        final long[][] prompt = chain(11, 8);
        roundTrip(arrive(prompt, 8));
        for (int i = 0; i < FingerprintWindow.MAX_ENTRIES; i++)
        {
            roundTrip(arrive(chain(1_000 + i, 1), 1));
        }
        final int length = roundTrip(arrive(prompt, 8));

        assertTrue(length >= 8 * 16, "the first prompt left the window: " + length + " bytes");
    }

    @Test
    void shouldRefuseAReferenceTheReaderCannotResolve()
    {
        final long[][] prompt = chain(13, 10);
        encode(arrive(prompt, 10));
        final int length = encode(arrive(extend(prompt, 2, 5), 12));

        reader.decode(buffer, 0, length, CompactDocumentCodec.SHARED_FINGERPRINTS_VERSION, decoded, decodedEffects);

        assertTrue(null != reader.error() && reader.error().contains("refer to document"), reader.error());
    }

    @Test
    void shouldReadAVersion2FingerprintCountAsAPlainCount()
    {
        final InputRecord input = arrive(chain(21, 3), 3);
        final int length = encode(input);
        final long field = (long)3 << 1;
        assertEquals(3, writer.fingerprintCount(buffer, 0, length));
        assertEquals(field, reader.fingerprintCount(buffer, 0, length, 2));
    }

    @Test
    void shouldResetWithANewJournalHeader()
    {
        final JournalEncoder encoder = new JournalEncoder();
        final JournalAdapter adapter = new JournalAdapter();
        final JournalHeader header = JournalTestData.header(1);
        final long[][] prompt = chain(31, 6);
        for (int journal = 0; journal < 2; journal++)
        {
            sequence = 0;
            final int headerLength = encoder.encodeHeader(buffer, 0, header);
            assertEquals(FrameStatus.HEADER, adapter.decode(buffer, 0, headerLength));
            for (int doc = 0; doc < 2; doc++)
            {
                final InputRecord input = arrive(prompt, 6);
                final int frame = encoder.encodeDocument(buffer, 0, input, 0, effects);
                assertEquals(FrameStatus.DOCUMENT, adapter.decode(buffer, 0, frame), adapter.errorMessage());
                assertTrue(input.sameAs(adapter.input()));
            }
        }
    }

    private int roundTrip(final InputRecord input)
    {
        final int length = encode(input);
        assertEquals(input.fingerprintCount(), reader.fingerprintCount(buffer, 0, length));
        reader.decode(buffer, 0, length, CompactDocumentCodec.SHARED_FINGERPRINTS_VERSION, decoded, decodedEffects);
        assertNull(reader.error());
        assertTrue(input.sameAs(decoded), "document " + input.sequence() + " differs");
        return length;
    }

    private int encode(final InputRecord input)
    {
        buffer.checkLimit(CompactDocumentCodec.maxLength(input, effects));
        return writer.encode(buffer, 0, input, 0, effects);
    }

    private InputRecord arrive(final long[][] fingerprints, final int count)
    {
        final InputRecord input = new InputRecord(count).type(InputType.ARRIVE).sequence(++sequence)
            .timestampNs(sequence).request(sequence);
        for (int i = 0; i < count; i++)
        {
            input.addFingerprint(fingerprints[0][i], fingerprints[1][i]);
        }
        return input;
    }

    /** A fingerprint chain: page i's fingerprint depends on page i - 1's, as the engine's fingerprinter makes them. */
    private static long[][] chain(final long seed, final int pages)
    {
        return extend(new long[2][0], pages, seed);
    }

    private static long[][] extend(final long[][] from, final int pages, final long seed)
    {
        final int n = from[0].length;
        final long[] hi = java.util.Arrays.copyOf(from[0], n + pages);
        final long[] lo = java.util.Arrays.copyOf(from[1], n + pages);
        long h = n == 0 ? seed : hi[n - 1] ^ seed * 31;
        for (int i = n; i < n + pages; i++)
        {
            h = mix(h + i);
            hi[i] = h;
            lo[i] = mix(h ^ 0x5DEECE66DL);
        }
        return new long[][] {hi, lo};
    }

    private static long mix(final long x)
    {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
