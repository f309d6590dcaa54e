package io.kvledger.replay.cli;

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
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Journals written by earlier schema versions are still read, checked and replayed. The fixture under
 * {@code journals/schema-v1} (one fixed-size group entry per effect) was written at commit 570239c, the one under
 * {@code journals/schema-v2} (the compact effect encoding, every fingerprint written out) at commit 09f27a3, each by
 * the deterministic simulation of {@link CliJournals} (its config, seed 7, pr-bench of 12 requests, retract rate
 * 0.3, op failure rate 0.05, 64 KiB blocks); the digests below are of every field of every document as that
 * commit's decoder handed them to a listener.
 */
class OldJournalCompatibilityTest
{
    private static final String[] FILES = {"20261130F.cq4", "metadata.cq4t"};
    private static final String V1_CONTENT_SHA256 = "306fd6d03e98bbca5af9f20169465919516d4f2f652d9e862d4aeb5b8cc9e488";
    private static final String V2_CONTENT_SHA256 = "6ad025b7504f75d4807bb82a85c6536615da115e0af08bfdd4f5b9f198303656";

    @Test
    void shouldReadCheckAndReplayASchemaVersion1Journal(@TempDir final Path dir) throws Exception
    {
        assertReadsChecksAndReplays(fixture(dir.resolve("journal")), 316, 5831, V1_CONTENT_SHA256, "schema-v1");
    }

    @Test
    void shouldReadCheckAndReplayASchemaVersion2Journal(@TempDir final Path dir) throws Exception
    {
        assertReadsChecksAndReplays(fixture(dir.resolve("journal"), "schema-v2"), 302, 5819, V2_CONTENT_SHA256,
            "schema-v2");
    }

    private static void assertReadsChecksAndReplays(final Path journal, final int documents, final int effects,
        final String sha256, final String label) throws Exception
    {
        final ContentDigest digest = new ContentDigest();
        final ReadOutcome outcome = JournalReader.open(journal).read(digest);
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
        assertEquals(documents, digest.documents);
        assertEquals(effects, digest.effects);
        assertEquals(sha256, digest.hex());

        final CliRun check = kvledger("check", journal);
        assertEquals(0, check.exitCode(), check.out() + check.err());
        assertTrue(check.out().contains("checked " + documents + " documents of " + label + " fixture: clean"),
            check.out());
        final CliRun replay = kvledger("replay", journal);
        assertEquals(0, replay.exitCode(), replay.out() + replay.err());
        assertTrue(replay.out().startsWith("identical: " + documents + " documents"), replay.out());
    }

    static Path fixture(final Path to) throws IOException
    {
        return fixture(to, "schema-v1");
    }

    static Path fixture(final Path to, final String version) throws IOException
    {
        Files.createDirectories(to);
        for (final String name : FILES)
        {
            try (InputStream in =
                OldJournalCompatibilityTest.class.getResourceAsStream("/journals/" + version + "/" + name))
            {
                Files.copy(in, to.resolve(name));
            }
        }
        return to;
    }

    /** SHA-256 over every decoded field, in document order. */
    static final class ContentDigest implements JournalListener
    {
        private final MessageDigest sha;
        private final byte[] scratch = new byte[8];
        long documents;
        long effects;

        ContentDigest() throws NoSuchAlgorithmException
        {
            sha = MessageDigest.getInstance("SHA-256");
        }

        @Override
        public void onHeader(final JournalHeader header, final JournalPosition position)
        {
            put(header.seed());
            put(header.pageSize());
            put(header.deviceKvPages());
            put(header.maxOps());
            sha.update(header.label().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        @Override
        public void onDocument(final InputRecord in, final int resultCode, final EffectList list,
            final JournalPosition position)
        {
            documents++;
            put(in.sequence());
            put(in.timestampNs());
            put(in.type().value());
            put(in.ok() ? 1 : 0);
            put(resultCode);
            put(in.request());
            put(in.op());
            put(in.value1());
            put(in.value2());
            put(in.value3());
            put(in.value4());
            put(in.value5());
            put(in.fingerprintCount());
            for (int i = 0; i < in.fingerprintCount(); i++)
            {
                put(in.fingerprintHi(i));
                put(in.fingerprintLo(i));
            }
            put(list.size());
            for (int i = 0; i < list.size(); i++)
            {
                effects++;
                put(list.typeCode(i));
                put(list.poolCode(i));
                put(list.fromStateCode(i));
                put(list.toStateCode(i));
                put(list.componentCode(i));
                put(list.opKindCode(i));
                put(list.roleCode(i));
                put(list.reasonCode(i));
                put(list.requestFromCode(i));
                put(list.requestToCode(i));
                put(list.id(i));
                put(list.owner(i));
                put(list.value1(i));
                put(list.value2(i));
                put(list.value3(i));
            }
        }

        private void put(final long v)
        {
            for (int i = 0; i < 8; i++)
            {
                scratch[i] = (byte)(v >>> (8 * i));
            }
            sha.update(scratch);
        }

        String hex()
        {
            return HexFormat.of().formatHex(sha.digest());
        }
    }
}
