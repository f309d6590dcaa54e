package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

/**
 * Told about every effect the shadow model attributes to a slot or a node, after the effect is folded. Timelines
 * and report lanes are built on it. The effect list is reused: copy what must outlive the call.
 */
public interface ShadowObserver
{
    /**
     * @param pool       slot's pool.
     * @param slot       slot id.
     * @param sequence   document sequence.
     * @param effects    effect list.
     * @param index      index of the effect.
     * @param stateAfter slot state after the effect.
     * @param ownerAfter slot owner after the effect.
     */
    void onSlotEffect(Pool pool, int slot, long sequence, EffectList effects, int index, SlotState stateAfter,
        long ownerAfter);

    /**
     * @param node     node id.
     * @param sequence document sequence.
     * @param effects  effect list.
     * @param index    index of the effect.
     */
    default void onNodeEffect(final long node, final long sequence, final EffectList effects, final int index)
    {
    }

    /**
     * An effect the shadow model attributes to a request: its state changes and admission outcomes, and the slots it
     * takes or gives up.
     *
     * @param request  request id.
     * @param sequence document sequence.
     * @param effects  effect list.
     * @param index    index of the effect.
     */
    default void onRequestEffect(final long request, final long sequence, final EffectList effects, final int index)
    {
    }
}
