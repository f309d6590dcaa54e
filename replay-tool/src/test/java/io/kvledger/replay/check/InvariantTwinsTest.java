package io.kvledger.replay.check;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.api.Test;

import static io.kvledger.journal.codec.SlotState.NODE;
import static io.kvledger.journal.codec.SlotState.REQUEST;
import static io.kvledger.replay.check.CheckAssertions.assertClean;
import static io.kvledger.replay.check.CheckAssertions.assertFirst;
import static io.kvledger.replay.check.JournalFixture.KV;
import static io.kvledger.replay.check.JournalFixture.MAMBA;
import static io.kvledger.replay.check.Scenarios.NODE1;
import static io.kvledger.replay.check.Scenarios.NODE2;
import static io.kvledger.replay.check.Scenarios.R2;
import static io.kvledger.replay.check.Scenarios.TRACK;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bug/clean twins for the rules added with {@code kvledger explore} (I3, I4, I16; I15 is in
 * {@link InvariantCheckerBugTest}): each bug journal differs from its clean twin in the one effect that breaks the
 * invariant.
 */
class InvariantTwinsTest
{
    /** Request 2 arrives after request 1's whole path and is admitted on node 1 (2 pages) or node 2 (3 pages). */
    private static JournalFixture.Doc admitOnPrefix(final JournalFixture f, final long node, final int reported)
    {
        f.doc(InputType.ARRIVE).request(R2);
        return f.doc(InputType.ADMIT).request(R2)
            .reserved(R2, 1, 1)
            .alloc(MAMBA, 5, REQUEST, R2).reset(5).alloc(KV, 7, REQUEST, R2)
            .locked(node, Component.FULL, REQUEST, R2, 30)
            .admitted(R2, -1, reported, 0, -1)
            .state(R2, RequestState.WAITING, RequestState.ADMITTED);
    }

    @Test
    void shouldReportI3WhenTheReportedPrefixIsNotTheLockedPath()
    {
        final JournalFixture f = Scenarios.fullPath();
        final long admit = admitOnPrefix(f, NODE1, 3).sequence();

        final Violation first = assertFirst(f.check(), Invariant.I3, admit, "request:2");
        assertTrue(first.explanation().contains("device prefix of 3 pages"), first.explanation());
    }

    @Test
    void shouldAcceptAPrefixThatIsTheLockedPath()
    {
        final JournalFixture f = Scenarios.fullPath();
        admitOnPrefix(f, NODE2, 3);

        assertClean(f.check());
    }

    @Test
    void shouldReportI4WhenFullEvictionLeavesTheMambaState()
    {
        final JournalFixture f = Scenarios.fullPath();
        // node 2 (KV 2, Mamba TRACK) loses its page and is deleted, but its Mamba state stays with it
        final long evict = f.doc(InputType.TICK)
            .evicted(NODE2, Component.FULL).free(KV, 2, NODE, NODE2).deleted(NODE2).sequence();

        final Violation first = assertFirst(f.check(), Invariant.I4, evict, "node:2");
        assertTrue(first.explanation().contains("FULL eviction must cascade"), first.explanation());
    }

    @Test
    void shouldAcceptAFullEvictionThatTakesTheMambaStateAlong()
    {
        final JournalFixture f = Scenarios.fullPath();
        f.doc(InputType.TICK)
            .evicted(NODE2, Component.FULL).free(KV, 2, NODE, NODE2).free(MAMBA, TRACK, NODE, NODE2).deleted(NODE2);

        assertClean(f.check());
    }

    private static long runWithSlot(final JournalFixture f, final boolean reset)
    {
        f.doc(InputType.ARRIVE).request(R2);
        final JournalFixture.Doc admit = f.doc(InputType.ADMIT).request(R2)
            .reserved(R2, 1, 1)
            .alloc(MAMBA, 5, REQUEST, R2).alloc(KV, 7, REQUEST, R2);
        if (reset)
        {
            admit.reset(5);
        }
        admit.admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED);
        return f.doc(InputType.CHUNK).request(R2).state(R2, RequestState.ADMITTED, RequestState.RUNNING).sequence();
    }

    @Test
    void shouldReportI16WhenARequestRunsOnASlotNothingDefined()
    {
        final JournalFixture f = Scenarios.fullPath();
        final long chunk = runWithSlot(f, false);

        final Violation first = assertFirst(f.check(), Invariant.I16, chunk, "DEVICE_MAMBA:5");
        assertTrue(first.explanation().contains("content is undefined"), first.explanation());
    }

    @Test
    void shouldAcceptARequestThatRunsOnAResetSlot()
    {
        final JournalFixture f = Scenarios.fullPath();
        runWithSlot(f, true);

        assertClean(f.check());
    }
}
