package io.kvledger.engine.api;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.EffectType;

/**
 * Fills a {@link Decision} from the engine right after an input was applied; engine thread only (the live
 * runtime calls it in its handler, the simulation in its own thread).
 */
public final class DecisionFiller
{
    private DecisionFiller()
    {
    }

    /**
     * @param engine   the engine that just applied {@code in}.
     * @param in       the input.
     * @param result   its result code.
     * @param decision to fill.
     */
    public static void fill(final CacheStateMachine engine, final InputRecord in, final int result,
        final Decision decision)
    {
        decision.clear();
        decision.resultCode = result;
        final long request = in.request();
        if (request < 0 || engine.requestState(request) == null)
        {
            return;
        }
        decision.live = true;
        decision.loadOp = engine.loadOpOf(request);
        decision.cowOp = engine.cowOpOf(request);
        decision.workingSlot = engine.requestStateSlot(request);
        decision.trackingSlot = engine.requestTrackingSlot(request);
        int valid = 0;
        final int max = decision.pageIds.length;
        for (int i = 0; i < max; i++)
        {
            final int page = engine.requestPage(request, i);
            if (page < 0)
            {
                break;
            }
            decision.pageIds[i] = page;
            valid++;
        }
        decision.validPages = valid;
        decision.tailPage = engine.requestTailPage(request);
        final EffectList effects = engine.effects();
        for (int i = 0; i < effects.size(); i++)
        {
            if (effects.type(i) == EffectType.ADMITTED && effects.owner(i) == request)
            {
                decision.prefixPages = (int)effects.value1(i);
            }
            else if (effects.type(i) == EffectType.WAITED && effects.owner(i) == request)
            {
                decision.waitReason = effects.reason(i);
            }
        }
    }
}
