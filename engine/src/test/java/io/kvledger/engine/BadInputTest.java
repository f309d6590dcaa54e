package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Bad inputs get a result code and change nothing: no effect, the same state hash. */
class BadInputTest
{
    private static EngineConfig config()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(12).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(16).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).build();
    }

    private static void assertRefused(final Driver d, final InputRecord in, final int expected)
    {
        final long before = d.engine.stateHash();
        assertEquals(ResultCode.name(expected), ResultCode.name(d.apply(in)));
        assertEquals(0, d.engine.effects().size(), "a refused input records no effect");
        assertEquals(before, d.engine.stateHash(), "a refused input changes nothing");
        d.engine.verify();
    }

    @Test
    void shouldRefuseUnknownRequestsAndAdmitOutsideAPass()
    {
        final Driver d = new Driver(config(), true);
        d.staged(1, 11, 8);
        assertRefused(d, Inputs.admit(new InputRecord(1), 1), ResultCode.NOT_IN_PASS);
        d.passBegin();
        assertRefused(d, Inputs.admit(new InputRecord(1), 99), ResultCode.UNKNOWN_REQUEST);
        assertRefused(d, Inputs.retract(new InputRecord(1), 99), ResultCode.UNKNOWN_REQUEST);
        assertRefused(d, Inputs.abort(new InputRecord(1), 99, 0, 0, 0), ResultCode.UNKNOWN_REQUEST);
        assertRefused(d, Inputs.passBegin(new InputRecord(1), 1, 0, 0, 0), ResultCode.PASS_OPEN);
        assertRefused(d, Inputs.retract(new InputRecord(1), 1), ResultCode.REQUEST_STATE);
    }

    @Test
    void shouldRefuseFinishOfARequestNotRunningAndADuplicateArrival()
    {
        final Driver d = new Driver(config(), true);
        d.cold(1, 11, 8);
        assertRefused(d, Inputs.finish(new InputRecord(1), 1, 8, 8, 0, 0, 0),
            ResultCode.REQUEST_STATE);
        assertRefused(d, Inputs.arrive(new InputRecord(1), 1, 0, 0, 0), ResultCode.DUPLICATE_REQUEST);
        assertRefused(d, Inputs.chunk(new InputRecord(1), 2, 1, 0, 0, 0, 0), ResultCode.UNKNOWN_REQUEST);
    }

    @Test
    void shouldRefuseAcksOfUnknownUnlaunchedOrFinishedOperations()
    {
        final Driver d = new Driver(config(), true);
        d.staged(1, 11, 8);
        d.passBegin();
        d.admit(1);
        final long load = d.admittedLoad();
        assertRefused(d, Inputs.ack(new InputRecord(1), load, true), ResultCode.OP_NOT_LAUNCHED);
        assertRefused(d, Inputs.ack(new InputRecord(1), 12_345, true), ResultCode.UNKNOWN_OP);
        assertRefused(d, Inputs.storageHit(new InputRecord(1), load, 1, 0),
            ResultCode.OP_KIND_MISMATCH);
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(load, true));
        assertRefused(d, Inputs.ack(new InputRecord(1), load, true), ResultCode.OP_ALREADY_DONE);
    }
}
