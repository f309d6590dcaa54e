package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.engine.OpTable;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.EffectLookup;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The retract race (domain §7 bug 2) and the stale-cursor race (bug 3), plus the short reservation (bug 1), each
 * written as an explicit input sequence with unrelated traffic around it and journaled through a real
 * {@link JournalWriter}: with the fault switch off {@code kvledger check} finds the journal clean; with it on it
 * names the invariant the domain names at the document that broke ownership (not later), and {@code kvledger
 * shrink} writes a smaller journal that still breaks the same invariant.
 */
class RaceJournalAuditTest
{
    private static final Pattern SHRUNK =
        Pattern.compile("shrunk (\\d+) -> (\\d+) inputs \\(invariant (I\\d+)\\), written to (.+)");

    @TempDir
    Path dir;

    /** Engine plus journal writer, one document per input. */
    private static final class Journaled implements AutoCloseable
    {
        final CacheStateMachine engine;
        final JournalWriter writer;
        final InputRecord in;
        final EffectList last = new EffectList(64);
        long sequence;

        Journaled(final Path directory, final EngineConfig config)
        {
            engine = new CacheStateMachine(config);
            writer = JournalWriter.open(directory, config.toHeader(new JournalHeader()).label("race-audit")
                .createdNs(1_000_000L), false);
            in = new InputRecord(config.maxRequestPages());
        }

        int apply(final InputRecord input)
        {
            input.sequence(++sequence).timestampNs(sequence * 1_000_000L);
            final int result = engine.apply(input);
            writer.append(input, result, engine.effects());
            engine.verify();
            last.clear();
            for (int i = 0; i < engine.effects().size(); i++)
            {
                last.addCopy(engine.effects(), i);
            }
            return result;
        }

        void ok(final InputRecord input)
        {
            final int result = apply(input);
            assertTrue(result == ResultCode.OK || result == ResultCode.NOT_ADMITTED, ResultCode.name(result));
        }

        long op(final EffectType type, final OpKind kind)
        {
            return EffectLookup.firstId(last, type, kind);
        }

        long admittedPrefix()
        {
            return EffectLookup.firstValue1(last, EffectType.ADMITTED);
        }

        long admittedLoad()
        {
            return EffectLookup.firstId(last, EffectType.ADMITTED, null);
        }

        void arrive(final long request, final long seed, final int pages)
        {
            Inputs.arrive(in.reset(), request, 0, 8, 0);
            for (int i = 0; i < pages; i++)
            {
                in.addFingerprint(seed * 1_000_003L + i, (seed << 20) ^ (i * 0x9E3779B97F4A7C15L));
            }
            ok(in);
        }

        void cold(final long request, final long seed, final int pages)
        {
            arrive(request, seed, pages);
            final long query = op(EffectType.OP_QUEUED, OpKind.QUERY);
            if (query >= 0)
            {
                ok(Inputs.storageHit(in.reset(), query, 0, 0));
            }
        }

        void staged(final long request, final long seed, final int pages)
        {
            arrive(request, seed, pages);
            ok(Inputs.storageHit(in.reset(), op(EffectType.OP_QUEUED, OpKind.QUERY), pages, pages));
            ok(Inputs.fetchDone(in.reset(), op(EffectType.OP_QUEUED, OpKind.FETCH), true, pages, true));
        }

        void passBegin()
        {
            ok(Inputs.passBegin(in.reset(), 64, 1 << 30, 1 << 30, 1 << 30));
        }

        void passEnd()
        {
            ok(Inputs.passEnd(in.reset()));
        }

        /** Unrelated traffic: a cold request admitted, run and finished, its backup and store acked. */
        void traffic(final long request, final long seed)
        {
            cold(request, seed, 4);
            passBegin();
            assertEquals(ResultCode.OK, apply(Inputs.admit(in.reset(), request)));
            passEnd();
            ok(Inputs.finish(in.reset(), request, 4, 4, 0, 0, 0));
            final long backup = op(EffectType.OP_QUEUED, OpKind.BACKUP);
            if (backup >= 0)
            {
                passBegin();
                passEnd();
                ok(Inputs.ack(in.reset(), backup, true));
                final long store = op(EffectType.OP_QUEUED, OpKind.STORE);
                if (store >= 0)
                {
                    ok(Inputs.ack(in.reset(), store, true));
                }
            }
        }

