package io.kvledger.replay.check;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.RequestState;

import static io.kvledger.replay.check.JournalFixture.HOST_KV;
import static io.kvledger.replay.check.JournalFixture.HOST_MAMBA;
import static io.kvledger.replay.check.JournalFixture.KV;
import static io.kvledger.replay.check.JournalFixture.MAMBA;
import static io.kvledger.replay.check.JournalFixture.read;
import static io.kvledger.replay.check.JournalFixture.write;
import static io.kvledger.journal.codec.SlotState.NODE;
import static io.kvledger.journal.codec.SlotState.OP;
import static io.kvledger.journal.codec.SlotState.REQUEST;

/**
 * Journal fragments a correct engine following DESIGN.md writes, used as prefixes by the checker tests.
 * Request 1 hits L3 for 2 pages plus a Mamba state and loads them into node 1 (KV pages 0, 1; node slot N = Mamba
 * 2); its working slot S is Mamba 0, its tracking slot Mamba 1, its own page KV 2.
 */
final class Scenarios
{
    static final long R1 = 1;
    static final long R2 = 2;
    static final long QUERY = 100;
    static final long FETCH = 101;
    static final long LOAD = 102;
    static final long BACKUP = 103;
    static final long STORE = 104;
    static final long NODE1 = 1;
    static final long NODE2 = 2;
    static final int S = 0;
    static final int TRACK = 1;
    static final int N = 2;

    private Scenarios()
    {
    }

    /** Arrive, L3 hit, fetch done: request 1 holds HOST_KV 0, 1 and HOST_MAMBA 0 as a staged hold. */
    static void staged(final JournalFixture f)
    {
        f.doc(InputType.ARRIVE).request(R1).queued(QUERY, OpKind.QUERY, R1).launched(QUERY, OpKind.QUERY);
        f.doc(InputType.STORAGE_HIT).request(R1).op(QUERY)
            .acked(QUERY, OpKind.QUERY)
            .alloc(HOST_KV, 0, OP, FETCH).alloc(HOST_KV, 1, OP, FETCH).alloc(HOST_MAMBA, 0, OP, FETCH)
            .queued(FETCH, OpKind.FETCH, R1, write(HOST_KV, 0), write(HOST_KV, 1), write(HOST_MAMBA, 0))
            .launched(FETCH, OpKind.FETCH);
        f.doc(InputType.FETCH_DONE).request(R1).op(FETCH)
            .acked(FETCH, OpKind.FETCH)
            .transition(HOST_KV, 0, OP, FETCH, REQUEST, R1).transition(HOST_KV, 1, OP, FETCH, REQUEST, R1)
            .transition(HOST_MAMBA, 0, OP, FETCH, REQUEST, R1)
            .staged(R1, FETCH, 2).state(R1, RequestState.WAITING, RequestState.STAGED);
    }

    /**
     * Admission of the staged request: every gate passes, every destination is allocated and reset, node 1 is
     * inserted and locked by the load, and the load is queued.
     *
     * @param f     fixture.
     * @param reset whether the cursors of the handed-out slots are reset (false = SKIP_CURSOR_RESET fault).
     * @return the admission document.
     */
    static JournalFixture.Doc admit(final JournalFixture f, final boolean reset)
    {
        return admit(f, reset, 1, 2);
    }

