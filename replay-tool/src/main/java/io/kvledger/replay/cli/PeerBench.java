package io.kvledger.replay.cli;

import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.ingress.Fingerprinter;
import io.kvledger.engine.sim.PeerLifecycle;
import io.kvledger.engine.sim.PeerTrace;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.Journaller;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * {@code kvledger bench --trace}: the peer traces of {@code shared/peer-traces.md} served through the engine, one
 * request's lifecycle at a time ({@link PeerLifecycle}), with the journal off and on (a Chronicle Queue on disk in a
 * temporary directory, a fresh one per run), fingerprinting timed on its own (a multi-turn request extends its
 * conversation's previous turn's chain with {@code Fingerprinter.extend}, hashing its new turn only; every other
 * request is hashed in full). Each run starts a fresh engine; warm-up
 * runs come first (a quarter of the iterations, at least 10) and the table shows medians over the measured ones,
 * per phase, of the thread's CPU time (the machine is shared: CPU time leaves out the time the thread waited for a
 * core; page faults count). Each run
 * also serves the trace once more each way timing every input type (wall clock, median over runs) and counting hits
 * and evictions for the cross-check. Journal on means the production pipeline: the applying thread encodes each
 * document and hands it to a {@link Journaller} thread that appends it (the applying thread's CPU is "on", the
 * journaller's is reported apart, and the wall-clock ratio waits for the journal to drain); "inline" is the applying
 * thread appending each document itself, as before the journaller existed.
 */
final class PeerBench
{
    private final PrintWriter out;
    private final boolean json;
    private final int runs;
    private final int warmups;
    private final boolean pretouch;
    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    private PeerTrace trace;
    private List<PeerTrace.Phase> phases;
    private EngineConfig config;
    private long[][] hi;
    private long[][] lo;
    private int[] pages;
    private int[] tails;

    /**
     * @param out        where the table or the JSON lines go.
     * @param json       one JSON object per line per trace and phase instead of the table.
     * @param iterations runs each way; the first quarter (at least 10) warm up, the rest are measured.
     * @param pretouch   whether the journal pre-faults its queue file from a background thread.
     */
    PeerBench(final PrintWriter out, final boolean json, final int iterations, final boolean pretouch)
    {
        this.pretouch = pretouch;
        this.out = out;
        this.json = json;
        this.warmups = Math.max(10, iterations / 4);
        this.runs = Math.max(1, iterations - iterations / 4);
    }

    /**
     * Generate, check and measure one trace, then print its rows.
     *
     * @param kind the trace.
     * @throws IOException when the temporary journal cannot be created or removed.
     */
    void measure(final PeerTrace.Kind kind) throws IOException
    {
        trace = PeerTrace.generate(kind);
        final String digest = verifiedDigest(kind);
        phases = trace.phases();
        config = PeerLifecycle.config(kind);
        final int n = trace.requestCount();
        final int phaseCount = phases.size();
        final int leafCount = phaseCount == 1 ? 1 : phaseCount - 1;

        final long[][] fingerprintNs = new long[runs][phaseCount];
        final long[][] offNs = new long[runs][phaseCount];
        final long[][] onNs = new long[runs][phaseCount];
        final long[][] offWallNs = new long[runs][phaseCount];
        final long[][] onWallNs = new long[runs][phaseCount];
        final long[][] inlineNs = new long[runs][phaseCount];
        final long[][] journallerNs = new long[runs][phaseCount];
        final Breakdown[] offSteps = new Breakdown[runs];
        final Breakdown[] onSteps = new Breakdown[runs];
        final long[][] allocOn = new long[runs][phaseCount];
        final long[] bytes = new long[phaseCount];

        allocateFingerprints(n);
        final Fingerprinter fingerprinter = new Fingerprinter(PeerTrace.PAGE_SIZE);

        for (int run = 0; run < warmups + runs; run++)
        {
            final int slot = run - warmups;
            for (int p = 0; p < leafCount; p++)
            {
                final PeerTrace.Phase phase = phases.get(p);
                final long start = threads.getCurrentThreadCpuTime();
                fingerprint(fingerprinter, phase);
                if (slot >= 0)
                {
                    fingerprintNs[slot][p] = threads.getCurrentThreadCpuTime() - start;
                }
            }
            final int keep = Math.max(0, slot);
            final PeerLifecycle off = new PeerLifecycle(config, DocumentSink.NONE);
            serve(off, offNs[keep], offWallNs[keep], null, null, null, null, leafCount);
            withJournaller(journaller -> serve(new PeerLifecycle(config, journaller::append), onNs[keep],
                onWallNs[keep], allocOn[keep], 0 == slot ? new Bytes(journaller.writer(), bytes) : null, journaller,
                journallerNs[keep], leafCount));
            withJournal(writer -> serve(new PeerLifecycle(config, writer::append), inlineNs[keep],
                new long[phaseCount], null, null, null, null, leafCount));
            offSteps[keep] = new Breakdown(phaseCount);
            onSteps[keep] = new Breakdown(phaseCount);
            breakdown(new PeerLifecycle(config, DocumentSink.NONE), offSteps[keep], leafCount);
            withJournaller(journaller -> breakdown(new PeerLifecycle(config, journaller::append), onSteps[keep],
                leafCount));
        }
        if (leafCount < phaseCount)
        {
            for (final long[][] perRun : List.of(fingerprintNs, offNs, onNs, offWallNs, onWallNs, inlineNs,
                journallerNs, allocOn))
            {
                addLeavesToWholeTrace(perRun, leafCount);
            }
            addLeavesToWholeTrace(bytes, leafCount);
        }

        final Sustained sustained = sustained(warmups + runs, leafCount);
        final Breakdown off = Breakdown.median(offSteps);
        final Breakdown on = Breakdown.median(onSteps);

        if (!json)
        {
            printHeader(kind, n, digest);
        }
        for (int p = 0; p < phaseCount; p++)
        {
            final PeerTrace.Phase phase = phases.get(p);
            final int requests = phase.requests();
            final double fp = median(fingerprintNs, p) / 1e3 / requests;
            final double offUs = median(offNs, p) / 1e3 / requests;
            final double onUs = median(onNs, p) / 1e3 / requests;
            final double offWallUs = median(offWallNs, p) / 1e3 / requests;
            final double onWallUs = median(onWallNs, p) / 1e3 / requests;
            final double inlineUs = median(inlineNs, p) / 1e3 / requests;
            final double journallerUs = median(journallerNs, p) / 1e3 / requests;
            final double alloc = (double)median(allocOn, p) / requests;
            final double perDoc = (double)bytes[p] / (requests * (long)PeerLifecycle.STEPS.length);
            final boolean all = p == phaseCount - 1;
            if (json)
            {
                final StringBuilder line = new StringBuilder(512);
                line.append(String.format(Locale.ROOT, "{\"trace\":\"%s\",\"phase\":\"%s\",\"requests\":%d," +
                    "\"usPerRequestJournalOff\":%.3f,\"usPerRequestJournalOn\":%.3f,\"usPerRequestFingerprint\":%.3f," +
                    "\"usPerRequestJournalInline\":%.3f,\"usPerRequestJournallerThread\":%.3f," +
                    "\"throughputRatioOnOff\":%.3f,\"usPerRequestJournalOffWall\":%.3f," +
                    "\"usPerRequestJournalOnWall\":%.3f,\"bytesPerDocument\":%.1f,\"allocatedBytesPerRequest\":%.1f," +
                    "\"hitTokens\":%d,\"evictedTokens\":%d,\"tokensInTree\":%d", kind.cliName, phase.name, requests,
                    offUs, onUs, fp, inlineUs, journallerUs, offWallUs / onWallUs, offWallUs, onWallUs, perDoc, alloc,
                    off.hit[p] * PeerTrace.PAGE_SIZE,
                    off.evicted[p] * PeerTrace.PAGE_SIZE, off.tree[p] * PeerTrace.PAGE_SIZE));
                if (all)
                {
                    line.append(String.format(Locale.ROOT, ",\"expectedHitTokens\":%d,\"expectedEvictedTokens\":%d," +
                        "\"expectedTokensInTree\":%d", kind.expectedHitTokens, kind.expectedEvictedTokens,
                        kind.expectedTokensInTree));
                    line.append(sustained.json());
                }
                line.append(",\"usPerInputJournalOff\":").append(off.json(p, requests));
                line.append(",\"usPerInputJournalOn\":").append(on.json(p, requests));
                line.append(String.format(Locale.ROOT, ",\"runs\":%d,\"pretouch\":%b}", runs, pretouch));
                out.println(line);
            }
            else
            {
                out.printf(Locale.ROOT, "  %-7s %5d %8.2f %8.2f %9.2f %8.2f %7.2f %7.2f %6.0f %7.0f %11s %11s %11s%n",
                    phase.name, requests, offUs, onUs, inlineUs, journallerUs, offWallUs / onWallUs, fp, perDoc, alloc,
                    check(off.hit[p], kind.expectedHitTokens, all),
                    check(off.evicted[p], kind.expectedEvictedTokens, all),
                    check(off.tree[p], kind.expectedTokensInTree, all));
            }
        }
        if (!json)
        {
            printWholeTraceCheck(kind, n, off, on);
            out.println(sustained.text());
        }
        out.flush();
    }

    /**
     * Requests per second with the journal on against off, sustained: the whole trace served by a fresh engine each
     * run, all runs appending to one journal that stays open (warm: its file grown and mapped, the journaller thread
     * running), timed from the first input to the last document appended. Each run's sequences continue the journal's.
     * The per-phase ratio of the table instead starts a new journal per run and drains it at every phase's end.
     */
    private Sustained sustained(final int iterations, final int leafCount) throws IOException
    {
        final long[] offWall = new long[iterations];
        final long[] onWall = new long[iterations];
        final long[] journallerCpu = new long[iterations];
        final long[] applyingCpu = new long[iterations];
        for (int it = 0; it < iterations; it++)
        {
            final PeerLifecycle off = new PeerLifecycle(config, DocumentSink.NONE);
            final long start = System.nanoTime();
            serveAll(off, leafCount);
            offWall[it] = System.nanoTime() - start;
        }
        withJournaller(journaller ->
        {
            final long[] base = new long[1];
            final DocumentSink continued = (input, code, effects) ->
            {
                final long own = input.sequence();
                input.sequence(own + base[0]);
                journaller.append(input, code, effects);
                input.sequence(own);
            };
            final long thread = journaller.thread().getId();
            for (int it = 0; it < iterations; it++)
            {
                final PeerLifecycle on = new PeerLifecycle(config, continued);
                final long cpuStart = threads.getThreadCpuTime(thread);
                final long ownStart = threads.getCurrentThreadCpuTime();
                final long start = System.nanoTime();
                serveAll(on, leafCount);
                applyingCpu[it] = threads.getCurrentThreadCpuTime() - ownStart;
                journaller.awaitAppended(journaller.offeredSequence());
                onWall[it] = System.nanoTime() - start;
                journallerCpu[it] = threads.getThreadCpuTime(thread) - cpuStart;
                base[0] = journaller.offeredSequence();
            }
        });
        final int measured = Math.max(1, iterations - warmups);
        final double n = trace.requestCount();
        return new Sustained(iterations, measured, medianOfLast(offWall, measured) / 1e3 / n,
            medianOfLast(onWall, measured) / 1e3 / n, medianOfLast(journallerCpu, measured) / 1e3 / n,
            medianOfLast(applyingCpu, measured) / 1e3 / n);
    }

    private void serveAll(final PeerLifecycle lifecycle, final int leafCount)
    {
        for (int p = 0; p < leafCount; p++)
        {
            final PeerTrace.Phase phase = phases.get(p);
            for (int r = phase.from; r < phase.to; r++)
            {
                lifecycle.serve(r + 1, hi[r], lo[r], pages[r], tails[r]);
            }
        }
    }

    private static long medianOfLast(final long[] values, final int count)
    {
        final long[] last = Arrays.copyOfRange(values, values.length - count, values.length);
        Arrays.sort(last);
        return count % 2 == 1 ? last[count / 2] : (last[count / 2 - 1] + last[count / 2]) / 2;
    }

    /** The sustained measurement: runs, runs measured, microseconds a request. */
    private record Sustained(int runs, int measured, double offWallUs, double onWallUs, double journallerUs,
        double applyingUs)
    {
        double ratio()
        {
            return offWallUs / onWallUs;
        }

        String json()
        {
            return String.format(Locale.ROOT, ",\"throughputRatioOnOffSustained\":%.3f," +
                "\"usPerRequestSustainedOffWall\":%.3f,\"usPerRequestSustainedOnWall\":%.3f," +
                "\"usPerRequestSustainedJournallerThread\":%.3f,\"usPerRequestSustainedApplyingThread\":%.3f", ratio(),
                offWallUs, onWallUs, journallerUs, applyingUs);
        }

        String text()
        {
            return String.format(Locale.ROOT, "  sustained, the whole trace served again and again into one warm " +
                "journal (%d runs, medians of the last %d): off %.2f us, on %.2f us a request (wall, drained); CPU a " +
                "request: the applying thread %.2f us, the journaller thread %.2f us; on/off %.2f", runs, measured,
                offWallUs, onWallUs, applyingUs, journallerUs, ratio());
        }
    }

    private String verifiedDigest(final PeerTrace.Kind kind)
    {
        final String digest = trace.sha256();
        if (!digest.equals(kind.sha256))
        {
            throw new CliException("trace " + kind.cliName + " has digest " + digest + ", not the published " +
                kind.sha256 + ": the generator does not reproduce shared/peer-traces.md", KvledgerMain.EXIT_FOUND,
                null);
        }
        return digest;
    }

    private void allocateFingerprints(final int n)
    {
        hi = new long[n][];
        lo = new long[n][];
        pages = new int[n];
        tails = new int[n];
        for (int r = 0; r < n; r++)
        {
            final int count = trace.request(r).length / PeerTrace.PAGE_SIZE;
            hi[r] = new long[count];
            lo[r] = new long[count];
        }
    }

    /**
     * Add the leaf phases' columns of every run into the last column, the whole trace's.
     */
    private static void addLeavesToWholeTrace(final long[][] perRun, final int leafCount)
    {
        for (final long[] run : perRun)
        {
            addLeavesToWholeTrace(run, leafCount);
        }
    }

    private static void addLeavesToWholeTrace(final long[] perPhase, final int leafCount)
    {
        final int all = perPhase.length - 1;
        for (int p = 0; p < leafCount; p++)
        {
            perPhase[all] += perPhase[p];
        }
    }

    private void printHeader(final PeerTrace.Kind kind, final int n, final String digest)
    {
        out.printf(Locale.ROOT, "trace %s: %,d requests, %,d tokens, sha256 %s (matches peer-traces.md)%n",
            kind.cliName, n, trace.tokenCount(), digest);
        out.printf(Locale.ROOT, "  attention only, page %d, KV pool %,d pages; %d measured runs after %d warm-up " +
            "runs, medians of thread CPU time%n  journal: Chronicle Queue in a temp dir, unsynced, pretouch %s; " +
            "on = the applying thread with the journaller thread appending (its own CPU in jrnl), inline = the " +
            "applying thread appending itself;%n  on/off = requests per second, wall clock, journal on (drained) " +
            "over off%n", PeerTrace.PAGE_SIZE, kind.kvPoolPages(), runs, warmups, pretouch ? "on" : "off");
        out.printf(Locale.ROOT, "  %-7s %5s %8s %8s %9s %8s %7s %7s %6s %7s %11s %11s %11s%n", "phase", "reqs",
            "off us", "on us", "inline us", "jrnl us", "on/off", "fp us", "B/doc", "alloc B", "hit tok", "evict tok",
            "tree tok");
    }

    private void printWholeTraceCheck(final PeerTrace.Kind kind, final int n, final Breakdown off, final Breakdown on)
    {
        final int a = phases.size() - 1;
        out.printf(Locale.ROOT, "  expected (peer-traces.md): hit %,d, evicted %,d, in tree %,d tokens: %s%n",
            kind.expectedHitTokens, kind.expectedEvictedTokens, kind.expectedTokensInTree,
            off.hit[a] * PeerTrace.PAGE_SIZE == kind.expectedHitTokens &&
            off.evicted[a] * PeerTrace.PAGE_SIZE == kind.expectedEvictedTokens &&
            off.tree[a] * PeerTrace.PAGE_SIZE == kind.expectedTokensInTree ? "reproduced" : "DIFFERENT");
        out.printf(Locale.ROOT, "  us per input (wall, median), whole trace, journal off / on (journaller):%s%n",
            off.text(a, n, on));
        if (Boolean.getBoolean("kvledger.bench.phaseInputs"))
        {
            for (int p = 0; p < a; p++)
            {
                final int reqs = phases.get(p).to - phases.get(p).from;
                out.printf(Locale.ROOT, "    %s:%s%n", phases.get(p).name, off.text(p, reqs, on));
            }
        }
    }

    private void fingerprint(final Fingerprinter fingerprinter, final PeerTrace.Phase phase)
    {
        for (int r = phase.from; r < phase.to; r++)
        {
            fingerprint(fingerprinter, r);
        }
    }

    /**
     * Fingerprint request {@code r}: a request that continues an earlier one (a multi-turn conversation's next turn)
     * extends that request's chain and hashes its new pages only.
     */
    private void fingerprint(final Fingerprinter fingerprinter, final int r)
    {
        final int[] tokens = trace.request(r);
        final int previous = trace.previousTurn(r);
        final int done = previous < 0 ? 0 : pages[previous];
        if (0 == done)
        {
            pages[r] = fingerprinter.fingerprint(0, tokens, tokens.length, hi[r], lo[r]);
        }
        else
        {
            System.arraycopy(hi[previous], 0, hi[r], 0, done);
            System.arraycopy(lo[previous], 0, lo[r], 0, done);
            pages[r] = fingerprinter.extend(0, hi[r][done - 1], lo[r][done - 1], done, tokens, tokens.length, hi[r],
                lo[r]);
        }
        tails[r] = tokens.length - pages[r] * PeerTrace.PAGE_SIZE;
    }

    private void serve(final PeerLifecycle lifecycle, final long[] cpuNanos, final long[] wallNanos,
        final long[] alloc, final Bytes bytes, final Journaller journaller, final long[] journallerNanos,
        final int leafCount)
    {
        final long thread = Thread.currentThread().getId();
        final long journallerThread = null == journaller ? 0 : journaller.thread().getId();
        for (int p = 0; p < leafCount; p++)
        {
            final PeerTrace.Phase phase = phases.get(p);
            final long bytesBefore = null == bytes ? 0 : bytes.writer.appendedBytes();
            final long allocBefore = null == alloc ? 0 : threads.getThreadAllocatedBytes(thread);
            final long journallerStart = null == journaller ? 0 : threads.getThreadCpuTime(journallerThread);
            final long cpuStart = threads.getCurrentThreadCpuTime();
            final long start = System.nanoTime();
            for (int r = phase.from; r < phase.to; r++)
            {
                lifecycle.serve(r + 1, hi[r], lo[r], pages[r], tails[r]);
            }
            cpuNanos[p] = threads.getCurrentThreadCpuTime() - cpuStart;
            if (null != journaller)
            {
                journaller.awaitAppended(journaller.offeredSequence());
            }
            wallNanos[p] = System.nanoTime() - start;
            if (null != journaller)
            {
                journallerNanos[p] = threads.getThreadCpuTime(journallerThread) - journallerStart;
            }
            if (null != alloc)
            {
                alloc[p] = threads.getThreadAllocatedBytes(thread) - allocBefore;
            }
            if (null != bytes)
            {
                bytes.total[p] = bytes.writer.appendedBytes() - bytesBefore;
            }
        }
    }

    private void breakdown(final PeerLifecycle lifecycle, final Breakdown into, final int leafCount)
    {
        final int steps = PeerLifecycle.STEPS.length;
        for (int p = 0; p < leafCount; p++)
        {
            final PeerTrace.Phase phase = phases.get(p);
            Arrays.fill(lifecycle.stepNanos(), 0);
            final long hitBefore = lifecycle.hitPages();
            final long evictedBefore = lifecycle.evictedPages();
            for (int r = phase.from; r < phase.to; r++)
            {
                lifecycle.serveMeasured(r + 1, hi[r], lo[r], pages[r], tails[r]);
            }
            System.arraycopy(lifecycle.stepNanos(), 0, into.stepNanos[p], 0, steps);
            into.hit[p] = lifecycle.hitPages() - hitBefore;
            into.evicted[p] = lifecycle.evictedPages() - evictedBefore;
            into.tree[p] = lifecycle.treePages();
        }
        final int all = phases.size() - 1;
        if (leafCount < phases.size())
        {
            for (int p = 0; p < leafCount; p++)
            {
                for (int s = 0; s < steps; s++)
                {
                    into.stepNanos[all][s] += into.stepNanos[p][s];
                }
                into.hit[all] += into.hit[p];
                into.evicted[all] += into.evicted[p];
            }
            into.tree[all] = lifecycle.treePages();
        }
    }

    private void withJournal(final JournalUse use) throws IOException
    {
        final Path dir = Files.createTempDirectory("kvledger-bench");
        try
        {
            try (JournalWriter writer = JournalWriter.open(dir.resolve("journal"),
                config.toHeader(new JournalHeader()), false, pretouch))
            {
                use.accept(writer);
            }
        }
        finally
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private void withJournaller(final JournallerUse use) throws IOException
    {
        withJournal(writer ->
        {
            try (Journaller journaller = Journaller.start(writer))
            {
                use.accept(journaller);
            }
        });
    }

    private static String check(final long pages, final long expected, final boolean all)
    {
        final long tokens = pages * PeerTrace.PAGE_SIZE;
        return String.format(Locale.ROOT, "%,d%s", tokens, all ? (tokens == expected ? " ok" : " !!") : "");
    }

    private static long median(final long[][] values, final int column)
    {
        final long[] v = new long[values.length];
        for (int i = 0; i < v.length; i++)
        {
            v[i] = values[i][column];
        }
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    @FunctionalInterface
    private interface JournallerUse
    {
        void accept(Journaller journaller) throws IOException;
    }

    @FunctionalInterface
    private interface JournalUse
    {
        void accept(JournalWriter writer) throws IOException;
    }

    /** Bytes appended per phase by one run's journal writer. */
    private static final class Bytes
    {
        final JournalWriter writer;
        final long[] total;

        Bytes(final JournalWriter writer, final long[] total)
        {
            this.writer = writer;
            this.total = total;
        }
    }

    /** Per phase: nanoseconds per input type, hit and evicted pages, tree pages at the phase's end. */
    private static final class Breakdown
    {
        final long[][] stepNanos;
        final long[] hit;
        final long[] evicted;
        final long[] tree;

        Breakdown(final int phases)
        {
            stepNanos = new long[phases][PeerLifecycle.STEPS.length];
            hit = new long[phases];
            evicted = new long[phases];
            tree = new long[phases];
        }

        static Breakdown median(final Breakdown[] runs)
        {
            final int phases = runs[0].hit.length;
            final Breakdown m = new Breakdown(phases);
            final long[][] column = new long[runs.length][1];
            for (int p = 0; p < phases; p++)
            {
                for (int s = 0; s < PeerLifecycle.STEPS.length; s++)
                {
                    for (int r = 0; r < runs.length; r++)
                    {
                        column[r][0] = runs[r].stepNanos[p][s];
                    }
                    m.stepNanos[p][s] = PeerBench.median(column, 0);
                }
                m.hit[p] = runs[0].hit[p];
                m.evicted[p] = runs[0].evicted[p];
                m.tree[p] = runs[0].tree[p];
            }
            return m;
        }

        String json(final int phase, final int requests)
        {
            final StringBuilder b = new StringBuilder("{");
            for (int s = 0; s < PeerLifecycle.STEPS.length; s++)
            {
                b.append(s == 0 ? "" : ",").append('"').append(PeerLifecycle.STEPS[s].name()).append("\":")
                    .append(String.format(Locale.ROOT, "%.3f", stepNanos[phase][s] / 1e3 / requests));
            }
            return b.append('}').toString();
        }

        String text(final int phase, final int requests, final Breakdown on)
        {
            final StringBuilder b = new StringBuilder();
            for (int s = 0; s < PeerLifecycle.STEPS.length; s++)
            {
                b.append(String.format(Locale.ROOT, " %s %.2f / %.2f", PeerLifecycle.STEPS[s].name(),
                    stepNanos[phase][s] / 1e3 / requests, on.stepNanos[phase][s] / 1e3 / requests));
            }
            return b.toString();
        }
    }
}
