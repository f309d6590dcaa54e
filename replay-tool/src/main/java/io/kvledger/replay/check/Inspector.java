package io.kvledger.replay.check;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The controller's state as the journal left it after document {@code SEQ}: the {@code kvledger inspect JOURNAL
 * --at SEQ} view. Folds documents up to and including {@code SEQ} into a {@link ShadowModel} and ignores the
 * rest; violations found on the way are kept too.
 */
public final class Inspector implements JournalListener
{
    private final long atSequence;
    private final List<Violation> violations = new ArrayList<>();
    private final ShadowModel model = new ShadowModel(violations::add);
    private boolean headerSeen;
    private boolean passed;

    /**
     * @param atSequence last document sequence to fold; {@link Long#MAX_VALUE} for the end of the journal.
     */
    public Inspector(final long atSequence)
    {
        this.atSequence = atSequence;
    }

    @Override
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
        model.configure(header);
        headerSeen = true;
    }

    @Override
    public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
        final JournalPosition position)
    {
        if (input.sequence() > atSequence)
        {
            passed = true;
            return;
        }
        if (!headerSeen)
        {
            throw new IllegalStateException("document #" + input.sequence() + " before the journal header");
        }
        model.apply(input, resultCode, effects);
    }

    /**
     * @return the sequence asked for.
     */
    public long atSequence()
    {
        return atSequence;
    }

    /**
     * @return true once a document past {@link #atSequence()} was seen (the reader may stop).
     */
    public boolean done()
    {
        return passed;
    }

    /**
     * @return the last sequence folded (-1 when none).
     */
    public long appliedSequence()
    {
        return model.lastSequence();
    }

    /**
     * @return documents folded.
     */
    public long documents()
    {
        return model.documents();
    }

    /**
     * @return the shape of the tree.
     */
    public TreeSummary tree()
    {
        return model.treeSummary();
    }

    /**
     * @return occupancy per pool.
     */
    public List<PoolOccupancy> pools()
    {
        return model.occupancy();
    }

    /**
     * @return operations QUEUED or LAUNCHED.
     */
    public List<OpView> inflightOps()
    {
        return model.inflightOps();
    }

    /**
     * @return requests not yet FINISHED or ABORTED.
     */
    public List<RequestView> requests()
    {
        return model.liveRequests();
    }

    /**
     * @return violations found up to the sequence (read-only).
     */
    public List<Violation> violations()
    {
        return Collections.unmodifiableList(violations);
    }

    /**
     * @return the underlying model, for further queries.
     */
    public ShadowModel model()
    {
        return model;
    }

    /**
     * @return the state as readable text.
     */
    public String toText()
    {
        final StringBuilder b = new StringBuilder();
        if (documents() == 0)
        {
            b.append("state before the first document (0 documents");
        }
        else
        {
            b.append("state after #").append(appliedSequence()).append(" (").append(documents()).append(" documents");
        }
        if (atSequence != Long.MAX_VALUE)
        {
            b.append(", asked for #").append(atSequence);
        }
        b.append(")\n");
        final TreeSummary tree = tree();
        b.append("tree: ").append(tree.nodeCount()).append(" nodes, max depth ").append(tree.maxDepthPages())
            .append(" pages, ").append(tree.leaves()).append(" leaves, ").append(tree.nodesWithMamba())
            .append(" with Mamba state, ").append(tree.lockedNodes()).append(" locked, ").append(tree.receipts())
            .append(" lock receipts held\n");
        b.append("pools:\n");
        for (final PoolOccupancy pool : pools())
        {
            b.append(String.format(Locale.ROOT,
                "  %-12s capacity %6d  free %6d  request %6d  node %6d  op %6d  pending %6d%n",
                pool.pool(), pool.capacity(), pool.free(), pool.request(), pool.node(), pool.op(), pool.pending()));
        }
        final List<OpView> ops = inflightOps();
        b.append("in-flight ops: ").append(ops.size()).append('\n');
        for (final OpView op : ops)
        {
            b.append("  op ").append(op.id()).append(' ').append(op.kind()).append(' ').append(op.state())
                .append(" owner ").append(op.owner()).append(" queued #").append(op.queuedSequence()).append('\n');
            for (final String target : op.targets())
            {
                b.append("    ").append(target).append('\n');
            }
        }
        final List<RequestView> requests = requests();
        b.append("requests: ").append(requests.size()).append('\n');
        for (final RequestView request : requests)
        {
            b.append("  request ").append(request.id()).append(' ').append(request.state()).append(" since #")
                .append(request.sinceSequence());
            if (!request.slots().isEmpty())
            {
                b.append(" holds ").append(String.join(" ", request.slots()));
            }
            b.append('\n');
        }
        b.append("violations so far: ").append(violations.size()).append('\n');
        return b.toString();
    }

    /**
     * @return the state as JSON: {@code at, appliedSequence, documents, tree, pools, ops, requests, violations};
     * {@code at} is the sequence asked for, or the last document's when the end of the journal was asked for.
     */
    public String toJson()
    {
        final ObjectNode root = JsonSupport.object();
        // without --at: the end of the journal, the last document folded
        root.put("at", atSequence == Long.MAX_VALUE ? appliedSequence() : atSequence);
        root.put("appliedSequence", appliedSequence());
        root.put("documents", documents());
        final TreeSummary tree = tree();
        root.putObject("tree").put("nodes", tree.nodeCount()).put("maxDepthPages", tree.maxDepthPages())
            .put("leaves", tree.leaves()).put("nodesWithMamba", tree.nodesWithMamba())
            .put("lockedNodes", tree.lockedNodes()).put("receipts", tree.receipts());
        final ArrayNode pools = root.putArray("pools");
        for (final PoolOccupancy pool : pools())
        {
            pools.addObject().put("pool", pool.pool()).put("capacity", pool.capacity()).put("free", pool.free())
                .put("request", pool.request()).put("node", pool.node()).put("op", pool.op())
                .put("pending", pool.pending());
        }
        final ArrayNode ops = root.putArray("ops");
        for (final OpView op : inflightOps())
        {
            final ObjectNode o = ops.addObject().put("id", op.id()).put("kind", op.kind()).put("state", op.state())
                .put("owner", op.owner()).put("queuedSeq", op.queuedSequence());
            final ArrayNode targets = o.putArray("targets");
            op.targets().forEach(targets::add);
        }
        final ArrayNode requests = root.putArray("requests");
        for (final RequestView request : requests())
        {
            final ObjectNode r = requests.addObject().put("id", request.id()).put("state", request.state())
                .put("sinceSeq", request.sinceSequence());
            final ArrayNode slots = r.putArray("slots");
            request.slots().forEach(slots::add);
        }
        root.put("violations", violations.size());
        return JsonSupport.write(root);
    }
}
