package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.api.Test;

import static io.kvledger.journal.codec.SlotState.NODE;
import static io.kvledger.journal.codec.SlotState.OP;
import static io.kvledger.journal.codec.SlotState.REQUEST;
import static io.kvledger.replay.check.JournalFixture.HOST_KV;
import static io.kvledger.replay.check.JournalFixture.KV;
import static io.kvledger.replay.check.JournalFixture.read;
import static io.kvledger.replay.check.JournalFixture.write;
import static io.kvledger.replay.check.Scenarios.NODE2;
import static io.kvledger.replay.check.Scenarios.R2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The progress rules on bug/clean twins: a page backed up twice while its node kept it (the correctness issue's
 * "pages already stored are backed up again"), and a parked hit left waiting while staging is free.
 */
class LivenessMonitorTest
{
    private static LivenessMonitor monitor(final JournalFixture f)
    {
        final LivenessMonitor monitor = new LivenessMonitor();
        f.feed(new JournalListener()
        {
            @Override
            public void onHeader(final JournalHeader header, final JournalPosition position)
            {
                monitor.configure(header);
            }

            @Override
            public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
                final JournalPosition position)
            {
                monitor.onDocument(input, resultCode, effects);
            }
        });
        return monitor;
    }

    /** A second backup of node 2's page (KV 2), after the full path's first backup was acked and stored. */
    private static long backupAgain(final JournalFixture f, final boolean pageChangedOwner)
    {
        if (pageChangedOwner)
        {
            f.doc(InputType.TICK).evicted(NODE2, Component.FULL).free(KV, 2, NODE, NODE2)
                .free(JournalFixture.MAMBA, Scenarios.TRACK, NODE, NODE2).deleted(NODE2);
            f.doc(InputType.TICK).inserted(NODE2, Scenarios.NODE1, 1, 3).alloc(KV, 2, NODE, NODE2);
        }
        return f.doc(InputType.TICK)
            .alloc(HOST_KV, 3, OP, 105)
            .queued(105, OpKind.BACKUP, NODE2, read(KV, 2), write(HOST_KV, 3))
            .launched(105, OpKind.BACKUP).sequence();
    }

    @Test
    void shouldReportAPageBackedUpAgainWhileItsNodeKeptIt()
    {
        final JournalFixture f = Scenarios.fullPath();
        final long again = backupAgain(f, false);

        final LivenessMonitor.Finding finding = monitor(f).finding();

        assertNotNull(finding);
        assertEquals("L2 backup-repeated", finding.rule());
        assertEquals(again, finding.sequence());
        assertTrue(finding.text().contains("DEVICE_KV:2"), finding.text());
    }

    @Test
    void shouldAcceptABackupOfAPageThatWasEvictedAndComputedAgain()
    {
        final JournalFixture f = Scenarios.fullPath();
        backupAgain(f, true);

        assertNull(monitor(f).finding());
    }

    private static void parkAndPass(final JournalFixture f, final int passes, final boolean fetch)
    {
        parkAndPass(f, passes, fetch, null);
    }

    /** Park request 2's hit, then run passes whose ADMIT of request 2 waits for {@code waited} (null: no effect). */
    private static void parkAndPass(final JournalFixture f, final int passes, final boolean fetch,
        final Reason waited)
    {
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.STORAGE_HIT).request(R2).parked(R2, 2);
        if (fetch)
        {
            f.doc(InputType.TICK).alloc(HOST_KV, 5, OP, 300)
                .queued(300, OpKind.FETCH, R2, write(HOST_KV, 5)).launched(300, OpKind.FETCH);
        }
        for (int i = 0; i < passes; i++)
        {
            f.doc(InputType.PASS_BEGIN);
            final JournalFixture.Doc admit = f.doc(InputType.ADMIT).request(R2);
            if (waited != null)
            {
                admit.result(1).waited(R2, waited);
            }
            f.doc(InputType.PASS_END);
        }
    }

    @Test
    void shouldReportAParkedHitNeverServedWhileStagingIsFree()
    {
        final JournalFixture f = Scenarios.fullPath();
        parkAndPass(f, LivenessMonitor.STARVED_PASSES + 1, false);

        final LivenessMonitor.Finding finding = monitor(f).finding();

        assertNotNull(finding);
        assertEquals("L1 parked-hit-starved", finding.rule());
        assertTrue(finding.text().startsWith("request 2 parked an L3 hit of 2 pages"), finding.text());
    }

    @Test
    void shouldAcceptAParkedHitWhoseFetchStarts()
    {
        final JournalFixture f = Scenarios.fullPath();
        parkAndPass(f, LivenessMonitor.STARVED_PASSES + 1, true);

        assertNull(monitor(f).finding());
    }

    @Test
    void shouldReportAParkedHitThePrefetchPolicyKeepsWaitingFor()
    {
        final JournalFixture f = Scenarios.fullPath();
        parkAndPass(f, LivenessMonitor.STARVED_PASSES + 1, false, Reason.PREFETCH_PENDING);

        final LivenessMonitor.Finding finding = monitor(f).finding();

        assertNotNull(finding);
        assertEquals("L1 parked-hit-starved", finding.rule());
    }

    /**
     * Explore seed 3332: under the timeout policy, an admission past the deadline gives the parked hit up (the
     * engine journals no effect for that) and the request then waits for device pages; the hit is not starved.
     */
    @Test
    void shouldAcceptAParkedHitGivenUpByThePrefetchPolicy()
    {
        final JournalFixture f = Scenarios.fullPath();
        parkAndPass(f, LivenessMonitor.STARVED_PASSES + 1, false, Reason.ALLOCATION);

        assertNull(monitor(f).finding());
    }

    @Test
    void shouldReportWorkLeftAtQuiescence()
    {
        final JournalFixture f = Scenarios.fullPath();
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.ADMIT).request(R2).alloc(KV, 7, REQUEST, R2)
            .admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED);
        final InvariantChecker checker = f.check();
        final LivenessMonitor monitor = monitor(f);

        monitor.atQuiescence(checker.model(), f.last());

        assertNotNull(monitor.finding());
        assertEquals("L3 not-quiescent", monitor.finding().rule());
        assertTrue(monitor.finding().text().contains("request 2 ADMITTED"), monitor.finding().text());
    }
}
