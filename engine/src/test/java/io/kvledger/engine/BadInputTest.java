package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.InputType;
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
        assertRefused(d, new InputRecord(1).type(InputType.ADMIT).request(1), ResultCode.NOT_IN_PASS);
        d.passBegin();
        assertRefused(d, new InputRecord(1).type(InputType.ADMIT).request(99), ResultCode.UNKNOWN_REQUEST);
        assertRefused(d, new InputRecord(1).type(InputType.RETRACT).request(99), ResultCode.UNKNOWN_REQUEST);
        assertRefused(d, new InputRecord(1).type(InputType.ABORT).request(99), ResultCode.UNKNOWN_REQUEST);
        assertRefused(d, new InputRecord(1).type(InputType.PASS_BEGIN).value1(1), ResultCode.PASS_OPEN);
        assertRefused(d, new InputRecord(1).type(InputType.RETRACT).request(1), ResultCode.REQUEST_STATE);
    }

    @Test
    void shouldRefuseFinishOfARequestNotRunningAndADuplicateArrival()
    {
        final Driver d = new Driver(config(), true);
        d.cold(1, 11, 8);
        assertRefused(d, new InputRecord(1).type(InputType.FINISH).request(1).value1(8).value2(8),
            ResultCode.REQUEST_STATE);
        assertRefused(d, new InputRecord(1).type(InputType.ARRIVE).request(1), ResultCode.DUPLICATE_REQUEST);
        assertRefused(d, new InputRecord(1).type(InputType.CHUNK).request(2).value1(1), ResultCode.UNKNOWN_REQUEST);
    }

    @Test
    void shouldRefuseAcksOfUnknownUnlaunchedOrFinishedOperations()
    {
        final Driver d = new Driver(config(), true);
        d.staged(1, 11, 8);
        d.passBegin();
        d.admit(1);
        final long load = d.admittedLoad();
        assertRefused(d, new InputRecord(1).type(InputType.ACK).op(load).ok(true), ResultCode.OP_NOT_LAUNCHED);
        assertRefused(d, new InputRecord(1).type(InputType.ACK).op(12_345).ok(true), ResultCode.UNKNOWN_OP);
        assertRefused(d, new InputRecord(1).type(InputType.STORAGE_HIT).op(load).value1(1),
            ResultCode.OP_KIND_MISMATCH);
        d.passEnd();
        assertEquals(ResultCode.OK, d.ack(load, true));
        assertRefused(d, new InputRecord(1).type(InputType.ACK).op(load).ok(true), ResultCode.OP_ALREADY_DONE);
    }
}
