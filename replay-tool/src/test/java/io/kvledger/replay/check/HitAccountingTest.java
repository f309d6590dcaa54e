package io.kvledger.replay.check;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * L3 hits are counted when their load is acked, by the engine's counters and by the journal's stats alike: a load
 * retracted before its batch ran served nothing (its request recomputes), so its pages are no hit.
 */
class HitAccountingTest
{
    private static final int PAGES = 8;

    private final CacheStateMachine engine = new CacheStateMachine(EngineConfig.builder().pageSize(4)
        .deviceKvPages(128).deviceMambaSlots(12).hostKvPages(64).hostMambaSlots(4).maxRequests(16)
        .maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).build());
    private final JournalStats stats = new JournalStats();
    private final InputRecord in = new InputRecord(16);
    private final EffectList last = new EffectList(64);
    private long sequence;

    private int apply(final InputRecord input)
    {
        input.sequence(++sequence).timestampNs(sequence * 1_000_000L);
        final int result = engine.apply(input);
        stats.onDocument(input, result, engine.effects(), null);
        last.clear();
        for (int i = 0; i < engine.effects().size(); i++)
        {
            last.addCopy(engine.effects(), i);
        }
        return result;
    }

    private long op(final EffectType type, final OpKind kind)
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

    @Test
    void shouldCountAnL3HitOnlyWhenItsLoadIsAcked()
    {
        stats.onHeader(engine.config().toHeader(new JournalHeader()), null);
        Inputs.arrive(in.reset(), 1, 0, 8, 0);
        for (int i = 0; i < PAGES; i++)
        {
            in.addFingerprint(11 * 1_000_003L + i, (11L << 20) ^ (i * 0x9E3779B97F4A7C15L));
        }
        assertEquals(ResultCode.OK, apply(in));
        apply(Inputs.storageHit(in.reset(), op(EffectType.OP_QUEUED, OpKind.QUERY), PAGES, PAGES));
        assertEquals(ResultCode.OK, apply(Inputs.fetchDone(in.reset(), op(EffectType.OP_QUEUED, OpKind.FETCH), true,
            PAGES, true)));

        // Admitted with its staged hit, then retracted before the pass ends: the queued load is cancelled.
        apply(Inputs.passBegin(in.reset(), 64, 1 << 30, 1 << 30, 1 << 30));
        assertEquals(ResultCode.OK, apply(Inputs.admit(in.reset(), 1)));
        assertTrue(op(EffectType.OP_QUEUED, OpKind.LOAD) >= 0, "the staged hit is loaded");
        assertEquals(ResultCode.OK, apply(Inputs.retract(in.reset(), 1)));
        apply(Inputs.passEnd(in.reset()));
        assertEquals(0, engine.counters().loadedPages, "a cancelled load served no hit");
        assertEquals(0, stats.loadedPages());
        assertEquals(1, stats.loadsCancelled());

        // Admitted again, launched, acked: now its pages were loaded from L3.
        apply(Inputs.passBegin(in.reset(), 64, 1 << 30, 1 << 30, 1 << 30));
        assertEquals(ResultCode.OK, apply(Inputs.admit(in.reset(), 1)));
        final long load = op(EffectType.OP_QUEUED, OpKind.LOAD);
        apply(Inputs.passEnd(in.reset()));
        if (load >= 0)
        {
            assertEquals(ResultCode.OK, apply(Inputs.ack(in.reset(), load, true)));
        }
        assertEquals(engine.counters().loadedPages, stats.loadedPages(), "the counters and the journal agree");
        assertEquals(load >= 0 ? 1 : 0, engine.counters().loadsAcked);
        assertTrue(stats.l3HitRate() <= stats.hitRate());
    }
}
