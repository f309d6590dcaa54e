package io.kvledger.engine;

import io.kvledger.engine.effect.Effects;

import io.kvledger.engine.tree.RadixTree;

/**
 * What every flow of {@link CacheStateMachine} shares: the state holder and the aliases of its parts that the
 * flows read most (configuration, effects, tree, request and op tables, components, counters), and the duty to say
 * which input types it handles. A flow keeps only its own structures (a FIFO, a queue) and aliases of the scratch
 * it alone uses.
 */
abstract class Flow
{
    /** Value of a slot, node, op or request index that does not apply. */
    static final int NONE = ApplyState.NONE;

    final ApplyState state;
    final EngineConfig config;
    final Effects effects;
    final RadixTree tree;
    final RequestTable requests;
    final OpTable ops;
    final TreeComponent[] components;
    final EngineCounters counters;

    /**
     * @param state the state holder shared with the other flows.
     */
    Flow(final ApplyState state)
    {
        this.state = state;
        config = state.config;
        effects = state.effects;
        tree = state.tree;
        requests = state.requests;
        ops = state.ops;
        components = state.components;
        counters = state.counters;
    }

    /**
     * Bind each input type this flow handles to its handler (once, when the state machine is built).
     *
     * @param handlers the state machine's dispatch table.
     */
    abstract void register(InputHandlers handlers);
}
