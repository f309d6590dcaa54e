package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * I11, the splice of a staged hold, folded from HOLD_STAGED (the hold: its first page and page count), HOLD_DROPPED
 * and the ADMITTED that queues a load ({@code id} = load op, {@code value1} = device prefix after the load,
 * {@code value2} = pages loaded).
 * <ul>
 * <li>Spliceable: the request holds a staged hold, and the load splices it whole onto the device prefix: the
 * prefix after the load ends exactly at the hold's end (the trailing pages that carry the state are not cut), and
 * the splice base (prefix minus pages loaded) lies inside the hold, {@code first <= base < first + pages}, or at
 * its end for a state-only load (no KV page loaded). Pages are the unit, so the trim is page-aligned by
 * construction.</li>
 * <li>At the end of the admission's document, the tree slice {@code [base, end)} equals the load's FULL
 * destinations: the node the load locks ends at the prefix, the nodes from it up to the base start exactly at the
 * base (no node straddles it), and the device KV pages they own are exactly the load's DEVICE_KV write targets (no
 * insert deduplicated into pages the copy does not write, no copy into pages the tree does not point to). A device
 * Mamba slot the load writes that a node owns belongs to that last node (the state sits at the span's end).</li>
 * </ul>
 */
final class SpliceRule extends ShadowPart
{
    /** A staged hold: pages {@code [first, first + pages)} of its request. */
    private record Hold(long first, long pages)
    {
    }

    /** A load queued by an admission of this document, to compare with the tree at the document's end. */
    private record Splice(long request, long op, long base, long end)
    {
    }

    private final Map<Long, Hold> holds = new HashMap<>();
    private final List<Splice> splices = new ArrayList<>();

    SpliceRule(final ShadowState state)
    {
        super(state);
    }

    /** HOLD_STAGED: the request now holds pages {@code [value2, value2 + value1)} in host staging. */
    void staged(final EffectList e, final int i)
    {
        holds.put(e.owner(i), new Hold(e.value2(i), e.value1(i)));
    }

    /** HOLD_DROPPED: the hold is gone (or there was none). */
    void dropped(final EffectList e, final int i)
    {
        holds.remove(e.owner(i));
    }

    /** ADMITTED: with a load, the hold is spliced; check its bounds now and the tree slice at the document's end. */
    void admitted(final EffectList e, final int i)
    {
        final long request = e.owner(i);
        final long op = e.id(i);
        if (op < 0)
        {
            return;
        }
        final Hold hold = holds.remove(request);
        final long end = e.value1(i);
        final long loaded = e.value2(i);
        final long base = end - loaded;
        if (hold == null)
        {
            requestFinding(Invariant.I11, request, "admitted with load op " + op + " but it holds no staged hold: " +
                "there is nothing to splice");
            return;
        }
        final long holdEnd = hold.first() + hold.pages();
        if (end != holdEnd)
        {
            requestFinding(Invariant.I11, request, "load op " + op + " ends the prefix at page " + end + " but the " +
                "staged hold covers pages " + hold.first() + ".." + holdEnd + ": the splice " +
                (end < holdEnd ? "cuts the hold's tail (and the state at its end)" : "reaches past the hold"));
            return;
        }
        if (loaded < 0 || base < hold.first() || (base == holdEnd && loaded != 0))
        {
            requestFinding(Invariant.I11, request, "load op " + op + " splices at page " + base + " (" + loaded +
                " pages loaded) but the hold covers pages " + hold.first() + ".." + holdEnd + ": the base must lie " +
                "in the hold");
            return;
        }
        splices.add(new Splice(request, op, base, end));
    }

    /** The tree slice of every load queued in this document equals its destinations. */
    void endOfDocument()
    {
        for (int spliceIndex = 0; spliceIndex < splices.size(); spliceIndex++)
        {
            final Splice splice = splices.get(spliceIndex);
            checkSlice(splice);
        }
        splices.clear();
    }

    private void checkSlice(final Splice splice)
    {
        final ShadowOp op = findOp(splice.op());
        if (op == null || op.kind != OpKind.LOAD || !op.state.live())
        {
            return;
        }
        long last = -1;
        for (final LockReceipt receipt : tree.heldBy(SlotState.OP, op.id))
        {
            final ShadowNode n = tree.node(receipt.node());
            if (receipt.component() == Component.FULL && n != null && n.live && n.depth == splice.end())
            {
                last = receipt.node();
            }
        }
        if (last < 0)
        {
            opFinding(Invariant.I11, op.id, op.label() + " holds no FULL lock on a live node ending at page " +
                splice.end() + ", the end of the spliced hold of request " + splice.request());
            return;
        }
        final NavigableSet<Long> slice = new TreeSet<>();
        ShadowNode n = tree.node(last);
        while (n != null && n.id != ROOT && n.depth > splice.base())
        {
            if (n.depth - n.pages < splice.base())
            {
                opFinding(Invariant.I11, op.id, "node " + n.id + " covers pages " + (n.depth - n.pages) + ".." +
                    n.depth + " across the splice base " + splice.base() + " of " + op.label() + ": the tree " +
                    "slice does not start at the base");
                return;
            }
            for (final long key : owners.owned(SlotState.NODE, n.id))
            {
                if (OwnerIndex.pool(key) == Pool.DEVICE_KV)
                {
                    slice.add(key);
                }
            }
            n = tree.liveNode(n.parent);
        }
        final NavigableSet<Long> written = new TreeSet<>();
        for (final OpTarget target : op.targets)
        {
            if (target.write() && target.pool == Pool.DEVICE_KV)
            {
                written.add(OwnerIndex.slotKey(Pool.DEVICE_KV, target.slot));
            }
            else if (target.write() && target.pool == Pool.DEVICE_MAMBA)
            {
                final ShadowSlot slot = slotAt(Pool.DEVICE_MAMBA, target.slot);
                if (slot.state == SlotState.NODE && slot.owner != last)
                {
                    slotFinding(Invariant.I11, slot, op.label() + " writes this Mamba state for the span ending " +
                        "at page " + splice.end() + " (node " + last + ") but node " + slot.owner + " owns it");
                }
            }
        }
        if (!slice.equals(written))
        {
            opFinding(Invariant.I11, op.id, "the tree slice " + splice.base() + ".." + splice.end() + " owns " +
                keys(slice) + " but " + op.label() + " writes " + keys(written) + ": the tree points to pages " +
                "the copy does not fill");
        }
    }

    private static String keys(final NavigableSet<Long> keys)
    {
        final StringBuilder b = new StringBuilder("[");
        for (final long key : keys)
        {
            b.append(b.length() > 1 ? " " : "").append(OwnerIndex.slot(key));
        }
        return b.append(keys.isEmpty() ? "no pages]" : "]").toString();
    }
}
