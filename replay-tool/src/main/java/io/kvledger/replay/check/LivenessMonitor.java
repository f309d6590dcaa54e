package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Progress rules on the journal, next to the safety invariants of {@link ShadowModel}: things that are not
 * forbidden by any single document but show that the controller forgot work or repeats it. Fed every document (as
 * the checker is), it reports the first breach as a {@link Finding}; {@link #atQuiescence} adds the end-of-run
 * rules. Independent of the engine's code and of any fault switch, so it also covers bugs added later.
 * <ul>
 * <li>{@code L1 parked-hit-starved}: a live waiting request keeps an L3 hit parked while host staging is wholly free
 * for {@link #STARVED_PASSES} consecutive passes (a parked hit must be served once staging frees). A parked hit
 * ends when its fetch is queued, its request is staged, admitted, rejected or ends, when a HOLD_DROPPED names it
 * (an admission past the prefetch-policy gate gives the parked hit up: best_effort at once, timeout once the
 * deadline passed), and, for journals written before that effect was journaled, at any WAITED of the request with a
 * reason other than PREFETCH_PENDING (found by explore seed 3332: a timeout-policy request whose hit was given up
 * at #1522 without an effect and that then waited for ALLOCATION was reported as starved at #3288).</li>
 * <li>{@code L2 backup-repeated}: a backup reads a device KV page that an earlier backup already copied (acked)
 * while the page has kept the same owner since (pages already stored are backed up again).</li>
 * <li>{@code L3 not-quiescent}: at the end of a run, a request is not finished, aborted or rejected, an op is in
 * flight, or a slot is still owned by a request, an op or is pending free.</li>
 * </ul>
 * The serving side adds its own: {@code L4 no-progress} (no request finished for a bounded number of steps) and
 * {@code L5 backlog-stuck} (the engine's backup backlog not empty at quiescence). Single thread.
 */
public final class LivenessMonitor
{
    /**
     * Passes with wholly free staging that a parked hit may wait before it counts as starved. The engine retries the
     * parked-hit FIFO at every PASS_BEGIN and TICK, and a retry with staging wholly free serves every hit it can, so
     * a live hit is fetched at the first pass that finds staging free; four leaves room for that and keeps a
     * reproducer of the rule short. Only passes the engine accepted count (a refused PASS_END ends no pass; up to
     * session 6 those counted too, with eight passes).
     */
    public static final int STARVED_PASSES = 4;

    /**
     * One breach of a progress rule.
     *
     * @param rule     rule name, for example {@code L2 backup-repeated}.
     * @param sequence document at which it was seen.
     * @param text     what happened, in the user's words.
     */
    public record Finding(String rule, long sequence, String text)
    {
    }

    /**
     * What {@link #atQuiescence} found left, in a form that survives re-execution of a reduced input sequence (the
     * shrinker compares it: request ids are kept, op ids are remapped, slot numbers may change).
     *
     * @param what  {@code request}, {@code op}, a pool name for a slot, or {@code lock} (a lock receipt the serving
     *              side found left).
     * @param id    the request id, the op id or the slot number (0 for a lock).
     * @param state the request's state, the op's kind, or the slot's state.
     */
    public record Stuck(String what, long id, String state)
    {
    }

    private static final class Parked
    {
        final long pages;
        final long sinceSequence;
        int freePasses;

        Parked(final long pages, final long sinceSequence)
        {
            this.pages = pages;
            this.sinceSequence = sinceSequence;
        }
    }

    private final Map<Long, Parked> parked = new LinkedHashMap<>();
    private final Map<Long, RequestState> requests = new HashMap<>();
    private final Map<Long, List<Integer>> backupReads = new HashMap<>();
    private long[] backedUpBy = new long[0];
    private int hostKvPages;
    private int hostKvFree;
    private int hostMambaSlots;
    private int hostMambaFree;
    private Finding finding;
    private Stuck stuck;

    /**
     * @param header the journal's header (pool sizes).
     * @return this.
     */
    public LivenessMonitor configure(final JournalHeader header)
    {
        hostKvPages = header.hostKvPages();
        hostKvFree = hostKvPages;
        hostMambaSlots = header.hybrid() ? header.hostMambaSlots() : 0;
        hostMambaFree = hostMambaSlots;
        backedUpBy = new long[header.deviceKvPages()];
        java.util.Arrays.fill(backedUpBy, -1);
        return this;
    }

    /** @return the first breach seen, or null. */
    public Finding finding()
    {
        return finding;
    }

    /** @return what the last {@link #atQuiescence} found left first, or null when it found everything ended. */
    public Stuck stuck()
    {
        return stuck;
    }

    /**
     * Fold one document.
     *
     * @param input      the input.
     * @param resultCode its result.
     * @param effects    its effects.
     */
    public void onDocument(final InputRecord input, final int resultCode, final EffectList effects)
    {
        final long sequence = input.sequence();
        if (input.type() == InputType.ARRIVE && resultCode == 0)
        {
            requests.put(input.request(), RequestState.WAITING);
        }
        long queuedBackup = -1;
        for (int i = 0; i < effects.size(); i++)
        {
            final EffectType type = effects.type(i);
            switch (type)
            {
                case HIT_PARKED:
                    parked.put(effects.owner(i), new Parked(effects.value1(i), sequence));
                    break;
                case WAITED:
                    if (effects.reason(i) != Reason.PREFETCH_PENDING)
                    {
                        // Past the prefetch-policy gate: the admission gave the parked hit up (see the class doc).
                        parked.remove(effects.owner(i));
                    }
                    break;
                case HOLD_STAGED:
                case HOLD_DROPPED:
                case ADMITTED:
                case REJECTED:
                    parked.remove(effects.owner(i));
                    if (type == EffectType.REJECTED)
                    {
                        requests.remove(effects.owner(i));
                    }
                    break;
                case REQUEST_STATE:
                    onRequestState(effects.owner(i), effects.requestTo(i));
                    break;
                case OP_QUEUED:
                    queuedBackup = -1;
                    if (effects.opKind(i) == OpKind.FETCH)
                    {
                        parked.remove(effects.owner(i));
                    }
                    else if (effects.opKind(i) == OpKind.BACKUP)
                    {
                        queuedBackup = effects.id(i);
                    }
                    break;
                case OP_TARGET:
                    if (queuedBackup == effects.id(i) && effects.pool(i) == Pool.DEVICE_KV &&
                        effects.role(i) == Role.READ)
                    {
                        onBackupRead(sequence, queuedBackup, (int)effects.value1(i));
                    }
                    break;
                case OP_ACKED:
                    onAcked(effects.id(i));
                    break;
                case OP_FAILED:
                case OP_CANCELLED:
                    backupReads.remove(effects.id(i));
                    break;
                case SLOT_TRANSITION:
                    onSlot(effects.pool(i), (int)effects.id(i), effects.fromState(i), effects.toState(i));
                    break;
                default:
                    break;
            }
        }
        if (input.type() == InputType.PASS_END && resultCode == 0)
        {
            // a PASS_END the engine refused (NOT_IN_PASS) ended no pass: the "for N passes" counts only real ones
            onPassEnd(sequence);
        }
    }

    private void onRequestState(final long request, final RequestState to)
    {
        if (to == RequestState.FINISHED || to == RequestState.ABORTED)
        {
            requests.remove(request);
            parked.remove(request);
        }
        else if (requests.containsKey(request))
        {
            requests.put(request, to);
        }
    }

    private void onBackupRead(final long sequence, final long op, final int slot)
    {
        if (slot < 0 || slot >= backedUpBy.length)
        {
            return;
        }
        if (backedUpBy[slot] >= 0)
        {
            report("L2 backup-repeated", sequence, "backup op " + op + " copies DEVICE_KV:" + slot +
                " again, already copied to host by backup op " + backedUpBy[slot] +
                " and owned by the same node since");
        }
        backupReads.computeIfAbsent(op, k -> new ArrayList<>()).add(slot);
    }

    private void onAcked(final long op)
    {
        final List<Integer> slots = backupReads.remove(op);
        if (slots != null)
        {
            for (final int slot : slots)
            {
                backedUpBy[slot] = op;
            }
        }
    }

    private void onSlot(final Pool pool, final int slot, final SlotState from, final SlotState to)
    {
        switch (pool)
        {
            case DEVICE_KV:
                if (slot >= 0 && slot < backedUpBy.length && from != to)
                {
                    backedUpBy[slot] = -1;
                }
                break;
            case HOST_KV:
                hostKvFree += (to == SlotState.FREE ? 1 : 0) - (from == SlotState.FREE ? 1 : 0);
                break;
            case HOST_MAMBA:
                hostMambaFree += (to == SlotState.FREE ? 1 : 0) - (from == SlotState.FREE ? 1 : 0);
                break;
            default:
                break;
        }
    }

    private void onPassEnd(final long sequence)
    {
        if (parked.isEmpty())
        {
            return;
        }
        final boolean stagingFree = hostKvFree == hostKvPages && hostMambaFree == hostMambaSlots;
        final Iterator<Map.Entry<Long, Parked>> it = parked.entrySet().iterator();
        while (it.hasNext())
        {
            final Map.Entry<Long, Parked> entry = it.next();
            final RequestState state = requests.get(entry.getKey());
            if (state == null || state != RequestState.WAITING)
            {
                continue;
            }
            final Parked p = entry.getValue();
            p.freePasses = stagingFree ? p.freePasses + 1 : 0;
            if (p.freePasses > STARVED_PASSES)
            {
                report("L1 parked-hit-starved", sequence, "request " + entry.getKey() + " parked an L3 hit of " +
                    p.pages + " pages at #" + p.sinceSequence + " and it was never fetched, though host staging " +
                    "was wholly free for " + STARVED_PASSES + " passes");
                it.remove();
            }
        }
    }

    /**
     * End-of-run rules, once the serving side drained everything.
     *
     * @param model    the checker's shadow model after the last document.
     * @param sequence the last document's sequence.
     */
    public void atQuiescence(final ShadowModel model, final long sequence)
    {
        stuck = null;
        if (!requests.isEmpty())
        {
            final Map.Entry<Long, RequestState> first = requests.entrySet().iterator().next();
            stuck = new Stuck("request", first.getKey(), first.getValue().name());
            report("L3 not-quiescent", sequence, requests.size() + " request(s) neither finished, aborted nor " +
                "rejected (first: request " + first.getKey() + " " + first.getValue() + ")");
            return;
        }
        if (!model.inflightOps().isEmpty())
        {
            final OpView op = model.inflightOps().get(0);
            stuck = new Stuck("op", op.id(), op.kind());
            report("L3 not-quiescent", sequence, model.inflightOps().size() + " op(s) still in flight (first: " +
                op + ")");
            return;
        }
        for (final Pool pool : Pool.values())
        {
            if (pool == Pool.NULL_VAL || model.capacity(pool) == 0)
            {
                continue;
            }
            for (int s = 0; s < model.capacity(pool); s++)
            {
                final SlotState state = model.slotState(pool, s);
                if (state == SlotState.REQUEST || state == SlotState.OP || state == SlotState.PENDING_FREE ||
                    (state != SlotState.FREE && (pool == Pool.HOST_KV || pool == Pool.HOST_MAMBA)))
                {
                    stuck = new Stuck(pool.name(), s, state.name());
                    report("L3 not-quiescent", sequence, pool + ":" + s + " is still " + state + " (" +
                        model.slotLabel(pool, s) + ") after every request ended and every op drained");
                    return;
                }
            }
        }
    }

    /**
     * Record a breach found by the serving side (no progress, backlog left, parked FIFO left).
     *
     * @param rule     rule name.
     * @param sequence last document.
     * @param text     what happened.
     */
    public void report(final String rule, final long sequence, final String text)
    {
        if (finding == null)
        {
            finding = new Finding(rule, sequence, text);
        }
    }
}
