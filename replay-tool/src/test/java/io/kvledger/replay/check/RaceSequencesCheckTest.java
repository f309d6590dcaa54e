package io.kvledger.replay.check;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.EffectLookup;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The races of the domain reference (section 7, and the design's "a node filled by a load is invisible to matching
 * until the ack") written as explicit input sequences against {@link CacheStateMachine}, each document fed to the
 * offline checker as it is applied: with the fault switch off the checker finds nothing; with it on, the first
 * violation is the invariant the domain names, at the document that broke ownership.
 */
class RaceSequencesCheckTest
{
    private static final long R1 = 1;
    private static final long R2 = 2;

    /** Engine plus checker, one document at a time. */
    private static final class Run
    {
        final CacheStateMachine engine;
        final InvariantChecker checker = new InvariantChecker();
        final InputRecord in;
        final EffectList last = new EffectList(64);
        long sequence;

        Run(final EngineConfig config)
        {
            engine = new CacheStateMachine(config);
            in = new InputRecord(config.maxRequestPages());
            checker.onHeader(config.toHeader(new JournalHeader()), new JournalPosition());
        }

        int apply(final InputRecord input)
        {
            input.sequence(++sequence).timestampNs(sequence * 1_000_000L);
            final int result = engine.apply(input);
            last.clear();
            for (int i = 0; i < engine.effects().size(); i++)
            {
                last.addCopy(engine.effects(), i);
            }
            checker.check(input, result, engine.effects());
            return result;
        }

        long opOf(final EffectType type, final OpKind kind)
        {
            return EffectLookup.firstId(last, type, kind);
        }

        long admittedPrefix()
        {
            return EffectLookup.firstValue1(last, EffectType.ADMITTED);
        }

        long arrive(final long request, final long seed, final int pages)
        {
            Inputs.arrive(in.reset(), request, 0, 8, 0);
            for (int i = 0; i < pages; i++)
            {
                in.addFingerprint(seed * 1_000_003L + i, (seed << 20) ^ (i * 0x9E3779B97F4A7C15L));
            }
            assertEquals(ResultCode.OK, apply(in));
            return opOf(EffectType.OP_QUEUED, OpKind.QUERY);
        }

        /** Arrive, L3 hit of every page (with its state), fetch done: a staged hold. */
        void staged(final long request, final long seed, final int pages)
        {
            final long query = arrive(request, seed, pages);
            assertEquals(ResultCode.OK, apply(Inputs.storageHit(in.reset(), query, pages, pages)));
            final long fetch = opOf(EffectType.OP_QUEUED, OpKind.FETCH);
            assertEquals(ResultCode.OK, apply(Inputs.fetchDone(in.reset(), fetch, true, pages, true)));
        }

        /** Arrive; an L3 miss if the arrival queried L3 at all. */
        void cold(final long request, final long seed, final int pages)
        {
            final long query = arrive(request, seed, pages);
            if (query >= 0)
            {
                assertEquals(ResultCode.OK, apply(Inputs.storageHit(in.reset(), query, 0, 0)));
            }
        }

        void passBegin()
        {
            assertEquals(ResultCode.OK, apply(Inputs.passBegin(in.reset(), 64, 1 << 30, 1 << 30, 1 << 30)));
        }

        void passEnd()
        {
            assertEquals(ResultCode.OK, apply(Inputs.passEnd(in.reset())));
        }

        int admit(final long request)
        {
            return apply(Inputs.admit(in.reset(), request));
        }

        int retract(final long request)
        {
            return apply(Inputs.retract(in.reset(), request));
        }

        Violation first()
        {
            assertTrue(checker.firstViolation().isPresent(), "the checker must report a violation");
            return checker.firstViolation().get();
        }
    }

    private static EngineConfig.Builder base()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(12).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(16).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1);
    }

    /**
     * Request 1's load fills node 1 (queued, not launched); request 2 asks for the same prefix in the same pass and
     * is admitted. Returns the sequence of request 2's ADMIT and its admitted device prefix.
     */
    private static long[] secondRequestOnALoadingNode(final Run run)
    {
        run.staged(R1, 11, 8);
        run.passBegin();
        assertEquals(ResultCode.OK, run.admit(R1));
        run.cold(R2, 11, 8);
        final int result = run.admit(R2);
        final long admitSequence = run.sequence;
        final long prefix = result == ResultCode.OK ? run.admittedPrefix() : -1;
        run.passEnd();
        return new long[] {admitSequence, prefix};
    }

    @Test
    void shouldNotMatchANodeWhoseLoadIsInFlightInAPureAttentionModel()
    {
        final Run run = new Run(base().hybrid(false).build());
        final long[] second = secondRequestOnALoadingNode(run);
        assertTrue(second[1] <= 0, "the loading node is invisible to matching until the ack");
        assertTrue(run.checker.clean(), () -> run.checker.violations().toString());
    }

    @Test
    void shouldReportARequestAdmittedOnANodeWhoseLoadIsInFlightInAPureAttentionModel()
    {
        final Run run = new Run(base().hybrid(false).fault(FaultSwitch.COW_FROM_LOADING_CHECKPOINT).build());
        final long[] second = secondRequestOnALoadingNode(run);
        assertEquals(8, second[1], "the bug: matching sees the node its load has not written yet");
        final Violation v = run.first();
        assertEquals(second[0], v.documentSequence(), "named at the admission that reads unloaded pages: " + v);
        assertEquals(Invariant.I3, v.invariant(), v::toString);
        assertEquals(Violation.REQUEST, v.pool(), v::toString);
        assertEquals(R2, v.id(), v::toString);
    }

    @Test
    void shouldReportCopyOnWriteFromALoadingCheckpointInAHybridModel()
    {
        final Run run = new Run(base().fault(FaultSwitch.COW_FROM_LOADING_CHECKPOINT).build());
        final long[] second = secondRequestOnALoadingNode(run);
        assertEquals(8, second[1]);
        final Violation v = run.first();
        assertEquals(second[0], v.documentSequence(), v::toString);
        assertTrue(v.invariant() == Invariant.I14 || v.invariant() == Invariant.I3, v::toString);
    }

    // ------------------------------------------------- bug 2: slot freed while its queued H2D is still pending

    /** Request 1's load is queued, request 1 is retracted in the same pass, request 2 is admitted; the pass ends. */
    private static long retractUnderQueuedLoad(final Run run)
    {
        run.staged(R1, 11, 8);
        run.passBegin();
        assertEquals(ResultCode.OK, run.admit(R1));
        assertEquals(ResultCode.OK, run.retract(R1));
        final long retract = run.sequence;
        run.cold(R2, 22, 8);
        assertEquals(ResultCode.OK, run.admit(R2));
        run.passEnd();
        return retract;
    }

    @Test
    void shouldCheckARetractUnderAQueuedLoadCleanWhenTheSwitchIsOff()
    {
        final Run run = new Run(base().build());
        retractUnderQueuedLoad(run);
        assertTrue(run.checker.clean(), () -> run.checker.violations().toString());
    }

    @Test
    void shouldNameTheRetractThatFreedASlotUnderItsQueuedLoadAsI13()
    {
        final Run run = new Run(base().fault(FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD).build());
        final long retract = retractUnderQueuedLoad(run);
        final Violation v = run.first();
        assertEquals(retract, v.documentSequence(), v::toString);
        assertEquals(Invariant.I13, v.invariant(), v::toString);
        assertEquals("DEVICE_MAMBA", v.pool(), v::toString);
        assertTrue(run.checker.violations().stream().anyMatch(w -> w.documentSequence() == run.sequence &&
            w.invariant() == Invariant.I13 && w.explanation().contains("REQUEST " + R2)),
            () -> "the launch overwrites request 2's slot: " + run.checker.violations());
    }

    @Test
    void shouldCheckTheRetractRaceCleanInAPureAttentionModelEvenWithTheSwitchOn()
    {
        final Run run = new Run(base().hybrid(false).fault(FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD).build());
        retractUnderQueuedLoad(run);
        assertTrue(run.checker.clean(), () -> "no Mamba slot, no race: " + run.checker.violations());
    }

    // ------------------------------------------------- bug 1: admission reserves one Mamba slot, the load needs more

    /** Two running requests take 4 of 6 Mamba slots; request 1's staged load needs S, T and N. */
    private static long stagedUnderMambaPressure(final Run run)
    {
        run.cold(10, 100, 4);
        run.cold(11, 101, 4);
        run.passBegin();
        assertEquals(ResultCode.OK, run.admit(10));
        assertEquals(ResultCode.OK, run.admit(11));
        run.passEnd();
        run.staged(R1, 11, 8);
        run.passBegin();
        assertEquals(ResultCode.NOT_ADMITTED, run.admit(R1));
        final long admit = run.sequence;
        run.passEnd();
        return admit;
    }

    @Test
    void shouldDeferAtTheMambaGateAndCheckCleanWhenTheSwitchIsOff()
    {
        final Run run = new Run(base().deviceMambaSlots(6).build());
        stagedUnderMambaPressure(run);
        assertTrue(run.checker.clean(), () -> run.checker.violations().toString());
    }

    @Test
    void shouldNameTheAdmissionThatReservedTooFewMambaSlotsAsI18()
    {
        final Run run = new Run(base().deviceMambaSlots(6).fault(FaultSwitch.RESERVE_REQUEST_SLOT_ONLY).build());
        final long admit = stagedUnderMambaPressure(run);
        final Violation v = run.first();
        assertEquals(admit, v.documentSequence(), v::toString);
        assertEquals(Invariant.I18, v.invariant(), v::toString);
    }

    // ------------------------------------------------- bug 3: ReplaySSM cursors not reset on a staged load

    /** A request finishes with dirty cursors in its working slot; request 1's staged load then gets that slot. */
    private static long stagedLoadIntoADirtySlot(final Run run)
    {
        run.cold(10, 100, 4);
        run.passBegin();
        assertEquals(ResultCode.OK, run.admit(10));
        run.passEnd();
        assertEquals(ResultCode.OK, run.apply(Inputs.finish(run.in.reset(), 10, 4, 4, 5, 7, 1)));
        run.staged(R1, 11, 8);
        run.passBegin();
        assertEquals(ResultCode.OK, run.admit(R1));
        return run.sequence;
    }

    @Test
    void shouldResetTheCursorsOfAStagedLoadAndCheckCleanWhenTheSwitchIsOff()
    {
        final Run run = new Run(base().build());
        stagedLoadIntoADirtySlot(run);
        assertTrue(run.checker.clean(), () -> run.checker.violations().toString());
    }

    @Test
    void shouldNameTheStagedLoadThatKeptStaleCursorsAsI17()
    {
        final Run run = new Run(base().fault(FaultSwitch.SKIP_CURSOR_RESET_ON_STAGED_LOAD).build());
        final long admit = stagedLoadIntoADirtySlot(run);
        final Violation v = run.first();
        assertEquals(admit, v.documentSequence(), v::toString);
        assertEquals(Invariant.I17, v.invariant(), v::toString);
        assertEquals("DEVICE_MAMBA", v.pool(), v::toString);
    }
}
