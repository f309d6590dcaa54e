package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.replay.check.Invariant;
import io.kvledger.replay.check.InvariantChecker;
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
 * whose re-execution on a fresh engine, with the journal's configuration and fault switches, still breaks the same
 * invariant in the offline checker. Each candidate is re-executed from scratch; the checker judges the effects the
 * engine produces, not the recorded ones.
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
     * @param length    inputs executed up to and including the first document that broke the invariant, 0 when
     *                  it did not break.
     * @param violation the first violation of the invariant, or null.
     */
    record Execution(int length, Violation violation)
    {
    }

    private final JournalHeader header;
    private final List<Step> steps;
    private final Invariant invariant;
    private final int maxRuns;
    private final long maxNanos;
    private final InputRecord scratch;
    private final Map<Long, Long> opIds = new HashMap<>();
    private final JournalPosition position = new JournalPosition();
    private int runs;
    private Progress progress = Progress.NONE;

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
        this.header = new JournalHeader().copyFrom(header);
        this.steps = new ArrayList<>(steps);
        this.invariant = invariant;
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
     * @throws CliException when re-executing every step does not break the invariant on this engine.
     */
    Result shrink()
    {
        final long start = System.nanoTime();
        final long deadline = start + maxNanos;
        int[] current = new int[steps.size()];
        Arrays.setAll(current, i -> i);

        final int whole = test(current);
        if (0 == whole)
        {
            throw new CliException("re-executing the " + steps.size() + " inputs up to the first violation on " +
                "this engine does not break " + invariant.name() + " again (was the journal written by another " +
                "build?); nothing to shrink", KvledgerMain.EXIT_BAD_INPUT, null);
        }
        current = Arrays.copyOf(current, whole);

        boolean capped = false;
        int granularity = 2;
        search:
        while (current.length >= 2)
        {
            final int length = current.length;
            boolean reduced = false;
            for (int chunk = 0; chunk < granularity; chunk++)
            {
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
            }
        }

        return new Result(current, runs, capped, System.nanoTime() - start);
    }

    /**
     * Re-execute one candidate and report whether the invariant broke.
     *
     * @param candidate step indices, in order.
     * @return inputs executed up to the first document that broke the invariant, 0 when it did not break.
     */
    int test(final int[] candidate)
    {
        runs++;
        return execute(candidate, null, 0).length();
    }

    /**
     * Re-execute a candidate on a fresh engine, op ids remapped and sequences renumbered 1..n, until the first
     * document that breaks the invariant.
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
                return new Execution(0, null);
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
                return new Execution(0, null);
            }

            final List<Violation> violations = checker.violations();
            for (int v = before; v < violations.size(); v++)
            {
                if (violations.get(v).invariant() == invariant)
                {
                    return new Execution(k + 1, violations.get(v));
                }
            }
        }
        return new Execution(0, null);
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
     * @return the invariant that must still break.
     */
    Invariant invariant()
    {
        return invariant;
    }
}
