package io.kvledger.replay.check;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.replay.report.CheckReport;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Each fault switch driven through the real engine by the event sequence that exposes it, every document fed to
 * the real checker as it is applied: with the switch on, the first violation is the switch's invariant at the
 * input that does the bad thing; its clean twin (the same inputs, the switch off) checks clean, and the engine's
 * own {@code verify()} holds after every input of the clean twin.
 */
class EngineFaultTwinsTest
{
    /** The engine, fed input by input, each document checked as it is applied. */
    private static final class Run
    {
        final CacheStateMachine engine;
        final InvariantChecker checker = new InvariantChecker();
        final InputRecord in;
        final EffectList last = new EffectList(64);
        final boolean verify;
        long sequence;

        Run(final EngineConfig config)
        {
            engine = new CacheStateMachine(config);
            in = new InputRecord(config.maxRequestPages());
            verify = config.faultMask() == 0;
            checker.onHeader(config.toHeader(new JournalHeader()), new JournalPosition());
        }

        long apply(final InputRecord input)
        {
            ++sequence;
            input.sequence(sequence).timestampNs(sequence * 1_000_000L);
            final int result = engine.apply(input);
            last.clear();
            for (int i = 0; i < engine.effects().size(); i++)
            {
                last.addCopy(engine.effects(), i);
            }
            checker.check(input, result, last);
            if (verify)
            {
                engine.verify();
            }
            assertTrue(result >= 0, "input #" + sequence + " refused: " + ResultCode.name(result));
            return sequence;
        }

        long op(final EffectType type, final OpKind kind)
        {
            for (int i = 0; i < last.size(); i++)
            {
                if (last.type(i) == type && last.opKind(i) == kind)
                {
                    return last.id(i);
                }
            }
            return -1;
        }

        long loadOf()
        {
            for (int i = 0; i < last.size(); i++)
            {
                if (last.type(i) == EffectType.ADMITTED)
                {
                    return last.id(i);
                }
            }
            return -1;
        }

        long arrive(final long request, final long seed, final int pages)
        {
            Inputs.arrive(in.reset(), request, 0, 8, 0);
            for (int i = 0; i < pages; i++)
            {
                in.addFingerprint(seed * 1_000_003L + i, (seed << 20) ^ (i * 0x9E3779B97F4A7C15L));
            }
            apply(in);
            return op(EffectType.OP_QUEUED, OpKind.QUERY);
        }

        void cold(final long request, final long seed, final int pages)
        {
            final long query = arrive(request, seed, pages);
            if (query >= 0)
            {
                apply(Inputs.storageHit(in.reset(), query, 0, 0));
            }
        }

        void staged(final long request, final long seed, final int pages)
        {
            final long query = arrive(request, seed, pages);
            apply(Inputs.storageHit(in.reset(), query, pages, pages));
            final long fetch = op(EffectType.OP_QUEUED, OpKind.FETCH);
            apply(Inputs.fetchDone(in.reset(), fetch, true, pages, true));
        }

        void passBegin()
        {
            apply(Inputs.passBegin(in.reset(), 64, 1 << 30, 1 << 30, 1 << 30));
        }

        long passEnd()
        {
            return apply(Inputs.passEnd(in.reset()));
        }

        long admit(final long request)
        {
            return apply(Inputs.admit(in.reset(), request));
        }

        long ack(final long op, final boolean ok)
        {
            return apply(Inputs.ack(in.reset(), op, ok));
        }
    }

    private static EngineConfig config(final FaultSwitch fault)
    {
        final EngineConfig.Builder b = EngineConfig.builder().pageSize(4).deviceKvPages(64).deviceMambaSlots(12)
            .hostKvPages(32).hostMambaSlots(4).maxRequests(32).maxRequestPages(16).maxOps(64)
            .prefetchThresholdPages(1);
        return (fault == null ? b : b.fault(fault)).build();
    }

    /** Runs the scenario with the switch on and off; returns the sequence the scenario names as the bad input. */
    private interface Scenario
    {
        long run(Run run);
    }

    private static void assertTwins(final FaultSwitch fault, final Invariant invariant, final Scenario scenario)
    {
        final Run clean = new Run(config(null));
        scenario.run(clean);
        if (!clean.checker.clean())
        {
            fail("clean twin of " + fault + ":\n" + CheckReport.of(clean.checker).toText());
        }
        final Run buggy = new Run(config(fault));
        final long bad = scenario.run(buggy);
        final String report = CheckReport.of(buggy.checker).toText();
        assertTrue(buggy.checker.firstViolation().isPresent(), fault + " went unnoticed");
        final Violation first = buggy.checker.firstViolation().get();
        assertEquals(invariant, first.invariant(), report);
        assertEquals(bad, first.documentSequence(), report);
    }

