package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Reason;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write path's backlog (issue 9, bugs 2 and 3): only pages new to the tree are backed up, and a backup that can
 * never fit the host staging is dropped (an effect and a counter) instead of blocking every later one.
 */
class BackupBacklogTest
{
    private static EngineConfig.Builder base(final int hostKvPages)
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(16).hostKvPages(hostKvPages)
            .hostMambaSlots(4).maxRequests(8).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1);
    }

    /** Two requests compute the same 8 pages; the first finishes and is stored, then the second finishes. */
    private static Driver twoComputeTheSamePages(final EngineConfig config)
    {
        final Driver d = new Driver(config, true);
        d.cold(1, 77, 8);
        d.cold(2, 77, 8);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(1));
        assertEquals(ResultCode.OK, d.admit(2));
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 8, 0, 0, 0));
        final long backup = d.opId(EffectType.OP_QUEUED, OpKind.BACKUP);
        assertTrue(backup > 0, "the first finish backs its pages up");
        assertEquals(ResultCode.OK, d.ack(backup, true));
        final long store = d.opId(EffectType.OP_QUEUED, OpKind.STORE);
        assertEquals(ResultCode.OK, d.ack(store, true));
        return d;
    }

    @Test
    void shouldNotBackUpPagesTheTreeAlreadyHeld()
    {
        final Driver d = twoComputeTheSamePages(base(64).build());
        final int hostFree = d.engine.pool(Pool.HOST_KV).freeCount();
        assertEquals(ResultCode.OK, d.finish(2, 8, 0, 0, 0));
        assertFalse(d.has(EffectType.OP_QUEUED), "no backup of the 8 pages already stored, nor of their state");
        assertEquals(hostFree, d.engine.pool(Pool.HOST_KV).freeCount(), "no staging taken");
    }

    @Test
    void shouldBackUpCachedPagesAgainWithTheFaultSwitchOn()
    {
        final Driver d = twoComputeTheSamePages(base(64).fault(FaultSwitch.BACKUP_CACHED_PAGES).build());
        assertEquals(ResultCode.OK, d.finish(2, 8, 0, 0, 0));
        assertTrue(d.opId(EffectType.OP_QUEUED, OpKind.BACKUP) > 0, "the bug: a second backup of the same pages");
    }

    @Test
    void shouldBackUpOnlyTheNewTailOfALongerRequest()
    {
        final Driver d = twoComputeTheSamePages(base(64).build());
        d.cold(3, 77, 12);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(3));
        final long cow = d.engine.cowOpOf(3);
        d.passEnd();
        if (cow > 0)
        {
            assertEquals(ResultCode.OK, d.ack(cow, true), "the copy from the checkpoint at page 8");
        }
        final int hostFree = d.engine.pool(Pool.HOST_KV).freeCount();
        assertEquals(ResultCode.OK, d.finish(3, 12, 0, 0, 0));
        assertTrue(d.has(EffectType.OP_QUEUED));
        assertEquals(hostFree - 4, d.engine.pool(Pool.HOST_KV).freeCount(), "only the 4 new pages are staged");
    }

    @Test
    void shouldDropABackupThatCanNeverFitAndMoveOn()
    {
        final Driver d = new Driver(base(8).build(), true);
        d.cold(1, 11, 8);
        d.cold(2, 22, 4);
        d.passBegin();
        d.admit(1);
        d.admit(2);
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 8, 0, 0, 0));
        assertTrue(d.has(EffectType.BACKUP_DROPPED), "8 pages never fit 8 host pages less the loads margin");
        assertEquals(Reason.STAGING_TOO_SMALL, d.reasonOf(EffectType.BACKUP_DROPPED));
        assertEquals(1, d.engine.counters().backupsDropped);
        assertEquals(ResultCode.OK, d.finish(2, 4, 0, 0, 0));
        assertTrue(d.opId(EffectType.OP_QUEUED, OpKind.BACKUP) > 0, "the next backup starts");
    }

    @Test
    void shouldBlockTheBacklogWithTheFaultSwitchOn()
    {
        final Driver d = new Driver(base(8).fault(FaultSwitch.OVERSIZE_BACKUP_BLOCKS).build(), true);
        d.cold(1, 11, 8);
        d.cold(2, 22, 4);
        d.passBegin();
        d.admit(1);
        d.admit(2);
        d.passEnd();
        d.finish(1, 8, 0, 0, 0);
        assertFalse(d.has(EffectType.BACKUP_DROPPED));
        d.finish(2, 4, 0, 0, 0);
        assertEquals(-1, d.opId(EffectType.OP_QUEUED, OpKind.BACKUP), "the bug: stuck behind the oversize one");
    }

    @Test
    void shouldDropABacklogEntryWhoseNodeWasEvictedAndItsIdReused()
    {
        final Driver d = new Driver(base(6).build(), true);
        d.cold(1, 11, 4);
        d.cold(2, 22, 4);
        d.cold(3, 33, 4);
        d.passBegin();
        d.admit(1);
        d.admit(2);
        d.admit(3);
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 4, 0, 0, 0));
        final long backup1 = d.opId(EffectType.OP_QUEUED, OpKind.BACKUP);
        assertTrue(backup1 > 0, "request 1's backup takes 4 of the 6 host pages");
        assertEquals(ResultCode.OK, d.finish(2, 4, 0, 0, 0));
        assertEquals(-1, d.opId(EffectType.OP_QUEUED, OpKind.BACKUP), "request 2's backup waits in the backlog");
        d.tick(Long.MAX_VALUE);
        final long evicted = idOf(d, EffectType.EVICTED);
        assertTrue(evicted > 0, "request 2's node is evicted while its backup waits");
        assertEquals(ResultCode.OK, d.finish(3, 4, 0, 0, 0));
        assertEquals(evicted, idOf(d, EffectType.NODE_INSERTED), "request 3's node reuses the evicted node's id");
        assertEquals(ResultCode.OK, d.ack(backup1, true));
        assertEquals(ResultCode.OK, d.ack(d.opId(EffectType.OP_QUEUED, OpKind.STORE), true));
        final long backup3 = d.opId(EffectType.OP_QUEUED, OpKind.BACKUP);
        assertTrue(backup3 > 0, "the backlog moves on");
        assertEquals(ResultCode.OK, d.ack(backup3, true));
        assertEquals(ResultCode.OK, d.ack(d.opId(EffectType.OP_QUEUED, OpKind.STORE), true));
        assertEquals(-1, d.opId(EffectType.OP_QUEUED, OpKind.BACKUP), "request 3's node is backed up once, not " +
            "again under the stale entry of the evicted node whose id it reuses");
    }

    private static long idOf(final Driver d, final EffectType type)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == type)
            {
                return d.last.id(i);
            }
        }
        return -1;
    }
}
