package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The dispatch table the flows fill: every input type the schema defines has exactly one handler (at least one:
 * looked up in a built state machine; at most one: a second registration fails the construction), and a type
 * without one is refused as it always was.
 */
class InputHandlersTest
{
    private static EngineConfig config()
    {
        return EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(12).hostKvPages(64)
            .hostMambaSlots(4).maxRequests(16).maxRequestPages(16).maxOps(64).prefetchThresholdPages(1).build();
    }

    @Test
    void shouldGiveEveryInputTypeExactlyOneHandler()
    {
        // Building the state machine registers every flow's types; a type claimed twice would throw here.
        final CacheStateMachine engine = new CacheStateMachine(config());
        int handled = 0;
        for (final InputType type : InputType.values())
        {
            if (type == InputType.NULL_VAL)
            {
                assertNull(engine.handlers().handler(type), "NULL_VAL is no input to handle");
            }
            else
            {
                assertNotNull(engine.handlers().handler(type), type + " has no handler");
                handled++;
            }
        }
        assertEquals(InputType.values().length - 1, handled);
    }

    @Test
    void shouldFailFastWhenTwoFlowsClaimTheSameType()
    {
        final InputHandlers handlers = new InputHandlers();
        final InputHandler first = in -> ResultCode.OK;
        handlers.on(InputType.TICK, first);
        final IllegalStateException ex =
            assertThrows(IllegalStateException.class, () -> handlers.on(InputType.TICK, in -> ResultCode.OK));
        assertEquals("input type TICK is registered twice", ex.getMessage());
        assertSame(first, handlers.handler(InputType.TICK), "the first registration stands");
        assertThrows(IllegalArgumentException.class, () -> handlers.on(InputType.NULL_VAL, in -> ResultCode.OK));
    }

    @Test
    void shouldFailFastWhenAFlowRegistersTwice()
    {
        final ApplyState state = new ApplyState(config());
        final InputHandlers handlers = new InputHandlers();
        final ReadPath read = new ReadPath(state);
        read.register(handlers);
        assertThrows(IllegalStateException.class, () -> read.register(handlers));
    }

    @Test
    void shouldRefuseATypeWithoutAHandlerAndChangeNothing()
    {
        final Driver d = new Driver(config(), true);
        d.cold(1, 11, 8);
        final long before = d.engine.stateHash();
        final InputRecord in = Inputs.tick(new InputRecord(1), 0).type(InputType.NULL_VAL);
        assertEquals(ResultCode.name(ResultCode.REQUEST_STATE), ResultCode.name(d.apply(in)));
        assertEquals(0, d.engine.effects().size());
        assertEquals(before, d.engine.stateHash());
    }

    @Test
    void shouldDispatchByTypeAndRefuseTheRest()
    {
        final InputHandlers handlers = new InputHandlers();
        handlers.on(InputType.ADMIT, in -> 42);
        final InputRecord in = new InputRecord(1).type(InputType.ADMIT);
        assertEquals(42, handlers.dispatch(in));
        assertEquals(ResultCode.REQUEST_STATE, handlers.dispatch(in.type(InputType.ACK)));
    }
}
