package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.counters.CountersFile;
import io.kvledger.engine.counters.CountersPublisher;
import io.kvledger.engine.sim.RecordedRun;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * {@code kvledger bench --counters}: what the live counters cost the engine thread. The recorded inputs are applied
 * back to back (an engine that is never idle) to fresh engines without counters and with a {@link CountersPublisher}
 * told after every input, which publishes every {@value CountersPublisher#MAX_UNPUBLISHED} inputs. Twice: the apply
 * path alone, and apply plus the journal append (the engine thread's work per input, less the ring hand-off and the
 * dispatch). Then one whole publication, what the engine thread does when it goes idle (in time it would otherwise
 * spend waiting; it delays an input only if one arrives during it).
 * <p>
 * The two variants run in pairs, back to back, in alternating order; each pass is timed as a whole with the thread's
 * CPU time (not wall time, so that preemption on a shared machine does not count), and the cost is the median of
 * the differences within a pair: a pair shares the machine's state of the moment.
 */
final class CountersBench
{
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static final int ROUNDS = 21;
    private static final int PUBLICATIONS = 1_000_000;

    private CountersBench()
    {
    }

    /**
     * @param out        where the result lines go.
     * @param run        the recorded run.
     * @param iterations pairs of passes of the apply path (the first quarter warms up); half of that with the
     *                   journal.
     * @throws IOException when the scratch directory cannot be made or cleaned.
     */
    static void run(final PrintWriter out, final RecordedRun run, final int iterations) throws IOException
    {
        final Path dir = Files.createTempDirectory("kvledger-bench-counters");
        try
        {
            measure(out, "counters on apply", run, Math.max(4, iterations), dir, false);
            measure(out, "counters on apply+journal", run, Math.max(4, iterations / 2), dir, true);
            out.printf(Locale.ROOT, "%-26s %.1f ns (every value compared, none changed), median of %d rounds of " +
                "%,d%n", "counters idle publication", publicationNanos(run, dir), ROUNDS, PUBLICATIONS);
        }
        finally
        {
            delete(dir);
        }
    }

    private static void measure(final PrintWriter out, final String what, final RecordedRun run, final int passes,
        final Path dir, final boolean journal) throws IOException
    {
        final int warmup = Math.max(1, passes / 4);
        final long[] plain = new long[passes - warmup];
        final long[] counted = new long[passes - warmup];
        final long[] extra = new long[passes - warmup];
        for (int pass = 0; pass < passes; pass++)
        {
            final boolean countersFirst = (pass & 1) == 1;
            final long a = timed(run, dir, countersFirst, journal);
            final long b = timed(run, dir, !countersFirst, journal);
            if (pass >= warmup)
            {
                final int i = pass - warmup;
                plain[i] = countersFirst ? b : a;
                counted[i] = countersFirst ? a : b;
                extra[i] = counted[i] - plain[i];
            }
        }
        final int n = run.inputs.size();
        final double without = median(plain) / (double)n;
        final double with = median(counted) / (double)n;
        final double cost = median(extra) / (double)n;
        out.printf(Locale.ROOT, "%-26s %,d pairs of %,d inputs: %.1f ns/input without counters, %.1f with; " +
            "median difference in a pair %+.1f ns/input (%+.2f%%)%n", what, plain.length, n, without, with, cost,
            100.0 * cost / without);
    }

    private static long timed(final RecordedRun run, final Path dir, final boolean withCounters,
        final boolean withJournal) throws IOException
    {
        final List<InputRecord> inputs = run.inputs;
        final CacheStateMachine engine = new CacheStateMachine(run.config);
        // Both variants open a publisher (a mapped file), so the setup leaves the same traces in caches and heap.
        final CountersPublisher opened = CountersPublisher.open(dir.resolve(CountersFile.FILE_NAME), engine, null,
            null, null, null, 0, null);
        final CountersPublisher counters = withCounters ? opened : null;
        final Path journalDir = dir.resolve("journal");
        final JournalWriter journal = withJournal ?
            JournalWriter.open(journalDir, run.config.toHeader(new JournalHeader()), false) : null;
        final InputRecord scratch = new InputRecord(128);
        final long took;
        try
        {
            final long start = CPU.getCurrentThreadCpuTime();
            for (int i = 0, size = inputs.size(); i < size; i++)
            {
                final InputRecord in = scratch.copyFrom(inputs.get(i)).sequence(i + 1);
                final int result = engine.apply(in);
                if (null != journal)
                {
                    journal.append(in, result, engine.effects());
                }
                if (null != counters)
                {
                    counters.onApplied();
                }
            }
            took = CPU.getCurrentThreadCpuTime() - start;
        }
        finally
        {
            if (null != journal)
            {
                journal.close();
                delete(journalDir);
            }
        }
        return took;
    }

    /** One idle publication alone, on an engine that applied the whole run (pools and counters populated). */
    private static double publicationNanos(final RecordedRun run, final Path dir)
    {
        final CacheStateMachine engine = new CacheStateMachine(run.config);
        for (final InputRecord in : run.inputs)
        {
            engine.apply(in);
        }
        final CountersPublisher counters = CountersPublisher.open(dir.resolve(CountersFile.FILE_NAME), engine, null,
            null, null, null, 0, null);
        final long[] rounds = new long[ROUNDS];
        for (int round = 0; round < ROUNDS; round++)
        {
            final long start = CPU.getCurrentThreadCpuTime();
            for (int i = 0; i < PUBLICATIONS; i++)
            {
                counters.onApplied();
                counters.onIdle();
            }
            rounds[round] = CPU.getCurrentThreadCpuTime() - start;
        }
        return median(rounds) / (double)PUBLICATIONS;
    }

    private static long median(final long[] values)
    {
        final long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void delete(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>)files.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
