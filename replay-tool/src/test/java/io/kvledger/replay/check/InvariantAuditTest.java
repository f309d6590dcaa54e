package io.kvledger.replay.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.replay.cli.KvledgerMain;
import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.SimulatedPort;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.replay.report.CheckReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Consumer;

import static io.kvledger.journal.codec.SlotState.NODE;
import static io.kvledger.journal.codec.SlotState.OP;
import static io.kvledger.journal.codec.SlotState.REQUEST;
import static io.kvledger.replay.check.CheckAssertions.assertClean;
import static io.kvledger.replay.check.CheckAssertions.assertFirst;
import static io.kvledger.replay.check.JournalFixture.HOST_KV;
import static io.kvledger.replay.check.JournalFixture.KV;
import static io.kvledger.replay.check.JournalFixture.MAMBA;
import static io.kvledger.replay.check.JournalFixture.write;
import static io.kvledger.replay.check.Scenarios.BACKUP;
import static io.kvledger.replay.check.Scenarios.LOAD;
import static io.kvledger.replay.check.Scenarios.N;
import static io.kvledger.replay.check.Scenarios.NODE1;
import static io.kvledger.replay.check.Scenarios.NODE2;
import static io.kvledger.replay.check.Scenarios.R1;
import static io.kvledger.replay.check.Scenarios.R2;
import static io.kvledger.replay.check.Scenarios.S;
import static io.kvledger.replay.check.Scenarios.TRACK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Black-box audit of the checker against the invariants of the domain reference (section 6) as DESIGN.md states
 * them: for each invariant the checker enforces, the smallest journal that breaks exactly that invariant, written
 * through {@link JournalWriter}, checked in process and by {@code kvledger check} (text and JSON): exit 1, the
 * invariant named, at the first document that broke it, even when later documents break it again.
 */
