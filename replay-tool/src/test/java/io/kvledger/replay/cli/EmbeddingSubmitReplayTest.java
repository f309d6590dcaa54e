package io.kvledger.replay.cli;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.api.Decision;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.runtime.KvLedgerOptions;
import io.kvledger.engine.runtime.Session;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.SplittableRandom;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three server threads, each with its own {@link Session}, serve whole requests (prompts sharing a system prompt
 * across threads, passes contended between threads, retracts, aborts, chunks, finishes, evicting ticks) against a
 * live controller with slow and failing copies and the journal thread on, and also hand the engine forged inputs
 * through {@link Session#submit}: completions (ACK, STORAGE_HIT, FETCH_DONE) for arbitrary ops, an ARRIVE with up to
 * 16 fingerprints of its own (more than {@code maxRequestPages} at times), a TICK carrying a fingerprint and values
 * no kind uses. Whatever the engine read of those inputs must be in the journal: {@code replay} must say identical,
 * and {@code check} must stay clean.
 */
class EmbeddingSubmitReplayTest
{
    private static final int THREADS = 3;
    private static final int REQUESTS_PER_THREAD = 40;

    @Test
    void shouldReplayIdenticallyAJournalOfSessionsThatAlsoSubmitForgedInputs(@TempDir final Path dir)
        throws Exception
    {
        final KvLedgerOptions options = new KvLedgerOptions();
        options.config = EngineConfig.builder().pageSize(4).deviceKvPages(48).deviceMambaSlots(10).hostKvPages(12)
            .hostMambaSlots(4).maxRequests(32).maxRequestPages(12).maxOps(128).prefetchThresholdPages(1).seed(3)
            .build();
        options.journalDir = dir.resolve("journal");
        options.store = KvLedgerOptions.StoreKind.MEMORY;
        options.journalThread = true;
        options.copyDelayMinNs = 10_000;
        options.copyDelayMaxNs = 300_000;
        options.copyFailureProbability = 0.03;
        SessionThreads.serve(options, THREADS, 60_000, EmbeddingSubmitReplayTest::serve);
        final CliRun replay = kvledger("replay", options.journalDir).exits(0);
        assertTrue(replay.out().startsWith("identical: "), replay.out());
        kvledger("check", options.journalDir).exits(0);
    }

    private static void serve(final Session session, final int thread)
    {
        final SplittableRandom random = new SplittableRandom(31L * thread + 7);
        final int[] tokens = new int[48];
        final InputRecord forged = new InputRecord(16);
        final Decision answer = new Decision(12);
        for (int n = 0; n < REQUESTS_PER_THREAD; n++)
        {
            final long request = thread * 100_000L + n;
            final int count = 8 + random.nextInt(40);
            final int system = random.nextInt(4);
            for (int i = 0; i < count; i++)
            {
                tokens[i] = i < 24 ? system * 1_000 + i : random.nextInt(30);
            }
            if (random.nextInt(3) == 0)
            {
                forge(forged, random, thread * 100_000L + 50_000 + n);
                running(session.submit(forged, answer));
            }
            if (running(session.arrive(request, system % 2, tokens, count, 4)) != ResultCode.OK)
            {
                continue;
            }
            boolean admitted = false;
            for (int tries = 0; tries < 100 && !admitted; tries++)
            {
                if (running(session.beginPass(8, 1 << 20, 1 << 20, 1 << 20)) != ResultCode.OK)
                {
                    Thread.yield();
                    continue;
                }
                admitted = running(session.admit(request)) == ResultCode.OK;
                if (admitted && random.nextInt(8) == 0)
                {
                    running(session.retract(request));
                    admitted = false;
                }
                running(session.endPass());
                if (!admitted)
                {
                    running(session.tick(random.nextInt(4) == 0 ? 12 : 0));
                    Thread.yield();
                }
            }
            final int pages = count / 4;
            if (!admitted || random.nextInt(6) == 0)
            {
                running(session.abort(request, random.nextInt(5), 0, 0));
                continue;
            }
            while (session.pollCompletion() >= 0)
            {
                Thread.yield();
            }
            if (pages > 2)
            {
                running(session.chunk(request, pages / 2, pages / 2, 1, 0, 0));
            }
            if (running(session.finish(request, pages, pages, 2, 0, 0)) != ResultCode.OK)
            {
                running(session.abort(request, 0, 0, 0));
            }
        }
    }

    private static void forge(final InputRecord in, final SplittableRandom random, final long request)
    {
        in.reset();
        final long op = 1 + random.nextInt(200);
        switch (random.nextInt(5))
        {
            case 0 -> Inputs.ack(in, op, random.nextBoolean());
            case 1 -> Inputs.storageHit(in, op, random.nextInt(9), random.nextInt(9));
            case 2 -> Inputs.fetchDone(in, op, random.nextBoolean(), random.nextInt(9), random.nextBoolean());
            case 3 ->
            {
                Inputs.arrive(in, request, random.nextInt(4), 4, 0);
                for (int i = random.nextInt(17); i > 0; i--)
                {
                    in.addFingerprint(random.nextLong(), random.nextLong());
                }
            }
            default -> Inputs.tick(in, 0).addFingerprint(1, 2).value4(77);
        }
    }

    private static int running(final int resultCode)
    {
        if (resultCode == ResultCode.ENGINE_STOPPED)
        {
            throw new IllegalStateException("the engine stopped");
        }
        return resultCode;
    }
}
