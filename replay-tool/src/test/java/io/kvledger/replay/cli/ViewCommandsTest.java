package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvledger timeline}, {@code inspect}, {@code stats}, {@code dump} and {@code faults} on real journals,
 * text and JSON.
 */
class ViewCommandsTest extends CleanAndBuggyJournals
{
    static long cleanDocuments;
    static JsonNode firstViolation;

    @BeforeAll
    static void checkJournals()
    {
        cleanDocuments = kvledger("check", clean, "--json").exits(0).json().get("documents").asLong();
        firstViolation = kvledger("check", buggy, "--json").exits(1).json().get("violations").get(0);
    }

    // ---------------------------------------------------------------------------------------------- timeline

    /** A journal of its header alone: 0 documents and no sequence range (it printed '(#-1 .. #-1)'). */
    @Test
    void shouldPrintTheStatsOfAHeaderOnlyJournalWithoutARange()
    {
        final Path headerOnly = dir.resolve("header-only");
        JournalWriter.open(headerOnly, CliJournals.config().toHeader(new JournalHeader()).label("empty"), false)
            .close();

        final String first = kvledger("stats", headerOnly).exits(0).firstLine();

        assertTrue(first.startsWith("journal 'empty': 0 documents, 0 effects, "), first);
    }

    @Test
    void shouldShowTheOwnersOfTheViolatedSlotOverTime()
    {
        final String slot = "mamba:" + firstViolation.get("id").asLong();
        final String subject = "DEVICE_MAMBA:" + firstViolation.get("id").asLong();

        final CliRun run = kvledger("timeline", buggy, "--slot", slot).exits(0);

        assertTrue(run.firstLine().matches("timeline of " + subject + ": \\d+ effects"), run.out());
        assertTrue(run.out().contains("\n#" + firstViolation.get("seq").asLong() + " SLOT_TRANSITION " + subject +
            " REQUEST("), run.out());
        assertTrue(run.lines().stream().skip(1).allMatch(line -> line.matches("#\\d+ .+ => .+")), run.out());
    }

    @Test
    void shouldFollowTheRequestAViolationNamesOverTime()
    {
        final long request = firstViolation.get("history").findValues("effect").stream()
            .map(JsonNode::asText).filter(text -> text.contains("REQUEST("))
            .map(text -> Long.parseLong(text.replaceAll(".*REQUEST\\((\\d+)\\).*", "$1"))).findFirst().orElseThrow();

        final CliRun run = kvledger("timeline", buggy, "--slot", "request:" + request).exits(0);

        assertTrue(run.firstLine().matches("timeline of request:" + request + ": \\d+ effects"), run.out());
        assertTrue(run.out().contains(" REQUEST_STATE req=" + request + " ? -> WAITING => "), run.out());
        assertTrue(run.out().contains("(" + request + ")"), "the slots it took: " + run.out());
    }

    @Test
    void shouldShowTheRequestStateAfterEachOfItsStateChanges()
    {
        // request 1 of the clean run arrives, waits, is admitted, runs and finishes: each REQUEST_STATE line's
        // state after the effect is the state it moved to, and the last line says FINISHED, not RUNNING
        final CliRun run = kvledger("timeline", clean, "--slot", "request:1").exits(0);

        final List<String> moves = run.lines().stream().filter(line -> line.contains(" REQUEST_STATE ")).toList();
        assertTrue(moves.size() >= 3, run.out());
        for (final String line : moves)
        {
            final String to = line.replaceAll(".* -> (\\S+) => .*", "$1");
            assertTrue(line.endsWith(" => " + to), "state after " + line);
        }
        assertTrue(run.lines().get(run.lines().size() - 1).endsWith(" -> FINISHED => FINISHED"), run.out());

        final JsonNode json = kvledger("timeline", clean, "--slot", "request:1", "--json").exits(0).json();
        final JsonNode entries = json.get("entries");
        assertEquals("FINISHED", entries.get(entries.size() - 1).get("ownerAfter").asText(), json.toString());
    }

    @Test
    void shouldShowATimelineAsJson()
    {
        final JsonNode json = kvledger("timeline", clean, "--slot", "kv:0", "--json").exits(0).json();

        assertEquals(List.of("subject", "entries"), CliRun.fieldNames(json));
        assertEquals("DEVICE_KV:0", json.get("subject").asText());
        assertTrue(json.get("entries").size() > 0, json.toString());
        assertEquals(List.of("seq", "effect", "ownerAfter"), CliRun.fieldNames(json.get("entries").get(0)));
    }

