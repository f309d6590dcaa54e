package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each typed encoder of {@link Inputs} writes the values its accessors read back, in the positions the journal
 * schema describes, and leaves no value of a previous input behind.
 */
class InputsTest
{
    private final InputRecord in = new InputRecord(4);

    @Test
    void shouldEncodeArriveInTheSchemaPositions()
    {
        Inputs.arrive(in.reset().addFingerprint(1, 2), 7, 5, 100, 3);
        assertEquals(InputType.ARRIVE, in.type());
        assertEquals(7, in.request());
        assertEquals(InputRecord.NULL_ID, in.op());
        assertEquals(1, in.fingerprintCount());
        assertEquals(5, in.value1());
        assertEquals(100, in.value2());
        assertEquals(3, in.value3());
        assertEquals(5, Inputs.tailTokens(in));
        assertEquals(100, Inputs.maxNewTokens(in));
        assertEquals(3, Inputs.namespace(in));
    }

    @Test
    void shouldClearValuesAPreviousInputLeft()
    {
        Inputs.chunk(in.reset(), 1, 2, 3, 4, 5, 6);
        Inputs.ack(in, 9, false);
        assertEquals(InputType.ACK, in.type());
        assertEquals(9, in.op());
        assertEquals(InputRecord.NULL_ID, in.request());
        assertFalse(in.ok());
        assertEquals(0, in.value1() | in.value2() | in.value3() | in.value4() | in.value5());
    }

    @Test
    void shouldReadTheCursorsOfAbortChunkAndFinish()
    {
        Inputs.abort(in.reset(), 1, 11, 12, 1);
        assertEquals(11, in.value1());
        assertEquals(11, Inputs.writePos(in));
        assertEquals(12, Inputs.cacheBase(in));
        assertEquals(1, Inputs.isFlush(in));

        Inputs.finish(in.reset(), 1, 8, 6, 21, 22, 0);
        assertEquals(8, Inputs.computedPages(in));
        assertEquals(6, Inputs.trackedPages(in));
        assertEquals(21, in.value3());
        assertEquals(21, Inputs.writePos(in));
        assertEquals(22, Inputs.cacheBase(in));
        assertEquals(0, Inputs.isFlush(in));

        Inputs.chunk(in.reset(), 1, 4, 2, 31, 32, 1);
        assertEquals(InputType.CHUNK, in.type());
        assertEquals(31, Inputs.writePos(in));
        assertEquals(1, in.value5());
    }

    @Test
    void shouldEncodeStoragePassAndTickInputs()
    {
        Inputs.storageHit(in.reset(), 4, 6, 3);
        assertEquals(4, in.op());
        assertEquals(6, Inputs.presentPages(in));
        assertEquals(3, Inputs.mambaPages(in));

        Inputs.fetchDone(in.reset(), 5, true, 6, true);
        assertEquals(6, Inputs.pagesRead(in));
        assertEquals(1, in.value2());
        assertTrue(Inputs.mambaRead(in));

        Inputs.passBegin(in.reset(), 8, 4096, 2048, 1024);
        assertEquals(8, Inputs.maxRunning(in));
        assertEquals(4096, Inputs.tokenBudget(in));
        assertEquals(2048, Inputs.inputTokenBudget(in));
        assertEquals(1024, Inputs.chunkTokenBudget(in));

        Inputs.tick(in.reset(), Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, Inputs.evictPages(in));
        assertEquals(Long.MAX_VALUE, in.value1());
    }

    @Test
    void shouldNameValuesAsThePrinterShowsThem()
    {
        assertEquals("tail", Inputs.valueName(InputType.ARRIVE, 1));
        assertEquals("tracked", Inputs.valueName(InputType.FINISH, 2));
        assertEquals("isFlush", Inputs.valueName(InputType.ABORT, 3));
        assertEquals("value1", Inputs.valueName(InputType.ADMIT, 1));
        assertEquals("#3 t=9 PASS_BEGIN maxRunning=8 tokens=64",
            JournalPrinter.describeInput(Inputs.passBegin(in.reset().sequence(3).timestampNs(9), 8, 64, 0, 0)));
    }
}
