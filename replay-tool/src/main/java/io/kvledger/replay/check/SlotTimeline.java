package io.kvledger.replay.check;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Every effect that touched one slot (or one tree node, or one request) over a whole journal, with the owner (or the
 * node's or request's state) after each: the {@code kvledger timeline JOURNAL --slot mamba:17} view; a request
 * ({@code request:28}, as {@code check} names the subject of an I18 or I9 finding) shows its state changes, its
 * admission outcomes and the slots it took and gave up. Folds the journal into its own {@link ShadowModel} (no
 * histories, violations ignored) so op lifecycle events are attributed to the slots the ops target.
 */
public final class SlotTimeline implements JournalListener, ShadowObserver
{
    /**
     * One effect on the subject.
     *
     * @param sequence   document sequence.
     * @param effect     readable effect.
     * @param ownerAfter the slot's owner after the effect (for nodes: the node's state after it).
     */
    public record Entry(long sequence, String effect, String ownerAfter)
    {
    }

    private final Pool pool;
    private final long id;
    private final boolean request;
    private final ShadowModel model = new ShadowModel(v -> { }, 0).observer(this);
    private final List<Entry> entries = new ArrayList<>();

    private SlotTimeline(final Pool pool, final long id, final boolean request)
    {
        this.pool = pool;
        this.id = id;
        this.request = request;
    }

    /**
     * @param pool pool of the slot.
     * @param slot slot id.
     * @return a timeline of that slot.
     */
    public static SlotTimeline forSlot(final Pool pool, final int slot)
    {
        return new SlotTimeline(pool, slot, false);
    }

    /**
     * @param node node id.
     * @return a timeline of that tree node.
     */
    public static SlotTimeline forNode(final long node)
    {
        return new SlotTimeline(null, node, false);
    }

    /**
     * @param request request id.
     * @return a timeline of that request.
     */
    public static SlotTimeline forRequest(final long request)
    {
        return new SlotTimeline(null, request, true);
    }

    /**
     * Parse a subject as the command line takes it: {@code mamba:17} and {@code kv:3} (device pools),
     * {@code host-kv:3}, {@code host-mamba:1}, a pool name such as {@code DEVICE_MAMBA:17}, {@code node:5} or
     * {@code request:28}.
     *
     * @param spec subject.
     * @return a timeline of it.
     * @throws IllegalArgumentException when the subject cannot be read.
     */
    public static SlotTimeline parse(final String spec)
    {
        final int colon = spec.indexOf(':');
        if (colon <= 0 || colon == spec.length() - 1)
        {
            throw new IllegalArgumentException("expected POOL:ID, node:ID or request:ID, got '" + spec + "'");
        }
        final String name = spec.substring(0, colon).trim().toUpperCase(Locale.ROOT).replace('-', '_');
        final long number;
        try
        {
            number = Long.parseLong(spec.substring(colon + 1).trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("bad id in '" + spec + "'", ex);
        }
        if (number < 0)
        {
            throw new IllegalArgumentException("negative id in '" + spec + "'");
        }
        if (!"NODE".equals(name) && !"REQUEST".equals(name) && number > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("slot id " + number + " in '" + spec + "' is larger than any pool");
        }
        switch (name)
        {
            case "NODE":
                return forNode(number);
            case "REQUEST":
                return forRequest(number);
            case "MAMBA":
            case "DEVICE_MAMBA":
                return forSlot(Pool.DEVICE_MAMBA, (int)number);
            case "KV":
            case "DEVICE_KV":
                return forSlot(Pool.DEVICE_KV, (int)number);
            case "HOST_KV":
                return forSlot(Pool.HOST_KV, (int)number);
            case "HOST_MAMBA":
                return forSlot(Pool.HOST_MAMBA, (int)number);
            default:
                throw new IllegalArgumentException("unknown pool '" + spec.substring(0, colon) +
                    "' (mamba, kv, host-kv, host-mamba, DEVICE_MAMBA, ..., node, request)");
        }
    }

    @Override
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
        model.configure(header);
        if (pool != null && id >= model.capacity(pool))
        {
            throw new IllegalArgumentException(subject() + " is outside the pool (capacity " + model.capacity(pool) +
                ")");
        }
    }

    @Override
    public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
        final JournalPosition position)
    {
        model.apply(input, resultCode, effects);
    }

    @Override
    public void onSlotEffect(final Pool pool, final int slot, final long sequence, final EffectList effects,
        final int index, final SlotState stateAfter, final long ownerAfter)
    {
        if (pool == this.pool && slot == id)
        {
            entries.add(new Entry(sequence, EffectText.describe(effects, index), EffectText.owner(stateAfter,
                ownerAfter)));
        }
    }

    @Override
    public void onNodeEffect(final long node, final long sequence, final EffectList effects, final int index)
    {
        if (pool == null && !request && node == id)
        {
            entries.add(new Entry(sequence, EffectText.describe(effects, index), model.nodeLabel(node)));
        }
    }

    @Override
    public void onRequestEffect(final long request, final long sequence, final EffectList effects, final int index)
    {
        if (this.request && request == id)
        {
            entries.add(new Entry(sequence, EffectText.describe(effects, index), model.requestLabel(request)));
        }
    }

    /**
     * @return {@code DEVICE_MAMBA:17}, {@code node:5} or {@code request:28}.
     */
    public String subject()
    {
        return (request ? Violation.REQUEST : pool == null ? Violation.NODE : pool.name()) + ":" + id;
    }

    /**
     * Whether the subject is a request, or a tree node other than the root, that no effect read so far names: an id
     * the journal does not hold (a slot inside its pool's capacity always exists, and so does the root, node 0).
     *
     * @return true when the journal read holds no such request or node.
     */
    public boolean unknownSubject()
    {
        return pool == null && entries.isEmpty() && (request || id != 0);
    }

    /**
     * @return the entries so far, oldest first (read-only).
     */
    public List<Entry> entries()
    {
        return Collections.unmodifiableList(entries);
    }

    /**
     * @return one line per entry: {@code #SEQ EFFECT => OWNER}.
     */
    public String toText()
    {
        final StringBuilder b = new StringBuilder("timeline of ").append(subject()).append(": ")
            .append(entries.size()).append(entries.size() == 1 ? " effect" : " effects").append('\n');
        for (final Entry entry : entries)
        {
            b.append('#').append(entry.sequence()).append(' ').append(entry.effect()).append(" => ")
                .append(entry.ownerAfter()).append('\n');
        }
        return b.toString();
    }

    /**
     * @return {@code {"subject":..,"entries":[{"seq":..,"effect":..,"ownerAfter":..}]}}.
     */
    public String toJson()
    {
        final ObjectNode root = JsonSupport.object();
        root.put("subject", subject());
        final ArrayNode array = root.putArray("entries");
        for (final Entry entry : entries)
        {
            array.addObject().put("seq", entry.sequence()).put("effect", entry.effect())
                .put("ownerAfter", entry.ownerAfter());
        }
        return JsonSupport.write(root);
    }
}
