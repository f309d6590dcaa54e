package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvledger replay}: real journals replay identically; tampered effects, result codes and a fixed
 * configuration show up as the first divergence.
 */
class ReplayCommandTest extends CleanAndBuggyJournals
{
    private static final Pattern IDENTICAL = Pattern.compile("identical: (\\d+) documents, stateHash (0x[0-9a-f]{16})");


    @Test
    void shouldReplayACleanJournalIdentically()
    {
        final CliRun text = kvledger("replay", clean).exits(0);
        final Matcher identical = IDENTICAL.matcher(text.firstLine());
        assertTrue(identical.matches(), text.out());
        assertEquals(1, text.lines().size());

        final JsonNode json = kvledger("replay", clean, "--json").exits(0).json();
        assertEquals(List.of("documents", "identical", "stateHash", "divergence"), CliRun.fieldNames(json));
        assertEquals(Long.parseLong(identical.group(1)), json.get("documents").asLong());
        assertTrue(json.get("identical").asBoolean());
        assertEquals(identical.group(2), json.get("stateHash").asText());
        assertTrue(json.get("divergence").isNull());
    }

    @Test
    void shouldReplayTheBuggyJournalWithItsOwnFaultSwitches()
    {
        final CliRun run = kvledger("replay", buggy).exits(0);

        assertTrue(IDENTICAL.matcher(run.firstLine()).matches(), run.out());
    }

    @Test
    void shouldReportTheFirstDifferingEffect()
    {
        final Path tampered = CliJournals.rewrite(clean, dir.resolve("dropped-effect"), h -> h, 5,
            (input, result, effects) ->
            {
                final int last = effects.size() - 1;
                effects.value1(last, effects.value1(last) + 1000);
                return result;
            });

        final CliRun text = kvledger("replay", tampered).exits(1);
        assertTrue(text.firstLine().startsWith("divergence at document #5 ("), text.out());
        assertTrue(text.firstLine().contains("): effect "), text.out());
        assertTrue(text.firstLine().contains(": recorded "), text.out());
        assertTrue(text.firstLine().contains(" / replayed "), text.out());
        assertTrue(text.lines().get(1).startsWith("    input: #5 t="), text.out());

        final JsonNode json = kvledger("replay", tampered, "--json").exits(1).json();
        assertFalse(json.get("identical").asBoolean());
        final JsonNode divergence = json.get("divergence");
        assertEquals(List.of("seq", "inputType", "input", "kind", "effectIndex", "recorded", "replayed"),
            CliRun.fieldNames(divergence));
        assertEquals(5, divergence.get("seq").asLong());
        assertEquals("effect", divergence.get("kind").asText());
        assertTrue(divergence.get("effectIndex").asInt() >= 0);
        assertFalse(divergence.get("recorded").asText().equals(divergence.get("replayed").asText()));
    }

    @Test
    void shouldReportAMissingEffect()
    {
        final Path tampered = CliJournals.rewrite(clean, dir.resolve("missing-effect"), h -> h, 1,
            (input, result, effects) ->
            {
                effects.clear();
                return result;
            });

        final JsonNode divergence = kvledger("replay", tampered, "--json").exits(1).json().get("divergence");

        assertEquals(1, divergence.get("seq").asLong());
        assertEquals(0, divergence.get("effectIndex").asInt());
        assertEquals("(none)", divergence.get("recorded").asText());
    }

    @Test
    void shouldReportADifferentResultCode()
    {
        final Path tampered = CliJournals.rewrite(clean, dir.resolve("result"), h -> h, 3,
            (input, result, effects) -> ResultCode.UNKNOWN_OP);

        final CliRun run = kvledger("replay", tampered).exits(1);

        assertTrue(run.firstLine().startsWith("divergence at document #3 ("), run.out());
        assertTrue(run.firstLine().contains("): result code: recorded UNKNOWN_OP (-4001) / replayed "),
            run.out());
    }

    @Test
    void shouldShowWhatAFixChangesWhenTheFaultSwitchIsTurnedOff()
    {
        final Path fixed = CliJournals.rewrite(buggy, dir.resolve("fixed"), h -> h.faultMask(0), 0, null);

        final JsonNode divergence = kvledger("replay", fixed, "--json").exits(1).json().get("divergence");

        assertEquals(InputType.RETRACT.name(), divergence.get("inputType").asText(), divergence.toString());
    }
}
