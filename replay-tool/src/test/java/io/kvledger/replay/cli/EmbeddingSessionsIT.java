package io.kvledger.replay.cli;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.runtime.KvLedgerOptions;
import io.kvledger.engine.runtime.Session;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.SplittableRandom;

import static io.kvledger.replay.cli.CliRun.kvledger;

/**
 * Issue 9, part 5, through the embedding API: four threads, each with its own {@link Session}, make valid and
 * invalid calls in a random order (arrive, passes from several threads at once, admit, retract and abort at any
 * point, including under launched loads and copies, chunk, finish, ticks that evict) against a live controller with
 * slow copies. With no fault switch on, the journal must check clean and replay identically.
 */
class EmbeddingSessionsIT
{
    private static final int THREADS = 4;
    private static final int CALLS_PER_THREAD = 3_000;

    @Test
    void shouldWriteAJournalThatChecksCleanUnderConcurrentSessions(@TempDir final Path dir) throws Exception
    {
        final KvLedgerOptions options = new KvLedgerOptions();
        options.config = EngineConfig.builder().pageSize(4).deviceKvPages(96).deviceMambaSlots(24).hostKvPages(32)
            .hostMambaSlots(4).maxRequests(64).maxRequestPages(8).maxOps(128).prefetchThresholdPages(1)
            .seed(5).build();
        options.journalDir = dir.resolve("journal");
        options.storeDir = dir.resolve("l3");
        options.copyDelayMinNs = 20_000;
        options.copyDelayMaxNs = 400_000;
        options.copyFailureProbability = 0.02;
        options.label = "sessions";
        SessionThreads.serve(options, THREADS, 120_000, EmbeddingSessionsIT::drive);
        kvledger("check", options.journalDir).exits(0);
        kvledger("replay", options.journalDir).exits(0);
    }

    private static void drive(final Session session, final int thread)
    {
        final SplittableRandom random = new SplittableRandom(100 + thread);
        final int[] tokens = new int[32];
        final long base = (thread + 1) * 1_000_000L;
        long next = base;
        for (int call = 0; call < CALLS_PER_THREAD; call++)
        {
            final long request = base + random.nextLong(Math.max(1, next - base + 1));
            final int result;
            switch (random.nextInt(11))
            {
                case 0, 1 ->
                {
                    final int count = 1 + random.nextInt(tokens.length);
                    final int shared = random.nextInt(3);
                    for (int i = 0; i < count; i++)
                    {
                        tokens[i] = i < 16 ? shared * 100 + i : random.nextInt(50);
                    }
                    result = session.arrive(next++, random.nextInt(2), tokens, count, 4);
                }
                case 2 -> result = session.beginPass(8, 1 << 20, 1 << 20, 1 << 20);
                case 3 -> result = session.admit(request);
                case 4 -> result = session.endPass();
                case 5 -> result = session.retract(request);
                case 6 -> result = session.abort(request, random.nextInt(3), 0, 0);
                case 7 -> result = session.chunk(request, random.nextInt(5), random.nextInt(5), 0, 0, 0);
                case 8 -> result = session.finish(request, random.nextInt(9), random.nextInt(9), 0, 0, 0);
                case 9 -> result = session.tick(random.nextInt(4) == 0 ? 16 : 0);
                default -> result = session.admit(request + 7);
            }
            if (result == ResultCode.ENGINE_STOPPED)
            {
                throw new IllegalStateException("engine stopped at call " + call + " of thread " + thread);
            }
            session.pollCompletion();
        }
    }
}
