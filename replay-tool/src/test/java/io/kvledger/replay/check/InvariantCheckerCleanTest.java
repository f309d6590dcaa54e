package io.kvledger.replay.check;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.RequestState;
import org.junit.jupiter.api.Test;

import static io.kvledger.journal.codec.SlotState.NODE;
import static io.kvledger.journal.codec.SlotState.OP;
import static io.kvledger.journal.codec.SlotState.PENDING_FREE;
import static io.kvledger.journal.codec.SlotState.REQUEST;
import static io.kvledger.replay.check.CheckAssertions.assertClean;
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

/**
 * Journals a correct engine writes: the checker must find nothing.
 */
class InvariantCheckerCleanTest
{
    @Test
    void shouldAcceptStagedLoadAdmittedLaunchedAndAcked()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        Scenarios.ack(f);

        final InvariantChecker checker = f.check();

        assertClean(checker);
        assertEquals(f.last(), checker.documents());
        assertEquals(NODE, checker.model().slotState(MAMBA, N));
        assertEquals(REQUEST, checker.model().slotState(MAMBA, S));
        assertEquals(16, checker.model().occupancy(HOST_KV).free());
    }

    @Test
    void shouldAcceptTheWholeReadAndWritePath()
    {
        assertClean(Scenarios.fullPath().check());
    }

    @Test
    void shouldAcceptRetractWithQueuedLoadCancelled()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        // destinations freed before the OP_CANCELLED: a correct cancel may order them either way
        f.doc(InputType.RETRACT).request(R1)
            .unlocked(NODE1, Component.FULL, OP, LOAD, 1)
            .unlocked(NODE1, Component.FULL, REQUEST, R1, 2)
            .free(KV, 0, NODE, NODE1).free(KV, 1, NODE, NODE1).free(MAMBA, N, NODE, NODE1)
            .deleted(NODE1)
            .free(MAMBA, S, REQUEST, R1).free(MAMBA, TRACK, REQUEST, R1).free(KV, 2, REQUEST, R1)
            .free(HOST_KV, 0, OP, LOAD).free(HOST_KV, 1, OP, LOAD).free(HOST_MAMBA, 0, OP, LOAD)
            .cancelled(LOAD, OpKind.LOAD)
            .state(R1, RequestState.ADMITTED, RequestState.WAITING);

        final InvariantChecker checker = f.check();

        assertClean(checker);
        assertEquals(1, checker.model().treeSummary().nodeCount());
        assertEquals(0, checker.model().inflightOps().size());
    }

    @Test
    void shouldAcceptRetractWithLaunchedLoadParkingSlotsUntilTheAck()
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
        // the parked slot is freed before the OP_ACKED in the ack document
        f.doc(InputType.ACK).op(LOAD).ok(true)
            .free(MAMBA, S, PENDING_FREE, LOAD)
            .acked(LOAD, OpKind.LOAD)
            .unlocked(NODE1, Component.FULL, OP, LOAD, 1)
            .free(HOST_KV, 0, OP, LOAD).free(HOST_KV, 1, OP, LOAD).free(HOST_MAMBA, 0, OP, LOAD);

        final InvariantChecker checker = f.check();

        assertClean(checker);
        assertEquals(8 - 1, checker.model().occupancy(MAMBA).free());
    }

    @Test
    void shouldAcceptAbortWithLaunchedLoadParkingItsSlot()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        f.doc(InputType.ABORT).request(R1)
            .observed(S, 0, 0, 0)
            .transition(MAMBA, S, REQUEST, R1, PENDING_FREE, LOAD)
            .free(MAMBA, TRACK, REQUEST, R1).free(KV, 2, REQUEST, R1)
            .unlocked(NODE1, Component.FULL, REQUEST, R1, 2)
            .state(R1, RequestState.ADMITTED, RequestState.ABORTED);

        final InvariantChecker checker = f.check();

        assertClean(checker);
        assertEquals(1, checker.model().occupancy(MAMBA).pending());
    }

    @Test
    void shouldAcceptFinishDonatingACheckpointAndAReuseWithReset()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        Scenarios.ack(f);
        Scenarios.finish(f);
        // S (Mamba 0) is FREE and dirty now; the next admission resets it
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.PASS_BEGIN);
        f.doc(InputType.ADMIT).request(R2)
            .reserved(R2, 2, 1)
            .alloc(MAMBA, S, REQUEST, R2).alloc(MAMBA, 3, REQUEST, R2).alloc(KV, 3, REQUEST, R2)
            .reset(S).reset(3)
            .admitted(R2, -1, 0, 0, -1)
            .state(R2, RequestState.WAITING, RequestState.ADMITTED);

        final InvariantChecker checker = f.check();

        assertClean(checker);
        assertEquals(NODE, checker.model().slotState(MAMBA, TRACK));
        assertEquals(2, checker.model().treeSummary().nodesWithMamba());
        assertFalse(checker.model().slotDirty(MAMBA, S));
    }

    @Test
    void shouldAcceptSplitMovingPagesToTheNewParent()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.CHUNK).request(R2)
            .alloc(KV, 3, REQUEST, R2).alloc(KV, 4, REQUEST, R2).alloc(MAMBA, 4, REQUEST, R2).reset(4)
            .inserted(5, 0, 2, 2)
            .transition(KV, 3, REQUEST, R2, NODE, 5).transition(KV, 4, REQUEST, R2, NODE, 5)
            .transition(MAMBA, 4, REQUEST, R2, NODE, 5)
            .locked(5, Component.FULL, REQUEST, R2, 10)
            .state(R2, RequestState.WAITING, RequestState.RUNNING);
        // a diverging insert splits node 5 after its first page; its Mamba state stays with the deeper half
        f.doc(InputType.CHUNK).request(R2)
            .split(5, 6, 1)
            .transition(KV, 3, NODE, 5, NODE, 6)
            .inserted(7, 6, 1, 2)
            .alloc(KV, 6, NODE, 7);
        f.doc(InputType.FINISH).request(R2)
            .unlocked(5, Component.FULL, REQUEST, R2, 10)
            .state(R2, RequestState.RUNNING, RequestState.FINISHED);
        f.doc(InputType.TICK)
            .evicted(5, Component.MAMBA).free(MAMBA, 4, NODE, 5)
            .evicted(5, Component.FULL).free(KV, 4, NODE, 5).deleted(5);

        final InvariantChecker checker = f.check();

        assertClean(checker);
        final TreeSummary tree = checker.model().treeSummary();
        assertEquals(3, tree.nodeCount());
        assertEquals(0, tree.lockedNodes());
        assertEquals(1, tree.leaves());
    }

    @Test
    void shouldAcceptBackupAndStoreWritePath()
    {
        final JournalFixture f = Scenarios.fullPath();

        final InvariantChecker checker = f.check();

        assertClean(checker);
        assertEquals(16, checker.model().occupancy(HOST_KV).free());
        assertEquals(0, checker.model().treeSummary().receipts());
    }

    @Test
    void shouldAcceptCopyOnWriteFromAnAckedCheckpoint()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        Scenarios.ack(f);
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.ADMIT).request(R2)
            .reserved(R2, 2, 0)
            .alloc(MAMBA, 5, REQUEST, R2).alloc(MAMBA, 6, REQUEST, R2).reset(5).reset(6)
            .locked(NODE1, Component.FULL, REQUEST, R2, 21)
            .locked(NODE1, Component.MAMBA, OP, 200, 20)
            .queued(200, OpKind.COW, R2, read(MAMBA, N), write(MAMBA, 5))
            .admitted(R2, -1, 2, 0, 200)
            .state(R2, RequestState.WAITING, RequestState.ADMITTED);
        f.doc(InputType.PASS_END).launched(200, OpKind.COW);
        f.doc(InputType.ACK).op(200).acked(200, OpKind.COW).unlocked(NODE1, Component.MAMBA, OP, 200, 20);

        assertClean(f.check());
    }

    @Test
    void shouldAcceptACheckpointDonatedToTheNewParentOfASplit()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.FINISH).request(R2)
            .alloc(KV, 3, REQUEST, R2).alloc(KV, 4, REQUEST, R2)
            .inserted(5, 0, 2, 2)
            .transition(KV, 3, REQUEST, R2, NODE, 5).transition(KV, 4, REQUEST, R2, NODE, 5)
            .state(R2, RequestState.WAITING, RequestState.FINISHED);
        f.doc(InputType.ARRIVE).request(3);
        // request 3 tracked its state exactly one page deep: the split point becomes its checkpoint
        f.doc(InputType.CHUNK).request(3)
            .alloc(MAMBA, 6, REQUEST, 3).reset(6)
            .split(5, 6, 1)
            .transition(KV, 3, NODE, 5, NODE, 6)
            .transition(MAMBA, 6, REQUEST, 3, NODE, 6);

        assertClean(f.check());
    }

    @Test
    void shouldAcceptARequestCreatedByAStateFromNone()
    {
        final JournalFixture f = new JournalFixture();
        final JournalFixture.Doc arrive = f.doc(InputType.ARRIVE).arrivedWithoutState(R1);
        final int i = arrive.effects.add(io.kvledger.journal.codec.EffectType.REQUEST_STATE);
        arrive.effects.owner(i, R1).requestTo(i, RequestState.WAITING);
        f.doc(InputType.ABORT).request(R1).state(R1, RequestState.WAITING, RequestState.ABORTED);

        final InvariantChecker checker = f.check();

        assertClean(checker);
        assertEquals(0, checker.model().liveRequests().size());
    }
}
