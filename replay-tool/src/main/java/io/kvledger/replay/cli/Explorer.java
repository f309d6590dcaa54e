package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.EngineCounters;
import io.kvledger.engine.api.Decision;
import io.kvledger.engine.api.EnginePort;
import io.kvledger.engine.sim.RunSummary;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.SimulatedPort;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.replay.check.HistoryEntry;
import io.kvledger.replay.check.InvariantChecker;
import io.kvledger.replay.check.LivenessMonitor;
import io.kvledger.replay.check.ShadowModel;
import io.kvledger.replay.check.Violation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * One seed of {@code kvledger explore}: the seed picks a whole configuration (pools from generous to very scarce,
 * host staging from sizes where no backup fits to large, request limits, tracking slots, prefetch policy, rates of
 * retract, abort, failed acks per op kind, slow copies and eviction ticks, and the workload mix), runs it in the
 * deterministic mode, and checks every document as it is written: the offline checker's shadow model and the
 * progress rules of {@link LivenessMonitor} are fed in memory, and the engine verifies its own structures after
 * every input. At quiescence it checks that nothing is left held and that the backup backlog drained; a run that
 * stops finishing requests for a bounded number of steps fails too.
 * <p>
 * The same seed and fault switches always give the same configuration, the same journal and the same outcome.
 * Single-threaded.
 */
final class Explorer
{
    /** Steps without a request finishing or aborting before the run counts as stuck. */
    static final int MAX_IDLE_STEPS = 4_000;
    /** Rounds of TICK at quiescence that may drain the backup backlog. */
    private static final int SETTLE_ROUNDS = 8;

    private static final int[] PAGE_SIZES = {1, 2, 4, 8, 16};
    private static final int[] REQUEST_PAGES = {4, 8, 16, 32};
    private static final int[] MAX_REQUESTS = {2, 4, 8, 16, 64};
    private static final double[] RATES = {0.01, 0.05, 0.15, 0.4};

    /** A seed's whole configuration. */
    static final class Config
    {
        EngineConfig engine;
        final WorkloadOptions workload = new WorkloadOptions();
        final double[] failureRates = new double[OpKind.values().length];
        double slowRate;
        long burstNs;
        String summary;
    }

    /** What one seed did and the first thing it found. */
    static final class Outcome
    {
        long seed;
        Config config;
        long documents;
        long requests;
        long finished;
        long aborted;
        long retracts;
        long loads;
        long cows;
        long elapsedNs;
        /** Short name of what broke: an invariant (I13), a progress rule (L1 ...), or engine/data-plane. */
        String rule;
        long sequence;
        String text;
        Violation violation;

        boolean clean()
        {
            return rule == null;
        }
    }

