package io.kvledger.engine;

import io.kvledger.engine.counters.CountersFile;
import io.kvledger.engine.counters.CountersPublisher;
import io.kvledger.engine.counters.CountersSnapshot;
import io.kvledger.engine.counters.EngineState;
import io.kvledger.engine.counters.KvCounter;
import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The journal-lag gauge of a controller whose engine thread fail-stopped inside apply: the input that failed was
 * neither applied (the engine counts it nowhere) nor journaled, so it is no document "applied and not yet appended";
 * the gauge must end at 0, as the counters' inputs equal the journal's documents. Before, the gauge read the engine's
 * sequence, which apply sets before it dispatches, and a failed run's file said a document was left behind for ever.
 */
class CountersAfterFailedApplyTest
{
    @Test
    void shouldNotCountTheInputThatFailedInsideApplyAsJournalLag(@TempDir final Path dir)
    {
        final EngineConfig config = EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(16)
            .hostKvPages(64).hostMambaSlots(4).maxRequests(8).maxRequestPages(16).maxOps(64)
            .prefetchThresholdPages(1).build();
        final Driver d = new Driver(config, false);
        final InputRecord doc = Inputs.tick(new InputRecord(1), 0);
        final EffectList none = new EffectList(4);
        try (JournalWriter journal = JournalWriter.open(dir.resolve("journal"), config.toHeader(new JournalHeader()),
            false))
        {
            final CountersPublisher counters = CountersPublisher.open(dir.resolve(CountersFile.FILE_NAME), d.engine,
                journal, null, null, null, 0, null);
            counters.onStarted();
            final CountersReader reader = CountersFile.openReadOnly(dir).reader();
            // a request staged from L3, then a pass opened: every input applied and journaled
            d.staged(1, 11, 8);
            d.passBegin();
            while (journal.lastSequence() < d.engine.sequence())
            {
                journal.append(doc.sequence(journal.lastSequence() + 1), 0, none);
                counters.onApplied();
            }
            counters.onIdle();
            assertEquals(0, CountersSnapshot.read(reader).get(KvCounter.JOURNAL_LAG), "all appended");

            // the staged hold's host page is moved behind the engine's back: the admission fails inside apply
            final SlotPool host = d.engine.pool(Pool.HOST_KV);
            for (int s = 0; s < host.capacity(); s++)
            {
                if (host.state(s) == SlotState.REQUEST && host.owner(s) == 1)
                {
                    host.forceTransition(s, SlotState.PENDING_FREE, 999);
                }
            }
            assertThrows(EngineBugException.class, () -> d.admit(1));
            counters.onFailed();
            counters.close(true);

            final CountersSnapshot last = CountersSnapshot.read(reader);
            assertEquals(EngineState.FAILED, last.state());
            assertEquals(journal.lastSequence(), last.get(KvCounter.INPUTS), "the failed input is not counted");
            assertEquals(last.get(KvCounter.INPUTS), last.get(KvCounter.JOURNAL_DOCUMENTS));
            assertEquals(0, last.get(KvCounter.JOURNAL_LAG), "nothing applied is waiting for the journal");
        }
    }
}
