package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.replay.check.Invariant;
import io.kvledger.replay.check.InvariantChecker;
import io.kvledger.replay.check.LivenessMonitor;
import io.kvledger.replay.check.ShadowModel;
import io.kvledger.replay.check.Violation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Delta debugging (Zeller's ddmin, complement variant) over a journal's recorded inputs: the smallest sequence
 * whose re-execution on a fresh engine, with the journal's configuration and fault switches, still shows the same
 * finding. Each candidate is re-executed from scratch; the checker judges the effects the engine produces, not the
 * recorded ones. One search serves two predicates:
 * <ul>
 * <li><b>an invariant</b> ({@link #Shrinker(JournalHeader, List, Invariant, int, long)}): the offline checker reports
 * that invariant at some document of the candidate; the candidate is cut after it.</li>
 * <li><b>a progress rule</b> ({@link #Shrinker(JournalHeader, List, String, int, long)}, see
 * {@link #SHRINKABLE_RULES}): the candidate breaks no invariant (a safety violation would win in {@code explore})
 * and {@link LivenessMonitor} reports the same rule first. {@code L1 parked-hit-starved} and
 * {@code L2 backup-repeated} are judged document by document, like an invariant (cut after the finding).
 * {@code L3 not-quiescent} and {@code L5 backlog-stuck} are end-of-run rules: a candidate is judged at its last
 * input as if the run had stopped there, and any prefix of a run ends with something in flight, so on its own that
 * would reduce every finding to one ARRIVE. To keep the reproducer meaningful:
 * <ul>
 * <li>{@code L3} must leave the same thing first, in the monitor's order (requests, then ops, then slots, then the
 * engine's lock receipts, as {@code explore} checks): the same request id in the same state, and the candidate keeps
 * the original's last input naming that request (the driver's last word on it, usually the FINISH or ABORT that
 * should have ended it); or an op of the same kind that is the original's op (through the op-id map), with every
 * input naming that op kept (its acks); or a slot of the same pool in the same state (slot numbers change as inputs
 * go, so the number is not compared; every request has ended and no op is in flight, as the order implies); or lock
 * receipts left with nothing else.</li>
 * <li>{@code L5} must be a backlog that quiescence cannot drain: every request ended, no op in flight, nothing held
 * (no L3), the backup backlog not empty, and the candidate's last input a TICK that queued no backup (the engine had
 * its chance with all host staging free, as in {@code explore}'s settle rounds, whose TICKs are in the journal).</li>
 * </ul>
 * {@code L4 no-progress} counts the serving loop's steps, not documents, and is not shrunk; nor are engine errors and
 * data-plane mismatches.</li>
 * </ul>
 * <p>
 * The engine numbers operations in the order it creates them, so dropping an input shifts every later op id, and
 * inputs name ops by id (STORAGE_HIT, FETCH_DONE, ACK). While re-executing, the k-th OP_QUEUED effect of a kept
 * input's original document is paired with the k-th OP_QUEUED effect it produces now, and the {@code op} field of
 * later inputs is rewritten through that map; an op the reduced run never created maps to an id that does not
 * exist, so that input is refused. Sequences are renumbered 1..n. Single-threaded.
 */
final class Shrinker
{
    /** Op id given to inputs whose op the reduced run never created: never issued, so the engine refuses it. */
    static final long MISSING_OP = Long.MAX_VALUE;

    /** Progress rules this shrinker can reduce (see the class doc). */
    static final List<String> SHRINKABLE_RULES =
        List.of("L1 parked-hit-starved", "L2 backup-repeated", "L3 not-quiescent", "L5 backlog-stuck");

    private static final String L3 = "L3 not-quiescent";
    private static final String L5 = "L5 backlog-stuck";

    /**
     * One recorded document the shrinker may keep or drop.
     *
     * @param input     a copy of the recorded input.
     * @param queuedOps ids of the OP_QUEUED effects of the recorded document, in order.
     */
    record Step(InputRecord input, long[] queuedOps)
    {
        /**
         * Copy what the shrinker needs from a document the reader is about to reuse.
         *
         * @param input   the recorded input.
         * @param effects the recorded effects.
         * @return the step.
         */
        static Step copyOf(final InputRecord input, final EffectList effects)
        {
            final InputRecord copy = new InputRecord(Math.max(1, input.fingerprintCount())).copyFrom(input);
            return new Step(copy, Shrinker.queuedOps(effects));
        }
    }

    /**
     * The outcome of a search.
     *
     * @param kept      indices (into the steps) of the minimal sequence, in order.
     * @param runs      candidate re-executions.
     * @param capped    true when the budget ran out before the sequence was 1-minimal.
     * @param elapsedNs time spent.
     */
    record Result(int[] kept, int runs, boolean capped, long elapsedNs)
    {
    }

    /**
     * One re-execution.
     *
     * @param length    inputs executed up to and including the document that showed the finding (the last input
     *                  for an end-of-run rule), 0 when it did not show.
     * @param violation the first violation of the invariant, or null.
     * @param finding   the progress finding, or null.
     * @param stuck     for {@code L3}: what was left first, or null.
     */
    record Execution(int length, Violation violation, LivenessMonitor.Finding finding, LivenessMonitor.Stuck stuck)
    {
        private static final Execution NONE = new Execution(0, null, null, null);
    }

    private final JournalHeader header;
    private final List<Step> steps;
    private final Invariant invariant;
    private final String rule;
    private final int maxRuns;
    private final long maxNanos;
    private final InputRecord scratch;
    private final Map<Long, Long> opIds = new HashMap<>();
    private final JournalPosition position = new JournalPosition();
    private int runs;
    private Progress progress = Progress.NONE;
    /** For L3: what the whole sequence left first, and the step indices a candidate must keep. */
    private LivenessMonitor.Stuck reference;
    private int[] anchors = new int[0];

    /**
     * @param header    the journal's header (configuration, fault switches).
     * @param steps     the recorded inputs to reduce, in order.
     * @param invariant the invariant that must still break.
     * @param maxRuns   most candidate re-executions.
     * @param maxNanos  most time spent searching.
     */
    Shrinker(final JournalHeader header, final List<Step> steps, final Invariant invariant, final int maxRuns,
        final long maxNanos)
    {
        this(header, steps, invariant, null, maxRuns, maxNanos);
    }

    /**
     * @param header   the journal's header (configuration, fault switches).
     * @param steps    the recorded inputs to reduce, in order.
     * @param rule     the progress rule that must still be reported first, one of {@link #SHRINKABLE_RULES}.
     * @param maxRuns  most candidate re-executions.
     * @param maxNanos most time spent searching.
     */
    Shrinker(final JournalHeader header, final List<Step> steps, final String rule, final int maxRuns,
        final long maxNanos)
    {
        this(header, steps, null, rule, maxRuns, maxNanos);
        if (!SHRINKABLE_RULES.contains(rule))
        {
            throw new IllegalArgumentException("cannot shrink " + rule);
        }
    }

    private Shrinker(final JournalHeader header, final List<Step> steps, final Invariant invariant,
        final String rule, final int maxRuns, final long maxNanos)
    {
        this.header = new JournalHeader().copyFrom(header);
        this.steps = new ArrayList<>(steps);
        this.invariant = invariant;
        this.rule = rule;
        this.maxRuns = maxRuns;
        this.maxNanos = maxNanos;
        int maxFingerprints = 1;
        for (final Step step : steps)
        {
            maxFingerprints = Math.max(maxFingerprints, step.input().fingerprintCount());
        }
        scratch = new InputRecord(maxFingerprints);
    }

    /**
     * @param progress where to show the search's progress (re-executions, inputs left).
     */
    void progress(final Progress progress)
    {
        this.progress = progress;
    }

    /**
     * Reduce the steps to a 1-minimal sequence (or as far as the budget allows).
     *
     * @return the minimal sequence.
     * @throws CliException when re-executing every step does not show the finding on this engine.
     */
    Result shrink()
    {
        final long start = System.nanoTime();
        final long deadline = start + maxNanos;
        int[] current = new int[steps.size()];
        Arrays.setAll(current, i -> i);

        runs++;
        final Execution first = execute(current, null, 0);
        if (0 == first.length())
        {
            throw new CliException("re-executing the " + steps.size() + " inputs " + (null == invariant ?
                "of the journal on this engine does not show " + rule : "up to the first violation on this engine " +
                "does not break " + invariant.name()) + " again (was the journal written by another build?); " +
                "nothing to shrink", KvledgerMain.EXIT_BAD_INPUT, null);
        }
        current = Arrays.copyOf(current, first.length());
        if (null != first.stuck())
        {
            anchor(first.stuck(), current.length);
        }

        boolean capped = false;
        int granularity = 2;
        // After a reduction the next round starts at the chunk that went, not at the first: the chunks before it
        // were just tried and are tried again only once the round wraps around (every chunk is still tried before
        // the granularity grows, so the result stays 1-minimal). This cuts re-executions several-fold when most
        // inputs must stay (end-of-run rules, L1's passes).
        int resume = 0;
        search:
        while (current.length >= 2)
        {
            final int length = current.length;
            boolean reduced = false;
            for (int tried = 0; tried < granularity; tried++)
            {
                final int chunk = (resume + tried) % granularity;
                final int from = (int)((long)chunk * length / granularity);
                final int to = (int)((long)(chunk + 1) * length / granularity);
                if (from == to)
                {
                    continue;
                }
                if (runs >= maxRuns || System.nanoTime() > deadline)
                {
                    capped = true;
                    break search;
                }
                if (progress.due())
                {
                    progress.draw(String.format(Locale.ROOT, "shrink: %,d inputs left after %,d of at most %,d " +
                        "re-executions", current.length, runs, maxRuns));
                }
                final int[] complement = without(current, from, to);
                final int reproduced = test(complement);
                if (reproduced > 0)
                {
                    current = Arrays.copyOf(complement, reproduced);
                    granularity = Math.max(granularity - 1, 2);
                    resume = chunk % granularity;
                    reduced = true;
                    break;
                }
            }
            if (!reduced)
            {
                if (granularity >= length)
                {
                    break;
                }
                granularity = Math.min(2 * granularity, length);
                resume = 0;
            }
        }

        return new Result(current, runs, capped, System.nanoTime() - start);
    }

    /**
     * For L3, fix what a candidate must leave (the whole sequence's first stuck thing) and the inputs it must keep:
     * the last input naming a stuck request, or every input naming a stuck op.
     */
    private void anchor(final LivenessMonitor.Stuck stuck, final int length)
    {
        reference = stuck;
        final List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < length; i++)
        {
            final InputRecord in = steps.get(i).input();
            if ("request".equals(stuck.what()) && in.request() == stuck.id())
            {
                kept.clear();
                kept.add(i);
            }
            else if ("op".equals(stuck.what()) && in.op() == stuck.id())
            {
                kept.add(i);
            }
        }
        anchors = kept.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Re-execute one candidate and report whether it still shows the finding.
     *
     * @param candidate step indices, in order.
     * @return inputs executed up to the document that showed it, 0 when it did not.
     */
    int test(final int[] candidate)
    {
        for (final int anchor : anchors)
        {
            if (Arrays.binarySearch(candidate, anchor) < 0)
            {
                return 0;
            }
        }
        runs++;
        return execute(candidate, null, 0).length();
    }

    /**
     * Re-execute a candidate on a fresh engine, op ids remapped and sequences renumbered 1..n, until the first
     * document that breaks the invariant or shows the progress finding (to its end for an end-of-run rule).
     *
     * @param candidate    step indices, in order.
     * @param sink         told about every document produced (the remapped input, its result, its effects), or
     *                     null.
     * @param historyLimit effects kept per slot for the violation's history.
     * @return how far it went and the violation.
     */
    Execution execute(final int[] candidate, final DocumentSink sink, final int historyLimit)
    {
        final CacheStateMachine engine = Replayer.newEngine(header);
        final InvariantChecker checker = new InvariantChecker(false, InvariantChecker.UNLIMITED, historyLimit);
        checker.onHeader(header, position.set(0, 0, 0));
        final LivenessMonitor monitor = null == rule ? null : new LivenessMonitor().configure(header);
        boolean idleTick = false;
        opIds.clear();

        for (int k = 0; k < candidate.length; k++)
        {
            final Step step = steps.get(candidate[k]);
            scratch.copyFrom(step.input()).sequence(k + 1);
            if (InputRecord.NULL_ID != scratch.op())
            {
                scratch.op(opIds.getOrDefault(scratch.op(), MISSING_OP));
            }

            final int resultCode;
            try
            {
                resultCode = engine.apply(scratch);
            }
            catch (final RuntimeException ex)
            {
                return Execution.NONE;
            }
            final EffectList effects = engine.effects();
            pairQueuedOps(step.queuedOps(), effects);
            if (null != sink)
            {
                sink.append(scratch, resultCode, effects);
            }

            final int before = checker.violations().size();
            try
            {
                checker.check(scratch, resultCode, effects);
            }
            catch (final RuntimeException ex)
            {
                return Execution.NONE;
            }

            final List<Violation> violations = checker.violations();
            if (null == monitor)
            {
                for (int v = before; v < violations.size(); v++)
                {
                    if (violations.get(v).invariant() == invariant)
                    {
                        return new Execution(k + 1, violations.get(v), null, null);
                    }
                }
                continue;
            }
            if (!violations.isEmpty())
            {
                return Execution.NONE;
            }
            monitor.onDocument(scratch, resultCode, effects);
            if (null != monitor.finding())
            {
                return rule.equals(monitor.finding().rule()) ? new Execution(k + 1, null, monitor.finding(), null) :
                    Execution.NONE;
            }
            idleTick = InputType.TICK == scratch.type() && !queuesBackup(effects);
        }
        return null == monitor ? Execution.NONE : endOfRun(engine, checker.model(), monitor, candidate.length,
            idleTick);
    }

    /**
     * Judge an end-of-run rule at the candidate's last input, in {@code explore}'s order (the monitor's quiescence
     * rules, then the backlog, then the engine's lock receipts).
     */
    private Execution endOfRun(final CacheStateMachine engine, final ShadowModel model, final LivenessMonitor monitor,
        final int length, final boolean idleTick)
    {
        monitor.atQuiescence(model, length);
        LivenessMonitor.Stuck stuck = monitor.stuck();
        if (null == stuck && engine.backupBacklog() > 0)
        {
            if (!L5.equals(rule) || !idleTick)
            {
                return Execution.NONE;
            }
            monitor.report(L5, length, engine.backupBacklog() + " backup(s) still in the backlog after a TICK with " +
                "every request ended, every op drained and all host staging free");
            return new Execution(length, null, monitor.finding(), null);
        }
        if (null == stuck && engine.tree().receiptCount() > 0)
        {
            stuck = new LivenessMonitor.Stuck("lock", 0, "");
            monitor.report(L3, length, engine.tree().receiptCount() + " lock receipt(s) still held after every " +
                "request ended and every op drained");
        }
        if (null == stuck || !L3.equals(rule) || !sameStuck(stuck))
        {
            return Execution.NONE;
        }
        return new Execution(length, null, monitor.finding(), stuck);
    }

    /** @return whether the candidate left the thing the whole sequence left (any, while there is no reference). */
    private boolean sameStuck(final LivenessMonitor.Stuck stuck)
    {
        if (null == reference)
        {
            return true;
        }
        if (!reference.what().equals(stuck.what()) || !reference.state().equals(stuck.state()))
        {
            return false;
        }
        if ("request".equals(stuck.what()))
        {
            return reference.id() == stuck.id();
        }
        if ("op".equals(stuck.what()))
        {
            return opIds.getOrDefault(reference.id(), MISSING_OP) == stuck.id();
        }
        return true;
    }

    private static boolean queuesBackup(final EffectList effects)
    {
        for (int i = 0; i < effects.size(); i++)
        {
            if (EffectType.OP_QUEUED.value() == effects.typeCode(i) && OpKind.BACKUP == effects.opKind(i))
            {
                return true;
            }
        }
        return false;
    }

    private void pairQueuedOps(final long[] recorded, final EffectList effects)
    {
        int k = 0;
        for (int i = 0; i < effects.size() && k < recorded.length; i++)
        {
            if (EffectType.OP_QUEUED.value() == effects.typeCode(i))
            {
                opIds.put(recorded[k++], effects.id(i));
            }
        }
    }

    private static long[] queuedOps(final EffectList effects)
    {
        int count = 0;
        for (int i = 0; i < effects.size(); i++)
        {
            if (EffectType.OP_QUEUED.value() == effects.typeCode(i))
            {
                count++;
            }
        }
        final long[] ids = new long[count];
        int k = 0;
        for (int i = 0; i < effects.size(); i++)
        {
            if (EffectType.OP_QUEUED.value() == effects.typeCode(i))
            {
                ids[k++] = effects.id(i);
            }
        }
        return ids;
    }

    private static int[] without(final int[] items, final int from, final int to)
    {
        final int[] out = new int[items.length - (to - from)];
        System.arraycopy(items, 0, out, 0, from);
        System.arraycopy(items, to, out, from, items.length - to);
        return out;
    }

    /**
     * @return effects kept per slot in the final execution's violation history.
     */
    static int reportHistoryLimit()
    {
        return ShadowModel.DEFAULT_HISTORY_LIMIT;
    }

    /**
     * @return the invariant that must still break, or null for a progress rule.
     */
    Invariant invariant()
    {
        return invariant;
    }

    /**
     * @return what must still show: the invariant's name or the progress rule.
     */
    String goal()
    {
        return null == invariant ? rule : invariant.name();
    }
}
