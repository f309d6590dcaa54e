package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.InputType;

/**
 * The table the state machine dispatches through: one {@link InputHandler} per {@link InputType}, indexed by the
 * type's ordinal. Each {@link Flow} registers the types it handles ({@link Flow#register}); the table is filled
 * once, when the state machine is built, and read only afterwards.
 * <p>
 * A type registered twice fails fast ({@link IllegalStateException}), so two flows cannot both claim an input; a
 * type nobody registered (and {@link InputType#NULL_VAL}) is refused with {@link ResultCode#REQUEST_STATE}.
 */
final class InputHandlers
{
    private final InputHandler[] byType = new InputHandler[InputType.values().length];

    /**
     * Bind an input type to its handler.
     *
     * @param type    the input type.
     * @param handler what applies it.
     * @throws IllegalStateException when the type already has a handler.
     * @throws IllegalArgumentException for {@link InputType#NULL_VAL}.
     */
    void on(final InputType type, final InputHandler handler)
    {
        if (type == InputType.NULL_VAL)
        {
            throw new IllegalArgumentException("NULL_VAL is not an input type to handle");
        }
        if (byType[type.ordinal()] != null)
        {
            throw new IllegalStateException("input type " + type + " is registered twice");
        }
        byType[type.ordinal()] = handler;
    }

    /**
     * @param type an input type.
     * @return its handler, or null when none is registered.
     */
    InputHandler handler(final InputType type)
    {
        return byType[type.ordinal()];
    }

    /**
     * Apply an input with the handler of its type.
     *
     * @param in the input.
     * @return the handler's result code, or {@link ResultCode#REQUEST_STATE} for a type without one.
     */
    int dispatch(final InputRecord in)
    {
        final InputHandler handler = byType[in.type().ordinal()];
        return handler == null ? ResultCode.REQUEST_STATE : handler.apply(in);
    }
}
