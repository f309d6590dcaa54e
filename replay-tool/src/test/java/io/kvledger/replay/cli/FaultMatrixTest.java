package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import io.kvledger.replay.check.LivenessMonitor;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault matrix: for every fault switch, the explorer finds it within a small fixed seed budget with the
 * invariant (or progress rule) it breaks; for an invariant, {@code check} names it at the explorer's first bad
 * document (not later) and the shrinker cuts it to at most 40 inputs; a progress finding the shrinker can reduce
 * (L1, L2, L3, L5) is cut to a reproducer that still shows the same rule (at most 40 inputs, L1 its passes more).
 * Switches added later need one line in {@link #EXPECTED}; the test says so when one is missing.
 */
class FaultMatrixTest
{
    /** Seeds tried per switch (from seed 1); the README's matrix says how many each needs. */
    static final int SEED_BUDGET = 20;
    /** Most inputs a shrunk reproducer may keep. */
    static final int MAX_REPRODUCER = 40;

    /**
     * What each switch must be caught as, by name (switches from other branches included): invariants I1-I20 from
     * the checker, L1-L5 from the progress rules.
     */
    static final Map<String, Set<String>> EXPECTED = Map.ofEntries(
        Map.entry("RESERVE_REQUEST_SLOT_ONLY", Set.of("I18")),
        Map.entry("FREE_ON_RETRACT_WITH_QUEUED_LOAD", Set.of("I13")),
        Map.entry("SKIP_CURSOR_RESET_ON_STAGED_LOAD", Set.of("I17")),
        Map.entry("DOUBLE_FREE_ON_ABORT", Set.of("I12")),
        Map.entry("LEAK_STAGING_ON_DROP", Set.of("I9")),
        Map.entry("UNLOCK_TWICE_ON_FINISH", Set.of("I5")),
        Map.entry("EVICT_NODE_WITH_INFLIGHT_LOAD", Set.of("I7")),
        Map.entry("FREE_REDUNDANT_SLOT_AT_QUEUE", Set.of("I13", "I15")),
        Map.entry("COW_FROM_LOADING_CHECKPOINT", Set.of("I14")),
        Map.entry("PARKED_HIT_NEVER_SERVED", Set.of("L1 parked-hit-starved", "L4 no-progress")),
        Map.entry("BACKUP_CACHED_PAGES", Set.of("L2 backup-repeated")),
        Map.entry("OVERSIZE_BACKUP_BLOCKS", Set.of("L5 backlog-stuck", "L4 no-progress")));

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(FaultSwitch.class)
    void shouldFindEverySwitchNameItAtItsFirstBadDocumentAndShrinkIt(final FaultSwitch fault)
    {
        final Set<String> expected = EXPECTED.get(fault.name());
        assertNotNull(expected, "new fault switch " + fault.name() + ": add what it breaks to " +
            "FaultMatrixTest.EXPECTED and its row to the README's matrix");
        final long mask = 1L << fault.bit();

        Explorer.Outcome found = null;
        final List<String> seen = new ArrayList<>();
        for (long seed = 1; seed <= SEED_BUDGET && found == null; seed++)
        {
            final Explorer.Outcome o = Explorer.run(seed, Explorer.configure(seed, mask), null);
            seen.add(seed + ":" + (o.clean() ? "clean" : o.rule));
            if (!o.clean() && expected.contains(o.rule))
            {
                found = o;
            }
        }
        assertNotNull(found, fault.name() + " not found as " + expected + " in " + SEED_BUDGET + " seeds: " + seen);
        if (found.violation == null && !Shrinker.SHRINKABLE_RULES.contains(found.rule))
        {
            System.out.println("matrix " + fault.name() + ": seed " + found.seed + " " + found.rule + " at #" +
                found.sequence + " (not shrinkable)");
            return;
        }

        // The journal of that seed: check names the same invariant at the same document.
        final Path journal = dir.resolve("journal");
        final List<Shrinker.Step> steps = new ArrayList<>();
        final JournalHeader header = Explorer.header(found.config, "fault matrix " + fault.name());
        try (JournalWriter writer = JournalWriter.open(journal, header, false))
        {
            final Explorer.Outcome again = Explorer.run(found.seed, found.config, (in, resultCode, effects) ->
            {
                writer.append(in, resultCode, effects);
                steps.add(Shrinker.Step.copyOf(in, effects));
            });
            assertEquals(found.rule, again.rule, "the same seed finds the same thing again");
            assertEquals(found.sequence, again.sequence);
        }
        if (found.violation == null)
        {
            shrinkProgressFinding(fault, found, header, steps);
            return;
        }
        final JsonNode check = kvledger("check", journal, "--json").exits(1).json();
        final JsonNode first = check.get("violations").get(0);
        assertEquals(found.rule, first.get("invariant").asText(), check.toString());
        assertEquals(found.sequence, first.get("seq").asLong(), "check names it at its first bad document");

        // And the shrinker cuts it to a small reproducer that still breaks it.
        final Shrinker shrinker = new Shrinker(header, steps, found.violation.invariant(), 3_000, 60_000_000_000L);
        final Shrinker.Result result = shrinker.shrink();
        assertTrue(result.kept().length <= MAX_REPRODUCER, fault.name() + " shrank only to " + result.kept().length +
            " inputs");
        System.out.println("matrix " + fault.name() + ": seed " + found.seed + " " + found.rule + " at #" +
            found.sequence + ", shrunk " + steps.size() + " -> " + result.kept().length + " inputs");
        final Shrinker.Execution reproduced = shrinker.execute(result.kept(), null, 0);
        assertNotNull(reproduced.violation());
        assertEquals(found.violation.invariant(), reproduced.violation().invariant());
    }

    /**
     * A progress finding shrinks too, to at most {@link #MAX_REPRODUCER} inputs on which the monitor reports the same
     * rule (L1 needs {@link LivenessMonitor#STARVED_PASSES} passes, one PASS_END each, of them).
     */
    private static void shrinkProgressFinding(final FaultSwitch fault, final Explorer.Outcome found,
        final JournalHeader header, final List<Shrinker.Step> steps)
    {
        final Shrinker shrinker = new Shrinker(header, steps, found.rule, 20_000, 60_000_000_000L);
        final Shrinker.Result result = shrinker.shrink();
        final int bound = MAX_REPRODUCER;
        System.out.println("matrix " + fault.name() + ": seed " + found.seed + " " + found.rule + " at #" +
            found.sequence + ", shrunk " + steps.size() + " -> " + result.kept().length + " inputs");
        assertTrue(result.kept().length <= bound, fault.name() + " shrank only to " + result.kept().length +
            " inputs");
        final Shrinker.Execution reproduced = shrinker.execute(result.kept(), null, 0);
        assertNotNull(reproduced.finding());
        assertEquals(found.rule, reproduced.finding().rule());
        assertEquals(result.kept().length, reproduced.length());
    }
}