    /** Thrown out of the document sink to stop a run at its first finding (no stack trace: it is control flow). */
    private static final class Stop extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Stop()
        {
            super(null, null, false, false);
        }
    }

    private Explorer()
    {
    }

    /**
     * @param seed      the seed.
     * @param faultMask fault switches on for every seed.
     * @return the configuration this seed explores.
     */
    static Config configure(final long seed, final long faultMask)
    {
        // Hashed first: SplittableRandom steps its seed by the golden gamma, so seeds that differ by a multiple of it
        // would give shifted copies of one sequence.
        final SplittableRandom r = new SplittableRandom(new SplittableRandom(seed ^ 0x6B1D_E5EEL).nextLong());
        final Config c = new Config();
        final int pageSize = pick(r, PAGE_SIZES);
        final int requestPages = pick(r, REQUEST_PAGES);
        final int maxRequests = pick(r, MAX_REQUESTS);
        final int tracking = 1 + r.nextInt(2);
        final int kvPages = Math.max(4, requestPages * (1 + pick(r, new int[]{1, 1, 2, 4, 16, 64})) / 2 + r.nextInt(4));
        final int perRequestStates = 1 + tracking;
        final int mambaSlots = Math.max(3, pick(r, new int[]{perRequestStates + 1, perRequestStates + 2, 8, 16, 64,
            4 * maxRequests + 8}));
        // Staging where no backup ever fits is one choice in eight: it starves the L3 path the other seeds need.
        final int hostKv = Math.max(2, pick(r, new int[]{2, requestPages / 2, requestPages, 2 * requestPages,
            4 * requestPages, 8 * requestPages, 8 * requestPages, 64 * requestPages}));
        final int hostMamba = pick(r, new int[]{2, 3, 4, 8, 64});
        final PrefetchPolicy policy = PrefetchPolicy.values()[r.nextInt(3)];
        // The timeout's term per 1,024 fetched tokens keeps the default's ratio to the base (0.25 s to 1 s).
        final long timeoutNs = 250_000L * (1 + r.nextInt(40));
        final EngineConfig.Builder b = EngineConfig.builder().pageSize(pageSize).deviceKvPages(kvPages)
            .deviceMambaSlots(mambaSlots).hostKvPages(hostKv).hostMambaSlots(hostMamba).trackingSlots(tracking)
            .maxRequests(maxRequests).maxRequestPages(requestPages).prefetchPolicy(policy)
            .prefetchTimeoutNs(timeoutNs).prefetchTimeoutPerKiNs(timeoutNs / 4)
            .maxStagedDefers(pick(r, new int[]{1, 2, 4, 32})).prefetchThresholdPages(r.nextInt(3))
            .maxOps(pick(r, new int[]{16, 32, 256})).seed(seed).faultMask(faultMask).admissionRules(rules(seed))
            .hybrid(hybrid(seed));
        c.engine = b.build();

        final WorkloadOptions w = c.workload;
        w.seed = seed;
        w.kind = WorkloadKind.values()[r.nextInt(WorkloadKind.values().length)];
        final int maxTokens = requestPages * pageSize;
        w.requests = 8 + r.nextInt(56);
        // One seed in eight has prompts under one page; the others from one page to the request limit.
        w.promptTokens = r.nextInt(8) == 0 ? 1 + r.nextInt(pageSize) :
            (1 + r.nextInt(requestPages)) * pageSize + r.nextInt(pageSize);
        // Half the seeds extend by under two pages: requests then share almost all of a prefix and race for it.
        w.extendTokens = 1 + r.nextInt(Math.max(1, r.nextBoolean() ? 2 * pageSize : maxTokens / 3));
        w.turns = 2 + r.nextInt(4);
        w.prefixes = pick(r, new int[]{1, 1, 2, 3, 8});
        w.maxNewTokens = r.nextInt(6);
        w.admitsPerPass = 1 + r.nextInt(8);
        w.maxRunning = 1 + r.nextInt(maxRequests);
        w.chunkPages = 1 + r.nextInt(8);
        w.arrivalsPerStep = r.nextInt(6);
        // Swarm testing: a third of the seeds are calm (no aborts, retracts or failures: many requests reach the L3
        // path together and race for the same nodes), a third mild, a third wild.
        final double on = new double[]{0, 0.25, 0.6}[r.nextInt(3)];
        w.retractRate = rate(r, on);
        w.abortRate = rate(r, on);
        w.abortWaitingRate = rate(r, on / 2);
        w.abortQueuedRate = rate(r, on);
        w.abortLaunchedRate = rate(r, on);
        w.abortRunningRate = rate(r, on / 2);
        w.retractQueuedRate = rate(r, on);
        w.retractLaunchedRate = rate(r, on);
        w.retractReadyRate = rate(r, on / 2);
        // Eviction ticks in calm seeds too: evicted prefixes come back from L3, again and again.
        w.tickRate = rate(r, Math.max(on, 0.5));
        // Mostly small ticks: they trim leaves and tombstone states while the shared prefix stays on the device,
        // which is what makes state-only loads (and two of them racing for one node) happen.
        w.tickPages = pick(r, new int[]{1, 2, 4, 4, 8, 2 * requestPages});
        w.maxIdleSteps = MAX_IDLE_STEPS;
        for (final OpKind kind : OpKind.values())
        {
            c.failureRates[kind.ordinal()] = kind == OpKind.QUERY ? 0 : rate(r, on * 0.6) / 2;
        }
        c.slowRate = rate(r, 0.5);
        c.burstNs = new long[]{0, 1_000_000L, 4_000_000L}[r.nextInt(3)];
        if (r.nextInt(4) == 0)
        {
            hotPrefix(c, r, b);
        }
        c.summary = String.format(Locale.ROOT, "%s/%d n=%d p=%d kv=%d mamba=%d host=%d/%d req=%d x%d track=%d %s " +
            "tok=%d+%d ret=%.2f/%.2f/%.2f abort=%.2f/%.2f/%.2f/%.2f fail=%.2f/%.2f/%.2f/%.2f slow=%.2f " +
            "burst=%dms tick=%.2f rules=%d",
            w.kind.cliName(), w.prefixes, w.requests, c.engine.pageSize(), c.engine.deviceKvPages(),
            c.engine.deviceMambaSlots(), c.engine.hostKvPages(), c.engine.hostMambaSlots(), c.engine.maxRequests(),
            c.engine.maxRequestPages(), c.engine.trackingSlots(),
            c.engine.prefetchPolicy().name().toLowerCase(Locale.ROOT).replace('_', '-'), w.promptTokens,
            w.extendTokens, w.retractQueuedRate, w.retractLaunchedRate, w.retractReadyRate, w.abortWaitingRate,
            w.abortQueuedRate, w.abortLaunchedRate, w.abortRunningRate, c.failureRates[OpKind.LOAD.ordinal()],
            c.failureRates[OpKind.FETCH.ordinal()], c.failureRates[OpKind.BACKUP.ordinal()],
            c.failureRates[OpKind.STORE.ordinal()], c.slowRate, c.burstNs / 1_000_000, w.tickRate,
            c.engine.admissionRules());
        return c;
    }

    /**
     * The admission rules a seed runs under: the default ({@link EngineConfig#DEFAULT_ADMISSION_RULES}) for even
     * seeds; for odd ones rules 2, which journals written before rules 3 replay under (their code paths stay
     * explored, and two switches of the fault matrix are found far sooner there), except one seed in eight (5, 13,
     * 21, ...) under the newest rules ({@link JournalHeader#LATEST_ADMISSION_RULES}, 7: the default's and the last
     * page computed, chosen, not the default). The
     * choice draws nothing from the seed's random stream, so every other setting of a seed is the same under either.
     */
    static int rules(final long seed)
    {
        if ((seed & 1) == 0)
        {
            return EngineConfig.DEFAULT_ADMISSION_RULES;
        }
        return (seed & 7) == 5 ? JournalHeader.LATEST_ADMISSION_RULES : 2;
    }

    /**
     * Whether a seed's model is hybrid (attention and Mamba states) or pure attention: one seed in eight (seeds 6, 14,
     * 22, ...: under the newest rules) is pure attention, the most common model in serving, whose races need no
     * Mamba state to show (a request admitted on pages a load still writes). Drawn from nothing in the seed's stream,
     * like {@link #rules}.
     */
    static boolean hybrid(final long seed)
    {
        return (seed & 7) != 6;
    }

    /**
     * The hot-prefix profile, one seed in four: calm serving (no aborts, retracts or failures) of many requests on
     * one or two shared prefixes that arrive together, with completions in bursts and small eviction ticks, so
     * several requests stage the same L3 hit at once and race for one node (the load-in-flight, copy-on-write and
     * redundant-slot paths that random chaos rarely lines up); half of them also retract loads while queued.
     */
    private static void hotPrefix(final Config c, final SplittableRandom r, final EngineConfig.Builder b)
    {
        c.engine = b.maxRequests(16).pageSize(4).trackingSlots(1).maxRequestPages(16)
            .deviceMambaSlots(8 + r.nextInt(5)).deviceKvPages(256).hostKvPages(256).hostMambaSlots(64)
            .prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE)
            .maxStagedDefers(32).maxOps(256).prefetchThresholdPages(4).build();
        final WorkloadOptions w = c.workload;
        // Shared prefixes of 5 to 10 pages of 4 tokens out of 16: the extensions still fit, so requests branch.
        w.promptTokens = 20 + r.nextInt(21);
        w.extendTokens = 1 + r.nextInt(8);
        w.kind = WorkloadKind.RANDOM;
        w.prefixes = 2 + r.nextInt(2);
        w.requests = 32 + r.nextInt(16);
        w.arrivalsPerStep = 0;
        w.admitsPerPass = 4 + r.nextInt(8);
        w.maxRunning = c.engine.maxRequests();
        w.retractRate = 0;
        w.abortRate = 0;
        w.abortWaitingRate = 0;
        w.abortQueuedRate = 0;
        w.abortLaunchedRate = 0;
        w.abortRunningRate = 0;
        // Half of them retract loads in the pass that queued them: the freed slots go to the next admission at once.
        w.retractQueuedRate = r.nextBoolean() ? 0.3 : 0;
        w.retractLaunchedRate = 0;
        w.retractReadyRate = 0;
        w.tickRate = 0.3;
        w.tickPages = 2 + r.nextInt(4);
        java.util.Arrays.fill(c.failureRates, 0);
        c.slowRate = 0.3;
        c.burstNs = 4_000_000L;
    }

    private static int pick(final SplittableRandom r, final int[] values)
    {
        return values[r.nextInt(values.length)];
    }

    /** @return 0 with probability {@code 1 - on}, else one of {@link #RATES}. */
    private static double rate(final SplittableRandom r, final double on)
    {
        return r.nextDouble() < on ? RATES[r.nextInt(RATES.length)] : 0;
    }

    /**
     * @param config configuration.
     * @param label  journal label.
     * @return the journal header of a run of this configuration.
     */
    static JournalHeader header(final Config config, final String label)
    {
        return config.engine.toHeader(new JournalHeader()).deviceKind(DeviceKind.SIMULATED).label(label);
    }

    /**
     * Run one seed.
     *
     * @param seed   the seed.
     * @param config its configuration (from {@link #configure}).
     * @param extra  also told about every document (a journal writer), or null.
     * @return the outcome.
     */
    static Outcome run(final long seed, final Config config, final DocumentSink extra)
    {
        final long start = System.nanoTime();
        final Outcome out = new Outcome();
        out.seed = seed;
        out.config = config;
        final CacheStateMachine engine = new CacheStateMachine(config.engine);
        final JournalHeader header = header(config, "kvledger explore seed " + seed);
        final InvariantChecker checker = new InvariantChecker(true, 4, ShadowModel.DEFAULT_HISTORY_LIMIT);
        checker.onHeader(header, new JournalPosition());
        final LivenessMonitor monitor = new LivenessMonitor().configure(header);
        final long[] last = {0};
        final DocumentSink sink = (in, resultCode, effects) ->
        {
            if (extra != null)
            {
                extra.append(in, resultCode, effects);
            }
            last[0] = in.sequence();
            checker.check(in, resultCode, effects);
            monitor.onDocument(in, resultCode, effects);
            // A safety violation stops the run; a progress finding is kept and the run goes on, so that a later
            // safety violation (the stronger claim) still wins and is shrunk.
            if (checker.stopped())
            {
                throw new Stop();
            }
        };
        final SimulatedPort port = new SimulatedPort(engine, sink, seed, 0, null).verifyEachInput(true)
            .slowRate(config.slowRate).burstNs(config.burstNs);
        for (final OpKind kind : OpKind.values())
        {
            port.failureRate(kind, config.failureRates[kind.ordinal()]);
        }
        final ServingLoop loop = new ServingLoop(port, config.engine, Workload.build(config.workload));
        String error = null;
        try
        {
            loop.run();
            settle(port, engine);
            quiescence(engine, checker.model(), monitor, last[0]);
        }
        catch (final Stop stop)
        {
            // The checker or the monitor found something at the last document.
        }
        catch (final ServingLoop.NoProgressException ex)
        {
            monitor.report("L4 no-progress", last[0], ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            error = (ex.getMessage() == null ? ex.toString() : KvledgerMain.firstLine(ex.getMessage())) +
                (ex.getStackTrace().length > 0 ? " (at " + ex.getStackTrace()[0] + ")" : "");
        }
        final RunSummary s = loop.summary();
        final EngineCounters counters = engine.counters();
        out.documents = last[0];
        out.requests = s.requests;
        out.finished = s.finished;
        out.aborted = s.aborted;
        out.retracts = counters.retracts;
        out.loads = counters.loads;
        out.cows = counters.cows;
        if (checker.firstViolation().isPresent())
        {
            final Violation v = checker.firstViolation().get();
            out.violation = v;
            out.rule = v.invariant().name();
            out.sequence = v.documentSequence();
            out.text = v.subject() + " " + v.explanation();
        }
        else if (monitor.finding() != null)
        {
            out.rule = monitor.finding().rule();
            out.sequence = monitor.finding().sequence();
            out.text = monitor.finding().text();
        }
        else if (error != null)
        {
            out.rule = error.startsWith("after input #") ? "engine-verify" : "engine-error";
            out.sequence = last[0];
            out.text = error;
        }
        else if (!loop.mismatches().isEmpty())
        {
            out.rule = "data-plane";
            out.sequence = last[0];
            out.text = loop.mismatches().get(0).toString();
        }
        out.elapsedNs = System.nanoTime() - start;
        return out;
    }

    /** TICK until the backup backlog drains (or give up after a few rounds). */
    private static void settle(final SimulatedPort port, final CacheStateMachine engine)
    {
        final InputRecord tick = new InputRecord(1);
        final Decision decision = new Decision(engine.config().maxRequestPages());
        final EnginePort.OpListener none = (op, ok) -> { };
        for (int round = 0; round < SETTLE_ROUNDS; round++)
        {
            int spins = 0;
            while (port.busy() && spins++ < 1_000_000)
            {
                port.pump(none);
            }
            if (engine.backupBacklog() == 0)
            {
                return;
            }
            decision.clear();
            port.submit(Inputs.tick(tick.reset(), 0), decision);
        }
    }

    private static void quiescence(final CacheStateMachine engine, final ShadowModel model,
        final LivenessMonitor monitor, final long sequence)
    {
        monitor.atQuiescence(model, sequence);
        if (engine.backupBacklog() > 0)
        {
            monitor.report("L5 backlog-stuck", sequence, engine.backupBacklog() + " backup(s) still in the backlog " +
                "at quiescence after " + SETTLE_ROUNDS + " ticks with every op drained");
        }
        if (engine.tree().receiptCount() > 0)
        {
            monitor.report("L3 not-quiescent", sequence, engine.tree().receiptCount() + " lock receipt(s) still " +
                "held after every request ended and every op drained");
        }
    }

    /**
     * @param o outcome.
     * @return the violation's subject history as lines, oldest first (empty for progress findings).
     */
    static List<String> history(final Outcome o)
    {
        final List<String> lines = new ArrayList<>();
        if (o.violation != null)
        {
            for (final HistoryEntry entry : o.violation.history())
            {
                lines.add("#" + entry.sequence() + " " + entry.text());
            }
        }
        return lines;
    }
}
