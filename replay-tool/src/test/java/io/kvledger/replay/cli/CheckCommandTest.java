package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvledger check} on real journals written by the simulation: a clean run and the retract bug.
 */
class CheckCommandTest extends CleanAndBuggyJournals
{
    /** The fields of a check report in JSON, in order. */
    private static final List<String> CHECK_FIELDS =
        List.of("documents", "checkedDocuments", "stopped", "clean", "violations");

    private static final Pattern DIRTY = Pattern.compile(
        "journal: (\\d+) documents, (\\d+) violations? \\(first: #(\\d+) I13 (DEVICE_MAMBA:\\d+)\\)");


    /**
     * {@code --invariants} lists the table and reads no journal: given with a JOURNAL (or with --html or --fail-fast,
     * which only apply to a journal) it used to print the table and exit 0, so a journal with violations passed.
     */
    @Test
    void shouldRefuseInvariantsTogetherWithAJournal()
    {
        final String line = kvledger("check", buggy, "--invariants").failsWithOneLine();
        assertTrue(line.contains("--invariants") && line.contains("JOURNAL"), line);
        assertTrue(kvledger("check", "--invariants", "--json", clean).failsWithOneLine().contains("--invariants"));
        assertTrue(kvledger("check", "--invariants", "--fail-fast").failsWithOneLine().contains("--fail-fast"));
        assertTrue(kvledger("check", "--invariants", "--html", dir.resolve("never.html")).failsWithOneLine()
            .contains("--html"));
        assertFalse(Files.exists(dir.resolve("never.html")));
        kvledger("check", "--invariants").exits(0);
    }

    @Test
    void shouldReportACleanJournalAsCleanWithExitZero()
    {
        final CliRun run = kvledger("check", clean).exits(0);

        assertTrue(run.firstLine().matches("journal: \\d+ documents, clean"), run.out());
        assertTrue(run.lines().get(1).matches("checked \\d+ documents of clean: clean"), run.out());
        assertEquals(2, run.lines().size(), run.out());
        assertEquals("", run.err());
    }

    @Test
    void shouldReportACleanJournalAsCleanJson()
    {
        final JsonNode json = kvledger("check", clean, "--json").exits(0).json();

        assertEquals(CHECK_FIELDS, CliRun.fieldNames(json));
        assertTrue(json.get("documents").asLong() > 100, json.toString());
        assertTrue(json.get("clean").asBoolean());
        assertEquals(0, json.get("violations").size());
    }

    @Test
    void shouldNameTheFirstViolationOfTheRetractBugWithItsHistory()
    {
        final CliRun run = kvledger("check", buggy).exits(1);

        final Matcher first = DIRTY.matcher(run.firstLine());
        assertTrue(first.matches(), run.firstLine());
        final String sequence = first.group(3);
        final String slot = first.group(4);
        assertTrue(run.out().contains("\n#" + sequence + " I13 " + slot + " freed while LOAD "), run.out());
        assertTrue(run.out().contains("SLOT_TRANSITION " + slot + " FREE -> REQUEST("), run.out());
        assertTrue(run.out().contains("OP_TARGET op="), run.out());
        assertEquals("", run.err());
    }

    /**
     * A fetch's staging handed to another request than the one that owns the fetch changes the slot's owner at that
     * document: check used to accept it (request 18 had arrived, so it was a valid owner) and named only the later
     * document whose transition found the slot with the wrong owner.
     */
    @Test
    void shouldNameTheFetchThatHandsItsStagingToAnotherRequest()
    {
        final long[] edited = {-1};
        final Path tampered = CliJournals.rewriteEvery(clean, dir.resolve("wrong-hold"), h -> h,
            (input, result, effects) ->
            {
                if (edited[0] < 0 && input.type() == InputType.FETCH_DONE)
                {
                    for (int i = 0; i < effects.size(); i++)
                    {
                        if (effects.type(i) == EffectType.SLOT_TRANSITION && effects.pool(i) == Pool.HOST_KV &&
                            effects.toState(i) == SlotState.REQUEST)
                        {
                            effects.owner(i, effects.owner(i) + 1);
                            edited[0] = input.sequence();
                            break;
                        }
                    }
                }
                return result;
            }, Long.MAX_VALUE);
        assertTrue(edited[0] > 0, "a FETCH_DONE handing host staging to its request");

        final JsonNode first = kvledger("check", tampered, "--json").exits(1).json().get("violations").get(0);

        assertEquals(edited[0], first.get("seq").asLong(), first.toString());
        assertEquals("I9", first.get("invariant").asText(), first.toString());
        assertTrue(first.get("explanation").asText().contains(" to request "), first.toString());
    }

