package io.kvledger.replay.check;

import java.util.ArrayList;
import java.util.List;

/**
 * Invariant breaks found while folding one effect (or at the end of a document), before they become
 * {@link Violation}s: the model turns them into violations once the effect is recorded in the subject's history,
 * so every history ends with the effect that broke the invariant.
 */
final class Findings
{
    /** What a finding is about. */
    enum Kind
    {
        SLOT, NODE, REQUEST, OP
    }

    /**
     * One break.
     *
     * @param invariant   invariant broken.
     * @param kind        subject kind.
     * @param pool        pool name, or the subject kind's name for non-slots.
     * @param id          subject id.
     * @param explanation what went wrong.
     * @param history     explicit history, or null for the subject's own history.
     */
    record Finding(Invariant invariant, Kind kind, String pool, long id, String explanation,
        List<HistoryEntry> history)
    {
    }

    private final List<Finding> pending = new ArrayList<>();

    void add(final Finding finding)
    {
        pending.add(finding);
    }

    void slot(final Invariant invariant, final ShadowSlot slot, final String explanation)
    {
        pending.add(new Finding(invariant, Kind.SLOT, slot.pool.name(), slot.id, explanation, null));
    }

    void node(final Invariant invariant, final long node, final String explanation)
    {
        pending.add(new Finding(invariant, Kind.NODE, Violation.NODE, node, explanation, null));
    }

    void request(final Invariant invariant, final long request, final String explanation)
    {
        pending.add(new Finding(invariant, Kind.REQUEST, Violation.REQUEST, request, explanation, null));
    }

    void op(final Invariant invariant, final long op, final String explanation)
    {
        pending.add(new Finding(invariant, Kind.OP, Violation.OP, op, explanation, null));
    }

    /**
     * @return the pending findings, in order, leaving none.
     */
    boolean isEmpty()
    {
        return pending.isEmpty();
    }

    List<Finding> drain()
    {
        if (pending.isEmpty())
        {
            return List.of();
        }
        final List<Finding> out = List.copyOf(pending);
        pending.clear();
        return out;
    }
}