    /** Five running requests of one page each hold ten of the twelve Mamba slots (working and tracking). */
    private static void fillMamba(final Run run)
    {
        run.passBegin();
        for (int r = 0; r < 5; r++)
        {
            run.cold(100 + r, 500 + r, 1);
            run.admit(100 + r);
        }
        run.passEnd();
    }

    @Test
    void reserveRequestSlotOnlyLosesTheHitAtAdmission()
    {
        assertTwins(FaultSwitch.RESERVE_REQUEST_SLOT_ONLY, Invariant.I18, run ->
        {
            run.staged(1, 11, 4);
            fillMamba(run);
            run.passBegin();
            return run.admit(1);
        });
    }

    @Test
    void freeOnRetractWithQueuedLoadFreesATargetedSlotAtTheRetract()
    {
        assertTwins(FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD, Invariant.I13, run ->
        {
            run.staged(1, 11, 4);
            run.passBegin();
            run.admit(1);
            final long retract = run.apply(Inputs.retract(run.in.reset(), 1));
            run.cold(2, 22, 2);
            run.admit(2);
            run.passEnd();
            return retract;
        });
    }

    @Test
    void skipCursorResetOnStagedLoadHandsADirtySlotAtAdmission()
    {
        assertTwins(FaultSwitch.SKIP_CURSOR_RESET_ON_STAGED_LOAD, Invariant.I17, run ->
        {
            run.staged(2, 22, 4);
            run.cold(1, 11, 2);
            run.passBegin();
            run.admit(1);
            run.passEnd();
            // Request 1 finishes with a dirty working slot: back on the free list with write_pos 5.
            run.apply(Inputs.finish(run.in.reset(), 1, 2, 2, 5, 7, 1));
            run.passBegin();
            return run.admit(2);
        });
    }

    @Test
    void doubleFreeOnAbortFreesTheWorkingSlotTwiceAtTheAbort()
    {
        assertTwins(FaultSwitch.DOUBLE_FREE_ON_ABORT, Invariant.I12, run ->
        {
            run.cold(1, 11, 2);
            run.passBegin();
            run.admit(1);
            run.passEnd();
            return run.apply(Inputs.abort(run.in.reset(), 1, 3, 0, 0));
        });
    }

    @Test
    void leakStagingOnDropForgetsAStagingSlotAtTheDrop()
    {
        assertTwins(FaultSwitch.LEAK_STAGING_ON_DROP, Invariant.I9, run ->
        {
            run.staged(1, 11, 4);
            return run.apply(Inputs.abort(run.in.reset(), 1, 0, 0, 0));
        });
    }

    @Test
    void unlockTwiceOnFinishReleasesALockTwiceAtTheFinish()
    {
        assertTwins(FaultSwitch.UNLOCK_TWICE_ON_FINISH, Invariant.I5, run ->
        {
            run.cold(1, 11, 2);
            run.passBegin();
            run.admit(1);
            run.passEnd();
            return run.apply(Inputs.finish(run.in.reset(), 1, 2, 2, 0, 0, 0));
        });
    }

    @Test
    void evictNodeWithInflightOpEvictsANodeUnderItsBackupAtTheTick()
    {
        // A node a load creates is invisible and never evicted, switch or not; the op lock the switch ignores is
        // the one a D2H backup holds on the node it reads.
        assertTwins(FaultSwitch.EVICT_NODE_WITH_INFLIGHT_LOAD, Invariant.I7, run ->
        {
            run.cold(1, 11, 2);
            run.passBegin();
            run.admit(1);
            run.passEnd();
            run.apply(Inputs.finish(run.in.reset(), 1, 2, 2, 0, 0, 0));
            return run.apply(Inputs.tick(run.in.reset(), Long.MAX_VALUE));
        });
    }

    @Test
    void cowFromLoadingCheckpointCopiesFromAStateStillLoadingAtAdmission()
    {
        assertTwins(FaultSwitch.COW_FROM_LOADING_CHECKPOINT, Invariant.I14, run ->
        {
            run.staged(1, 11, 4);
            run.passBegin();
            run.admit(1);
            run.cold(2, 11, 4);
            return run.admit(2);
        });
    }
}