    @ParameterizedTest
    @CsvSource({"mamba:1,DEVICE_MAMBA:1", "kv:3,DEVICE_KV:3", "host-kv:1,HOST_KV:1", "host-mamba:0,HOST_MAMBA:0",
        "DEVICE_MAMBA:2,DEVICE_MAMBA:2", "node:1,node:1", "request:1,request:1"})
    void shouldAcceptEverySlotSpelling(final String spec, final String subject)
    {
        final JsonNode json = kvledger("timeline", clean, "--slot", spec, "--json").exits(0).json();

        assertEquals(subject, json.get("subject").asText());
    }

    @ParameterizedTest
    @CsvSource({"gpu:1", "mamba", "mamba:x", "mamba:-1", "mamba:100000", "request:100000", "node:100000"})
    void shouldRefuseABadSlotWithOneLine(final String spec)
    {
        final String error = kvledger("timeline", clean, "--slot", spec).failsWithOneLine();

        assertTrue(error.startsWith("kvledger: bad --slot: "), error);
    }

    // ----------------------------------------------------------------------------------------------- inspect

    @Test
    void shouldInspectTheStateAfterADocument()
    {
        final CliRun run = kvledger("inspect", clean, "--at", 10).exits(0);

        assertEquals("state after #10 (10 documents, asked for #10)", run.firstLine());
        assertTrue(run.lines().get(1).startsWith("tree: "), run.out());
        assertTrue(run.out().contains("\npools:\n  DEVICE_KV "), run.out());
        assertTrue(run.out().contains("\nin-flight ops: "), run.out());
        assertTrue(run.out().contains("\nrequests: "), run.out());
    }

    @Test
    void shouldInspectAsJson()
    {
        final JsonNode json = kvledger("inspect", buggy, "--at", firstViolation.get("seq").asLong(), "--json")
            .exits(0).json();

        assertEquals(List.of("at", "appliedSequence", "documents", "tree", "pools", "ops", "requests", "violations"),
            CliRun.fieldNames(json));
        assertEquals(firstViolation.get("seq").asLong(), json.get("appliedSequence").asLong());
        assertEquals(4, json.get("pools").size());
        assertTrue(json.get("ops").size() > 0, json.toString());
        assertEquals(1, json.get("violations").asInt(), json.toString());
    }

    @Test
    void shouldInspectTheEndOfTheJournalByDefault()
    {
        final JsonNode json = kvledger("inspect", clean, "--json").exits(0).json();

        assertEquals(cleanDocuments, json.get("appliedSequence").asLong());
        assertEquals(cleanDocuments, json.get("at").asLong(), "the end of the journal, not an internal placeholder");
        assertEquals(0, json.get("ops").size(), "a drained run has no operation in flight");
    }

    @Test
    void shouldInspectTheStateBeforeTheFirstDocument()
    {
        final CliRun run = kvledger("inspect", clean, "--at", 0).exits(0);

        assertEquals("state before the first document (0 documents, asked for #0)", run.firstLine());
        assertTrue(run.out().contains("\nrequests: 0\n"), run.out());
    }

    @Test
    void shouldRefuseASequencePastTheEnd()
    {
        final String error = kvledger("inspect", clean, "--at", cleanDocuments + 1).failsWithOneLine();

        assertEquals("kvledger: --at " + (cleanDocuments + 1) + ": the journal ends at document #" + cleanDocuments,
            error);
    }

    @Test
    void shouldRefuseADumpFromPastTheEndAsInspectDoes()
    {
        final long past = cleanDocuments + 1;

        assertEquals("kvledger: --from " + past + ": the journal ends at document #" + cleanDocuments,
            kvledger("dump", clean, "--from", past).failsWithOneLine());
        assertEquals("kvledger: --from 1000000: the journal ends at document #" + cleanDocuments,
            kvledger("dump", clean, "--from", 1_000_000, "--json").failsWithOneLine());
        final CliRun last = kvledger("dump", clean, "--from", cleanDocuments).exits(0);
        assertTrue(last.firstLine().startsWith("kvledger: "), last.out());
        assertTrue(last.out().contains("\n#" + cleanDocuments + " "), last.out());
    }

    // ------------------------------------------------------------------------------------------------- stats

    @Test
    void shouldCountInputsEffectsAndHitRates()
    {
        final CliRun run = kvledger("stats", clean).exits(0);

        assertTrue(run.firstLine().startsWith("journal 'clean': " + cleanDocuments + " documents (#1 .. #" +
            cleanDocuments + "), "), run.out());
        assertTrue(run.out().contains("\ninputs:\n  ARRIVE "), run.out());
        assertTrue(run.out().contains("\nhit rate "), run.out());
        assertTrue(run.out().contains("\ndefers "), run.out());
    }

    @Test
    void shouldCountAsJson()
    {
        final JsonNode json = kvledger("stats", clean, "--json").exits(0).json();

        assertEquals(cleanDocuments, json.get("documents").asLong());
        assertEquals(24, json.get("inputs").get("ARRIVE").asInt(), json.toString());
        final double hitRate = json.get("hitRate").asDouble();
        assertTrue(hitRate > 0 && hitRate <= 1, json.toString());
        assertEquals(0, json.get("defers").get("total").asInt());
        assertTrue(json.get("durationNs").asLong() > 0);
    }

