package io.kvledger.replay.check;

import java.util.EnumMap;
import java.util.Map;

/**
 * How each invariant of the domain reference is checked, said plainly: by the offline checker (a shadow-model rule
 * applied as an effect is folded, or an end-of-document rule), only by the engine's own {@code verify()} (run after
 * every input by {@code kvledger explore} and the seeded tests, not by {@code check}), or not at all. Printed by
 * {@code kvledger check --invariants}; the README's table is the same text.
 */
public final class InvariantCoverage
{
    /** Who checks an invariant. */
    public enum Level
    {
        /** The offline checker ({@code check}, {@code shrink}, {@code explore}). */
        CHECKER,
        /** The checker checks part of it; the rest is said in the text. */
        PARTIAL,
        /** Only the engine's {@code verify()}, which reads its own structures (not the journal). */
        ENGINE_VERIFY,
        /** Not checked. */
        NOT_CHECKED
    }

    /**
     * One row.
     *
     * @param level who checks it.
     * @param how   how, in one sentence.
     */
    public record Row(Level level, String how)
    {
    }

    private static final Map<Invariant, Row> ROWS = new EnumMap<>(Invariant.class);

    static
    {
        row(Invariant.I1, Level.CHECKER, "shadow tree: every NODE_INSERTED, NODE_SPLIT and NODE_DELETED against the " +
            "parent, page run, depth and children it records");
        row(Invariant.I2, Level.CHECKER, "end of document: every touched live node owns exactly its page count in " +
            "device KV slots, a dead node none");
        row(Invariant.I3, Level.CHECKER, "end of document: an ADMITTED prefix of N pages is a FULL lock of the " +
            "request on a live node N pages deep whose ancestors are all live and sum to N pages, none of whose KV " +
            "pages another request's queued or launched load is still writing");
        row(Invariant.I4, Level.PARTIAL, "end of document: a node that lost its FULL data owns no Mamba slot; 'never " +
            "returned as last_device_node' is covered by I3 only for admissions");
        row(Invariant.I5, Level.CHECKER, "shadow tree: lock receipts (no negative count, no double or foreign " +
            "release), locks left by ended requests and by ended ops (loads, copies, backups)");
        row(Invariant.I6, Level.PARTIAL, "evictions (EvictionRule): an EVICTED(MAMBA) names a node owning a " +
            "Mamba state and releases it, an EVICTED(FULL) deletes the node, a NODE_DELETED follows an " +
            "EVICTED(FULL) of the node or the rollback of a failed or cancelled op that locked it, and a TICK that " +
            "evicted fewer pages " +
            "than asked leaves no unlocked leaf (no node holding data is missing from the LRU); the engine's " +
            "evictable/protected counters are not journaled, RadixTree.verify() recounts them in explore and tests");
        row(Invariant.I7, Level.CHECKER, "shadow tree: EVICTED or NODE_DELETED of a node locked by an in-flight " +
            "load, copy or backup; such an op releasing its lock before its ack or cancel");
        row(Invariant.I8, Level.CHECKER, "slot transition: host staging never handed to a node");
        row(Invariant.I9, Level.CHECKER, "owner index: one owner per host staging slot (an op in flight or a " +
            "request that arrived), freed exactly once, nothing left after a hold drop, an ended request or an " +
            "ended op; a fetch, load or copy hands its slots back to its own request only; a load or storage " +
            "write reads only host staging handed to it (its request's hold, its backup's staging)");
        row(Invariant.I10, Level.PARTIAL, "the occupancy counters are not journaled: the checker accounts host " +
            "staging per owner (I9) and per pool (I18 conservation); SlotPool.verify() checks the engine's counts");
        row(Invariant.I11, Level.CHECKER, "splices (SpliceRule): a load splices its request's staged hold whole " +
            "(prefix ends at the hold's end, base inside the hold; pages are the unit, so aligned), and at the end " +
            "of the document the nodes from the load's locked node up to the base start at the base and own " +
            "exactly the load's DEVICE_KV write targets, its written Mamba node state on that last node");
        row(Invariant.I12, Level.CHECKER, "slot transition: from-state and previous owner must match the shadow " +
            "slot (double free, owner confusion, no-op hand-over, PENDING_FREE only to FREE), no owner that does not " +
            "exist (a node handed a slot is in the tree at that point), leaks at owner's end; cursors observed " +
            "only on a slot of the document's request; a backup " +
            "reads only its node's Mamba state and KV pages of its node's " +
            "path, a copy-on-write only the Mamba state of the checkpoint node it locks");
        row(Invariant.I13, Level.CHECKER, "op targets: a slot written by a queued or launched op (or read by a " +
            "launched one) is not freed or handed over until the op ends");
        row(Invariant.I14, Level.CHECKER, "Mamba states only on checkpoint nodes, one per node, never moved between " +
            "nodes; no copy-on-write from a checkpoint whose load is in flight");
        row(Invariant.I15, Level.CHECKER, "slot transition: a Mamba slot owned by a live LOAD (its redundant node " +
            "slot) goes FREE only after the load's ack or cancel");
        row(Invariant.I16, Level.CHECKER, "end of document: a request moving ADMITTED -> RUNNING owns only Mamba " +
            "slots reset, or written by an acked load or copy-on-write, since they were handed to it");
        row(Invariant.I17, Level.CHECKER, "cursors: a Mamba slot handed to a new owner or written by a load has no " +
            "non-zero observed cursors without a CURSORS_RESET since");
        row(Invariant.I18, Level.CHECKER, "admission windows: RESERVED (present) covers every slot the admission " +
            "allocates; " +
            "every pool conserved (free + owned + pending = capacity) after every document");
        row(Invariant.I19, Level.CHECKER, "op and request lifecycles: QUEUED -> LAUNCHED -> ACKED|FAILED or " +
            "QUEUED -> CANCELLED once, targets declared, an accepted ACK, STORAGE_HIT or FETCH_DONE ends the op it " +
            "names (OP_ACKED if ok, OP_FAILED if not); request states in order, created only by the request's " +
            "accepted ARRIVE (which must create it, once), ended by an accepted FINISH or ABORT, ADMITTED only " +
            "with an ADMITTED decision in the same document and vice versa");
        row(Invariant.I20, Level.PARTIAL, "not by check (one journal holds one rank's log): kvledger compare " +
            "JOURNAL OTHER checks that two ranks' journals hold the same configuration, inputs, result codes and " +
            "effects in order, slot ids up to one consistent renaming per pool, so the state counts agree after " +
            "every document");
    }

    private InvariantCoverage()
    {
    }

    private static void row(final Invariant invariant, final Level level, final String how)
    {
        ROWS.put(invariant, new Row(level, how));
    }

    /**
     * @param invariant an invariant.
     * @return how it is checked.
     */
    public static Row of(final Invariant invariant)
    {
        return ROWS.get(invariant);
    }

    /**
     * @param level a level.
     * @return the invariants checked at that level, for example {@code I4, I10}, or {@code none}.
     */
    public static String names(final Level level)
    {
        final StringBuilder b = new StringBuilder();
        for (final Map.Entry<Invariant, Row> entry : ROWS.entrySet())
        {
            if (entry.getValue().level() == level)
            {
                b.append(b.length() > 0 ? ", " : "").append(entry.getKey().name());
            }
        }
        return b.length() > 0 ? b.toString() : "none";
    }

    /**
     * @param level a level.
     * @return how many invariants are checked at that level.
     */
    public static int count(final Level level)
    {
        int n = 0;
        for (final Row row : ROWS.values())
        {
            n += row.level() == level ? 1 : 0;
        }
        return n;
    }
}
