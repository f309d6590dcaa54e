package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalPrinter;
import io.kvledger.journal.codec.SlotState;

/**
 * Readable one-line descriptions of effects and inputs, in the journal's vocabulary. Used by violation histories,
 * timelines and inspection; independent of the engine. Stateless.
 */
public final class EffectText
{
    private EffectText()
    {
    }

    /**
     * Describe one effect, in the journal printer's one-line form so every tool shows effects the same way.
     *
     * @param effects list holding it.
     * @param i       its index.
     * @return for example {@code SLOT_TRANSITION DEVICE_MAMBA:3 REQUEST(1) -> FREE}.
     */
    public static String describe(final EffectList effects, final int i)
    {
        return JournalPrinter.describeEffect(effects, i);
    }

    /**
     * Describe one input, in the journal printer's one-line form.
     *
     * @param input to describe.
     * @return for example {@code #7 t=2100 ADMIT req=7}.
     */
    public static String describe(final InputRecord input)
    {
        return JournalPrinter.describeInput(input);
    }

    /**
     * Readable owner, for example {@code REQUEST 7}, {@code PENDING_FREE 9} or {@code FREE}.
     *
     * @param state ownership state.
     * @param owner owner id.
     * @return owner label.
     */
    public static String owner(final SlotState state, final long owner)
    {
        if (state == null || state == SlotState.NULL_VAL)
        {
            return "?";
        }
        return state == SlotState.FREE ? "FREE" : state.name() + " " + owner;
    }
}