        /** Launch and ack every backup and store left, until none is in flight. */
        void drainWrites()
        {
            final OpTable ops = engine.ops();
            for (int guard = 0; guard < 32 && engine.inFlightOps() > 0; guard++)
            {
                passBegin();
                passEnd();
                for (int o = 0; o < engine.config().maxOps(); o++)
                {
                    if ((ops.kind(o) == OpKind.BACKUP || ops.kind(o) == OpKind.STORE)
                        && ops.state(o) == OpTable.LAUNCHED)
                    {
                        ok(Inputs.ack(in.reset(), ops.id(o), true));
                    }
                }
            }
        }

        @Override
        public void close()
        {
            writer.close();
        }
    }

    private static EngineConfig config(final FaultSwitch fault)
    {
        final EngineConfig.Builder builder = EngineConfig.builder().pageSize(4).deviceKvPages(128)
            .deviceMambaSlots(12).hostKvPages(64).hostMambaSlots(4).maxRequests(16).maxRequestPages(16).maxOps(64)
            .prefetchThresholdPages(1);
        return fault == null ? builder.build() : builder.fault(fault).build();
    }

    /** Bug 2: R1's staged load is queued, R1 is retracted, R2 is admitted in the same pass, the load launches. */
    private static long retractRace(final Path journal, final FaultSwitch fault)
    {
        try (Journaled j = new Journaled(journal, config(fault)))
        {
            j.traffic(20, 200);
            j.traffic(21, 201);
            j.staged(1, 11, 8);
            j.cold(2, 22, 8);
            j.passBegin();
            assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 1)));
            final long load = j.admittedLoad();
            assertTrue(load >= 0);
            assertEquals(ResultCode.OK, j.apply(Inputs.retract(j.in.reset(), 1)));
            final long retract = j.sequence;
            assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 2)));
            j.passEnd();
            if (j.engine.ops().slotOf(load) >= 0)
            {
                j.ok(Inputs.ack(j.in.reset(), load, true));
            }
            j.traffic(22, 202);
            return retract;
        }
    }

    /** Bug 3: a request leaves dirty cursors on the slots it frees, then a staged load takes them. */
    private static long staleCursorRace(final Path journal, final FaultSwitch fault)
    {
        try (Journaled j = new Journaled(journal, config(fault)))
        {
            j.traffic(20, 200);
            j.traffic(21, 201);
            j.cold(10, 100, 4);
            j.passBegin();
            assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 10)));
            j.passEnd();
            j.ok(Inputs.finish(j.in.reset(), 10, 4, 4, 5, 7, 1));
            final long admit = stagedLoadAcked(j);
            j.traffic(22, 202);
            return admit;
        }
    }

    /** Request 1 staged with an 8-page L3 hit, admitted, its load acked; the admission's document. */
    private static long stagedLoadAcked(final Journaled j)
    {
        j.staged(1, 11, 8);
        j.passBegin();
        assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 1)));
        final long admit = j.sequence;
        final long load = j.admittedLoad();
        j.passEnd();
        j.ok(Inputs.ack(j.in.reset(), load, true));
        return admit;
    }

    /** Bug 1 with slots to spare: a staged load allocates S, the tracking slot and N. */
    private static long shortReservation(final Path journal, final FaultSwitch fault)
    {
        try (Journaled j = new Journaled(journal, config(fault)))
        {
            j.traffic(20, 200);
            final long admit = stagedLoadAcked(j);
            j.traffic(21, 201);
            return admit;
        }
    }

    /** Bug 1 under pressure: two free Mamba slots; the staged load needs three (S, tracking slot, N). */
    private static long shortReservationUnderPressure(final Path journal, final FaultSwitch fault)
    {
        final EngineConfig config = config(fault).toBuilder().deviceMambaSlots(6).build();
        try (Journaled j = new Journaled(journal, config))
        {
            j.traffic(20, 200);
            j.cold(10, 100, 4);
            j.cold(11, 101, 4);
            j.passBegin();
            assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 10)));
            assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 11)));
            j.passEnd();
            j.staged(1, 11, 8);
            long first = -1;
            for (int attempt = 0; attempt < 3; attempt++)
            {
                j.passBegin();
                assertEquals(ResultCode.NOT_ADMITTED, j.apply(Inputs.admit(j.in.reset(), 1)), "deferred either way");
                first = first < 0 ? j.sequence : first;
                j.passEnd();
            }
            return first;
        }
    }

    /**
     * Retract after launch, re-admit in the next pass while the old load is in flight (the request recomputes), then
     * ack the old load ok or failed, before or after the request's finish; later requests match what is cached.
     */
    private static void readmitUnderLaunchedLoad(final Journaled j, final boolean loadOk, final boolean finishFirst)
    {
        j.staged(1, 11, 8);
        j.passBegin();
        assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 1)));
        final long load = j.admittedLoad();
        j.passEnd();
        assertEquals(ResultCode.OK, j.apply(Inputs.retract(j.in.reset(), 1)));
        j.passBegin();
        assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 1)));
        j.passEnd();
        if (finishFirst)
        {
            j.ok(Inputs.finish(j.in.reset(), 1, 8, 8, 0, 0, 0));
        }
        j.ok(Inputs.ack(j.in.reset(), load, loadOk));
        if (!finishFirst)
        {
            j.ok(Inputs.finish(j.in.reset(), 1, 8, 8, 0, 0, 0));
        }
        j.traffic(2, 11);
        j.cold(3, 11, 8);
        j.passBegin();
        assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 3)));
        if (loadOk || !finishFirst)
        {
            assertEquals(8, j.admittedPrefix(), "whichever inserted the pages, they are cached once, with a state");
        }
        else
        {
            // The finish deduped its 8 pages into the node the load was still filling, so when the load failed
            // they went with it; only request 2's 4 pages are left. No invariant is broken (see the report).
            assertTrue(j.admittedPrefix() >= 4, "at least request 2's checkpoint");
        }
        final long copy = j.op(EffectType.OP_QUEUED, OpKind.COW);
        j.passEnd();
        assertEquals(ResultCode.OK, j.apply(Inputs.ack(j.in.reset(), copy, true)));
        j.ok(Inputs.finish(j.in.reset(), 3, 8, 8, 0, 0, 0));
    }

    /** Abort under a launched copy-on-write, while a second request copies from the same checkpoint. */
    private static void abortUnderLaunchedCopy(final Journaled j, final boolean copyOk)
    {
        j.traffic(10, 11);
        j.cold(1, 11, 8);
        j.cold(2, 11, 6);
        j.passBegin();
        assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 1)));
        final long cow = j.op(EffectType.OP_QUEUED, OpKind.COW);
        assertTrue(cow >= 0);
        j.passEnd();
        assertEquals(ResultCode.OK, j.apply(Inputs.abort(j.in.reset(), 1, 3, 2, 1)));
        j.passBegin();
        assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 2)));
        final long second = j.op(EffectType.OP_QUEUED, OpKind.COW);
        j.passEnd();
        j.ok(Inputs.ack(j.in.reset(), cow, copyOk));
        if (second >= 0)
        {
            j.ok(Inputs.ack(j.in.reset(), second, true));
        }
        j.ok(Inputs.finish(j.in.reset(), 2, 6, 6, 0, 0, 0));
    }

    /** L3 answers that arrive for requests already aborted, and repeated or early acks. */
    private static void answersAfterAbort(final Journaled j)
    {
        j.arrive(1, 11, 8);
        final long query = j.op(EffectType.OP_QUEUED, OpKind.QUERY);
        j.ok(Inputs.abort(j.in.reset(), 1, 0, 0, 0));
        j.ok(Inputs.storageHit(j.in.reset(), query, 8, 8));
        j.arrive(2, 22, 8);
        j.ok(Inputs.storageHit(j.in.reset(), j.op(EffectType.OP_QUEUED, OpKind.QUERY), 8, 8));
        final long fetch = j.op(EffectType.OP_QUEUED, OpKind.FETCH);
        j.ok(Inputs.abort(j.in.reset(), 2, 0, 0, 0));
        j.ok(Inputs.fetchDone(j.in.reset(), fetch, true, 8, true));
        j.arrive(3, 33, 8);
        j.ok(Inputs.storageHit(j.in.reset(), j.op(EffectType.OP_QUEUED, OpKind.QUERY), 8, 8));
        final long failed = j.op(EffectType.OP_QUEUED, OpKind.FETCH);
        j.ok(Inputs.abort(j.in.reset(), 3, 0, 0, 0));
        j.ok(Inputs.fetchDone(j.in.reset(), failed, false, 0, false));
        j.staged(4, 44, 8);
        j.passBegin();
        assertEquals(ResultCode.OK, j.apply(Inputs.admit(j.in.reset(), 4)));
        final long load = j.admittedLoad();
        assertEquals(ResultCode.OP_NOT_LAUNCHED, j.apply(Inputs.ack(j.in.reset(), load, true)));
        j.passEnd();
        assertEquals(ResultCode.OK, j.apply(Inputs.ack(j.in.reset(), load, false)));
        assertEquals(ResultCode.OP_ALREADY_DONE, j.apply(Inputs.ack(j.in.reset(), load, true)));
        assertEquals(ResultCode.OP_ALREADY_DONE, j.apply(Inputs.ack(j.in.reset(), fetch, true)));
        j.ok(Inputs.abort(j.in.reset(), 4, 0, 0, 0));
        j.traffic(5, 44);
    }

    private interface Sequence
    {
        void drive(Journaled j);
    }

    private void assertCleanJournal(final String name, final Sequence sequence)
    {
        final Path journal = dir.resolve(name);
        try (Journaled j = new Journaled(journal, config(null)))
        {
            sequence.drive(j);
            j.drainWrites();
            assertEquals(0, j.engine.liveRequests(), name + ": every request ended");
            assertEquals(0, j.engine.inFlightOps(), name + ": no op left");
        }
        final JsonNode report = kvledger("check", "--json", journal).exits(0).json();
        assertTrue(report.get("clean").asBoolean(), name + ": " + report);
    }

    @Test
    void shouldKeepEveryInvariantAcrossRetractsAbortsAndLateAnswers()
    {
        for (final boolean finishFirst : new boolean[] {false, true})
        {
            assertCleanJournal("readmit-ok-" + finishFirst, j -> readmitUnderLaunchedLoad(j, true, finishFirst));
            assertCleanJournal("readmit-failed-" + finishFirst, j -> readmitUnderLaunchedLoad(j, false, finishFirst));
        }
        assertCleanJournal("copy-ok", j -> abortUnderLaunchedCopy(j, true));
        assertCleanJournal("copy-failed", j -> abortUnderLaunchedCopy(j, false));
        assertCleanJournal("late-answers", RaceJournalAuditTest::answersAfterAbort);
    }

    private interface Race
    {
        long write(Path journal, FaultSwitch fault);
    }

    private void assertCaughtAndShrunk(final String name, final Race race, final FaultSwitch fault,
        final String invariant)
    {
        final Path clean = dir.resolve(name + "-clean");
        race.write(clean, null);
        final JsonNode cleanReport = kvledger("check", "--json", clean).exits(0).json();
        assertTrue(cleanReport.get("clean").asBoolean(), cleanReport.toString());

        final Path buggy = dir.resolve(name + "-buggy");
        final long bad = race.write(buggy, fault);
        final JsonNode report = kvledger("check", "--json", buggy).exits(1).json();
        final JsonNode first = report.get("violations").get(0);
        assertEquals(invariant, first.get("invariant").asText(), report.toString());
        assertEquals(bad, first.get("seq").asLong(), "named at the document that broke it: " + first);
        final long documents = report.get("documents").asLong();

        final Path out = dir.resolve(name + "-shrunk");
        final CliRun shrink = kvledger("shrink", buggy, "--out", out).exits(1);
        final Matcher shrunk = SHRUNK.matcher(shrink.firstLine());
        assertTrue(shrunk.matches(), shrink.out());
        assertEquals(invariant, shrunk.group(3));
        final int kept = Integer.parseInt(shrunk.group(2));
        assertTrue(kept < bad && kept <= 12, shrink.out());

        final JsonNode again = kvledger("check", "--json", out).exits(1).json();
        assertEquals(invariant, again.get("violations").get(0).get("invariant").asText(), again.toString());
        assertEquals(kept, again.get("documents").asLong(), again.toString());
        assertTrue(again.get("documents").asLong() < documents);
    }

    @Test
    void shouldNameI13AtTheRetractAndShrinkTheRetractRace()
    {
        assertCaughtAndShrunk("retract", RaceJournalAuditTest::retractRace,
            FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD, "I13");
    }

    @Test
    void shouldNameI17AtTheAdmissionAndShrinkTheStaleCursorRace()
    {
        assertCaughtAndShrunk("cursors", RaceJournalAuditTest::staleCursorRace,
            FaultSwitch.SKIP_CURSOR_RESET_ON_STAGED_LOAD, "I17");
    }

    @Test
    void shouldNameI18AtTheFirstDeferralAndShrinkTheShortReservationUnderPressure()
    {
        assertCaughtAndShrunk("pressure", RaceJournalAuditTest::shortReservationUnderPressure,
            FaultSwitch.RESERVE_REQUEST_SLOT_ONLY, "I18");
    }

    @Test
    void shouldNameI18AtTheAdmissionAndShrinkTheShortReservation()
    {
        assertCaughtAndShrunk("reserve", RaceJournalAuditTest::shortReservation,
            FaultSwitch.RESERVE_REQUEST_SLOT_ONLY, "I18");
    }
}
