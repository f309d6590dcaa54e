package io.kvledger.engine.sim;

import io.kvledger.engine.api.DataPlane;
import io.kvledger.engine.api.Decision;
import io.kvledger.engine.api.EnginePort;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.ingress.Fingerprinter;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A model inference server driving the controller: requests arrive, each scheduling pass admits what fits,
 * admitted requests wait for their load or copy, compute their pages chunk by chunk (writing real content into
 * the slots the controller gave them, after checking what they read), and finish. The same loop runs against the
 * deterministic simulation and the live runtime through an {@link EnginePort}.
 * <p>
 * Data-plane check: before a request reads its prefix (KV pages and recurrent state) it compares their digests
 * with the content the prefix must hold, and before every later step it checks that its working state still
 * holds what it wrote. A mismatch is corruption; it is counted and reported with the slot.
 * <p>
 * Chaos (issue 9, section 5): with the {@link WorkloadOptions} chaos rates above zero, the loop also aborts and
 * retracts requests at every point of their life, drawn from its own seeded random source: while waiting or staged,
 * right after admission with the load or copy-on-write still queued, while that op is launched, when the data is
 * ready but the request has not run, and between chunks; and it sends eviction ticks. The hook sits where the loop
 * picks its next action
 * ({@link #chaosAfterAdmit} in the pass, {@link #chaosStep} before computing); with every rate at zero it draws
 * nothing, so runs without chaos are unchanged.
 * <p>
 * Serving thread only; allocates freely (it is the caller, not the engine).
 */
public final class ServingLoop implements EnginePort.OpListener
{
    /** Retractions chaos makes of one request at most (see {@link #chaosRetract}). */
    static final int MAX_CHAOS_RETRACTS = 64;

    /** One detected corruption. */
    public static final class Mismatch
    {
        public final long request;
        public final Pool pool;
        public final int slot;
        public final String what;
        public final long atNs;

        Mismatch(final long request, final Pool pool, final int slot, final String what, final long atNs)
        {
            this.request = request;
            this.pool = pool;
            this.slot = slot;
            this.what = what;
            this.atNs = atNs;
        }

        @Override
        public String toString()
        {
            return "digest mismatch: request " + request + " " + pool + ":" + slot + " (" + what + ")";
        }
    }

    /** The loop stopped finishing or aborting requests: a liveness failure of the controller (or the loop). */
    public static final class NoProgressException extends IllegalStateException
    {
        private static final long serialVersionUID = 1L;

        NoProgressException(final String message)
        {
            super(message);
        }
    }

    private static final int WAITING = 0;
    private static final int ADMITTED = 1;

    private final class Active
    {
        final Workload.Spec spec;
        final int pages;
        final int tail;
        final long[] hi;
        final long[] lo;
        int state = WAITING;
        long loadOp = -1;
        long cowOp = -1;
        int prefixPages;
        int computed;
        boolean verified;
        long expectedState;
        int workingSlot = -1;
        int trackingSlot = -1;
        int[] pageIds;
        boolean retracted;
        int chaosRetracts;
        int decoded;
        boolean started;

        Active(final Workload.Spec spec, final long[] hi, final long[] lo, final int pages, final int tail)
        {
            this.spec = spec;
            this.hi = hi;
            this.lo = lo;
            this.pages = pages;
            this.tail = tail;
        }
    }

    private final EnginePort port;
    private final EngineConfig config;
    private final Workload workload;
    private final Fingerprinter fingerprinter;
    private final InputRecord input;
    private final Decision decision;
    private final SplittableRandom random;
    private final SplittableRandom chaos;
    private final boolean chaosOn;
    private final DataPlane data;
    private final ArrayDeque<Active> waiting = new ArrayDeque<>();
    private final List<Active> admitted = new ArrayList<>();
    private final List<Active> retracted = new ArrayList<>();
    private final Map<Long, Active> byLoad = new HashMap<>();
    private final List<Mismatch> mismatches = new ArrayList<>();
    private final long[] scratchHi;
    private final long[] scratchLo;
    private final RunSummary summary = new RunSummary();
    private final WakeGate wake;
    private ProgressListener progress;

    /** Told after every step, for a progress line. */
    public interface ProgressListener
    {
        /**
         * @param phase    phase name.
         * @param finished requests finished so far.
         * @param total    requests in the workload.
         */
        void onProgress(String phase, long finished, long total);
    }

    /**
     * @param port     the controller.
     * @param config   its configuration (page size, request limits).
     * @param workload what to serve.
     */
    public ServingLoop(final EnginePort port, final EngineConfig config, final Workload workload)
    {
        this.port = port;
        this.config = config;
        this.workload = workload;
        fingerprinter = new Fingerprinter(config.pageSize());
        input = new InputRecord(config.maxRequestPages());
        decision = new Decision(config.maxRequestPages());
        random = new SplittableRandom(workload.options().seed ^ 0x5E4E_0001L);
        chaos = new SplittableRandom(workload.options().seed ^ 0xC4A0_5EEDL);
        chaosOn = workload.options().chaos();
        wake = new WakeGate(workload.options().memoryWaitsStopPass);
        data = port.dataPlane();
        scratchHi = new long[config.maxRequestPages() + 1];
        scratchLo = new long[config.maxRequestPages() + 1];
    }

    /**
     * @param listener told after every step.
     * @return this.
     */
    public ServingLoop progress(final ProgressListener listener)
    {
        this.progress = listener;
        return this;
    }

    /** @return corruption found by the data-plane check. */
    public List<Mismatch> mismatches()
    {
        return mismatches;
    }

    /** @return what the run did (the serving side's view). */
    public RunSummary summary()
    {
        return summary;
    }

    /**
     * Serve the whole workload, phase by phase, then wait for every operation to drain.
     *
     * @return the summary.
     */
    public RunSummary run()
    {
        final long total = workload.requestCount();
        for (final Workload.Phase phase : workload.phases())
        {
            if (phase.flushFirst)
            {
                submit(Inputs.tick(input.reset(), Long.MAX_VALUE));
            }
            final Workload.Arrivals arrivals = phase.arrivals();
            int idle = 0;
            long idleSinceNs = port.nowNs();
            while (!arrivals.isEmpty() || !waiting.isEmpty() || !admitted.isEmpty())
            {
                final int perStep = workload.options().arrivalsPerStep <= 0 ?
                    Integer.MAX_VALUE : workload.options().arrivalsPerStep;
                for (int i = 0; i < perStep && !arrivals.isEmpty(); i++)
                {
                    if (!arrive(arrivals.peek()))
                    {
                        break;
                    }
                    arrivals.poll();
                }
                final long before = summary.finished + summary.aborted;
                final long writeBacksBefore = port.writeBacks();
                step();
                if (progress != null)
                {
                    progress.onProgress(phase.name, summary.finished + summary.aborted, total);
                }
                // A request finishing or aborting is progress; so is a write-back finishing (the backlog is finite:
                // a parked hit may wait for the backups ahead of it to leave host staging, however slow they are).
                idle = summary.finished + summary.aborted == before && port.writeBacks() == writeBacksBefore ?
                    idle + 1 : 0;
                if (0 == idle)
                {
                    idleSinceNs = port.nowNs();
                }
                if (idle > workload.options().maxIdleSteps &&
                    port.nowNs() - idleSinceNs >= workload.options().minIdleNanos)
                {
                    throw new NoProgressException("serving loop made no progress for " +
                        workload.options().maxIdleSteps + " steps in " + phase.name + " (waiting " + waiting.size() +
                        ", admitted " + admitted.size() + ")");
                }
            }
            drain();
        }
        summary.mismatches = mismatches.size();
        return summary;
    }

    private void drain()
    {
        int spins = 0;
        while (port.busy())
        {
            port.pump(this);
            if (++spins > 10_000_000)
            {
                throw new IllegalStateException("operations did not drain");
            }
        }
    }

    private int submit(final InputRecord in)
    {
        decision.clear();
        final int result = port.submit(in, decision);
        summary.inputs++;
        if (ResultCode.ENGINE_STOPPED == result)
        {
            // a stopped engine's port says why when pumped: the run ends with that reason, not with this refusal
            port.pump(this);
        }
        return result;
    }

    /**
     * @return false when the controller's request table is full (the request arrives on a later step).
     */
    private boolean arrive(final Workload.Spec spec)
    {
        final int count = spec.tokens.length;
        final int maxTokens = config.maxRequestPages() * config.pageSize() + config.pageSize() - 1;
        final int usable = Math.min(count, maxTokens);
        final int tail = fingerprinter.fingerprint(spec.namespace, spec.tokens, usable, input.reset());
        Inputs.arrive(input, spec.id, tail, spec.maxNewTokens, spec.namespace);
        final int pages = input.fingerprintCount();
        final long[] hi = new long[pages];
        final long[] lo = new long[pages];
        for (int i = 0; i < pages; i++)
        {
            hi[i] = input.fingerprintHi(i);
            lo[i] = input.fingerprintLo(i);
        }
        final int result = submit(input);
        if (result == ResultCode.TOO_MANY_REQUESTS)
        {
            return false;
        }
        summary.requests++;
        if (result == ResultCode.OK)
        {
            waiting.add(new Active(spec, hi, lo, pages, tail));
        }
        else
        {
            summary.rejected++;
        }
        return true;
    }

    private void step()
    {
        port.pump(this);
        pass();
        port.pump(this);
        if (chaosOn)
        {
            chaosStep();
        }
        compute();
    }

    private void pass()
    {
        if (!anyOfferable())
        {
            return;
        }
        final WorkloadOptions o = workload.options();
        submit(Inputs.passBegin(input.reset(), o.maxRunning, Long.MAX_VALUE / 4,
            (long)o.admitsPerPass * config.maxRequestPages() * config.pageSize(), Long.MAX_VALUE / 4));
        int admits = 0;
        wake.passBegun();
        final int n = waiting.size();
        for (int i = 0; i < n && admits < o.admitsPerPass; i++)
        {
            final Active a = waiting.poll();
            if (!wake.mayOffer(a.spec.id, port.nowNs(), port.completions()))
            {
                waiting.add(a);
                continue;
            }
            final int result = submit(Inputs.admit(input.reset(), a.spec.id));
            if (result == ResultCode.OK && decision.live)
            {
                wake.forget(a.spec.id);
                admits++;
                admitted(a);
                if (a.spec.retract && !a.retracted && a.loadOp >= 0)
                {
                    a.retracted = true;
                    final int r = submit(Inputs.retract(input.reset(), a.spec.id));
                    if (r == ResultCode.OK)
                    {
                        byLoad.remove(a.loadOp);
                        byLoad.remove(a.cowOp);
                        a.state = WAITING;
                        a.loadOp = -1;
                        a.cowOp = -1;
                        summary.retracts++;
                        wake.released();
                        // Offered again at once without its staged hit (the upstream re-select after a rejected
                        // load-back); if that fails too it keeps its place at the head of the queue.
                        if (submit(Inputs.admit(input.reset(), a.spec.id)) != ResultCode.OK ||
                            !decision.live)
                        {
                            wake.waited(a.spec.id, decision.waitReason, port.nowNs(), port.completions());
                            retracted.add(a);
                            continue;
                        }
                        admitted(a);
                    }
                }
                if (chaosOn && chaosAfterAdmit(a))
                {
                    continue;
                }
                admitted.add(a);
            }
            else if (decision.live)
            {
                wake.waited(a.spec.id, decision.waitReason, port.nowNs(), port.completions());
                waiting.add(a);
            }
            else
            {
                wake.forget(a.spec.id);
                summary.rejected++;
            }
        }
        wake.passEnded();
        submit(Inputs.passEnd(input.reset()));
        // Retracted requests keep their place: first-come first-served puts them at the head for the next pass.
        for (int i = retracted.size() - 1; i >= 0; i--)
        {
            waiting.addFirst(retracted.get(i));
        }
        retracted.clear();
    }

    /** @return whether a pass could offer anyone: a pass that would offer nobody is not opened. */
    private boolean anyOfferable()
    {
        final long nowNs = port.nowNs();
        final long completions = port.completions();
        for (final Active a : waiting)
        {
            if (wake.wouldOffer(a.spec.id, nowNs, completions))
            {
                return true;
            }
        }
        return false;
    }

    private boolean roll(final double rate)
    {
        return rate > 0 && chaos.nextDouble() < rate;
    }

    /**
     * Chaos right after an admission in the pass, while its load or copy-on-write is still queued.
     *
     * @return true when the request left the admitted set (aborted, or retracted to the head of the queue).
     */
    private boolean chaosAfterAdmit(final Active a)
    {
        if (a.loadOp < 0 && a.cowOp < 0)
        {
            return false;
        }
        final WorkloadOptions o = workload.options();
        if (roll(o.abortQueuedRate))
        {
            abort(a);
            return true;
        }
        if (roll(o.retractQueuedRate) && chaosRetract(a))
        {
            retracted.add(a);
            return true;
        }
        return false;
    }

    /** Chaos between the pass and the forward: abort or retract waiting, launched, ready and running requests. */
    private void chaosStep()
    {
        final WorkloadOptions o = workload.options();
        if (roll(o.tickRate))
        {
            submit(Inputs.tick(input.reset(), 1 + chaos.nextInt(Math.max(1, o.tickPages))));
        }
        if (o.abortWaitingRate > 0)
        {
            final int n = waiting.size();
            for (int i = 0; i < n; i++)
            {
                final Active a = waiting.poll();
                if (roll(o.abortWaitingRate))
                {
                    abort(a);
                }
                else
                {
                    waiting.add(a);
                }
            }
        }
        for (int i = 0; i < admitted.size(); i++)
        {
            final Active a = admitted.get(i);
            final boolean launched = a.loadOp >= 0 || a.cowOp >= 0;
            final double abortRate = launched ? o.abortLaunchedRate : o.abortRunningRate;
            if (roll(abortRate))
            {
                admitted.remove(i--);
                abort(a);
                continue;
            }
            final double retractRate = launched ? o.retractLaunchedRate : a.started ? 0 : o.retractReadyRate;
            if (roll(retractRate) && chaosRetract(a))
            {
                admitted.remove(i--);
                waiting.addFirst(a);
            }
        }
    }

    private void abort(final Active a)
    {
        submit(Inputs.abort(input.reset(), a.spec.id, chaos.nextInt(16), chaos.nextInt(8), chaos.nextInt(2)));
        byLoad.remove(a.loadOp);
        byLoad.remove(a.cowOp);
        a.loadOp = -1;
        a.cowOp = -1;
        summary.aborted++;
    }

    /**
     * Retract the request for chaos, unless chaos already did so {@link #MAX_CHAOS_RETRACTS} times. A retracted
     * request goes back to the head of the queue, so a request whose load or copy-on-write is retracted at each try
     * can hold the slots every other request waits for for ever: a livelock of the chaos, not of the controller
     * (explore seed 622059 retracted one request 499 times and no request finished after it). The caller makes its
     * random draw first, so a run in which no request reaches the cap is unchanged.
     *
     * @return whether the controller took the retract.
     */
    private boolean chaosRetract(final Active a)
    {
        if (a.chaosRetracts >= MAX_CHAOS_RETRACTS || !retract(a))
        {
            return false;
        }
        a.chaosRetracts++;
        return true;
    }

    /** @return whether the controller took the retract (it refuses one once the request has run a chunk). */
    private boolean retract(final Active a)
    {
        if (submit(Inputs.retract(input.reset(), a.spec.id)) != ResultCode.OK)
        {
            return false;
        }
        byLoad.remove(a.loadOp);
        byLoad.remove(a.cowOp);
        a.state = WAITING;
        a.loadOp = -1;
        a.cowOp = -1;
        summary.retracts++;
        return true;
    }

    /** Bookkeeping of an admission: what the request waits for, where its data lives. */
    private void admitted(final Active a)
    {
        a.state = ADMITTED;
        a.loadOp = decision.loadOp;
        a.cowOp = decision.cowOp;
        a.prefixPages = decision.prefixPages;
        take(a);
        a.computed = a.prefixPages;
        a.decoded = 0;
        a.verified = false;
        a.started = false;
        if (a.loadOp >= 0)
        {
            byLoad.put(a.loadOp, a);
            summary.loads++;
        }
        if (a.cowOp >= 0)
        {
            byLoad.put(a.cowOp, a);
        }
    }

    private void take(final Active a)
    {
        a.workingSlot = decision.workingSlot;
        a.trackingSlot = decision.trackingSlot;
        if (a.pageIds == null)
        {
            a.pageIds = new int[a.pages];
        }
        System.arraycopy(decision.pageIds, 0, a.pageIds, 0, Math.min(a.pages, decision.validPages));
    }

    @Override
    public void onOpDone(final long op, final boolean ok)
    {
        final Active a = byLoad.remove(op);
        if (a == null)
        {
            return;
        }
        if (a.loadOp == op)
        {
            a.loadOp = -1;
        }
        if (a.cowOp == op)
        {
            a.cowOp = -1;
        }
        if (!ok)
        {
            // The controller rolled the admission back; the request recomputes from a later pass.
            admitted.remove(a);
            byLoad.remove(a.loadOp);
            byLoad.remove(a.cowOp);
            a.state = WAITING;
            a.loadOp = -1;
            a.cowOp = -1;
            waiting.add(a);
            summary.failedLoads++;
            wake.released();
        }
    }

    private void compute()
    {
        final WorkloadOptions o = workload.options();
        for (int i = 0; i < admitted.size(); i++)
        {
            final Active a = admitted.get(i);
            if (a.loadOp >= 0 || a.cowOp >= 0)
            {
                continue;
            }
            if (a.spec.abort && a.computed > a.prefixPages && random.nextInt(4) == 0)
            {
                submit(Inputs.abort(
                    input.reset(), a.spec.id, random.nextInt(16), random.nextInt(8), random.nextInt(2)));
                admitted.remove(i--);
                summary.aborted++;
                wake.released();
                continue;
            }
            if (!a.verified)
            {
                verifyPrefix(a);
                a.verified = true;
            }
            else if (a.workingSlot >= 0 && data.digest(Pool.DEVICE_MAMBA, a.workingSlot) !=
                data.expectedDigest(Pool.DEVICE_MAMBA, a.expectedState))
            {
                mismatch(a, Pool.DEVICE_MAMBA, a.workingSlot, "working state changed under the request");
                a.expectedState = ContentSeeds.CLEARED_STATE;
            }
            if (a.computed >= a.pages)
            {
                if (a.decoded < a.spec.maxNewTokens && a.workingSlot >= 0)
                {
                    // A decode step reads the working state and advances it.
                    a.decoded++;
                    // A prompt shorter than one page has no page fingerprint: its state is seeded by its id.
                    a.expectedState = a.pages == 0 ? ContentSeeds.state(a.spec.id + a.decoded, a.spec.id) :
                        ContentSeeds.state(a.hi[a.pages - 1] + a.decoded, a.lo[a.pages - 1]);
                    data.fill(Pool.DEVICE_MAMBA, a.workingSlot, a.expectedState);
                    continue;
                }
                submitProgress(a, InputType.FINISH, a.pages);
                wake.released();
                admitted.remove(i--);
                summary.finished++;
                summary.computedPages += a.pages - a.prefixPages;
                continue;
            }
            final int target = Math.min(a.pages, a.computed + Math.max(1, o.chunkPages));
            for (int p = a.computed; p < target; p++)
            {
                data.fill(Pool.DEVICE_KV, a.pageIds[p], ContentSeeds.kvPage(a.hi[p], a.lo[p]));
            }
            a.computed = target;
            if (a.workingSlot >= 0)
            {
                a.expectedState = ContentSeeds.state(a.hi[target - 1], a.lo[target - 1]);
                data.fill(Pool.DEVICE_MAMBA, a.workingSlot, a.expectedState);
                if (a.trackingSlot >= 0)
                {
                    data.fill(Pool.DEVICE_MAMBA, a.trackingSlot, a.expectedState);
                }
            }
            submitProgress(a, InputType.CHUNK, target);
            wake.progressed();
            take(a);
        }
    }

    /** Report prefill progress (CHUNK) or the end of the request (FINISH) with the cursors of its working state. */
    private void submitProgress(final Active a, final InputType type, final int computed)
    {
        a.started = true;
        final long tracked = config.hybrid() && a.trackingSlot < 0 ? 0 : computed;
        final long writePos = random.nextInt(16);
        final long cacheBase = random.nextInt(8);
        final long isFlush = random.nextInt(2);
        if (InputType.FINISH == type)
        {
            Inputs.finish(input.reset(), a.spec.id, computed, tracked, writePos, cacheBase, isFlush);
        }
        else
        {
            Inputs.chunk(input.reset(), a.spec.id, computed, tracked, writePos, cacheBase, isFlush);
        }
        final int result = submit(input);
        if (result != ResultCode.OK)
        {
            throw new IllegalStateException("controller refused " + type + " of request " + a.spec.id + ": " +
                ResultCode.name(result));
        }
    }

    private void verifyPrefix(final Active a)
    {
        for (int p = 0; p < a.prefixPages; p++)
        {
            final int page = a.pageIds[p];
            final long expected = data.expectedDigest(Pool.DEVICE_KV, ContentSeeds.kvPage(a.hi[p], a.lo[p]));
            if (data.digest(Pool.DEVICE_KV, page) != expected)
            {
                mismatch(a, Pool.DEVICE_KV, page, "prefix page " + p + " does not hold its content");
                break;
            }
        }
        if (a.workingSlot < 0)
        {
            return;
        }
        if (a.prefixPages == 0)
        {
            a.expectedState = ContentSeeds.CLEARED_STATE;
            data.fill(Pool.DEVICE_MAMBA, a.workingSlot, a.expectedState);
            return;
        }
        a.expectedState = ContentSeeds.state(a.hi[a.prefixPages - 1], a.lo[a.prefixPages - 1]);
        if (data.digest(Pool.DEVICE_MAMBA, a.workingSlot) != data.expectedDigest(Pool.DEVICE_MAMBA, a.expectedState))
        {
            mismatch(a, Pool.DEVICE_MAMBA, a.workingSlot, "working state is not the state at page " + a.prefixPages);
            data.fill(Pool.DEVICE_MAMBA, a.workingSlot, a.expectedState);
        }
    }

    private void mismatch(final Active a, final Pool pool, final int slot, final String what)
    {
        mismatches.add(new Mismatch(a.spec.id, pool, slot, what, port.nowNs()));
    }
}
