package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.EffectType;
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
     * Describe one effect.
     *
     * @param effects list holding it.
     * @param i       its index.
     * @return for example {@code SLOT_TRANSITION DEVICE_MAMBA:3 REQUEST 1 -> FREE}.
     */
    public static String describe(final EffectList effects, final int i)
    {
        final EffectType type = effects.type(i);
        final StringBuilder b = new StringBuilder(64).append(type.name()).append(' ');
        switch (type)
        {
            case NODE_INSERTED -> b.append("node ").append(effects.id(i)).append(" parent ").append(effects.owner(i))
                .append(" pages ").append(effects.value1(i)).append(" depth ").append(effects.value2(i));
            case NODE_SPLIT -> b.append("node ").append(effects.id(i)).append(" new parent ").append(effects.owner(i))
                .append(" takes ").append(effects.value1(i)).append(" pages");
            case NODE_DELETED -> b.append("node ").append(effects.id(i));
            case LOCKED, UNLOCKED -> b.append("node ").append(effects.id(i)).append(' ')
                .append(name(effects.componentCode(i), effects.component(i)))
                .append(" by ").append(name(effects.toStateCode(i), effects.toState(i))).append(' ')
                .append(effects.owner(i)).append(" receipt ").append(effects.value1(i));
            case SLOT_TRANSITION -> b.append(slot(effects, i)).append(' ')
                .append(owner(effects.fromState(i), effects.value1(i))).append(" -> ")
                .append(owner(effects.toState(i), effects.owner(i)));
            case CURSORS_RESET -> b.append(slot(effects, i));
            case CURSORS_OBSERVED -> b.append(slot(effects, i)).append(" write_pos ").append(effects.value1(i))
                .append(" cache_base ").append(effects.value2(i)).append(" is_flush ").append(effects.value3(i));
            case OP_QUEUED -> b.append("op ").append(effects.id(i)).append(' ')
                .append(name(effects.opKindCode(i), effects.opKind(i))).append(" owner ").append(effects.owner(i))
                .append(" targets ").append(effects.value1(i)).append(" pages ").append(effects.value2(i));
            case OP_TARGET -> b.append("op ").append(effects.id(i)).append(' ')
                .append(name(effects.roleCode(i), effects.role(i))).append(' ')
                .append(name(effects.poolCode(i), effects.pool(i))).append(':').append(effects.value1(i));
            case OP_LAUNCHED, OP_ACKED, OP_FAILED, OP_CANCELLED -> b.append("op ").append(effects.id(i))
                .append(effects.opKindCode(i) == EffectList.NULL_CODE ? "" : " " + effects.opKind(i).name());
            case DEFERRED -> b.append("request ").append(effects.owner(i)).append(' ')
                .append(name(effects.reasonCode(i), effects.reason(i))).append(" count ").append(effects.value1(i));
            case HOLD_DROPPED -> b.append("request ").append(effects.owner(i)).append(' ')
                .append(name(effects.reasonCode(i), effects.reason(i))).append(" pages ").append(effects.value1(i));
            case ADMITTED -> b.append("request ").append(effects.owner(i)).append(" load op ").append(effects.id(i))
                .append(" prefix ").append(effects.value1(i)).append(" loaded ").append(effects.value2(i))
                .append(" cow op ").append(effects.value3(i));
            case REJECTED, WAITED -> b.append("request ").append(effects.owner(i)).append(' ')
                .append(name(effects.reasonCode(i), effects.reason(i)));
            case EVICTED -> b.append("node ").append(effects.id(i)).append(' ')
                .append(name(effects.componentCode(i), effects.component(i)));
            case HOLD_STAGED -> b.append("request ").append(effects.owner(i)).append(" fetch op ")
                .append(effects.id(i)).append(" pages ").append(effects.value1(i)).append(" first ")
                .append(effects.value2(i));
            case HIT_PARKED -> b.append("request ").append(effects.owner(i)).append(" pages ").append(effects.value1(i));
            case REQUEST_STATE -> b.append("request ").append(effects.owner(i)).append(' ')
                .append(name(effects.requestFromCode(i), effects.requestFrom(i))).append(" -> ")
                .append(name(effects.requestToCode(i), effects.requestTo(i)));
            case PAGES_STORED -> b.append("op ").append(effects.id(i)).append(" pages ").append(effects.value1(i));
            case RESERVED -> b.append("request ").append(effects.owner(i)).append(" mamba ").append(effects.value1(i))
                .append(" kv ").append(effects.value2(i));
            default -> b.append("id ").append(effects.id(i)).append(" owner ").append(effects.owner(i));
        }
        return b.toString();
    }

    /**
     * Describe one input.
     *
     * @param input to describe.
     * @return for example {@code ADMIT request 7}.
     */
    public static String describe(final InputRecord input)
    {
        final StringBuilder b = new StringBuilder(48).append(input.type().name());
        if (input.request() != InputRecord.NULL_ID)
        {
            b.append(" request ").append(input.request());
        }
        if (input.op() != InputRecord.NULL_ID)
        {
            b.append(" op ").append(input.op());
        }
        switch (input.type())
        {
            case ACK, FETCH_DONE -> b.append(input.ok() ? " ok" : " failed");
            case STORAGE_HIT -> b.append(" pages ").append(input.value1()).append(" mamba ").append(input.value2());
            case CHUNK, FINISH -> b.append(" pages ").append(input.value1()).append(" tracked ").append(input.value2());
            default ->
            {
            }
        }
        return b.toString();
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

    private static String slot(final EffectList effects, final int i)
    {
        return name(effects.poolCode(i), effects.pool(i)) + ":" + effects.id(i);
    }

    private static String name(final short code, final Enum<?> value)
    {
        return code == EffectList.NULL_CODE || value == null ? "-" : value.name();
    }
}
