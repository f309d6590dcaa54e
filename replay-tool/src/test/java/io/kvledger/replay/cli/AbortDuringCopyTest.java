package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 9, part 5: a request admitted with a copy-on-write, the pass ends (the copy launches), then the request is
 * aborted. The checkpoint must stay locked until the copy's ack, and it does: the copy holds that lock. The 13-input
 * journal the embedding API once produced (a MAMBA lock recorded as the request's, outliving it, so check reported
 * I5) is rebuilt here input by input; it must check clean and replay identically.
 */
class AbortDuringCopyTest
{
    private static final EngineConfig CONFIG = EngineConfig.builder().pageSize(4).deviceKvPages(64)
        .deviceMambaSlots(16).hostKvPages(32).hostMambaSlots(4).maxRequests(8).maxRequestPages(8).maxOps(32)
        .prefetchThresholdPages(64).build();

    @Test
    void shouldCheckCleanWhenARequestAbortsUnderALaunchedCopy(@TempDir final Path dir)
    {
        final Path journal = dir.resolve("abort-during-cow");
        final JournalHeader header = CONFIG.toHeader(new JournalHeader()).label("abort-during-cow")
            .createdNs(1_000_000L);
        final CacheStateMachine engine = new CacheStateMachine(CONFIG);
        final InputRecord in = new InputRecord(8);
        final long[] seq = {0};
        final long[] lastOp = {-1, -1, -1};
        try (JournalWriter writer = JournalWriter.open(journal, header, false))
        {
            final java.util.function.Consumer<InputRecord> apply = input ->
            {
                input.sequence(++seq[0]).timestampNs(seq[0] * 1_000L);
                final int result = engine.apply(input);
                assertTrue(result >= 0, "input #" + seq[0] + " " + ResultCode.name(result));
                writer.append(input, result, engine.effects());
                for (int i = 0; i < engine.effects().size(); i++)
                {
                    if (engine.effects().type(i) == EffectType.OP_QUEUED)
                    {
                        final OpKind kind = engine.effects().opKind(i);
                        lastOp[kind == OpKind.COW ? 0 : kind == OpKind.BACKUP ? 1 : 2] = engine.effects().id(i);
                    }
                }
            };
            arrive(in, 1, 4);
            apply.accept(in);
            apply.accept(Inputs.passBegin(in.reset(), 8, 1 << 20, 1 << 20, 1 << 20));
            apply.accept(Inputs.admit(in.reset(), 1));
            apply.accept(Inputs.passEnd(in.reset()));
            apply.accept(Inputs.finish(in.reset(), 1, 4, 4, 0, 0, 0));
            arrive(in, 2, 6);
            apply.accept(in);
            apply.accept(Inputs.passBegin(in.reset(), 8, 1 << 20, 1 << 20, 1 << 20));
            apply.accept(Inputs.admit(in.reset(), 2));
            assertTrue(lastOp[0] > 0, "request 2 resumes from request 1's checkpoint by copy-on-write");
            apply.accept(Inputs.passEnd(in.reset()));
            apply.accept(Inputs.abort(in.reset(), 2, 0, 0, 0));
            apply.accept(Inputs.ack(in.reset(), lastOp[0], true));
            apply.accept(Inputs.ack(in.reset(), lastOp[1], true));
            apply.accept(Inputs.ack(in.reset(), lastOp[2], true));
        }
        engine.verify();
        assertEquals(13, seq[0]);
        kvledger("check", journal).exits(0);
        kvledger("replay", journal).exits(0);
    }

    private static void arrive(final InputRecord in, final long request, final int pages)
    {
        Inputs.arrive(in.reset(), request, 0, 4, 0);
        for (int i = 0; i < pages; i++)
        {
            in.addFingerprint(1000 + i, 7000 + i);
        }
    }
}
