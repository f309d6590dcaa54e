package io.kvledger.replay.check;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Reason;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts over a journal: inputs and effects per type, result codes, L3 hits, loads, defers, drops, rejects,
 * evictions and the time span: the {@code kvledger stats} view. Plain counters; no model.
 */
public final class JournalStats implements JournalListener
{
    private final Map<InputType, Long> inputs = new EnumMap<>(InputType.class);
    private final Map<EffectType, Long> effects = new EnumMap<>(EffectType.class);
    private final Map<Integer, Long> resultCodes = new TreeMap<>();
    private final Map<OpKind, Long> opsQueued = new EnumMap<>(OpKind.class);
    private final Map<Reason, Long> defers = new EnumMap<>(Reason.class);
    private final Map<Reason, Long> drops = new EnumMap<>(Reason.class);
    private final Map<Reason, Long> rejects = new EnumMap<>(Reason.class);
    private final Map<Reason, Long> waits = new EnumMap<>(Reason.class);
    private final Map<Component, Long> evictions = new EnumMap<>(Component.class);
    private long documents;
    private long effectCount;
    private long firstTimestampNs = Long.MIN_VALUE;
    private long lastTimestampNs = Long.MIN_VALUE;
    private long firstSequence = -1;
    private long lastSequence = -1;
    private long storageHits;
    private long l3HitPages;
    private long holdsStaged;
    private long stagedPages;
    private long admitted;
    private long loadedPages;
    private long admittedLoadPages;
    /** Pages of each LOAD op queued and not yet ended, by op id: counted as loaded at its ack. */
    private final Map<Long, Long> loadPagesInFlight = new HashMap<>();
    private long loadsAcked;
    private long loadsFailed;
    private long loadsCancelled;
    private long pagesStored;
    private final Map<Long, Integer> requestPages = new HashMap<>();
    private long admittedRequestPages;
    private long prefixPages;
    private String label = "";