    /**
     * {@link #admit(JournalFixture, boolean)} with the load's second KV destination and the admitted prefix chosen
     * (the I11 twins make them disagree with the tree slice and the hold).
     */
    static JournalFixture.Doc admit(final JournalFixture f, final boolean reset, final int secondKvWritten,
        final int prefix)
    {
        f.doc(InputType.PASS_BEGIN);
        final JournalFixture.Doc doc = f.doc(InputType.ADMIT).request(R1)
            .reserved(R1, 3, 3)
            .inserted(NODE1, 0, 2, 2)
            .alloc(KV, 0, NODE, NODE1).alloc(KV, 1, NODE, NODE1)
            .alloc(MAMBA, N, NODE, NODE1)
            .alloc(MAMBA, S, REQUEST, R1).alloc(MAMBA, TRACK, REQUEST, R1)
            .alloc(KV, 2, REQUEST, R1)
            .locked(NODE1, Component.FULL, OP, LOAD, 1)
            .locked(NODE1, Component.FULL, REQUEST, R1, 2);
        if (reset)
        {
            doc.reset(S).reset(TRACK).reset(N);
        }
        doc.transition(HOST_KV, 0, REQUEST, R1, OP, LOAD).transition(HOST_KV, 1, REQUEST, R1, OP, LOAD)
            .transition(HOST_MAMBA, 0, REQUEST, R1, OP, LOAD)
            .queued(LOAD, OpKind.LOAD, R1, read(HOST_KV, 0), read(HOST_KV, 1), read(HOST_MAMBA, 0),
                write(KV, 0), write(KV, secondKvWritten), write(MAMBA, N), write(MAMBA, S))
            .admitted(R1, LOAD, prefix, prefix, -1)
            .state(R1, RequestState.STAGED, RequestState.ADMITTED);
        return doc;
    }

    /** The pass ends: the queued load launches. */
    static JournalFixture.Doc launch(final JournalFixture f)
    {
        return f.doc(InputType.PASS_END).launched(LOAD, OpKind.LOAD);
    }

    /** The load is acked: its lock is released, its staging freed, the request runs. */
    static JournalFixture.Doc ack(final JournalFixture f)
    {
        return f.doc(InputType.ACK).op(LOAD).ok(true)
            .acked(LOAD, OpKind.LOAD)
            .unlocked(NODE1, Component.FULL, OP, LOAD, 1)
            .free(HOST_KV, 0, OP, LOAD).free(HOST_KV, 1, OP, LOAD).free(HOST_MAMBA, 0, OP, LOAD)
            .state(R1, RequestState.ADMITTED, RequestState.RUNNING);
    }

    /** Request 1 finishes: its page goes to new node 2, its tracking slot is donated there, S is freed. */
    static JournalFixture.Doc finish(final JournalFixture f)
    {
        return f.doc(InputType.FINISH).request(R1)
            .observed(S, 5, 7, 1)
            .inserted(NODE2, NODE1, 1, 3)
            .transition(KV, 2, REQUEST, R1, NODE, NODE2)
            .transition(MAMBA, TRACK, REQUEST, R1, NODE, NODE2).reset(TRACK)
            .free(MAMBA, S, REQUEST, R1)
            .unlocked(NODE1, Component.FULL, REQUEST, R1, 2)
            .state(R1, RequestState.RUNNING, RequestState.FINISHED);
    }

    /** The write path for node 2's page: D2H backup into HOST_KV 2, then the L3 store. */
    static void backup(final JournalFixture f)
    {
        f.doc(InputType.TICK)
            .alloc(HOST_KV, 2, OP, BACKUP)
            .queued(BACKUP, OpKind.BACKUP, NODE2, read(KV, 2), write(HOST_KV, 2))
            .locked(NODE2, Component.FULL, OP, BACKUP, 3)
            .launched(BACKUP, OpKind.BACKUP);
        f.doc(InputType.ACK).op(BACKUP).ok(true)
            .acked(BACKUP, OpKind.BACKUP)
            .unlocked(NODE2, Component.FULL, OP, BACKUP, 3)
            .transition(HOST_KV, 2, OP, BACKUP, OP, STORE)
            .queued(STORE, OpKind.STORE, NODE2, read(HOST_KV, 2))
            .launched(STORE, OpKind.STORE);
        f.doc(InputType.ACK).op(STORE).ok(true)
            .acked(STORE, OpKind.STORE)
            .free(HOST_KV, 2, OP, STORE)
            .stored(STORE, 1);
    }

    /** The whole clean read and write path of request 1. */
    static JournalFixture fullPath()
    {
        final JournalFixture f = new JournalFixture();
        staged(f);
        admit(f, true);
        launch(f);
        ack(f);
        finish(f);
        backup(f);
        return f;
    }
}