class InvariantAuditTest
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    /** Output of one {@code kvledger} call. */
    private record Cli(int exit, String out, String err)
    {
    }

    private static Cli kvledger(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            exit = KvledgerMain.execute(o, e, args);
        }
        return new Cli(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path writeJournal(final JournalFixture f, final String name)
    {
        final Path journal = dir.resolve(name);
        try (JournalWriter writer = JournalWriter.open(journal, f.header, false))
        {
            f.feed((input, resultCode, effects, position) -> writer.append(input, resultCode, effects));
        }
        return journal;
    }

    /**
     * The in-process checker and {@code kvledger check} (text and JSON) agree: the first violation is the
     * invariant at the sequence, exit 1.
     */
    private void assertBreaks(final JournalFixture f, final Invariant invariant, final long sequence,
        final String subject)
    {
        assertFirst(f.check(), invariant, sequence, subject);
        final Path journal = writeJournal(f, invariant.name() + "-" + sequence + "-" + System.nanoTime());
        final Cli text = kvledger("check", journal.toString());
        assertEquals(KvledgerMain.EXIT_FOUND, text.exit(), text.out() + text.err());
        assertEquals("", text.err());
        final String first = text.out().lines().findFirst().orElse("");
        assertTrue(first.contains("(first: #" + sequence + " " + invariant.name() + " " + subject + ")"),
            text.out());
        final Cli json = kvledger("check", journal.toString(), "--json");
        assertEquals(KvledgerMain.EXIT_FOUND, json.exit(), json.out() + json.err());
        try
        {
            final JsonNode node = MAPPER.readTree(json.out());
            assertFalse(node.get("clean").asBoolean());
            final JsonNode v = node.get("violations").get(0);
            assertEquals(sequence, v.get("seq").asLong(), json.out());
            assertEquals(invariant.name(), v.get("invariant").asText(), json.out());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        final Cli failFast = kvledger("check", journal.toString(), "--fail-fast");
        assertEquals(KvledgerMain.EXIT_FOUND, failFast.exit(), failFast.out());
        assertTrue(failFast.out().contains("#" + sequence + " " + invariant.name()), failFast.out());
    }

    private static JournalFixture through(final Consumer<JournalFixture> steps)
    {
        final JournalFixture f = new JournalFixture();
        steps.accept(f);
        return f;
    }

    private static void upToAck(final JournalFixture f)
    {
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        Scenarios.ack(f);
    }

    private static void upToFinish(final JournalFixture f)
    {
        upToAck(f);
        Scenarios.finish(f);
    }

    @Test
    void shouldCheckTheCleanPathCleanThroughTheCommandLine()
    {
        final JournalFixture f = Scenarios.fullPath();
        assertClean(f.check());
        final Cli cli = kvledger("check", writeJournal(f, "clean").toString());
        assertEquals(KvledgerMain.EXIT_CLEAN, cli.exit(), cli.out() + cli.err());
        assertTrue(cli.out().startsWith("journal: " + f.last() + " documents, clean"), cli.out());
    }

    @Test
    void i1InsertUnderAParentThatNeverExisted()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.TICK).inserted(7, 99, 1, 4).alloc(KV, 5, NODE, 7).sequence();
        f.doc(InputType.TICK).inserted(8, 98, 1, 4).alloc(KV, 6, NODE, 8);
        assertBreaks(f, Invariant.I1, bad, "node:7");
    }

    @Test
    void i2ALiveNodeLosesAPageItOwns()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.TICK).free(KV, 2, NODE, NODE2).sequence();
        f.doc(InputType.TICK).free(KV, 1, NODE, NODE1);
        assertBreaks(f, Invariant.I2, bad, "node:2");
    }

    @Test
    void i3AdmittedPrefixWithoutTheRequestsLock()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.PASS_BEGIN);
        final long bad = f.doc(InputType.ADMIT).request(R2).reserved(R2, 1, 0)
            .alloc(MAMBA, 4, REQUEST, R2).reset(4)
            .admitted(R2, -1, 2, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED).sequence();
        assertBreaks(f, Invariant.I3, bad, "request:2");
    }

    @Test
    void i4ANodeDeletedWithItsMambaStateLeftOnIt()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.TICK).evictPages(1).evicted(NODE2, Component.FULL)
            .free(KV, 2, NODE, NODE2).deleted(NODE2).sequence();
        assertBreaks(f, Invariant.I4, bad, "node:2");
    }

    @Test
    void i5ARequestLockReleasedTwice()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.TICK).unlocked(NODE1, Component.FULL, REQUEST, R1, 2).sequence();
        f.doc(InputType.TICK).unlocked(NODE1, Component.FULL, REQUEST, R1, 2);
        assertBreaks(f, Invariant.I5, bad, "node:1");
    }

    @Test
    void i5ABackupThatKeepsItsLockPastItsAck()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        f.doc(InputType.TICK)
            .alloc(HOST_KV, 2, OP, BACKUP)
            .queued(BACKUP, OpKind.BACKUP, NODE2, JournalFixture.read(KV, 2), write(HOST_KV, 2))
            .locked(NODE2, Component.FULL, OP, BACKUP, 3)
            .launched(BACKUP, OpKind.BACKUP);
        final long bad = f.doc(InputType.ACK).op(BACKUP).ok(true).acked(BACKUP, OpKind.BACKUP)
            .free(HOST_KV, 2, OP, BACKUP).sequence();
        assertBreaks(f, Invariant.I5, bad, "node:2");
    }

    @Test
    void i5ALoadThatKeepsItsLockPastItsAck()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        final long bad = f.doc(InputType.ACK).op(LOAD).ok(true).acked(LOAD, OpKind.LOAD)
            .free(HOST_KV, 0, OP, LOAD).free(HOST_KV, 1, OP, LOAD).free(JournalFixture.HOST_MAMBA, 0, OP, LOAD)
            .state(R1, RequestState.ADMITTED, RequestState.RUNNING).sequence();
        assertBreaks(f, Invariant.I5, bad, "node:1");
    }

    @Test
    void i6AMambaEvictionOfANodeWithoutAState()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        f.doc(InputType.TICK).evicted(NODE2, Component.MAMBA).free(MAMBA, TRACK, NODE, NODE2);
        final long bad = f.doc(InputType.TICK).evicted(NODE2, Component.MAMBA).sequence();
        assertBreaks(f, Invariant.I6, bad, "node:2");
    }

    @Test
    void i7AnInFlightLoadReleasesItsLockBeforeItsAck()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        final long bad = f.doc(InputType.TICK).unlocked(NODE1, Component.FULL, OP, LOAD, 1).sequence();
        assertBreaks(f, Invariant.I7, bad, "node:1");
    }

    @Test
    void i7AnInFlightLoadsNodeEvicted()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        final long bad = f.doc(InputType.TICK).evicted(NODE1, Component.FULL)
            .free(MAMBA, N, NODE, NODE1).free(KV, 0, NODE, NODE1).free(KV, 1, NODE, NODE1)
            .deleted(NODE1).sequence();
        assertBreaks(f, Invariant.I7, bad, "node:1");
    }

    @Test
    void i8HostStagingHandedToANode()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.TICK).alloc(HOST_KV, 5, NODE, NODE2).sequence();
        f.doc(InputType.TICK).alloc(HOST_KV, 6, NODE, NODE2);
        assertBreaks(f, Invariant.I8, bad, "HOST_KV:5");
    }

    @Test
    void i9AStagingPageFreedTwice()
    {
        final JournalFixture f = through(InvariantAuditTest::upToAck);
        final long bad = f.doc(InputType.TICK).free(HOST_KV, 1, OP, LOAD).sequence();
        assertBreaks(f, Invariant.I9, bad, "HOST_KV:1");
    }

    @Test
    void i11ALoadWritingAPageOutsideItsTreeSlice()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        final long bad = Scenarios.admit(f, true, 1, 1).sequence();
        assertBreaks(f, Invariant.I11, bad, "request:1");
    }

    @Test
    void i12ADeviceSlotFreedTwice()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.TICK).free(MAMBA, S, REQUEST, R1).sequence();
        f.doc(InputType.TICK).free(MAMBA, S, REQUEST, R1);
        assertBreaks(f, Invariant.I12, bad, "DEVICE_MAMBA:0");
    }

    @Test
    void i13ASlotOfAQueuedLoadFreedAtTheRetract()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        final long bad = f.doc(InputType.RETRACT).request(R1).free(MAMBA, S, REQUEST, R1).sequence();
        Scenarios.launch(f);
        assertBreaks(f, Invariant.I13, bad, "DEVICE_MAMBA:0");
    }

    @Test
    void i14TwoStatesOnOneNode()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.TICK).alloc(MAMBA, 5, NODE, NODE2).reset(5).sequence();
        assertBreaks(f, Invariant.I14, bad, "node:2");
    }

    @Test
    void i16ARequestRunsOnASlotNeitherResetNorLoaded()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.PASS_BEGIN);
        f.doc(InputType.ADMIT).request(R2).reserved(R2, 1, 0).alloc(MAMBA, 4, REQUEST, R2)
            .admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED);
        f.doc(InputType.PASS_END);
        final long bad = f.doc(InputType.CHUNK).request(R2)
            .state(R2, RequestState.ADMITTED, RequestState.RUNNING).sequence();
        assertBreaks(f, Invariant.I16, bad, "DEVICE_MAMBA:4");
    }

    @Test
    void i12CursorsObservedOnASlotTheRequestDoesNotOwn()
    {
        // request 1 runs on S; its chunk reports cursors on node 1's checkpoint slot N, then on a FREE slot
        final JournalFixture f = through(InvariantAuditTest::upToAck);
        final long bad = f.doc(InputType.CHUNK).request(R1).observed(N, 0, 0, 0).sequence();
        f.doc(InputType.CHUNK).request(R1).observed(4, 3, 0, 0);
        assertBreaks(f, Invariant.I12, bad, "DEVICE_MAMBA:2");
        final JournalFixture free = through(InvariantAuditTest::upToAck);
        final long freeBad = free.doc(InputType.ABORT).request(R1).observed(4, 0, 0, 0).sequence();
        assertFirst(free.check(), Invariant.I12, freeBad, "DEVICE_MAMBA:4");
    }

    @Test
    void i12ASlotHandedToANodeNotInTheTree()
    {
        // a finishing request hands its working slot to node -1 instead of freeing it (found by the mutation sweep)
        final JournalFixture f = through(InvariantAuditTest::upToAck);
        final long bad = f.doc(InputType.FINISH).request(R1)
            .observed(S, 0, 0, 0)
            .inserted(NODE2, NODE1, 1, 3)
            .transition(KV, 2, REQUEST, R1, NODE, NODE2)
            .transition(MAMBA, TRACK, REQUEST, R1, NODE, NODE2).reset(TRACK)
            .transition(MAMBA, S, REQUEST, R1, NODE, -1)
            .unlocked(NODE1, Component.FULL, REQUEST, R1, 2)
            .state(R1, RequestState.RUNNING, RequestState.FINISHED).sequence();
        assertBreaks(f, Invariant.I12, bad, "DEVICE_MAMBA:0");
        // a page handed to a node before the node's NODE_INSERTED (the two effects swapped)
        final JournalFixture early = through(InvariantAuditTest::upToAck);
        final long earlyBad = early.doc(InputType.CHUNK).request(R1)
            .transition(KV, 2, REQUEST, R1, NODE, NODE2)
            .inserted(NODE2, NODE1, 1, 3).sequence();
        assertFirst(early.check(), Invariant.I12, earlyBad, "DEVICE_KV:2");
    }

    @Test
    void i17ADirtySlotHandedToTheNextRequestWithoutAReset()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.PASS_BEGIN);
        final long bad = f.doc(InputType.ADMIT).request(R2).reserved(R2, 1, 0)
            .alloc(MAMBA, S, REQUEST, R2)
            .admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED).sequence();
        assertBreaks(f, Invariant.I17, bad, "DEVICE_MAMBA:0");
    }

    @Test
    void i18AnAdmissionAllocatingMoreThanItReserved()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.PASS_BEGIN);
        final long bad = f.doc(InputType.ADMIT).request(R2).reserved(R2, 1, 0)
            .alloc(MAMBA, 4, REQUEST, R2).alloc(MAMBA, 5, REQUEST, R2).reset(4).reset(5)
            .admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED).sequence();
        assertBreaks(f, Invariant.I18, bad, "DEVICE_MAMBA:5");
    }

    @Test
    void i18AnAdmissionAllocatingWithoutAnyReservation()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.PASS_BEGIN);
        final long bad = f.doc(InputType.ADMIT).request(R2)
            .alloc(MAMBA, 4, REQUEST, R2).alloc(MAMBA, 5, REQUEST, R2).reset(4).reset(5)
            .admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED).sequence();
        assertBreaks(f, Invariant.I18, bad, "request:2");
    }

    @Test
    void i19AnAcceptedFinishThatDoesNotEndItsRequest()
    {
        // the finish frees and donates the request's slots and drops its lock, but the request stays RUNNING
        final JournalFixture f = through(InvariantAuditTest::upToAck);
        final long bad = f.doc(InputType.FINISH).request(R1)
            .observed(S, 5, 7, 1)
            .inserted(NODE2, NODE1, 1, 3)
            .transition(KV, 2, REQUEST, R1, NODE, NODE2)
            .transition(MAMBA, TRACK, REQUEST, R1, NODE, NODE2).reset(TRACK)
            .free(MAMBA, S, REQUEST, R1)
            .unlocked(NODE1, Component.FULL, REQUEST, R1, 2).sequence();
        assertBreaks(f, Invariant.I19, bad, "request:1");
        final JournalFixture abort = through(InvariantAuditTest::upToAck);
        final long abortBad = abort.doc(InputType.ABORT).request(R1)
            .observed(S, 0, 0, 0)
            .unlocked(NODE1, Component.FULL, REQUEST, R1, 2)
            .free(MAMBA, S, REQUEST, R1).free(MAMBA, TRACK, REQUEST, R1).free(KV, 2, REQUEST, R1).sequence();
        assertFirst(abort.check(), Invariant.I19, abortBad, "request:1");
    }

    @Test
    void i19AnArriveThatCreatesItsRequestTwice()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.ARRIVE).request(R2)
            .state(R2, RequestState.NULL_VAL, RequestState.WAITING).sequence();
        assertBreaks(f, Invariant.I19, bad, "request:2");
    }

    @Test
    void i19ALoadAckedTwice()
    {
        final JournalFixture f = through(InvariantAuditTest::upToAck);
        final long bad = f.doc(InputType.ACK).op(LOAD).ok(true).acked(LOAD, OpKind.LOAD).sequence();
        f.doc(InputType.ACK).op(LOAD).ok(true).acked(LOAD, OpKind.LOAD);
        assertBreaks(f, Invariant.I19, bad, "op:102");
    }

    @Test
    void i12ASlotHandedToARequestThatNeverArrived()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.TICK).alloc(MAMBA, 5, REQUEST, 77).reset(5).sequence();
        assertBreaks(f, Invariant.I12, bad, "DEVICE_MAMBA:5");
    }

    /**
     * Request 2 arrives (with or without its creation effect), is admitted without a prefix (with or without the
     * ADMITTED decision), runs on its reset Mamba slot and finishes.
     *
     * @return the admission document's sequence.
     */
    private static long admitAndRunR2(final JournalFixture f, final boolean stated, final boolean decided)
    {
        upToFinish(f);
        if (stated)
        {
            f.doc(InputType.ARRIVE).request(R2);
        }
        else
        {
            f.doc(InputType.ARRIVE).arrivedWithoutState(R2);
        }
        f.doc(InputType.PASS_BEGIN);
        final JournalFixture.Doc admit = f.doc(InputType.ADMIT).request(R2).reserved(R2, 1, 0)
            .alloc(MAMBA, 4, REQUEST, R2).reset(4);
        if (decided)
        {
            admit.admitted(R2, -1, 0, 0, -1);
        }
        admit.state(R2, RequestState.WAITING, RequestState.ADMITTED);
        f.doc(InputType.PASS_END);
        f.doc(InputType.CHUNK).request(R2).state(R2, RequestState.ADMITTED, RequestState.RUNNING);
        f.doc(InputType.FINISH).request(R2).free(MAMBA, 4, REQUEST, R2)
            .state(R2, RequestState.RUNNING, RequestState.FINISHED);
        return admit.sequence();
    }

    @Test
    void i19ARequestMovedToAdmittedWithoutAnAdmittedDecision()
    {
        assertClean(through(f -> admitAndRunR2(f, true, true)).check());
        final JournalFixture f = new JournalFixture();
        final long bad = admitAndRunR2(f, true, false);
        assertBreaks(f, Invariant.I19, bad, "request:2");
    }

    @Test
    void i19AnAcceptedArrivalWithoutTheRequestsCreation()
    {
        final JournalFixture f = new JournalFixture();
        final long admission = admitAndRunR2(f, false, true);
        assertBreaks(f, Invariant.I19, admission - 2, "request:2");
    }

    @Test
    void i19ARequestCreatedOutsideItsArrival()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        final long bad = f.doc(InputType.TICK).state(R2, RequestState.NULL_VAL, RequestState.WAITING).sequence();
        f.doc(InputType.PASS_BEGIN);
        f.doc(InputType.ADMIT).request(R2).reserved(R2, 1, 0).alloc(MAMBA, 4, REQUEST, R2).reset(4)
            .admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED);
        assertBreaks(f, Invariant.I19, bad, "request:2");
    }

    private static long evictNode2(final JournalFixture f, final boolean noted)
    {
        upToFinish(f);
        final JournalFixture.Doc tick = f.doc(InputType.TICK).evicted(NODE2, Component.MAMBA)
            .free(MAMBA, TRACK, NODE, NODE2);
        if (noted)
        {
            tick.evicted(NODE2, Component.FULL);
        }
        tick.free(KV, 2, NODE, NODE2).deleted(NODE2);
        return tick.sequence();
    }

    @Test
    void i6ANodeDeletedWithoutItsEviction()
    {
        assertClean(through(f -> evictNode2(f, true)).check());
        final JournalFixture f = new JournalFixture();
        final long bad = evictNode2(f, false);
        f.doc(InputType.TICK);
        assertBreaks(f, Invariant.I6, bad, "node:2");
    }

    /**
     * Request 1 caches its page in a CHUNK (node 2), with or without donating its tracking slot to node 2 as the
     * checkpoint, takes a fresh tracking slot, and node 2 is backed up with its Mamba state.
     *
     * @return the backup's document.
     */
    private static long chunkAndBackUp(final JournalFixture f, final boolean donated)
    {
        upToAck(f);
        final JournalFixture.Doc chunk = f.doc(InputType.CHUNK).request(R1)
            .inserted(NODE2, NODE1, 1, 3)
            .transition(KV, 2, REQUEST, R1, NODE, NODE2);
        if (donated)
        {
            chunk.transition(MAMBA, TRACK, REQUEST, R1, NODE, NODE2).reset(TRACK);
        }
        chunk.alloc(MAMBA, 3, REQUEST, R1).reset(3);
        return f.doc(InputType.TICK)
            .alloc(HOST_KV, 2, OP, BACKUP).alloc(JournalFixture.HOST_MAMBA, 1, OP, BACKUP)
            .queued(BACKUP, OpKind.BACKUP, NODE2, JournalFixture.read(KV, 2), JournalFixture.read(MAMBA, TRACK),
                write(HOST_KV, 2), write(JournalFixture.HOST_MAMBA, 1))
            .locked(NODE2, Component.FULL, OP, BACKUP, 3)
            .launched(BACKUP, OpKind.BACKUP).sequence();
    }

    @Test
    void i12ABackupReadingAMambaSlotItsNodeDoesNotOwn()
    {
        assertClean(through(f -> chunkAndBackUp(f, true)).check());
        final JournalFixture f = new JournalFixture();
        final long bad = chunkAndBackUp(f, false);
        assertBreaks(f, Invariant.I12, bad, "DEVICE_MAMBA:1");
    }

    @Test
    void i19AnAcceptedAckThatEndsNoOp()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        final long bad = f.doc(InputType.ACK).op(LOAD).ok(true).sequence();
        Scenarios.ack(f);
        assertBreaks(f, Invariant.I19, bad, "op:102");
    }

    @Test
    void i19AFailedAckThatAcksItsOp()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        Scenarios.launch(f);
        final long bad = Scenarios.ack(f).ok(false).sequence();
        assertBreaks(f, Invariant.I19, bad, "op:102");
    }

    /** Arrive and query, the L3 answer (built by {@code hit}), the fetch done: request 1 holds a staged hold. */
    private static void stagedThrough(final JournalFixture f, final Consumer<JournalFixture.Doc> hit,
        final Consumer<JournalFixture.Doc> fetchDone)
    {
        f.doc(InputType.ARRIVE).request(R1).queued(Scenarios.QUERY, OpKind.QUERY, R1)
            .launched(Scenarios.QUERY, OpKind.QUERY);
        final JournalFixture.Doc storageHit = f.doc(InputType.STORAGE_HIT).request(R1).op(Scenarios.QUERY);
        hit.accept(storageHit);
        storageHit.alloc(HOST_KV, 0, OP, Scenarios.FETCH).alloc(HOST_KV, 1, OP, Scenarios.FETCH)
            .alloc(JournalFixture.HOST_MAMBA, 0, OP, Scenarios.FETCH)
            .queued(Scenarios.FETCH, OpKind.FETCH, R1, write(HOST_KV, 0), write(HOST_KV, 1),
                write(JournalFixture.HOST_MAMBA, 0))
            .launched(Scenarios.FETCH, OpKind.FETCH);
        final JournalFixture.Doc done = f.doc(InputType.FETCH_DONE).request(R1).op(Scenarios.FETCH);
        fetchDone.accept(done);
        done.transition(HOST_KV, 0, OP, Scenarios.FETCH, REQUEST, R1)
            .transition(HOST_KV, 1, OP, Scenarios.FETCH, REQUEST, R1)
            .transition(JournalFixture.HOST_MAMBA, 0, OP, Scenarios.FETCH, REQUEST, R1)
            .staged(R1, Scenarios.FETCH, 2).state(R1, RequestState.WAITING, RequestState.STAGED);
    }

    @Test
    void i19AnAcceptedStorageHitThatEndsNoQuery()
    {
        assertClean(through(f -> stagedThrough(f, hit -> hit.acked(Scenarios.QUERY, OpKind.QUERY),
            done -> done.acked(Scenarios.FETCH, OpKind.FETCH))).check());
        final JournalFixture f = through(g -> stagedThrough(g, hit -> { },
            done -> done.acked(Scenarios.FETCH, OpKind.FETCH)));
        assertBreaks(f, Invariant.I19, 2, "op:100");
    }

    @Test
    void i19AFailedQueryThatAcksItsOp()
    {
        final JournalFixture f = new JournalFixture();
        f.doc(InputType.ARRIVE).request(R1).queued(Scenarios.QUERY, OpKind.QUERY, R1)
            .launched(Scenarios.QUERY, OpKind.QUERY);
        final long bad = f.doc(InputType.STORAGE_HIT).request(R1).op(Scenarios.QUERY).queryFailed()
            .acked(Scenarios.QUERY, OpKind.QUERY).sequence();
        assertBreaks(f, Invariant.I19, bad, "op:100");
    }

    @Test
    void i19AnAcceptedFetchDoneThatEndsNoFetch()
    {
        final JournalFixture f = through(g -> stagedThrough(g, hit -> hit.acked(Scenarios.QUERY, OpKind.QUERY),
            done -> { }));
        assertBreaks(f, Invariant.I19, 3, "op:101");
    }

    @Test
    void i19AFailedFetchDoneThatAcksItsFetch()
    {
        final JournalFixture f = through(g -> stagedThrough(g, hit -> hit.acked(Scenarios.QUERY, OpKind.QUERY),
            done -> done.ok(false).acked(Scenarios.FETCH, OpKind.FETCH)));
        assertBreaks(f, Invariant.I19, 3, "op:101");
    }

    /**
     * After request 1's load is acked (node 1 holds checkpoint Mamba N), request 2 is admitted on node 1 and copies
     * the checkpoint into its working slot; the copy locks node 1's Mamba state and reads {@code source}.
     *
     * @return the admission document.
     */
    private static long copyOnWrite(final JournalFixture f, final int source)
    {
        upToAck(f);
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.PASS_BEGIN);
        return f.doc(InputType.ADMIT).request(R2)
            .reserved(R2, 2, 0)
            .alloc(MAMBA, 5, REQUEST, R2).alloc(MAMBA, 6, REQUEST, R2).reset(5).reset(6)
            .locked(NODE1, Component.FULL, REQUEST, R2, 21)
            .locked(NODE1, Component.MAMBA, OP, 200, 20)
            .queued(200, OpKind.COW, R2, JournalFixture.read(MAMBA, source), write(MAMBA, 5))
            .admitted(R2, -1, 2, 0, 200)
            .state(R2, RequestState.WAITING, RequestState.ADMITTED).sequence();
    }

    @Test
    void i12ACopyOnWriteReadingAMambaSlotItsCheckpointNodeDoesNotOwn()
    {
        assertClean(through(f -> copyOnWrite(f, N)).check());
        final JournalFixture f = new JournalFixture();
        final long bad = copyOnWrite(f, S);
        assertBreaks(f, Invariant.I12, bad, "DEVICE_MAMBA:0");
    }

    @Test
    void i9ALoadReadingHostStagingItsRequestStillHolds()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        f.doc(InputType.PASS_BEGIN);
        // Scenarios.admit, except that the hold's Mamba state is not handed to the load that reads it.
        final long bad = f.doc(InputType.ADMIT).request(R1)
            .reserved(R1, 3, 3)
            .inserted(NODE1, 0, 2, 2)
            .alloc(KV, 0, NODE, NODE1).alloc(KV, 1, NODE, NODE1)
            .alloc(MAMBA, N, NODE, NODE1)
            .alloc(MAMBA, S, REQUEST, R1).alloc(MAMBA, TRACK, REQUEST, R1)
            .alloc(KV, 2, REQUEST, R1)
            .locked(NODE1, Component.FULL, OP, LOAD, 1)
            .locked(NODE1, Component.FULL, REQUEST, R1, 2)
            .reset(S).reset(TRACK).reset(N)
            .transition(HOST_KV, 0, REQUEST, R1, OP, LOAD).transition(HOST_KV, 1, REQUEST, R1, OP, LOAD)
            .queued(LOAD, OpKind.LOAD, R1, JournalFixture.read(HOST_KV, 0), JournalFixture.read(HOST_KV, 1),
                JournalFixture.read(JournalFixture.HOST_MAMBA, 0), write(KV, 0), write(KV, 1), write(MAMBA, N),
                write(MAMBA, S))
            .admitted(R1, LOAD, 2, 2, -1)
            .state(R1, RequestState.STAGED, RequestState.ADMITTED).sequence();
        assertBreaks(f, Invariant.I9, bad, "HOST_MAMBA:0");
    }

    @Test
    void i9AStoreReadingHostStagingAnotherBackupOwns()
    {
        final JournalFixture f = through(InvariantAuditTest::upToFinish);
        f.doc(InputType.TICK)
            .alloc(HOST_KV, 2, OP, BACKUP)
            .queued(BACKUP, OpKind.BACKUP, NODE2, JournalFixture.read(KV, 2), write(HOST_KV, 2))
            .locked(NODE2, Component.FULL, OP, BACKUP, 3)
            .launched(BACKUP, OpKind.BACKUP)
            .alloc(HOST_KV, 3, OP, 105)
            .queued(105, OpKind.BACKUP, NODE1, JournalFixture.read(KV, 0), write(HOST_KV, 3))
            .locked(NODE1, Component.FULL, OP, 105, 4)
            .launched(105, OpKind.BACKUP);
        final long bad = f.doc(InputType.ACK).op(BACKUP).ok(true)
            .acked(BACKUP, OpKind.BACKUP)
            .unlocked(NODE2, Component.FULL, OP, BACKUP, 3)
            .transition(HOST_KV, 2, OP, BACKUP, OP, Scenarios.STORE)
            .queued(Scenarios.STORE, OpKind.STORE, NODE2, JournalFixture.read(HOST_KV, 2),
                JournalFixture.read(HOST_KV, 3))
            .launched(Scenarios.STORE, OpKind.STORE).sequence();
        assertBreaks(f, Invariant.I9, bad, "HOST_KV:3");
    }

    @Test
    void i20IsListedAsCheckedAcrossTwoJournalsByCompare()
    {
        final Cli cli = kvledger("check", "--invariants");
        assertEquals(KvledgerMain.EXIT_CLEAN, cli.exit());
        assertTrue(cli.out().lines().anyMatch(l -> l.startsWith("I20") && l.contains("partial")), cli.out());
        assertTrue(cli.out().contains("kvledger compare JOURNAL OTHER"), cli.out());
    }

    /**
     * No false positives: chaotic serving (retracts, aborts, failed ops, eviction ticks, scarce Mamba slots and
     * staging) of pure-attention and hybrid models under every admission rules version checks clean, seed after
     * seed, with the rules above in force (an op's lock released while it is live, a backup's lock past its ack, an
     * admission without RESERVED, a slot handed to an owner that does not exist).
     */
    @ParameterizedTest
    @CsvSource({"true, 1", "true, 2", "true, 3", "false, 1", "false, 2", "false, 3"})
    void shouldCheckCleanRunsCleanForManySeeds(final boolean hybrid, final int rules)
    {
        for (long seed = 1; seed <= 8; seed++)
        {
            final EngineConfig config = EngineConfig.builder().hybrid(hybrid).pageSize(8).deviceKvPages(96)
                .deviceMambaSlots(hybrid ? 10 + (int)seed % 4 : 0).hostKvPages(32 + 8 * (int)(seed % 3))
                .hostMambaSlots(hybrid ? 4 : 0).trackingSlots(1 + (int)(seed % 2)).maxRequests(128)
                .maxRequestPages(24).maxOps(256).prefetchThresholdPages(2).admissionRules(rules).maxStagedDefers(8)
                .prefetchPolicy(PrefetchPolicy.values()[(int)(seed % 3)]).seed(seed).build();
            final WorkloadOptions o = new WorkloadOptions();
            o.kind = seed % 2 == 0 ? WorkloadKind.RANDOM : WorkloadKind.MULTI_TURN;
            o.requests = 60;
            o.promptTokens = 128;
            o.extendTokens = 48;
            o.seed = seed;
            o.retractRate = 0.3;
            o.abortRate = 0.05;
            o.failureRate = 0.05;
            o.admitsPerPass = 6;
            o.chunkPages = 4;
            o.tickRate = 0.1;
            o.tickPages = 8;
            final CacheStateMachine engine = new CacheStateMachine(config);
            final InvariantChecker checker = new InvariantChecker();
            checker.onHeader(config.toHeader(new JournalHeader()), new JournalPosition());
            final SimulatedPort port = new SimulatedPort(engine, checker::check, seed, o.failureRate, null)
                .verifyEachInput(true);
            new ServingLoop(port, engine.config(), Workload.build(o)).run();
            if (!checker.clean())
            {
                fail("hybrid " + hybrid + " rules " + rules + " seed " + seed + ":\n" +
                    CheckReport.of(checker).toText());
            }
            assertTrue(checker.documents() > 100, "seed " + seed + ": " + checker.documents() + " documents");
        }
    }
}
