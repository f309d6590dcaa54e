package io.kvledger.bench;

import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.ingress.Fingerprinter;
import io.kvledger.engine.sim.PeerLifecycle;
import io.kvledger.engine.sim.PeerTrace;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The peer traces of {@code shared/peer-traces.md} served one request lifecycle at a time ({@link PeerLifecycle}):
 * ARRIVE, PASS_BEGIN, ADMIT, PASS_END, FINISH on a fresh engine per invocation, with the journal off or on (a fresh
 * Chronicle Queue per invocation), and the fingerprinting of the whole trace on its own (the same for either journal
 * value). One invocation is the whole trace, so the score is microseconds per trace: divide by its request count
 * (pr-bench 512, shared-prefix 2,000, multi-turn 1,600). {@code kvledger bench --trace} prints it per request and
 * phase.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "-Dchronicle.analytics.disable=true",
    "-Dchronicle.announcer.disable=true"})
public class PeerLifecycleBenchmark
{
    @Param({"PR_BENCH", "SHARED_PREFIX", "MULTI_TURN"})
    public String trace;

    @Param({"off", "on"})
    public String journal;

    private PeerTrace peer;
    private EngineConfig config;
    private long[][] hi;
    private long[][] lo;
    private int[] pages;
    private int[] tails;
    private Fingerprinter fingerprinter;
    private PeerLifecycle lifecycle;
    private Path dir;
    private JournalWriter writer;

    /**
     * Generate the trace, verify its published digest and fingerprint every request once, so the serving benchmark
     * starts from ready fingerprints.
     */
    @Setup(Level.Trial)
    public void generate()
    {
        peer = PeerTrace.generate(PeerTrace.Kind.valueOf(trace));
        peer.verifyDigest();
        config = PeerLifecycle.config(peer.kind);
        fingerprinter = new Fingerprinter(PeerTrace.PAGE_SIZE);
        final int n = peer.requestCount();
        hi = new long[n][];
        lo = new long[n][];
        pages = new int[n];
        tails = new int[n];
        for (int r = 0; r < n; r++)
        {
            final int[] tokens = peer.request(r);
            hi[r] = new long[tokens.length / PeerTrace.PAGE_SIZE];
            lo[r] = new long[tokens.length / PeerTrace.PAGE_SIZE];
            pages[r] = fingerprinter.fingerprint(0, tokens, tokens.length, hi[r], lo[r]);
            tails[r] = tokens.length - pages[r] * PeerTrace.PAGE_SIZE;
        }
    }

    /**
     * Start a fresh engine for the invocation, journaling to a fresh Chronicle Queue in a temporary directory when
     * the journal is on.
     *
     * @throws IOException when the temporary journal cannot be created.
     */
    @Setup(Level.Invocation)
    public void freshEngine() throws IOException
    {
        if ("on".equals(journal))
        {
            dir = Files.createTempDirectory("kvledger-bench-peer");
            writer = JournalWriter.open(dir.resolve("journal"), config.toHeader(new JournalHeader()), false);
            lifecycle = new PeerLifecycle(config, writer::append);
        }
        else
        {
            lifecycle = new PeerLifecycle(config, DocumentSink.NONE);
        }
    }

    /**
     * Close the invocation's journal, if any, and delete its temporary directory.
     *
     * @throws IOException when the temporary journal cannot be removed.
     */
    @TearDown(Level.Invocation)
    public void closeJournal() throws IOException
    {
        if (null != writer)
        {
            writer.close();
            writer = null;
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * Serve every request of the trace through its lifecycle on the invocation's engine.
     *
     * @return the pages in the tree at the end, so the work is not dead code.
     */
    @Benchmark
    public long serveTrace()
    {
        for (int r = 0; r < pages.length; r++)
        {
            lifecycle.serve(r + 1, hi[r], lo[r], pages[r], tails[r]);
        }
        return lifecycle.treePages();
    }

    /**
     * Fingerprint every request of the trace, the ingress work that serving leaves out.
     *
     * @return the sum of the page counts, so the work is not dead code.
     */
    @Benchmark
    public long fingerprintTrace()
    {
        long sum = 0;
        for (int r = 0; r < pages.length; r++)
        {
            final int[] tokens = peer.request(r);
            sum += fingerprinter.fingerprint(0, tokens, tokens.length, hi[r], lo[r]);
        }
        return sum;
    }
}
