package io.kvledger.journal;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.FaultSetDecoder;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.SlotState;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.IntFunction;

/**
 * Writes a journal as text for people: the header as {@code key: value} lines, then one line per document and one
 * indented line per effect, in the compact forms of {@link #describeInput} and {@link #describeEffect}. Used by the
 * dump tool and the golden tests; printing allocates freely.
 */
public final class JournalPrinter implements JournalListener
{
    /** Names of the FaultSet choices by bit position, read from the schema's generated codec (the one source). */
    private static final String[] FAULT_NAMES = schemaFaultNames();

    /**
     * The FaultSet choices as the schema declares them: SBE generates one static {@code boolean name(long)} test
     * per choice on {@link FaultSetDecoder}; each one's bit is found by probing.
     */
    private static String[] schemaFaultNames()
    {
        final String[] byBit = new String[Long.SIZE];
        int count = 0;
        for (final java.lang.reflect.Method method : FaultSetDecoder.class.getMethods())
        {
            if (java.lang.reflect.Modifier.isStatic(method.getModifiers()) && boolean.class == method.getReturnType() &&
                1 == method.getParameterCount() && long.class == method.getParameterTypes()[0])
            {
                for (int bit = 0; bit < Long.SIZE; bit++)
                {
                    try
                    {
                        if ((Boolean)method.invoke(null, 1L << bit))
                        {
                            byBit[bit] = method.getName().toUpperCase(java.util.Locale.ROOT);
                            count = Math.max(count, bit + 1);
                        }
                    }
                    catch (final ReflectiveOperationException ex)
                    {
                        throw new IllegalStateException("cannot read the FaultSet choices of the schema", ex);
                    }
                }
            }
        }
        final String[] names = new String[count];
        for (int bit = 0; bit < count; bit++)
        {
            names[bit] = null == byBit[bit] ? "bit" + bit : byBit[bit];
        }
        return names;
    }
    private static final String EFFECT_INDENT = "    ";
    private static final String NONE = "?";

    private final Appendable out;
    private final IntFunction<String> resultNamer;
    private boolean fingerprints;

    /**
     * A printer that shows result codes as numbers.
     *
     * @param out where the text goes, e.g. a PrintStream or StringBuilder.
     */
    public JournalPrinter(final Appendable out)
    {
        this(out, Integer::toString);
    }

    /**
     * A printer that names result codes.
     *
     * @param out         where the text goes, e.g. a PrintStream or StringBuilder.
     * @param resultNamer gives the name of a result code (the engine's ResultCode table).
     */
    public JournalPrinter(final Appendable out, final IntFunction<String> resultNamer)
    {
        this.out = out;
        this.resultNamer = resultNamer;
    }

    /**
     * Whether page fingerprints are printed, one indented line per input that has them (off by default).
     *
     * @param fingerprints true to print them.
     * @return this for a fluent style.
     */
    public JournalPrinter fingerprints(final boolean fingerprints)
    {
        this.fingerprints = fingerprints;
        return this;
    }

