package io.kvledger.replay.check;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.api.Test;

import static io.kvledger.journal.codec.SlotState.FREE;
import static io.kvledger.journal.codec.SlotState.NODE;
import static io.kvledger.journal.codec.SlotState.OP;
import static io.kvledger.journal.codec.SlotState.PENDING_FREE;
import static io.kvledger.journal.codec.SlotState.REQUEST;
import static io.kvledger.replay.check.CheckAssertions.assertFirst;
import static io.kvledger.replay.check.CheckAssertions.assertOnly;
import static io.kvledger.replay.check.JournalFixture.HOST_KV;
import static io.kvledger.replay.check.JournalFixture.HOST_MAMBA;
import static io.kvledger.replay.check.JournalFixture.KV;
import static io.kvledger.replay.check.JournalFixture.MAMBA;
import static io.kvledger.replay.check.JournalFixture.read;
import static io.kvledger.replay.check.JournalFixture.write;
import static io.kvledger.replay.check.Scenarios.LOAD;
import static io.kvledger.replay.check.Scenarios.N;
import static io.kvledger.replay.check.Scenarios.NODE1;
import static io.kvledger.replay.check.Scenarios.R1;
import static io.kvledger.replay.check.Scenarios.R2;
import static io.kvledger.replay.check.Scenarios.S;
import static io.kvledger.replay.check.Scenarios.TRACK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Journals written by buggy builds (the fault switches): the checker must name the right invariant at the right
 * document.
 */
class InvariantCheckerBugTest
{
    /**
     * A staged request admitted with its load queued, then retracted under FREE_ON_RETRACT_WITH_QUEUED_LOAD: S goes
     * straight back to the free list, the load stays queued.
     *
     * @return the retract's sequence.
     */
    private static long retractFreeingTheQueuedLoadsSlots(final JournalFixture f)
    {
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        return f.doc(InputType.RETRACT).request(R1)
            .free(MAMBA, S, REQUEST, R1).free(MAMBA, TRACK, REQUEST, R1).free(KV, 2, REQUEST, R1)
            .unlocked(NODE1, Component.FULL, REQUEST, R1, 2)
            .state(R1, RequestState.ADMITTED, RequestState.WAITING).sequence();
    }

    /**
     * A request admitted without a hold that gets S (and slot 5), then the queued load's launch.
     *
     * @return the launch's sequence.
     */
    private static long admitWithSThenLaunch(final JournalFixture f, final long request)
    {
        f.doc(InputType.ADMIT).request(request)
            .reserved(request, 2, 0)
            .alloc(MAMBA, S, REQUEST, request).alloc(MAMBA, 5, REQUEST, request).reset(S).reset(5)
            .admitted(request, -1, 0, 0, -1).state(request, RequestState.WAITING, RequestState.ADMITTED);
        return Scenarios.launch(f).sequence();
    }