    // -------------------------------------------------------------------------------------------------- dump

    @Test
    void shouldDumpTheHeaderAndEveryDocument()
    {
        final CliRun run = kvledger("dump", clean).exits(0);

        assertEquals("kvledger: 0.1.0", run.firstLine());
        assertTrue(run.out().contains("\nlabel: clean\n"), run.out());
        assertTrue(run.out().contains("\nfaults: none\n"), run.out());
        assertTrue(run.out().contains("\n#1 t=0 ARRIVE req="), run.out());
        assertEquals(cleanDocuments, run.lines().stream().filter(line -> line.startsWith("#")).count());
    }

    @Test
    void shouldDumpARangeOfDocuments()
    {
        final CliRun run = kvledger("dump", buggy, "--from", 5, "--limit", 3).exits(0);

        final List<String> documents = run.lines().stream().filter(line -> line.startsWith("#")).toList();
        assertEquals(3, documents.size(), run.out());
        assertTrue(documents.get(0).startsWith("#5 "), run.out());
        assertTrue(documents.get(2).startsWith("#7 "), run.out());
        assertTrue(run.out().contains("\nfaults: FREE_ON_RETRACT_WITH_QUEUED_LOAD\n"), run.out());
    }

    @Test
    void shouldDumpJsonLinesOneDocumentEach()
    {
        final CliRun run = kvledger("dump", clean, "--from", 2, "--limit", 3, "--json").exits(0);

        final List<JsonNode> documents = jsonLines(run.out());
        assertEquals(3, documents.size(), run.out());
        for (int i = 0; i < 3; i++)
        {
            final JsonNode doc = documents.get(i);
            assertEquals(List.of("seq", "timestampNs", "type", "request", "op", "ok", "value1", "value2", "value3",
                "value4", "value5", "pages", "fingerprints", "result", "resultName", "effects"),
                CliRun.fieldNames(doc));
            assertEquals(2 + i, doc.get("seq").asLong());
        }
        final JsonNode effect = documents.get(0).get("effects").get(0);
        assertTrue(effect.has("type") && effect.has("text") && effect.has("id"), effect.toString());
    }

    @Test
    void shouldDumpTheWholeJournalAsJsonLines()
    {
        final List<JsonNode> documents = jsonLines(kvledger("dump", clean, "--json").exits(0).out());

        assertEquals(cleanDocuments, documents.size());
        assertEquals("ARRIVE", documents.get(0).get("type").asText());
        assertTrue(documents.get(0).get("pages").asInt() > 0);
        assertEquals(documents.get(0).get("pages").asInt(), documents.get(0).get("fingerprints").size());
    }

    // ------------------------------------------------------------------------------------------------ faults

    @Test
    void shouldListTheFaultSwitches()
    {
        final CliRun run = kvledger("faults").exits(0);

        assertEquals(FaultSwitch.all().length, run.lines().size(), run.out());
        for (int i = 0; i < FaultSwitch.all().length; i++)
        {
            final FaultSwitch fault = FaultSwitch.all()[i];
            final String line = run.lines().get(i);
            assertTrue(line.startsWith(fault.name() + "  "), line);
            assertTrue(line.endsWith(fault.description()), line);
        }
    }

    @Test
    void shouldListTheFaultSwitchesAsJson()
    {
        final JsonNode json = kvledger("faults", "--json").exits(0).json();

        assertEquals(FaultSwitch.all().length, json.size());
        assertEquals(List.of("name", "bit", "description"), CliRun.fieldNames(json.get(0)));
        assertEquals("FREE_ON_RETRACT_WITH_QUEUED_LOAD", json.get(1).get("name").asText());
        assertEquals(1, json.get(1).get("bit").asInt());
    }

    @Test
    void shouldDescribeNamedFaultsAndRefuseUnknownOnes()
    {
        final CliRun run = kvledger("faults", "free-on-retract-with-queued-load").exits(0);
        assertEquals(1, run.lines().size());
        assertTrue(run.firstLine().startsWith("FREE_ON_RETRACT_WITH_QUEUED_LOAD  "), run.out());

        final String error = kvledger("faults", "no-such-bug").failsWithOneLine();
        assertEquals("kvledger: unknown fault 'no-such-bug' (kvledger faults lists them)", error);
    }

    private static List<JsonNode> jsonLines(final String text)
    {
        final List<JsonNode> nodes = new ArrayList<>();
        for (final String line : text.split("\n"))
        {
            try
            {
                nodes.add(CliRun.MAPPER.readTree(line));
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("not a JSON line: " + line, ex);
            }
        }
        return nodes;
    }
}