    @Test
    void shouldRenderViolationsAsJsonWithTheirFields()
    {
        final CliRun text = kvledger("check", buggy).exits(1);
        final JsonNode json = kvledger("check", buggy, "--json").exits(1).json();

        assertEquals(CHECK_FIELDS, CliRun.fieldNames(json));
        assertFalse(json.get("clean").asBoolean());
        final Matcher first = DIRTY.matcher(text.firstLine());
        assertTrue(first.matches(), text.firstLine());
        assertEquals(Long.parseLong(first.group(1)), json.get("documents").asLong());
        assertEquals(Long.parseLong(first.group(2)), json.get("violations").size());

        final JsonNode violation = json.get("violations").get(0);
        assertEquals(List.of("seq", "invariant", "pool", "id", "explanation", "history"),
            CliRun.fieldNames(violation));
        assertEquals(Long.parseLong(first.group(3)), violation.get("seq").asLong());
        assertEquals("I13", violation.get("invariant").asText());
        assertEquals(first.group(4), violation.get("pool").asText() + ":" + violation.get("id").asLong());
        assertTrue(violation.get("explanation").asText().startsWith("freed while LOAD"), violation.toString());
        assertTrue(violation.get("history").size() > 2, violation.toString());
        assertEquals(List.of("seq", "effect"), CliRun.fieldNames(violation.get("history").get(0)));
    }

    @Test
    void shouldWriteASelfContainedHtmlReportWithAnSvgTimeline() throws IOException
    {
        final Path html = dir.resolve("report.html");

        final CliRun run = kvledger("check", buggy, "--html", html).exits(1);

        assertTrue(run.out().endsWith("html report written to " + html + "\n"), run.out());
        final String page = Files.readString(html, StandardCharsets.UTF_8);
        assertTrue(page.startsWith("<!DOCTYPE html>"), page);
        assertTrue(page.contains("<svg"), page);
        assertTrue(page.contains("I13"), page);
        assertFalse(page.contains("<script"), page);
    }

    @Test
    void shouldKeepStdoutPureJsonWhenWritingHtmlToo() throws IOException
    {
        final Path html = dir.resolve("clean.html");

        final CliRun run = kvledger("check", clean, "--json", "--html", html).exits(0);

        assertTrue(run.json().get("clean").asBoolean());
        assertEquals("html report written to " + html + "\n", run.err());
        assertTrue(Files.readString(html, StandardCharsets.UTF_8).contains("<svg"));
    }

    @Test
    void shouldStopAtTheFirstViolatingDocumentWithFailFast()
    {
        final JsonNode all = kvledger("check", buggy, "--json").exits(1).json();
        final long firstSequence = all.get("violations").get(0).get("seq").asLong();

        final JsonNode json = kvledger("check", buggy, "--json", "--fail-fast").exits(1).json();
        assertEquals(all.get("documents").asLong(), json.get("documents").asLong(), "the journal's documents");
        assertEquals(firstSequence, json.get("checkedDocuments").asLong());
        assertTrue(json.get("stopped").asBoolean());
        assertEquals(firstSequence, json.get("stoppedAfter").asLong());
        assertFalse(all.get("stopped").asBoolean());
        assertEquals(all.get("documents").asLong(), all.get("checkedDocuments").asLong());
        for (final JsonNode violation : json.get("violations"))
        {
            assertEquals(firstSequence, violation.get("seq").asLong(), json.toString());
        }

        final CliRun text = kvledger("check", buggy, "--fail-fast").exits(1);
        assertTrue(text.firstLine().endsWith("; stopped after document #" + firstSequence + " (--fail-fast)"),
            text.firstLine());
    }

    @Test
    void shouldFailWithOneLineWhenTheHtmlFileCannotBeWritten()
    {
        final String error = kvledger("check", clean, "--html", dir.resolve("missing/report.html"))
            .failsWithOneLine();

        assertTrue(error.startsWith("kvledger: cannot write the html report "), error);
    }
}