    @Test
    void shouldReportI13WhenRetractFreesASlotItsQueuedLoadStillWrites()
    {
        final JournalFixture f = new JournalFixture();
        final long retract = retractFreeingTheQueuedLoadsSlots(f);
        f.doc(InputType.ARRIVE).request(R2);
        final long launch = admitWithSThenLaunch(f, R2);

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I13, retract, "DEVICE_MAMBA:0");
        assertTrue(first.explanation().startsWith("freed while LOAD 102 (QUEUED"), first.explanation());
        assertOnly(checker, Invariant.I13);
        final Violation atLaunch = checker.violations().get(checker.violations().size() - 1);
        assertEquals(launch, atLaunch.documentSequence());
        assertTrue(atLaunch.explanation().contains("REQUEST 2"), atLaunch.explanation());
        assertTrue(first.history().stream().anyMatch(h -> h.text().contains("OP_TARGET op=102 WRITE DEVICE_MAMBA:0")));
    }

    @Test
    void shouldReportTheLaunchOverASlotHandedBackToTheSameRequest()
    {
        final JournalFixture f = new JournalFixture();
        final long retract = retractFreeingTheQueuedLoadsSlots(f);
        // Re-admitted, the request gets S back: the owner the load was queued for, after the slot was freed.
        final long launch = admitWithSThenLaunch(f, R1);

        final InvariantChecker checker = f.check();

        assertFirst(checker, Invariant.I13, retract, "DEVICE_MAMBA:0");
        assertOnly(checker, Invariant.I13);
        final Violation atLaunch = checker.violations().get(checker.violations().size() - 1);
        assertEquals(launch, atLaunch.documentSequence(), "the overwrite at the launch is a finding too");
        assertTrue(atLaunch.explanation().contains("queued as REQUEST 1, freed since"), atLaunch.explanation());
    }

    @Test
    void shouldReportI17WhenADirtySlotIsHandedToARequestWithoutReset()
    {
        final JournalFixture f = Scenarios.fullPath();
        // request 1 finished: S (Mamba 0) is FREE with cursors 5/7/1
        f.doc(InputType.ARRIVE).request(R2);
        final long admit = f.doc(InputType.ADMIT).request(R2)
            .reserved(R2, 2, 0)
            .alloc(MAMBA, S, REQUEST, R2).alloc(MAMBA, 5, REQUEST, R2).reset(5)
            .admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED).sequence();

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I17, admit, "DEVICE_MAMBA:0");
        assertTrue(first.explanation().contains("REQUEST 2"), first.explanation());
        assertEquals(1, checker.violationCount());
    }

    @Test
    void shouldReportI17WhenAStagedLoadWritesDirtySlotsWithoutReset()
    {
        final JournalFixture f = new JournalFixture();
        // request 9 used Mamba 2 and left its cursors non-zero
        f.doc(InputType.ARRIVE).request(9);
        f.doc(InputType.ADMIT).request(9).alloc(MAMBA, N, REQUEST, 9).reset(N)
            .state(9, RequestState.WAITING, RequestState.RUNNING);
        f.doc(InputType.ABORT).request(9).observed(N, 3, 0, 0).free(MAMBA, N, REQUEST, 9)
            .state(9, RequestState.RUNNING, RequestState.ABORTED);
        Scenarios.staged(f);
        // SKIP_CURSOR_RESET_ON_STAGED_LOAD
        final long admit = Scenarios.admit(f, false).sequence();

        final InvariantChecker checker = f.check();

        assertFirst(checker, Invariant.I17, admit, "DEVICE_MAMBA:2");
        assertEquals(1, checker.violationCount());
    }

    @Test
    void shouldReportI18WhenAdmissionReservesOneSlotAndTheLoadTakesTwo()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        f.doc(InputType.PASS_BEGIN);
        // RESERVE_REQUEST_SLOT_ONLY: the gate counted S only, the load also allocates N
        final long admit = f.doc(InputType.ADMIT).request(R1)
            .reserved(R1, 1, 2)
            .inserted(NODE1, 0, 2, 2).alloc(KV, 0, NODE, NODE1).alloc(KV, 1, NODE, NODE1)
            .alloc(MAMBA, S, REQUEST, R1).alloc(MAMBA, N, NODE, NODE1).reset(S).reset(N)
            .locked(NODE1, Component.FULL, OP, LOAD, 1)
            .locked(NODE1, Component.FULL, REQUEST, R1, 2)
            .transition(HOST_KV, 0, REQUEST, R1, OP, LOAD).transition(HOST_KV, 1, REQUEST, R1, OP, LOAD)
            .transition(HOST_MAMBA, 0, REQUEST, R1, OP, LOAD)
            .queued(LOAD, OpKind.LOAD, R1, read(HOST_KV, 0), read(HOST_KV, 1), read(HOST_MAMBA, 0),
                write(KV, 0), write(KV, 1), write(MAMBA, N), write(MAMBA, S))
            .admitted(R1, LOAD, 2, 2, -1).state(R1, RequestState.STAGED, RequestState.ADMITTED).sequence();

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I18, admit, "DEVICE_MAMBA:2");
        assertTrue(first.explanation().contains("reserved 1 Mamba slot, the load needed at least 2"),
            first.explanation());
        assertEquals(3, first.history().size());
        assertEquals(1, checker.violationCount());
    }

    @Test
    void shouldReportI18WhenAnAdmissionIsDeferredForAllocationAfterItsReservation()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        f.doc(InputType.PASS_BEGIN);
        final long admit = f.doc(InputType.ADMIT).request(R1)
            .reserved(R1, 1, 2)
            .alloc(MAMBA, S, REQUEST, R1)
            .free(MAMBA, S, REQUEST, R1)
            .deferred(R1, Reason.ALLOCATION, 1).result(1).sequence();

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I18, admit, "request:1");
        assertTrue(first.explanation().contains("DEFERRED ALLOCATION"), first.explanation());
        assertEquals(1, checker.violationCount());
    }

    @Test
    void shouldReportI12OnADoubleFree()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.ADMIT).request(R2).reserved(R2, 1, 0).alloc(MAMBA, 3, REQUEST, R2).reset(3)
            .admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED);
        // DOUBLE_FREE_ON_ABORT
        final long abort = f.doc(InputType.ABORT).request(R2)
            .free(MAMBA, 3, REQUEST, R2).free(MAMBA, 3, REQUEST, R2)
            .state(R2, RequestState.ADMITTED, RequestState.ABORTED).sequence();

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I12, abort, "DEVICE_MAMBA:3");
        assertTrue(first.explanation().startsWith("double free"), first.explanation());
        assertEquals(1, checker.violationCount());
        assertEquals(8, checker.model().occupancy(MAMBA).free());
    }

    @Test
    void shouldReportI5OnADoubleUnlock()
    {
        final JournalFixture f = Scenarios.fullPath();
        // UNLOCK_TWICE_ON_FINISH: the request lock on node 1 (receipt 2) released again
        final long tick = f.doc(InputType.TICK).unlocked(NODE1, Component.FULL, REQUEST, R1, 2).sequence();

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I5, tick, "node:1");
        assertTrue(first.explanation().contains("double unlock"), first.explanation());
        assertEquals(1, checker.violationCount());
    }

    @Test
    void shouldReportI19OnASecondAck()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        Scenarios.ack(f);
        final long again = f.doc(InputType.ACK).op(LOAD).acked(LOAD, OpKind.LOAD).sequence();

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I19, again, "op:102");
        assertTrue(first.explanation().startsWith("second completion"), first.explanation());
        assertEquals(1, checker.violationCount());
    }

    @Test
    void shouldReportI19OnAnAckOfAQueuedOp()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        final long ack = Scenarios.ack(f).sequence();

        assertFirst(f.check(), Invariant.I19, ack, "op:102");
    }

    @Test
    void shouldReportI7WhenANodeLockedByAnInFlightLoadIsEvicted()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        // EVICT_NODE_WITH_INFLIGHT_LOAD
        final long tick = f.doc(InputType.TICK)
            .evicted(NODE1, Component.FULL)
            .free(MAMBA, N, NODE, NODE1).free(KV, 0, NODE, NODE1).free(KV, 1, NODE, NODE1)
            .deleted(NODE1).sequence();

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I7, tick, "node:1");
        assertTrue(first.explanation().contains("held by OP 102"), first.explanation());
        assertTrue(checker.violations().stream().anyMatch(v -> v.invariant() == Invariant.I13 &&
            v.subject().equals("DEVICE_MAMBA:2")));
    }

    @Test
    void shouldReportI9WhenADroppedHoldForgetsAStagingPage()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        // LEAK_STAGING_ON_DROP: HOST_KV 1 is forgotten
        final long drop = f.doc(InputType.TICK)
            .dropped(R1, Reason.DEFER_LIMIT, 2)
            .free(HOST_KV, 0, REQUEST, R1).free(HOST_MAMBA, 0, REQUEST, R1)
            .state(R1, RequestState.STAGED, RequestState.WAITING).sequence();

        final InvariantChecker checker = f.check();

        assertFirst(checker, Invariant.I9, drop, "HOST_KV:1");
        assertEquals(1, checker.violationCount());
    }

    @Test
    void shouldReportI15AndI13WhenTheRedundantNodeSlotIsFreedAtQueueTime()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        f.doc(InputType.PASS_BEGIN);
        // FREE_REDUNDANT_SLOT_AT_QUEUE: the tail already had a state, N (Mamba 6) is scratch for the load
        final long admit = f.doc(InputType.ADMIT).request(R1)
            .reserved(R1, 2, 0)
            .alloc(MAMBA, S, REQUEST, R1).alloc(MAMBA, 6, OP, LOAD).reset(S).reset(6)
            .transition(HOST_MAMBA, 0, REQUEST, R1, OP, LOAD)
            .queued(LOAD, OpKind.LOAD, R1, read(HOST_MAMBA, 0), write(MAMBA, 6), write(MAMBA, S))
            .free(MAMBA, 6, OP, LOAD)
            .admitted(R1, LOAD, 0, 0, -1).state(R1, RequestState.STAGED, RequestState.ADMITTED).sequence();

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I15, admit, "DEVICE_MAMBA:6");
        assertTrue(first.explanation().startsWith("redundant node slot of LOAD 102"), first.explanation());
        assertTrue(checker.violations().stream().anyMatch(v -> v.invariant() == Invariant.I13 &&
            v.documentSequence() == admit), "the copy still targets the freed slot: I13 too");
    }

    @Test
    void shouldReportI12WhenAPendingFreeSlotOutlivesItsOp()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        f.doc(InputType.RETRACT).request(R1)
            .transition(MAMBA, S, REQUEST, R1, PENDING_FREE, LOAD)
            .free(MAMBA, TRACK, REQUEST, R1).free(KV, 2, REQUEST, R1)
            .unlocked(NODE1, Component.FULL, REQUEST, R1, 2)
            .state(R1, RequestState.ADMITTED, RequestState.WAITING);
        final long ack = f.doc(InputType.ACK).op(LOAD).ok(true)
            .acked(LOAD, OpKind.LOAD)
            .unlocked(NODE1, Component.FULL, OP, LOAD, 1)
            .free(HOST_KV, 0, OP, LOAD).free(HOST_KV, 1, OP, LOAD).free(HOST_MAMBA, 0, OP, LOAD).sequence();

        final InvariantChecker checker = f.check();

        final Violation first = assertFirst(checker, Invariant.I12, ack, "DEVICE_MAMBA:0");
        assertTrue(first.explanation().contains("parked for LOAD 102"), first.explanation());
    }

    @Test
    void shouldReportI5WhenALoadEndsStillHoldingItsLock()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        final long ack = f.doc(InputType.ACK).op(LOAD).ok(true)
            .acked(LOAD, OpKind.LOAD)
            .free(HOST_KV, 0, OP, LOAD).free(HOST_KV, 1, OP, LOAD).free(HOST_MAMBA, 0, OP, LOAD).sequence();

        assertFirst(f.check(), Invariant.I5, ack, "node:1");
    }

    @Test
    void shouldReportI12OnOwnerConfusion()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.ARRIVE).request(R1);
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.ADMIT).request(R1).alloc(KV, 7, REQUEST, R1);
        final long bad = f.doc(InputType.ADMIT).request(R2).free(KV, 7, REQUEST, R2).sequence();

        final Violation first = assertFirst(f.check(), Invariant.I12, bad, "DEVICE_KV:7");
        assertTrue(first.explanation().startsWith("owner confusion"), first.explanation());
    }

    @Test
    void shouldReportI8WhenANodeTakesHostStaging()
    {
        final JournalFixture f = new JournalFixture();
        final long tick = f.doc(InputType.TICK).inserted(3, 0, 1, 1).alloc(KV, 0, NODE, 3)
            .alloc(HOST_KV, 4, NODE, 3).sequence();

        assertFirst(f.check(), Invariant.I8, tick, "HOST_KV:4");
    }

    @Test
    void shouldReportI2WhenANodeOwnsFewerPagesThanItHolds()
    {
        final JournalFixture f = new JournalFixture();
        final long tick = f.doc(InputType.TICK).inserted(3, 0, 2, 2).alloc(KV, 0, NODE, 3).sequence();

        final Violation first = assertFirst(f.check(), Invariant.I2, tick, "node:3");
        assertTrue(first.explanation().contains("holds 2 pages but owns 1"), first.explanation());
    }

    @Test
    void shouldReportI1WhenANodeIsInsertedUnderADeadParent()
    {
        final JournalFixture f = new JournalFixture();
        final long tick = f.doc(InputType.TICK).inserted(3, 9, 1, 1).alloc(KV, 0, NODE, 3).sequence();

        assertFirst(f.check(), Invariant.I1, tick, "node:3");
    }

    @Test
    void shouldReportI14WhenACopyOnWriteReadsACheckpointWhoseLoadIsInFlight()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        f.doc(InputType.ARRIVE).request(R2);
        // COW_FROM_LOADING_CHECKPOINT
        final long admit = f.doc(InputType.ADMIT).request(R2)
            .reserved(R2, 2, 0)
            .alloc(MAMBA, 5, REQUEST, R2).alloc(MAMBA, 6, REQUEST, R2).reset(5).reset(6)
            .queued(200, OpKind.COW, R2, read(MAMBA, N), write(MAMBA, 5))
            .admitted(R2, -1, 2, 0, 200).state(R2, RequestState.WAITING, RequestState.ADMITTED).sequence();

        assertFirst(f.check(), Invariant.I14, admit, "DEVICE_MAMBA:2");
    }

    @Test
    void shouldReportI19WhenFewerTargetsFollowThanDeclared()
    {
        final JournalFixture f = new JournalFixture();
        final JournalFixture.Doc doc = f.doc(InputType.TICK).alloc(HOST_KV, 0, OP, 7);
        final int i = doc.effects.add(io.kvledger.journal.codec.EffectType.OP_QUEUED);
        doc.effects.id(i, 7).opKind(i, OpKind.BACKUP).owner(i, 3).value1(i, 2);
        doc.launched(7, OpKind.BACKUP);

        assertFirst(f.check(), Invariant.I19, doc.sequence(), "op:7");
    }

    @Test
    void shouldReportI19WhenARequestStateSkipsItsShadowState()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.ARRIVE).request(R1);
        final long bad = f.doc(InputType.FINISH).request(R1)
            .state(R1, RequestState.RUNNING, RequestState.FINISHED).sequence();

        assertFirst(f.check(), Invariant.I19, bad, "request:1");
    }

    @Test
    void shouldStopAfterTheFirstViolatingDocumentWhenFailFast()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.ADMIT).request(R2).alloc(MAMBA, 3, REQUEST, R2).reset(3);
        f.doc(InputType.ABORT).request(R2).free(MAMBA, 3, REQUEST, R2).free(MAMBA, 3, REQUEST, R2)
            .state(R2, RequestState.WAITING, RequestState.ABORTED);
        f.doc(InputType.TICK).free(MAMBA, 4, REQUEST, R2);

        final InvariantChecker checker = new InvariantChecker(true, InvariantChecker.UNLIMITED, 8);
        f.feed(checker);

        assertTrue(checker.stopped());
        assertEquals(3, checker.documents());
        assertEquals(1, checker.violationCount());
        assertFalse(checker.clean());
    }

    @Test
    void shouldCountButNotKeepViolationsPastTheLimit()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.TICK).free(MAMBA, 1, REQUEST, 1).free(MAMBA, 2, REQUEST, 1).free(MAMBA, 3, REQUEST, 1);

        final InvariantChecker checker = new InvariantChecker(false, 2, 8);
        f.feed(checker);

        assertEquals(3, checker.violationCount());
        assertEquals(2, checker.violations().size());
        assertEquals(FREE, checker.model().slotState(MAMBA, 3));
    }

    @Test
    void shouldAcceptAHandOverToTheFetchRequesterOnlyAtItsFetchDone()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.ARRIVE).request(R1).queued(100, OpKind.QUERY, R1).launched(100, OpKind.QUERY);
        f.doc(InputType.STORAGE_HIT).request(R1).op(100).acked(100, OpKind.QUERY)
            .alloc(HOST_KV, 0, OP, 101)
            .queued(101, OpKind.FETCH, R1, write(HOST_KV, 0)).launched(101, OpKind.FETCH);
        // hold handed over before the fetch is acked, in the fetch's own FETCH_DONE: fine
        f.doc(InputType.FETCH_DONE).op(101).request(R1)
            .transition(HOST_KV, 0, OP, 101, REQUEST, R1).acked(101, OpKind.FETCH);

        final InvariantChecker checker = f.check();

        CheckAssertions.assertClean(checker);
        assertEquals(REQUEST, checker.model().slotState(HOST_KV, 0));
    }

    @Test
    void shouldReportI12WhenASlotIsHandedTwiceToTheSameOwner()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.ARRIVE).request(R2);
        final long admit = f.doc(InputType.ADMIT).request(R2)
            .alloc(MAMBA, 3, REQUEST, R2).transition(MAMBA, 3, REQUEST, R2, REQUEST, R2).reset(3).sequence();

        final Violation first = assertFirst(f.check(), Invariant.I12, admit, "DEVICE_MAMBA:3");
        assertTrue(first.explanation().contains("handed out twice"), first.explanation());
    }

    @Test
    void shouldReportALockedDeletionOnceAndNotCascadeToItsAncestors()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.TICK)
            .inserted(3, 0, 1, 1).alloc(KV, 0, NODE, 3)
            .inserted(4, 3, 1, 2).alloc(KV, 1, NODE, 4)
            .locked(4, Component.FULL, OP, 77, 9);
        final long evict = f.doc(InputType.TICK)
            .evicted(4, Component.FULL).free(KV, 1, NODE, 4).deleted(4).sequence();
        // the parent is a leaf now and unlocked: evicting and deleting it is fine
        f.doc(InputType.TICK).evicted(3, Component.FULL).free(KV, 0, NODE, 3).deleted(3);
        // node id 4 is reused; the old receipt's late release must not touch the new node
        f.doc(InputType.TICK).inserted(4, 0, 1, 1).alloc(KV, 2, NODE, 4)
            .unlocked(4, Component.FULL, OP, 77, 9)
            .evicted(4, Component.FULL).free(KV, 2, NODE, 4).deleted(4);

        final InvariantChecker checker = f.check();

        assertFirst(checker, Invariant.I7, evict, "node:4");
        assertEquals(1, checker.violationCount(), () -> io.kvledger.replay.report.CheckReport.of(checker).toText());
    }

    @Test
    void shouldNotBuildALaneForAnUnknownSlot()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.TICK).free(MAMBA, 99, REQUEST, 1);

        final InvariantChecker checker = f.check();

        assertFirst(checker, Invariant.I12, 1, "DEVICE_MAMBA:99");
        assertTrue(checker.lanes().isEmpty());
    }
}
