package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalReader;
import io.kvledger.journal.ReadOutcome;
import io.kvledger.journal.ReadStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A live run's journal (journal thread on, so documents reach the queue in batches of frames; multi-turn, so most
 * {@code ARRIVE}s are written as references to an earlier one) whose tail is lost at every Chronicle document
 * boundary in turn, as a lost writeback leaves it (zeroed from that boundary on): {@code replay} of what is left must
 * report the torn tail, exit 0 and say identical, and its state hash must be the one a fresh engine reaches by
 * applying the first N inputs of the whole journal, N the documents kept. So reading a cut journal hands back
 * exactly the prefix of the inputs, fingerprint references included, and replaying a prefix never drifts from it.
 */
class ReplayLostTailPrefixTest
{
    private static final int CHRONICLE_META_DATA = 0x4000_0000;
    private static final int CHRONICLE_LENGTH_MASK = 0x3FFF_FFFF;

    @TempDir
    Path dir;

    @Test
    void shouldReplayEveryPrefixLeftByALostTailIdentically() throws IOException
    {
        final Path journal = dir.resolve("live");
        kvledger("run", "--workload", "multi-turn", "--requests", "12", "--prompt-tokens", "512", "--kv-pages", "48",
            "--mamba-slots", "8", "--retract-rate", "0.3", "--abort-rate", "0.2", "--copy-delay-us", "50",
            "--store", "memory", "--journal-thread", "--seed", "3", "--journal", journal).exits(0);

        final List<Long> hashes = new ArrayList<>();
        final ReadOutcome whole = JournalReader.open(journal).read(new JournalListener()
        {
            private CacheStateMachine engine;

            @Override
            public void onHeader(final JournalHeader header, final JournalPosition position)
            {
                engine = new CacheStateMachine(EngineConfig.fromHeader(header));
                hashes.add(engine.stateHash());
            }

            @Override
            public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
                final JournalPosition position)
            {
                engine.apply(input);
                hashes.add(engine.stateHash());
            }
        });
        assertEquals(ReadStatus.CLEAN, whole.status(), whole.message());
        final Path queueName = Path.of(whole.stopFile());
        final List<Long> starts = dataDocumentStarts(journal.resolve(queueName));
        assertTrue(starts.size() > 20, "Chronicle documents: " + starts.size());

        // One copy, cut shorter and shorter: the tail from the last Chronicle document kept to the end is zero.
        final Path cut = dir.resolve("cut");
        final Path queue = CliJournals.copy(journal, cut);
        int next = Integer.MAX_VALUE;
        for (int keep = starts.size() - 1; keep >= 1; keep--)
        {
            zero(queue, starts.get(keep), keep + 1 < starts.size() ? starts.get(keep + 1) : end(queue));
            final ReadOutcome prefix = JournalReader.open(cut).read(new Counter());
            assertEquals(ReadStatus.TORN_TAIL, prefix.status(), prefix.message());
            final int documents = (int)prefix.documents();
            assertTrue(documents < next, "keeping " + keep + " Chronicle documents");
            next = documents;

            final CliRun replay = kvledger("replay", cut).exits(0);
            assertEquals("identical: " + documents + " documents, stateHash 0x" +
                String.format(Locale.ROOT, "%016x", hashes.get(documents)), replay.out().strip(),
                "keeping " + keep + " Chronicle documents");
            assertTrue(replay.err().contains("torn tail after document " + documents), replay.err());
        }
        assertEquals(hashes.size() - 1, whole.documents());
    }

    /** File offsets of the data documents of a queue file (the first is the journal header). */
    private static List<Long> dataDocumentStarts(final Path queue) throws IOException
    {
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(queue)).order(ByteOrder.LITTLE_ENDIAN);
        final List<Long> starts = new ArrayList<>();
        long at = 0;
        while (at + Integer.BYTES <= bytes.capacity() && 0 != bytes.getInt((int)at))
        {
            final int word = bytes.getInt((int)at);
            if (0 == (word & CHRONICLE_META_DATA))
            {
                starts.add(at);
            }
            at = (at + Integer.BYTES + (word & CHRONICLE_LENGTH_MASK) + 3) & ~3L;
        }
        return starts;
    }

    /** @return the end of the written bytes of a queue file (its trailing zeros left out). */
    private static long end(final Path file) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && 0 == bytes[end - 1])
        {
            end--;
        }
        return end;
    }

    private static void zero(final Path file, final long from, final long to) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(from);
            raf.write(new byte[(int)(to - from)]);
        }
    }

    private static final class Counter implements JournalListener
    {
        @Override
        public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
            final JournalPosition position)
        {
        }
    }
}