    /**
     * {@inheritDoc}
     */
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
        print(describeHeader(header));
    }

    /**
     * {@inheritDoc}
     */
    public void onDocument(
        final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
    {
        final StringBuilder text = new StringBuilder(128 + 64 * effects.size());
        text.append(describeInput(input)).append(" -> ").append(resultNamer.apply(resultCode)).append('\n');
        if (fingerprints && input.fingerprintCount() > 0)
        {
            text.append(EFFECT_INDENT).append("fingerprints");
            for (int i = 0; i < input.fingerprintCount(); i++)
            {
                text.append(' ').append(hex16(input.fingerprintHi(i))).append(hex16(input.fingerprintLo(i)));
            }
            text.append('\n');
        }
        for (int i = 0; i < effects.size(); i++)
        {
            text.append(EFFECT_INDENT).append(describeEffect(effects, i)).append('\n');
        }
        print(text);
    }

    /**
     * The header as {@code key: value} lines, each ending in a newline.
     *
     * @param header to describe.
     * @return the lines.
     */
    public static String describeHeader(final JournalHeader header)
    {
        return "kvledger: " + header.kvledgerVersion() + '\n' +
            "label: " + header.label() + '\n' +
            "createdNs: " + header.createdNs() + '\n' +
            "seed: " + header.seed() + '\n' +
            "pageSize: " + header.pageSize() + '\n' +
            "pools: deviceKv=" + header.deviceKvPages() + " deviceMamba=" + header.deviceMambaSlots() +
            " hostKv=" + header.hostKvPages() + " hostMamba=" + header.hostMambaSlots() +
            " tracking=" + header.trackingSlots() + '\n' +
            "limits: maxRequests=" + header.maxRequests() + " maxRequestPages=" + header.maxRequestPages() +
            " maxNodes=" + header.maxNodes() + " maxOps=" + header.maxOps() +
            " maxStagedDefers=" + header.maxStagedDefers() + '\n' +
            "prefetch: policy=" + header.prefetchPolicy() + " thresholdPages=" + header.prefetchThresholdPages() +
            " timeoutNs=" + header.prefetchTimeoutNs() + " timeoutPerKiNs=" + header.prefetchTimeoutPerKiNs() + '\n' +
            "admission rules: " + header.admissionRules() + '\n' +
            "device: " + header.deviceKind() + " hybrid=" + header.hybrid() + " kvPageBytes=" + header.kvPageBytes() +
            " mambaStateBytes=" + header.mambaStateBytes() + '\n' +
            "faults: " + faultNames(header.faultMask()) + '\n';
    }

    /**
     * Names of the fault switches that are on, space separated, or "none"; unknown bits print as {@code bit<n>}.
     *
     * @param faultMask bit i set means FaultSet choice i is on.
     * @return the names.
     */
    public static String faultNames(final long faultMask)
    {
        if (0 == faultMask)
        {
            return "none";
        }
        final StringBuilder text = new StringBuilder();
        for (int bit = 0; bit < Long.SIZE; bit++)
        {
            if (0 != (faultMask & (1L << bit)))
            {
                if (text.length() > 0)
                {
                    text.append(' ');
                }
                text.append(bit < FAULT_NAMES.length ? FAULT_NAMES[bit] : "bit" + bit);
            }
        }
        return text.toString();
    }

    /**
     * Name of one FaultSet choice.
     *
     * @param bit choice position in the schema's FaultSet.
     * @return its name, or {@code bit<n>} when the schema has no such choice.
     */
    public static String faultName(final int bit)
    {
        return bit >= 0 && bit < FAULT_NAMES.length ? FAULT_NAMES[bit] : "bit" + bit;
    }

    /**
     * Number of FaultSet choices this build knows.
     *
     * @return choice count.
     */
    public static int faultCount()
    {
        return FAULT_NAMES.length;
    }

    /**
     * One input without its result: {@code #<seq> t=<ns> <TYPE> req=<id> op=<id> <named values>}, the values named
     * by {@link Inputs#valueName}.
     *
     * @param input to describe.
     * @return the text; ids equal to -1 and values equal to 0 are left out.
     */
    public static String describeInput(final InputRecord input)
    {
        final StringBuilder text = new StringBuilder(96);
        text.append('#').append(input.sequence()).append(" t=").append(input.timestampNs()).append(' ')
            .append(input.type());
        id(text, "req", input.request());
        id(text, "op", input.op());
        if (!input.ok())
        {
            text.append(" ok=false");
        }

        final InputType type = input.type();
        if (InputType.ARRIVE == type)
        {
            text.append(" pages=").append(input.fingerprintCount());
        }
        value(text, Inputs.valueName(type, 1), input.value1());
        value(text, Inputs.valueName(type, 2), input.value2());
        value(text, Inputs.valueName(type, 3), input.value3());
        value(text, Inputs.valueName(type, 4), input.value4());
        value(text, Inputs.valueName(type, 5), input.value5());
        return text.toString();
    }

    /**
     * One effect in a compact form per type, e.g. {@code SLOT_TRANSITION DEVICE_MAMBA:3 FREE -> REQUEST(17)}.
     *
     * @param effects list holding the effect.
     * @param index   of the effect in the list.
     * @return the text.
     */
    public static String describeEffect(final EffectList effects, final int index)
    {
        final EffectType type = EffectType.get(effects.typeCode(index));
        final StringBuilder text = new StringBuilder(64).append(type);
        final long id = effects.id(index);
        final long owner = effects.owner(index);
        final long value1 = effects.value1(index);
        final long value2 = effects.value2(index);
        final long value3 = effects.value3(index);
        switch (type)
        {
            case NODE_INSERTED:
                text.append(" node=").append(id).append(" parent=").append(owner).append(" pages=").append(value1)
                    .append(" depth=").append(value2);
                break;
            case NODE_SPLIT:
                text.append(" node=").append(id).append(" newParent=").append(owner).append(" pages=").append(value1);
                break;
            case NODE_DELETED:
            case EVICTED:
                text.append(" node=").append(id);
                if (EffectType.EVICTED == type)
                {
                    text.append(' ').append(name(effects.component(index)));
                }
                break;
            case LOCKED:
            case UNLOCKED:
                text.append(" node=").append(id).append(' ').append(name(effects.component(index))).append(" by ")
                    .append(name(effects.toState(index))).append('(').append(owner).append(") receipt=")
                    .append(value1);
                break;
            case SLOT_TRANSITION:
                text.append(' ').append(name(effects.pool(index))).append(':').append(id).append(' ');
                state(text, effects.fromState(index), value1);
                text.append(" -> ");
                state(text, effects.toState(index), owner);
                break;
            case CURSORS_RESET:
                text.append(' ').append(name(effects.pool(index))).append(':').append(id);
                break;
            case CURSORS_OBSERVED:
                text.append(' ').append(name(effects.pool(index))).append(':').append(id).append(" writePos=")
                    .append(value1).append(" cacheBase=").append(value2).append(" isFlush=").append(value3);
                break;
            case OP_QUEUED:
                text.append(" op=").append(id).append(' ').append(name(effects.opKind(index))).append(" owner=")
                    .append(owner).append(" targets=").append(value1).append(" pages=").append(value2);
                break;
            case OP_TARGET:
                text.append(" op=").append(id).append(' ').append(name(effects.role(index))).append(' ')
                    .append(name(effects.pool(index))).append(':').append(value1);
                break;
            case OP_LAUNCHED:
            case OP_ACKED:
            case OP_FAILED:
            case OP_CANCELLED:
                text.append(" op=").append(id);
                break;
            case DEFERRED:
                text.append(" req=").append(owner).append(' ').append(name(effects.reason(index))).append(" count=")
                    .append(value1);
                break;
            case HOLD_DROPPED:
                text.append(" req=").append(owner).append(' ').append(name(effects.reason(index))).append(" pages=")
                    .append(value1);
                break;
            case ADMITTED:
                text.append(" req=").append(owner);
                id(text, "loadOp", id);
                text.append(" devicePages=").append(value1).append(" loadedPages=").append(value2);
                id(text, "cowOp", value3);
                break;
            case REJECTED:
            case WAITED:
                text.append(" req=").append(owner).append(' ').append(name(effects.reason(index)));
                break;
            case HOLD_STAGED:
                text.append(" req=").append(owner).append(" op=").append(id).append(" pages=").append(value1)
                    .append(" first=").append(value2);
                break;
            case HIT_PARKED:
                text.append(" req=").append(owner).append(" pages=").append(value1);
                break;
            case REQUEST_STATE:
                text.append(" req=").append(owner).append(' ').append(name(effects.requestFrom(index))).append(" -> ")
                    .append(name(effects.requestTo(index)));
                break;
            case PAGES_STORED:
                text.append(" op=").append(id).append(" pages=").append(value1);
                break;
            case RESERVED:
                text.append(" req=").append(owner).append(" mamba=").append(value1).append(" kv=").append(value2);
                break;
            case BACKUP_DROPPED:
                text.append(" node=").append(id).append(" ").append(name(effects.reason(index)))
                    .append(" pages=").append(value1);
                break;
            default:
                text.append(" id=").append(id).append(" owner=").append(owner).append(" value1=").append(value1)
                    .append(" value2=").append(value2).append(" value3=").append(value3);
                break;
        }
        return text.toString();
    }

    private static void state(final StringBuilder text, final SlotState state, final long owner)
    {
        text.append(name(state));
        if (SlotState.FREE != state && SlotState.NULL_VAL != state)
        {
            text.append('(').append(owner).append(')');
        }
    }

    private static void id(final StringBuilder text, final String name, final long id)
    {
        if (InputRecord.NULL_ID != id)
        {
            text.append(' ').append(name).append('=').append(id);
        }
    }

    private static void value(final StringBuilder text, final String name, final long value)
    {
        if (0 != value)
        {
            text.append(' ').append(name).append('=').append(value);
        }
    }

    private static String name(final Enum<?> value)
    {
        return null == value || "NULL_VAL".equals(value.name()) ? NONE : value.name();
    }

    private static String hex16(final long value)
    {
        final String digits = Long.toHexString(value);
        return "0000000000000000".substring(digits.length()) + digits;
    }

    private void print(final CharSequence text)
    {
        try
        {
            out.append(text);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
