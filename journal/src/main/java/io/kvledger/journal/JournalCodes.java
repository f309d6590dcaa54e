package io.kvledger.journal;

import io.kvledger.journal.codec.BooleanType;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

import java.util.function.ToIntFunction;

/**
 * Lookup tables of the raw codes each schema enum accepts, so codecs can validate a code without the generated
 * {@code get(short)} throwing for unknown values.
 */
final class JournalCodes
{
    static final boolean[] INPUT_TYPES = table(InputType.values(), InputType::value);
    static final boolean[] EFFECT_TYPES = table(EffectType.values(), EffectType::value);
    static final boolean[] POOLS = table(Pool.values(), Pool::value);
    static final boolean[] SLOT_STATES = table(SlotState.values(), SlotState::value);
    static final boolean[] COMPONENTS = table(Component.values(), Component::value);
    static final boolean[] OP_KINDS = table(OpKind.values(), OpKind::value);
    static final boolean[] ROLES = table(Role.values(), Role::value);
    static final boolean[] REASONS = table(Reason.values(), Reason::value);
    static final boolean[] REQUEST_STATES = table(RequestState.values(), RequestState::value);
    static final boolean[] PREFETCH_POLICIES = table(PrefetchPolicy.values(), PrefetchPolicy::value);
    static final boolean[] DEVICE_KINDS = table(DeviceKind.values(), DeviceKind::value);
    static final boolean[] BOOLEANS = table(BooleanType.values(), BooleanType::value);

    private JournalCodes()
    {
    }

    static boolean isValid(final boolean[] table, final short code)
    {
        return code >= 0 && code < table.length && table[code];
    }

    static boolean isValidOrNull(final boolean[] table, final short code)
    {
        return EffectList.NULL_CODE == code || isValid(table, code);
    }

    private static <E extends Enum<E>> boolean[] table(final E[] values, final ToIntFunction<E> code)
    {
        final boolean[] table = new boolean[256];
        for (final E value : values)
        {
            if (!"NULL_VAL".equals(value.name()))
            {
                table[code.applyAsInt(value)] = true;
            }
        }
        return table;
    }
}