    @Override
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
        label = header.label();
    }

    @Override
    public void onDocument(final InputRecord input, final int resultCode, final EffectList list,
        final JournalPosition position)
    {
        documents++;
        if (firstSequence < 0)
        {
            firstSequence = input.sequence();
            firstTimestampNs = input.timestampNs();
        }
        lastSequence = input.sequence();
        lastTimestampNs = input.timestampNs();
        inputs.merge(input.type(), 1L, Long::sum);
        resultCodes.merge(resultCode, 1L, Long::sum);
        if (input.type() == InputType.STORAGE_HIT)
        {
            storageHits++;
            l3HitPages += Math.max(0, Inputs.presentPages(input));
        }
        if (input.type() == InputType.ARRIVE && input.request() != InputRecord.NULL_ID)
        {
            requestPages.put(input.request(), input.fingerprintCount());
        }
        for (int i = 0; i < list.size(); i++)
        {
            countEffect(list, i);
        }
    }

    private void countEffect(final EffectList list, final int i)
    {
        final EffectType type = list.type(i);
        effectCount++;
        effects.merge(type, 1L, Long::sum);
        switch (type)
        {
            case OP_QUEUED ->
            {
                opsQueued.merge(list.opKind(i), 1L, Long::sum);
                if (isLoad(list, i))
                {
                    loadPagesInFlight.put(list.id(i), list.value2(i));
                }
            }
            case OP_ACKED ->
            {
                if (isLoad(list, i))
                {
                    loadsAcked++;
                    loadedPages += loadPagesInFlight.getOrDefault(list.id(i), 0L);
                    loadPagesInFlight.remove(list.id(i));
                }
            }
            case OP_FAILED ->
            {
                if (isLoad(list, i))
                {
                    loadsFailed++;
                    loadPagesInFlight.remove(list.id(i));
                }
            }
            case OP_CANCELLED ->
            {
                if (isLoad(list, i))
                {
                    loadsCancelled++;
                    loadPagesInFlight.remove(list.id(i));
                }
            }
            case DEFERRED -> defers.merge(reason(list, i), 1L, Long::sum);
            case HOLD_DROPPED -> drops.merge(reason(list, i), 1L, Long::sum);
            case REJECTED -> rejects.merge(reason(list, i), 1L, Long::sum);
            case WAITED -> waits.merge(reason(list, i), 1L, Long::sum);
            case EVICTED -> evictions.merge(list.componentCode(i) == EffectList.NULL_CODE ? Component.FULL :
                list.component(i), 1L, Long::sum);
            case HOLD_STAGED ->
            {
                holdsStaged++;
                stagedPages += list.value1(i);
            }
            case ADMITTED ->
            {
                admitted++;
                admittedLoadPages += list.value2(i);
                prefixPages += list.value1(i);
                admittedRequestPages += requestPages.getOrDefault(list.owner(i), 0);
            }
            case PAGES_STORED -> pagesStored += list.value1(i);
            default ->
            {
            }
        }
    }

    private static boolean isLoad(final EffectList list, final int i)
    {
        return list.opKindCode(i) != EffectList.NULL_CODE && list.opKind(i) == OpKind.LOAD;
    }

    private static Reason reason(final EffectList list, final int i)
    {
        return list.reasonCode(i) == EffectList.NULL_CODE ? Reason.NONE : list.reason(i);
    }

    private static long sum(final Map<?, Long> map)
    {
        long total = 0;
        for (final long value : map.values())
        {
            total += value;
        }
        return total;
    }

    /**
     * @return documents read.
     */
    public long documents()
    {
        return documents;
    }

    /**
     * @return effects over all documents.
     */
    public long effects()
    {
        return effectCount;
    }

    /**
     * @param type input type.
     * @return documents with that input.
     */
    public long inputs(final InputType type)
    {
        return inputs.getOrDefault(type, 0L);
    }

    /**
     * @param type effect type.
     * @return effects of that type.
     */
    public long effects(final EffectType type)
    {
        return effects.getOrDefault(type, 0L);
    }

    /**
     * @return documents per result code, by code.
     */
    public Map<Integer, Long> resultCodes()
    {
        return new TreeMap<>(resultCodes);
    }

    /**
     * @return pages the L3 store reported present, summed over STORAGE_HIT inputs.
     */
    public long l3HitPages()
    {
        return l3HitPages;
    }

    /**
     * @return pages staged into host memory (HOLD_STAGED).
     */
    public long stagedPages()
    {
        return stagedPages;
    }

    /**
     * @return LOAD operations queued.
     */
    public long loads()
    {
        return opsQueued.getOrDefault(OpKind.LOAD, 0L);
    }

    /**
     * @return LOAD ops cancelled before they launched (a retract or abort of their request).
     */
    public long loadsCancelled()
    {
        return loadsCancelled;
    }

    /**
     * @return pages loaded from L3 through host staging: the pages of every LOAD acked ok (a load cancelled by a
     * retract or failed loads nothing; its request recomputes).
     */
    public long loadedPages()
    {
        return loadedPages;
    }

    /**
     * @return full pages of the admitted requests (their ARRIVE fingerprints), summed over ADMITTED effects.
     */
    public long admittedRequestPages()
    {
        return admittedRequestPages;
    }

    /**
     * @return pages admissions found cached, on the device or loaded from L3 (ADMITTED value1).
     */
    public long prefixPages()
    {
        return prefixPages;
    }

    /**
     * @return pages admissions found on the device already (prefix minus loaded).
     */
    public long deviceHitPages()
    {
        return Math.max(0, prefixPages - admittedLoadPages);
    }

    /**
     * @return share of the admitted requests' pages served from a cache: found on the device, or loaded from L3 by
     * a load that was acked; 0 without admissions.
     */
    public double hitRate()
    {
        return rate(deviceHitPages() + loadedPages);
    }

    /**
     * @return share of the admitted requests' pages found on the device.
     */
    public double deviceHitRate()
    {
        return rate(deviceHitPages());
    }

    /**
     * @return share of the admitted requests' pages loaded from L3 through host staging.
     */
    public double l3HitRate()
    {
        return rate(loadedPages);
    }

    private double rate(final long pages)
    {
        return admittedRequestPages == 0 ? 0.0 : (double)pages / admittedRequestPages;
    }

    /**
     * @return DEFERRED effects.
     */
    public long defers()
    {
        return sum(defers);
    }

    /**
     * @return HOLD_DROPPED effects.
     */
    public long drops()
    {
        return sum(drops);
    }

    /**
     * @return WAITED effects.
     */
    public long waits()
    {
        return sum(waits);
    }

    /**
     * @return REJECTED effects.
     */
    public long rejects()
    {
        return sum(rejects);
    }

    /**
     * @return EVICTED effects (FULL and MAMBA).
     */
    public long evictions()
    {
        return sum(evictions);
    }

    /**
     * @return ADMITTED effects.
     */
    public long admitted()
    {
        return admitted;
    }

    /**
     * @return timestamp of the first document.
     */
    public long firstTimestampNs()
    {
        return firstTimestampNs;
    }

    /**
     * @return timestamp of the last document.
     */
    public long lastTimestampNs()
    {
        return lastTimestampNs;
    }

    /**
     * @return last minus first timestamp, 0 without documents.
     */
    public long durationNs()
    {
        return documents == 0 ? 0 : lastTimestampNs - firstTimestampNs;
    }

    /**
     * @return the counts as readable text.
     */
    public String toText()
    {
        final StringBuilder b = new StringBuilder();
        b.append("journal").append(label.isEmpty() ? "" : " '" + label + "'").append(": ").append(documents)
            .append(" documents");
        if (documents > 0)
        {
            b.append(" (#").append(firstSequence).append(" .. #").append(lastSequence).append(')');
        }
        b.append(", ").append(effectCount).append(" effects, ")
            .append(String.format(Locale.ROOT, "%.3f", durationNs() / 1e9))
            .append(" s\n");
        b.append("inputs:\n");
        inputs.forEach((k, v) -> b.append(String.format(Locale.ROOT, "  %-16s %10d%n", k, v)));
        b.append("effects:\n");
        effects.forEach((k, v) -> b.append(String.format(Locale.ROOT, "  %-16s %10d%n", k, v)));
        b.append("result codes:\n");
        resultCodes.forEach((k, v) -> b.append(String.format(Locale.ROOT, "  %-24s %10d%n",
            ResultCode.name(k) + " (" + k + ")", v)));
        b.append("operations queued:");
        opsQueued.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        b.append('\n');
        b.append("L3: ").append(storageHits).append(" hits, ").append(l3HitPages).append(" hit pages; ")
            .append(holdsStaged).append(" holds staged, ").append(stagedPages).append(" staged pages; ")
            .append(pagesStored).append(" pages stored\n");
        b.append("admitted ").append(admitted).append(", loads ").append(loads()).append(" (acked ")
            .append(loadsAcked).append(", failed ").append(loadsFailed).append(", cancelled ").append(loadsCancelled)
            .append("), loaded pages ").append(loadedPages).append('\n');
        b.append("hit rate ").append(percent(hitRate())).append(" of ").append(admittedRequestPages)
            .append(" admitted pages (device ").append(percent(deviceHitRate())).append(", L3 ")
            .append(percent(l3HitRate())).append(")\n");
        b.append("defers ").append(defers()).append(reasons(defers)).append(", drops ").append(drops())
            .append(reasons(drops)).append(", rejects ").append(rejects()).append(reasons(rejects)).append(", waits ")
            .append(sum(waits)).append(reasons(waits)).append('\n');
        b.append("evictions ").append(evictions()).append(reasons(evictions)).append('\n');
        return b.toString();
    }

    private static String percent(final double rate)
    {
        return String.format(Locale.ROOT, "%.1f%%", 100.0 * rate);
    }

    private static double round(final double rate)
    {
        return Math.round(rate * 10_000.0) / 10_000.0;
    }

    private static String reasons(final Map<?, Long> map)
    {
        if (map.isEmpty())
        {
            return "";
        }
        final StringBuilder b = new StringBuilder(" (");
        map.forEach((k, v) -> b.append(b.length() == 2 ? "" : ", ").append(k).append(' ').append(v));
        return b.append(')').toString();
    }

    /**
     * @return the counts as JSON.
     */
    public String toJson()
    {
        final ObjectNode root = JsonSupport.object();
        root.put("label", label);
        root.put("documents", documents);
        root.put("effects", effectCount);
        root.put("firstSeq", firstSequence);
        root.put("lastSeq", lastSequence);
        root.put("firstTimestampNs", documents == 0 ? 0 : firstTimestampNs);
        root.put("lastTimestampNs", documents == 0 ? 0 : lastTimestampNs);
        root.put("durationNs", durationNs());
        final ObjectNode inputNode = root.putObject("inputs");
        inputs.forEach((k, v) -> inputNode.put(k.name(), v));
        final ObjectNode effectNode = root.putObject("effectTypes");
        effects.forEach((k, v) -> effectNode.put(k.name(), v));
        final ObjectNode codes = root.putObject("resultCodes");
        resultCodes.forEach((k, v) -> codes.put(ResultCode.name(k), v));
        final ObjectNode queued = root.putObject("opsQueued");
        opsQueued.forEach((k, v) -> queued.put(k.name(), v));
        root.put("storageHits", storageHits);
        root.put("l3HitPages", l3HitPages);
        root.put("holdsStaged", holdsStaged);
        root.put("stagedPages", stagedPages);
        root.put("pagesStored", pagesStored);
        root.put("admitted", admitted);
        root.put("loads", loads());
        root.put("loadsAcked", loadsAcked);
        root.put("loadsFailed", loadsFailed);
        root.put("loadsCancelled", loadsCancelled);
        root.put("loadedPages", loadedPages);
        root.put("admittedRequestPages", admittedRequestPages);
        root.put("prefixPages", prefixPages);
        root.put("deviceHitPages", deviceHitPages());
        root.put("hitRate", round(hitRate()));
        root.put("deviceHitRate", round(deviceHitRate()));
        root.put("l3HitRate", round(l3HitRate()));
        putReasons(root, "defers", defers);
        putReasons(root, "drops", drops);
        putReasons(root, "rejects", rejects);
        putReasons(root, "waits", waits);
        putReasons(root, "evictions", evictions);
        return JsonSupport.write(root);
    }

    private static void putReasons(final ObjectNode root, final String name, final Map<? extends Enum<?>, Long> map)
    {
        final ObjectNode node = root.putObject(name);
        node.put("total", sum(map));
        map.forEach((k, v) -> node.put(k.name(), v));
    }
}
