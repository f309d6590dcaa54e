package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.JournalReader;
import io.kvledger.journal.ReadOutcome;
import io.kvledger.journal.ReadStatus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two-thread replay ({@link DocumentPipeline}, chosen with 4+ processors) and the single-thread one give the same
 * outcome on clean and buggy journals: the same exit code, the same first divergence and the same final state hash.
 * The thread count is forced with {@code -Dkvledger.replay.threads} (1 or 2), never left to this machine's cores; the
 * pipeline is also driven directly, so a pipeline that the property failed to select would still be tested. One
 * journal is longer than the pipeline's ring (512 documents) and diverges past its first wrap.
 */
class DocumentPipelineTest
{
    private static final String THREADS = "kvledger.replay.threads";
    private static final String CHECK_THREADS = "kvledger.check.threads";
    /** Documents in the pipeline's ring: the long journal must have more, and diverge after them. */
    private static final int RING = 512;

    @TempDir
    static Path dir;
    /** Journals by name, clean and buggy, each replayed with one and with two threads. */
    private static final Map<String, Path> JOURNALS = new LinkedHashMap<>();
    private static long longDocuments;

    @BeforeAll
    static void writeJournals()
    {
        final Path clean = CliJournals.clean(dir.resolve("clean"));
        JOURNALS.put("clean", clean);
        final Path buggy = CliJournals.buggy(dir.resolve("buggy"));
        JOURNALS.put("buggy (own switches: identical)", buggy);
        JOURNALS.put("buggy with the switch off (diverges)",
            CliJournals.rewrite(buggy, dir.resolve("fixed"), h -> h.faultMask(0), 0, null));
        for (final FaultSwitch fault : List.of(FaultSwitch.DOUBLE_FREE_ON_ABORT,
            FaultSwitch.SKIP_CURSOR_RESET_ON_STAGED_LOAD, FaultSwitch.FREE_REDUNDANT_SLOT_AT_QUEUE))
        {
            final WorkloadOptions options = CliJournals.workload(0.3);
            options.abortRate = 0.3;
            final Path journal = dir.resolve(fault.name());
            try
            {
                CliJournals.write(journal, fault.name(), CliJournals.config(fault), options);
            }
            catch (final EngineBugException ex)
            {
                // fail-stop: the journal ends at the last document before the one the bug refused to apply
            }
            JOURNALS.put(fault.name(), journal);
            JOURNALS.put(fault.name() + " switched off", CliJournals.rewrite(journal,
                dir.resolve(fault.name() + "-off"), h -> h.faultMask(0), 0, null));
        }
        final WorkloadOptions many = CliJournals.workload(0.2);
        many.requests = 120;
        many.abortRate = 0.1;
        final Path longJournal = CliJournals.write(dir.resolve("long"), "long", CliJournals.config(), many);
        JOURNALS.put("long", longJournal);
        longDocuments = documents(longJournal);
        JOURNALS.put("long, an effect changed past the ring", CliJournals.rewrite(longJournal,
            dir.resolve("long-effect"), h -> h, longDocuments - 3, (input, result, effects) ->
            {
                if (effects.size() > 0)
                {
                    effects.value1(0, effects.value1(0) + 1000);
                }
                return effects.size() > 0 ? result : ResultCode.UNKNOWN_OP;
            }));
        JOURNALS.put("long, a result code changed past the ring", CliJournals.rewrite(longJournal,
            dir.resolve("long-result"), h -> h, RING + 7, (input, result, effects) -> ResultCode.UNKNOWN_OP));
    }

    @Test
    void shouldSelectThePipelineByTheSystemPropertyAlone()
    {
        assertTrue(withThreads("2", () -> DocumentPipeline.worthIt("replay")));
        assertFalse(withThreads("1", () -> DocumentPipeline.worthIt("replay")));
    }

