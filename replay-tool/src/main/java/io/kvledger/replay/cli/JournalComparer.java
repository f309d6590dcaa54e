package io.kvledger.replay.cli;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalPrinter;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Pool;
import org.agrona.collections.Int2IntHashMap;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Invariant I20 across two journals: whether two tensor-parallel ranks' journals hold the same event log. It walks
 * the first journal and takes the second's documents in step from a {@link DocumentFeed}, and stops at the first
 * difference:
 * <ul>
 *     <li>the headers' decision-making configuration (everything but the creation time, the label and the
 *     version);</li>
 *     <li>each document's input (every field, its time and fingerprints included), result code and effects, in
 *     order;</li>
 *     <li>a slot id (of a slot transition, a cursor effect or an op's target) may differ by a consistent renaming per
 *     pool: the domain
 *     allows physical ids to differ between ranks, so the first time a slot of one journal meets a slot of the
 *     other they are paired, and every later effect must pair them the same way, both ways. Everything else
 *     (request, op and node ids, owners, values, states) must be equal.</li>
 * </ul>
 * With the same configuration and the same effects under that renaming, the two ranks' states differ only by the
 * renaming, so every count of slots per pool and state is equal after every document: that half of I20 follows and
 * is not counted separately. Streaming: only the pairing of slot ids is kept. Consumer thread only.
 */
final class JournalComparer implements JournalListener
{
    /**
     * The first difference.
     *
     * @param sequence document sequence ({@code 0} for the headers).
     * @param what     what differs, one line.
     * @param first    the first journal's side.
     * @param second   the second journal's side.
     */
    record Difference(long sequence, String what, String first, String second)
    {
        /** @return one line: {@code difference at document #SEQ: WHAT}. */
        String describe()
        {
            return (0 == sequence ? "difference in the headers: " : "difference at document #" + sequence + ": ") +
                what;
        }
    }

    private static final String NONE = "(none)";

    private final DocumentFeed other;
    private final Int2IntHashMap[] firstToSecond = new Int2IntHashMap[Pool.values().length];
    private final Int2IntHashMap[] secondToFirst = new Int2IntHashMap[Pool.values().length];
    private long documents;
    private long renamed;
    private Difference difference;

    /**
     * @param other the second journal, started.
     */
    JournalComparer(final DocumentFeed other)
    {
        this.other = other;
        for (int p = 0; p < firstToSecond.length; p++)
        {
            firstToSecond[p] = new Int2IntHashMap(-1);
            secondToFirst[p] = new Int2IntHashMap(-1);
        }
    }

    @Override
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
        final JournalHeader second = other.header();
        final List<String> fields = configurationDifferences(header, second);
        if (!fields.isEmpty())
        {
            difference = new Difference(0, "configuration: " + String.join(", ", fields), describe(header),
                describe(second));
        }
    }

    @Override
    public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
        final JournalPosition position)
    {
        if (null != difference)
        {
            return;
        }
        final DocumentFeed.Document theirs = other.next();
        try
        {
            if (theirs.end)
            {
                difference = new Difference(input.sequence(), "the second journal ends after document " + documents,
                    JournalPrinter.describeInput(input), NONE);
                return;
            }
            documents++;
            difference = compare(input, resultCode, effects, theirs);
        }
        finally
        {
            other.release(theirs);
        }
    }

    /**
     * After the first journal's last document: the second must end there too.
     */
    void finish()
    {
        if (null != difference)
        {
            return;
        }
        final DocumentFeed.Document theirs = other.next();
        if (!theirs.end)
        {
            difference = new Difference(theirs.input.sequence(), "the first journal ends after document " +
                documents, NONE, JournalPrinter.describeInput(theirs.input));
        }
        other.release(theirs);
    }

    /** @return the first difference, or null when the journals hold the same event log. */
    Difference difference()
    {
        return difference;
    }

    /** @return documents compared. */
    long documents()
    {
        return documents;
    }

    /** @return slot ids paired with a different id of the other journal. */
    long renamedSlots()
    {
        return renamed;
    }

    private Difference compare(final InputRecord input, final int resultCode, final EffectList effects,
        final DocumentFeed.Document theirs)
    {
        final long sequence = input.sequence();
        final String field = inputDifference(input, theirs.input);
        if (null != field)
        {
            return new Difference(sequence, "input " + field, JournalPrinter.describeInput(input),
                JournalPrinter.describeInput(theirs.input));
        }
        if (resultCode != theirs.resultCode)
        {
            return new Difference(sequence, "result code (" + input.type() + ")", ResultCode.name(resultCode),
                ResultCode.name(theirs.resultCode));
        }
        final EffectList mine = effects;
        final EffectList their = theirs.effects;
        final int common = Math.min(mine.size(), their.size());
        for (int i = 0; i < common; i++)
        {
            final String why = effectDifference(mine, their, i);
            if (null != why)
            {
                return new Difference(sequence, "effect " + i + " (" + input.type() + "): " + why,
                    JournalPrinter.describeEffect(mine, i), JournalPrinter.describeEffect(their, i));
            }
        }
        if (mine.size() != their.size())
        {
            return new Difference(sequence, "effect " + common + " (" + input.type() + "): " + mine.size() +
                " effects against " + their.size(), common < mine.size() ? JournalPrinter.describeEffect(mine,
                common) : NONE, common < their.size() ? JournalPrinter.describeEffect(their, common) : NONE);
        }
        return null;
    }

    private String effectDifference(final EffectList a, final EffectList b, final int i)
    {
        if (a.typeCode(i) != b.typeCode(i) || a.poolCode(i) != b.poolCode(i) ||
            a.fromStateCode(i) != b.fromStateCode(i) || a.toStateCode(i) != b.toStateCode(i) ||
            a.componentCode(i) != b.componentCode(i) || a.opKindCode(i) != b.opKindCode(i) ||
            a.roleCode(i) != b.roleCode(i) || a.reasonCode(i) != b.reasonCode(i) ||
            a.requestFromCode(i) != b.requestFromCode(i) || a.requestToCode(i) != b.requestToCode(i))
        {
            return "type, pool, states or codes differ";
        }
        final Pool pool = a.pool(i);
        final boolean slotInValue1 = EffectType.OP_TARGET == a.type(i);
        final boolean slotInId = !slotInValue1 && null != pool && Pool.NULL_VAL != pool;
        if (a.owner(i) != b.owner(i) || (!slotInValue1 && a.value1(i) != b.value1(i)) ||
            a.value2(i) != b.value2(i) || a.value3(i) != b.value3(i))
        {
            return "owner or values differ";
        }
        if (!slotInId && a.id(i) != b.id(i))
        {
            return "ids differ";
        }
        if (slotInValue1)
        {
            return pair(pool, a.value1(i), b.value1(i));
        }
        return slotInId ? pair(pool, a.id(i), b.id(i)) : null;
    }

    /** Pair slot {@code mine} of the first journal with slot {@code theirs} of the second, or say why not. */
    private String pair(final Pool pool, final long mine, final long theirs)
    {
        final int p = pool.ordinal();
        final int a = (int)mine;
        final int b = (int)theirs;
        final int pairedB = firstToSecond[p].get(a);
        final int pairedA = secondToFirst[p].get(b);
        if (-1 == pairedB && -1 == pairedA)
        {
            firstToSecond[p].put(a, b);
            secondToFirst[p].put(b, a);
            if (a != b)
            {
                renamed++;
            }
            return null;
        }
        if (pairedB == b && pairedA == a)
        {
            return null;
        }
        return pool + " slot " + a + " of the first journal was paired with slot " + pairedB + " of the second, " +
            "slot " + b + " of the second with slot " + pairedA + " of the first (-1: none)";
    }

    private static String inputDifference(final InputRecord a, final InputRecord b)
    {
        if (a.type() != b.type())
        {
            return "type";
        }
        if (a.sequence() != b.sequence())
        {
            return "sequence";
        }
        if (a.timestampNs() != b.timestampNs())
        {
            return "time";
        }
        if (a.ok() != b.ok() || a.request() != b.request() || a.op() != b.op() || a.value1() != b.value1() ||
            a.value2() != b.value2() || a.value3() != b.value3() || a.value4() != b.value4() ||
            a.value5() != b.value5())
        {
            return "fields";
        }
        if (a.fingerprintCount() != b.fingerprintCount())
        {
            return "fingerprint count";
        }
        for (int i = 0; i < a.fingerprintCount(); i++)
        {
            if (a.fingerprintHi(i) != b.fingerprintHi(i) || a.fingerprintLo(i) != b.fingerprintLo(i))
            {
                return "fingerprint " + i;
            }
        }
        return null;
    }

    /** Header fields that steer decisions and differ between the two headers, by name. */
    static List<String> configurationDifferences(final JournalHeader a, final JournalHeader b)
    {
        final List<String> fields = new ArrayList<>();
        differ(fields, "seed", a.seed(), b.seed());
        differ(fields, "pageSize", a.pageSize(), b.pageSize());
        differ(fields, "deviceKvPages", a.deviceKvPages(), b.deviceKvPages());
        differ(fields, "deviceMambaSlots", a.deviceMambaSlots(), b.deviceMambaSlots());
        differ(fields, "hostKvPages", a.hostKvPages(), b.hostKvPages());
        differ(fields, "hostMambaSlots", a.hostMambaSlots(), b.hostMambaSlots());
        differ(fields, "trackingSlots", a.trackingSlots(), b.trackingSlots());
        differ(fields, "maxStagedDefers", a.maxStagedDefers(), b.maxStagedDefers());
        differ(fields, "maxRequests", a.maxRequests(), b.maxRequests());
        differ(fields, "maxRequestPages", a.maxRequestPages(), b.maxRequestPages());
        differ(fields, "prefetchThresholdPages", a.prefetchThresholdPages(), b.prefetchThresholdPages());
        differ(fields, "prefetchPolicy", a.prefetchPolicy(), b.prefetchPolicy());
        differ(fields, "prefetchTimeoutNs", a.prefetchTimeoutNs(), b.prefetchTimeoutNs());
        differ(fields, "prefetchTimeoutPerKiNs", a.prefetchTimeoutPerKiNs(), b.prefetchTimeoutPerKiNs());
        differ(fields, "hybrid", a.hybrid(), b.hybrid());
        differ(fields, "deviceKind", a.deviceKind(), b.deviceKind());
        differ(fields, "kvPageBytes", a.kvPageBytes(), b.kvPageBytes());
        differ(fields, "mambaStateBytes", a.mambaStateBytes(), b.mambaStateBytes());
        differ(fields, "faultMask", a.faultMask(), b.faultMask());
        differ(fields, "maxNodes", a.maxNodes(), b.maxNodes());
        differ(fields, "maxOps", a.maxOps(), b.maxOps());
        differ(fields, "admissionRules", a.admissionRules(), b.admissionRules());
        return fields;
    }

    private static void differ(final List<String> fields, final String name, final Object a, final Object b)
    {
        if (!Objects.equals(a, b))
        {
            fields.add(name + " " + a + " / " + b);
        }
    }

    private static String describe(final JournalHeader header)
    {
        return "label '" + header.label() + "', kvledger " + header.kvledgerVersion();
    }
}
