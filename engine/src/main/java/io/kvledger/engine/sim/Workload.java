package io.kvledger.engine.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A serving workload as phases of requests (token ids plus a namespace). A phase starts once the previous one has
 * drained; a phase may ask for the device cache to be flushed first (the upstream benchmark's second round).
 * <p>
 * Streamed: a phase's requests are drawn from the seed one at a time as the serving loop takes them
 * ({@link Phase#arrivals()}), so memory does not grow with the request count; the same options always give the
 * same requests in the same order as when the whole workload was generated up front (one
 * {@link java.util.SplittableRandom} stream, drawn in the same order: {@code WorkloadStreamTest} compares the two).
 * A phase whose requests were drawn interleaved with another phase's replays the stream from the seed and skips
 * the other phase's draws; a conversation's earlier turns are drawn again from the stream position where they
 * began (one long per request kept).
 */
public final class Workload
{
    /** One request to serve. */
    public static final class Spec
    {
        public final long id;
        public final long namespace;
        public final int[] tokens;
        public final int maxNewTokens;
        public final boolean retract;
        public final boolean abort;

        Spec(final long id, final long namespace, final int[] tokens, final int maxNewTokens, final boolean retract,
            final boolean abort)
        {
            this.id = id;
            this.namespace = namespace;
            this.tokens = tokens;
            this.maxNewTokens = maxNewTokens;
            this.retract = retract;
            this.abort = abort;
        }
    }

    /** Draws a phase's requests in order; null after the last. */
    interface SpecStream
    {
        Spec next();
    }

    /** Opens a fresh stream of a phase's requests (from the seed). */
    interface SpecSource
    {
        SpecStream open();
    }

    /** Requests that arrive together after the previous phase drained. */
    public static final class Phase
    {
        public final String name;
        public final boolean flushFirst;
        /** Requests in the phase. */
        public final int size;
        private final SpecSource source;

        Phase(final String name, final boolean flushFirst, final int size, final SpecSource source)
        {
            this.name = name;
            this.flushFirst = flushFirst;
            this.size = size;
            this.source = source;
        }

        /** @return the phase's requests in arrival order, drawn one at a time; each call starts again. */
        public Arrivals arrivals()
        {
            return new Arrivals(source.open());
        }
    }

    /** A phase's requests still to arrive: a cursor over the stream with one request of look-ahead. */
    public static final class Arrivals
    {
        private final SpecStream stream;
        private Spec head;

        Arrivals(final SpecStream stream)
        {
            this.stream = stream;
            head = stream.next();
        }

        /** @return whether every request of the phase has arrived. */
        public boolean isEmpty()
        {
            return null == head;
        }

        /** @return the next request to arrive, or null when none is left. */
        public Spec peek()
        {
            return head;
        }

        /** @return the next request, which has now arrived, or null when none is left. */
        public Spec poll()
        {
            final Spec spec = head;
            if (null != spec)
            {
                head = stream.next();
            }
            return spec;
        }
    }

    private final List<Phase> phases = new ArrayList<>();
    private final WorkloadOptions options;

    private Workload(final WorkloadOptions options)
    {
        this.options = options;
    }

    /** @return the phases in order. */
    public List<Phase> phases()
    {
        return phases;
    }

    /** @return the options it was built from. */
    public WorkloadOptions options()
    {
        return options;
    }

    /** @return total requests over all phases. */
    public int requestCount()
    {
        int n = 0;
        for (final Phase p : phases)
        {
            n += p.size;
        }
        return n;
    }

    /**
     * Build a workload: its phases, whose requests are drawn when they arrive.
     *
     * @param options shape; read now (later changes to it do not change the workload's requests).
     * @return the workload.
     * @throws IllegalArgumentException when an option is out of range ({@link WorkloadOptions#validate()}).
     */
    public static Workload build(final WorkloadOptions options)
    {
        options.validate();
        final Workload w = new Workload(options);
        switch (options.kind)
        {
            case PR_BENCH:
                w.prBench();
                break;
            case MULTI_TURN:
                w.multiTurn();
                break;
            default:
                w.random();
                break;
        }
        return w;
    }

    private static int[] tokens(final SplitMixRandom random, final int count)
    {
        final int[] t = new int[count];
        fill(random, t, 0, count);
        return t;
    }

    private static void fill(final SplitMixRandom random, final int[] into, final int from, final int count)
    {
        for (int i = from; i < from + count; i++)
        {
            into[i] = random.nextInt(151_000);
        }
    }

    private static boolean roll(final SplitMixRandom random, final double p)
    {
        return p > 0 && random.nextDouble() < p;
    }

    private void prBench()
    {
        final int requests = options.requests;
        phases.add(new Phase("round 1: " + requests + " prompts of " + options.promptTokens +
            " tokens, written to L3", false, requests, () -> prBenchRound(false)));
        phases.add(new Phase("round 2: the same prompts extended by " + options.extendTokens +
            " tokens, device flushed: prefixes come back from L3", true, requests, () -> prBenchRound(true)));
    }

    /**
     * One pr-bench round, streamed from the seed. Both rounds draw the same stream, per prompt i: P[i] ++ E[i], then
     * the retract and abort rolls. Round one serves P[i] alone and ignores the rolls; round two serves P[i] ++ E[i]
     * with them.
     */
    private SpecStream prBenchRound(final boolean second)
    {
        final int requests = options.requests;
        final int promptTokens = options.promptTokens;
        final int extendTokens = options.extendTokens;
        final int maxNewTokens = options.maxNewTokens;
        final double retractRate = options.retractRate;
        final double abortRate = options.abortRate;
        final SplitMixRandom random = new SplitMixRandom(options.seed);
        return counted(requests, n ->
        {
            final int[] extended = tokens(random, promptTokens + extendTokens);
            final boolean retract = roll(random, retractRate);
            final boolean abort = roll(random, abortRate);
            return second ? new Spec(requests + n, 1, extended, maxNewTokens, retract, abort) :
                new Spec(n, 1, Arrays.copyOf(extended, promptTokens), maxNewTokens, false, false);
        });
    }

    /**
     * A stream of {@code count} requests, the n-th (1-based) made by {@code spec} when it is drawn, then null.
     */
    private static SpecStream counted(final int count, final java.util.function.IntFunction<Spec> spec)
    {
        return new SpecStream()
        {
            private int drawn;

            @Override
            public Spec next()
            {
                return drawn == count ? null : spec.apply(++drawn);
            }
        };
    }

    /** The one stream of a multi-turn workload, shared by its turns, and where each turn's tokens began in it. */
    private static final class TurnStream
    {
        final long seed;
        final long[][] turnStart;
        SplitMixRandom random;
        int atTurn = -1;

        TurnStream(final long seed, final int turns)
        {
            this.seed = seed;
            turnStart = new long[turns][];
        }
    }

    private void multiTurn()
    {
        final int turns = Math.max(0, options.turns);
        final int conversations = Math.max(1, options.requests / Math.max(1, turns));
        final int turnTokens = Math.max(1, options.promptTokens / Math.max(1, turns));
        final int maxNewTokens = options.maxNewTokens;
        final double retractRate = options.retractRate;
        final double abortRate = options.abortRate;
        // The stream draws, turn by turn and conversation by conversation: the turn's tokens, then its rolls.
        // Where each turn's tokens start in the stream is kept, so a later turn draws its history again.
        final TurnStream shared = new TurnStream(options.seed, turns);
        for (int t = 0; t < turns; t++)
        {
            final int turn = t;
            phases.add(new Phase("turn " + (t + 1) + " of " + conversations + " conversations", false, conversations,
                () ->
                {
                    if (shared.atTurn != turn)
                    {
                        shared.random = new SplitMixRandom(shared.seed);
                        skipTurns(shared, turn, conversations, turnTokens, retractRate, abortRate);
                    }
                    shared.atTurn = -1;
                    shared.turnStart[turn] = new long[conversations];
                    final SplitMixRandom random = shared.random;
                    final SplitMixRandom history = new SplitMixRandom(shared.seed);
                    return new SpecStream()
                    {
                        private int c;

                        @Override
                        public Spec next()
                        {
                            if (c == conversations)
                            {
                                shared.atTurn = turn + 1;
                                return null;
                            }
                            final int[] context = new int[(turn + 1) * turnTokens];
                            for (int u = 0; u < turn; u++)
                            {
                                fill(history.state(shared.turnStart[u][c]), context, u * turnTokens, turnTokens);
                            }
                            shared.turnStart[turn][c] = random.state();
                            fill(random, context, turn * turnTokens, turnTokens);
                            final boolean retract = roll(random, retractRate);
                            final boolean abort = roll(random, abortRate);
                            final Spec spec = new Spec((long)turn * conversations + c + 1, 100 + c % 4, context,
                                maxNewTokens, retract, abort);
                            c++;
                            return spec;
                        }
                    };
                }));
        }
    }

    /**
     * Bring a fresh stream to the start of turn {@code turns} (a turn opened out of order: a test, or a phase
     * opened twice), recording where each earlier turn's tokens began.
     */
    private static void skipTurns(final TurnStream shared, final int turns, final int conversations,
        final int turnTokens, final double retractRate, final double abortRate)
    {
        for (int t = 0; t < turns; t++)
        {
            shared.turnStart[t] = new long[conversations];
            for (int c = 0; c < conversations; c++)
            {
                shared.turnStart[t][c] = shared.random.state();
                for (int j = 0; j < turnTokens; j++)
                {
                    shared.random.nextInt(151_000);
                }
                roll(shared.random, retractRate);
                roll(shared.random, abortRate);
            }
        }
    }

    private void random()
    {
        final long seed = options.seed;
        final int requests = options.requests;
        final int promptTokens = options.promptTokens;
        final int extendTokens = options.extendTokens;
        final int maxNewTokens = options.maxNewTokens;
        final double retractRate = options.retractRate;
        final double abortRate = options.abortRate;
        final int prefixes = Math.max(1, options.prefixes);
        // The stream draws the shared prefixes first, then per request: its prefix, its own tokens, its rolls.
        phases.add(new Phase("warm-up: shared prefixes", false, prefixes, () ->
        {
            final int[][] shared = sharedPrefixes(new SplitMixRandom(seed), prefixes, promptTokens);
            return counted(prefixes, n -> new Spec(n, 7 + (n - 1) % 2, shared[n - 1], maxNewTokens, false, false));
        }));
        phases.add(new Phase("mixed: shared prefixes, retracts, aborts, failures", true, requests, () ->
        {
            final SplitMixRandom random = new SplitMixRandom(seed);
            final int[][] shared = sharedPrefixes(random, prefixes, promptTokens);
            return counted(requests, n ->
            {
                final int p = random.nextInt(prefixes);
                final int own = 1 + random.nextInt(Math.max(1, extendTokens));
                final int[] t = new int[shared[p].length + own];
                System.arraycopy(shared[p], 0, t, 0, shared[p].length);
                fill(random, t, shared[p].length, own);
                final boolean retract = roll(random, retractRate);
                final boolean abort = roll(random, abortRate);
                return new Spec(prefixes + n, 7 + p % 2, t, maxNewTokens, retract, abort);
            });
        }));
    }

    private static int[][] sharedPrefixes(final SplitMixRandom random, final int prefixes, final int promptTokens)
    {
        final int[][] shared = new int[prefixes][];
        for (int p = 0; p < prefixes; p++)
        {
            shared[p] = tokens(random, promptTokens / 2 + random.nextInt(Math.max(1, promptTokens / 2)));
        }
        return shared;
    }
}
