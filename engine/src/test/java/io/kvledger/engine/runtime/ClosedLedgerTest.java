package io.kvledger.engine.runtime;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.effect.ResultCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A session of a closed controller is told the engine stopped, whatever it calls, with or without fail-fast. */
class ClosedLedgerTest
{
    @TempDir
    Path dir;

    @Test
    void shouldAnswerEngineStoppedAfterClose()
    {
        for (final boolean failFast : new boolean[]{ false, true })
        {
            final KvLedgerOptions options = new KvLedgerOptions();
            options.config = EngineConfig.builder().pageSize(4).deviceKvPages(64).deviceMambaSlots(8).hostKvPages(16)
                .hostMambaSlots(4).maxRequests(8).maxRequestPages(8).maxOps(32).build();
            options.journalDir = dir.resolve("journal-" + failFast);
            options.store = KvLedgerOptions.StoreKind.MEMORY;
            options.failFastWhenFull = failFast;
            final KvLedger ledger = KvLedger.open(options);
            final Session session = ledger.session();
            assertEquals(ResultCode.OK, session.tick(0));
            assertFalse(ledger.isClosed());

            ledger.close();

            assertTrue(ledger.isClosed());
            assertEquals(ResultCode.ENGINE_STOPPED, session.tick(0), "failFast " + failFast);
            assertEquals(ResultCode.ENGINE_STOPPED, session.arrive(1, 0, new int[]{ 1, 2, 3, 4, 5 }, 5, 4));
            assertEquals(ResultCode.ENGINE_STOPPED, session.beginPass(1, 1, 1, 1));
            assertEquals(ResultCode.ENGINE_STOPPED, session.decision().resultCode);
            assertEquals(ResultCode.ENGINE_STOPPED, ledger.session().admit(1), "a session taken after close too");
        }
    }
}