    @Test
    void shouldReplayEveryJournalTheSameOnOneAndOnTwoThreads()
    {
        assertTrue(longDocuments > 2 * RING, "the long journal wraps the ring: " + longDocuments + " documents");
        final List<String> diverging = new ArrayList<>();
        for (final Map.Entry<String, Path> journal : JOURNALS.entrySet())
        {
            final CliRun one = withThreads("1", () -> kvledger("replay", journal.getValue(), "--json"));
            final CliRun two = withThreads("2", () -> kvledger("replay", journal.getValue(), "--json"));
            final String name = journal.getKey();
            assertEquals(one.exitCode(), two.exitCode(), name + ": " + one.out() + " / " + two.out());
            assertEquals("", two.err(), name);
            final JsonNode a = one.json();
            final JsonNode b = two.json();
            assertEquals(a, b, name + ": the whole outcome (documents, state hash, divergence)");
            if (!a.get("identical").asBoolean())
            {
                diverging.add(name);
            }
            final CliRun textOne = withThreads("1", () -> kvledger("replay", journal.getValue()));
            final CliRun textTwo = withThreads("2", () -> kvledger("replay", journal.getValue()));
            assertEquals(textOne.out(), textTwo.out(), name);
        }
        assertTrue(diverging.contains("buggy with the switch off (diverges)"), diverging.toString());
        assertTrue(diverging.contains("long, an effect changed past the ring"), diverging.toString());
        assertTrue(diverging.contains("long, a result code changed past the ring"), diverging.toString());
        assertFalse(diverging.contains("clean") || diverging.contains("long"), diverging.toString());
        final JsonNode late = kvledger("replay", JOURNALS.get("long, a result code changed past the ring"), "--json")
            .json().get("divergence");
        assertEquals(RING + 7, late.get("seq").asLong(), late.toString());
        assertEquals("result", late.get("kind").asText(), late.toString());
    }

    @Test
    void shouldSelectTheCheckPipelineByItsOwnProperty()
    {
        assertTrue(withProperty(CHECK_THREADS, "2", () -> DocumentPipeline.worthIt("check")));
        assertFalse(withProperty(CHECK_THREADS, "1", () -> DocumentPipeline.worthIt("check")));
    }

    @Test
    void shouldCheckEveryJournalTheSameOnOneAndOnTwoThreads()
    {
        int withFindings = 0;
        for (final Map.Entry<String, Path> journal : JOURNALS.entrySet())
        {
            final String name = journal.getKey();
            final CliRun one = withProperty(CHECK_THREADS, "1", () -> kvledger("check", journal.getValue(), "--json"));
            final CliRun two = withProperty(CHECK_THREADS, "2", () -> kvledger("check", journal.getValue(), "--json"));
            assertEquals(one.exitCode(), two.exitCode(), name + ": " + one.out() + " / " + two.out());
            assertEquals(one.json(), two.json(), name + ": the whole report (findings, histories, counts)");
            withFindings += one.exitCode() != 0 ? 1 : 0;
        }
        assertTrue(withFindings > 0, "some journals break invariants, so the pipeline also carries findings");
    }

    @Test
    void shouldGiveTheSameReplayerStateThroughThePipelineAsOnTheReadingThread()
    {
        for (final Map.Entry<String, Path> journal : JOURNALS.entrySet())
        {
            final Replayer direct = new Replayer();
            read(journal.getValue(), direct);
            final Replayer piped = new Replayer();
            try (DocumentPipeline pipeline = new DocumentPipeline(piped, "test-replay"))
            {
                read(journal.getValue(), pipeline);
                pipeline.finish();
            }
            final String name = journal.getKey();
            assertEquals(direct.documents(), piped.documents(), name);
            assertEquals(direct.applied(), piped.applied(), name);
            assertEquals(direct.stateHash(), piped.stateHash(), name);
            if (null == direct.divergence())
            {
                assertNull(piped.divergence(), name);
            }
            else
            {
                assertEquals(direct.divergence().describe(), piped.divergence().describe(), name);
                assertEquals(direct.divergence().input(), piped.divergence().input(), name);
            }
        }
    }

    private static void read(final Path journal, final io.kvledger.journal.JournalListener listener)
    {
        final ReadOutcome outcome = JournalReader.open(journal).read(listener);
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());
    }

    private static long documents(final Path journal)
    {
        final long[] count = new long[1];
        read(journal, (input, resultCode, effects, position) -> count[0]++);
        return count[0];
    }

    private static <T> T withThreads(final String threads, final Supplier<T> call)
    {
        return withProperty(THREADS, threads, call);
    }

    private static <T> T withProperty(final String property, final String threads, final Supplier<T> call)
    {
        final String before = System.getProperty(property);
        System.setProperty(property, threads);
        try
        {
            return call.get();
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(property);
            }
            else
            {
                System.setProperty(property, before);
            }
        }
    }
}
