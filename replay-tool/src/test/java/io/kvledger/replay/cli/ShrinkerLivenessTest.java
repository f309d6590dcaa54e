package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.SimulatedPort;
import io.kvledger.engine.sim.Workload;
import io.kvledger.journal.JournalHeader;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The end-of-run choice of the shrinker for {@code L3 not-quiescent}: any prefix of a run leaves something in flight,
 * so the reproducer must leave the same request in the same state and keep the last input the original gave it;
 * otherwise one ARRIVE of any request would do.
 */
class ShrinkerLivenessTest
{
    @Test
    void shouldKeepTheSameStuckRequestAndItsLastInputWhenShrinkingNotQuiescent()
    {
        final EngineConfig config = CliJournals.config();
        final JournalHeader header = config.toHeader(new JournalHeader()).label("l3");
        final List<Shrinker.Step> whole = new ArrayList<>();
        final SimulatedPort port = new SimulatedPort(new CacheStateMachine(config),
            (in, resultCode, effects) -> whole.add(Shrinker.Step.copyOf(in, effects)), CliJournals.SEED, 0, null);
        new ServingLoop(port, config, Workload.build(CliJournals.workload(0))).run();
        // Cut the clean run in its middle: requests are left running, as a run that forgot to end them would.
        final List<Shrinker.Step> cut = whole.subList(0, whole.size() / 2);
        final int[] all = new int[cut.size()];
        Arrays.setAll(all, i -> i);

        final Shrinker shrinker = new Shrinker(header, cut, "L3 not-quiescent", 20_000, 60_000_000_000L);
        final Shrinker.Execution original = shrinker.execute(all, null, 0);
        assertNotNull(original.stuck(), "the cut run is not quiescent");
        assertEquals("request", original.stuck().what());
        final Shrinker.Result result = shrinker.shrink();
        final Shrinker.Execution reproduced = shrinker.execute(result.kept(), null, 0);

        assertNotNull(reproduced.finding());
        assertEquals("L3 not-quiescent", reproduced.finding().rule());
        assertEquals(original.stuck(), reproduced.stuck(), "the same request, in the same state, is the one left");
        int last = -1;
        for (int i = 0; i < cut.size(); i++)
        {
            last = cut.get(i).input().request() == original.stuck().id() ? i : last;
        }
        assertTrue(Arrays.binarySearch(result.kept(), last) >= 0, "the request's last input is kept");
        assertTrue(result.kept().length >= 2 && result.kept().length * 10 < cut.size(),
            result.kept().length + " of " + cut.size());
    }

    @Test
    void shouldNotShowAnEndOfRunRuleOnAQuiescentRunNorAcceptARuleItCannotShrink()
    {
        final EngineConfig config = CliJournals.config();
        final JournalHeader header = config.toHeader(new JournalHeader()).label("clean");
        final List<Shrinker.Step> whole = new ArrayList<>();
        final SimulatedPort port = new SimulatedPort(new CacheStateMachine(config),
            (in, resultCode, effects) -> whole.add(Shrinker.Step.copyOf(in, effects)), CliJournals.SEED, 0, null);
        new ServingLoop(port, config, Workload.build(CliJournals.workload(0))).run();
        final int[] all = new int[whole.size()];
        Arrays.setAll(all, i -> i);

        for (final String rule : Shrinker.SHRINKABLE_RULES)
        {
            final Shrinker.Execution execution = new Shrinker(header, whole, rule, 1, 1).execute(all, null, 0);
            assertEquals(0, execution.length(), rule);
            assertNull(execution.finding(), rule);
        }
        assertThrows(IllegalArgumentException.class, () -> new Shrinker(header, whole, "L4 no-progress", 1, 1));
    }
}
