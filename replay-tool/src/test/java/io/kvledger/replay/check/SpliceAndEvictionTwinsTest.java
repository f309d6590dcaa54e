package io.kvledger.replay.check;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;

import static io.kvledger.journal.codec.SlotState.NODE;
import static io.kvledger.replay.check.CheckAssertions.assertClean;
import static io.kvledger.replay.check.CheckAssertions.assertFirst;
import static io.kvledger.replay.check.JournalFixture.KV;
import static io.kvledger.replay.check.JournalFixture.MAMBA;
import static io.kvledger.replay.check.Scenarios.LOAD;
import static io.kvledger.replay.check.Scenarios.N;
import static io.kvledger.replay.check.Scenarios.NODE1;
import static io.kvledger.replay.check.Scenarios.NODE2;
import static io.kvledger.replay.check.Scenarios.R1;
import static io.kvledger.replay.check.Scenarios.TRACK;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bug/clean twins for I11 ({@link SpliceRule}: a load splices its staged hold whole and the tree slice it fills is
 * exactly its destinations) and I6 ({@link EvictionRule}: evictions take a node holding the component's data and
 * release it, and a TICK that got fewer pages than it asked leaves no unlocked leaf). Each bug journal differs from
 * its clean twin in the effects that break the invariant.
 */
class SpliceAndEvictionTwinsTest
{
    /**
     * {@link Scenarios#admit} with the load's second KV destination and the reported prefix as parameters: node 1
     * owns KV 0 and 1, the request KV 2; the hold is pages 0..2.
     */
    private static long admit(final JournalFixture f, final int secondKvWritten, final int prefix)
    {
        return Scenarios.admit(f, true, secondKvWritten, prefix).sequence();
    }

    @Test
    void shouldAcceptALoadWhoseTreeSliceIsItsDestinations()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        admit(f, 1, 2);
        Scenarios.launch(f);
        Scenarios.ack(f);

        assertClean(f.check());
    }

    @Test
    void shouldReportI11WhenTheTreeSlicePointsToPagesTheLoadDoesNotWrite()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        final long admit = admit(f, 2, 2);

        final Violation first = assertFirst(f.check(), Invariant.I11, admit, "op:" + LOAD);
        assertTrue(first.explanation().contains("owns [0 1] but LOAD 102 writes [0 2]"), first.explanation());
    }

    @Test
    void shouldReportI11WhenTheSpliceCutsTheHoldsTail()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        final long admit = admit(f, 1, 1);

        final Violation first = assertFirst(f.check(), Invariant.I11, admit, "request:" + R1);
        assertTrue(first.explanation().contains("cuts the hold's tail"), first.explanation());
    }

    @Test
    void shouldAcceptATickThatEvictsTheUnlockedLeaf()
    {
        final JournalFixture f = Scenarios.fullPath();
        f.doc(InputType.TICK).evictPages(1)
            .evicted(NODE2, Component.FULL).free(KV, 2, NODE, NODE2).free(MAMBA, TRACK, NODE, NODE2)
            .deleted(NODE2);

        assertClean(f.check());
    }

    @Test
    void shouldReportI6WhenATickLeavesAnUnlockedLeafUnevicted()
    {
        final JournalFixture f = Scenarios.fullPath();
        final long tick = f.doc(InputType.TICK).evictPages(1).sequence();

        final Violation first = assertFirst(f.check(), Invariant.I6, tick, "node:" + NODE2);
        assertTrue(first.explanation().contains("evicted 0, yet node 2 (1 pages) is an unlocked leaf"),
            first.explanation());
    }

    @Test
    void shouldAcceptATickThatFindsEveryPageLocked()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        f.doc(InputType.TICK).evictPages(4);

        assertClean(f.check());
    }

    @Test
    void shouldAcceptAMambaEvictionThatReleasesTheState()
    {
        final JournalFixture f = Scenarios.fullPath();
        f.doc(InputType.TICK).evicted(NODE1, Component.MAMBA).free(MAMBA, N, NODE, NODE1);

        assertClean(f.check());
    }

    @Test
    void shouldReportI6WhenAMambaEvictionKeepsTheState()
    {
        final JournalFixture f = Scenarios.fullPath();
        final long tick = f.doc(InputType.TICK).evicted(NODE1, Component.MAMBA).sequence();

        final Violation first = assertFirst(f.check(), Invariant.I6, tick, "node:" + NODE1);
        assertTrue(first.explanation().contains("left it owning its device Mamba slot"), first.explanation());
    }

    @Test
    void shouldReportI6WhenAMambaEvictionNamesANodeWithoutAState()
    {
        final JournalFixture f = Scenarios.fullPath();
        f.doc(InputType.TICK).evicted(NODE1, Component.MAMBA).free(MAMBA, N, NODE, NODE1);
        final long again = f.doc(InputType.TICK).evicted(NODE1, Component.MAMBA).sequence();

        final Violation first = assertFirst(f.check(), Invariant.I6, again, "node:" + NODE1);
        assertTrue(first.explanation().contains("owns no device Mamba slot"), first.explanation());
    }

    @Test
    void shouldReportI6WhenAFullEvictionLeavesTheNodeInTheTree()
    {
        final JournalFixture f = Scenarios.fullPath();
        final long tick = f.doc(InputType.TICK).evictPages(1).evicted(NODE2, Component.FULL).sequence();

        final Violation first = assertFirst(f.check(), Invariant.I6, tick, "node:" + NODE2);
        assertTrue(first.explanation().contains("left it in the tree"), first.explanation());
    }
}
