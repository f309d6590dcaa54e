package io.kvledger.engine;

import io.kvledger.journal.InputRecord;

/**
 * How one flow applies one input type: the flow's {@code onX(InputRecord)} method, bound once as a method reference
 * when the state machine is built (so applying an input allocates nothing).
 */
@FunctionalInterface
interface InputHandler
{
    /**
     * Apply one input of the type the handler is registered for.
     *
     * @param in the input.
     * @return result code ({@link io.kvledger.engine.effect.ResultCode}).
     */
    int apply(InputRecord in);
}
