package io.kvledger.engine;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;

/**
 * Finding the first effect of a type in a document's effects, for the tests that drive an engine input by input.
 */
public final class EffectLookup
{
    private EffectLookup()
    {
    }

    /**
     * @param effects a document's effects.
     * @param type    the effect type.
     * @param kind    the op kind it must have, or null for any.
     * @return the id of the first effect of that type (and op kind), or -1.
     */
    public static long firstId(final EffectList effects, final EffectType type, final OpKind kind)
    {
        final int i = first(effects, type, kind);
        return i < 0 ? -1 : effects.id(i);
    }

    /**
     * @param effects a document's effects.
     * @param type    the effect type.
     * @return the first value of the first effect of that type, or -1.
     */
    public static long firstValue1(final EffectList effects, final EffectType type)
    {
        final int i = first(effects, type, null);
        return i < 0 ? -1 : effects.value1(i);
    }

    private static int first(final EffectList effects, final EffectType type, final OpKind kind)
    {
        for (int i = 0; i < effects.size(); i++)
        {
            if (effects.type(i) == type && (null == kind || effects.opKind(i) == kind))
            {
                return i;
            }
        }
        return -1;
    }
}
