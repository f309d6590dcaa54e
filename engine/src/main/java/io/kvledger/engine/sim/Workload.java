package io.kvledger.engine.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A serving workload as phases of requests (token ids plus a namespace). A phase starts once the previous one has
 * drained; a phase may ask for the device cache to be flushed first (the upstream benchmark's second round).
 * Generated up front from the seed, so the same options always give the same requests.
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

    /** Requests that arrive together after the previous phase drained. */
    public static final class Phase
    {
        public final String name;
        public final boolean flushFirst;
        public final List<Spec> specs = new ArrayList<>();

        Phase(final String name, final boolean flushFirst)
        {
            this.name = name;
            this.flushFirst = flushFirst;
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
            n += p.specs.size();
        }
        return n;
    }

    /**
     * Build a workload.
     *
     * @param options shape.
     * @return the workload.
     */
    public static Workload build(final WorkloadOptions options)
    {
        final Workload w = new Workload(options);
        final SplittableRandom random = new SplittableRandom(options.seed);
        switch (options.kind)
        {
            case PR_BENCH: w.prBench(random); break;
            case MULTI_TURN: w.multiTurn(random); break;
            default: w.random(random); break;
        }
        return w;
    }

    private static int[] tokens(final SplittableRandom random, final int count)
    {
        final int[] t = new int[count];
        for (int i = 0; i < count; i++)
        {
            t[i] = random.nextInt(151_000);
        }
        return t;
    }

    private static int[] concat(final int[] a, final int[] b)
    {
        final int[] t = new int[a.length + b.length];
        System.arraycopy(a, 0, t, 0, a.length);
        System.arraycopy(b, 0, t, a.length, b.length);
        return t;
    }

    private boolean roll(final SplittableRandom random, final double p)
    {
        return p > 0 && random.nextDouble() < p;
    }

    private void prBench(final SplittableRandom random)
    {
        final Phase seed = new Phase("round 1: " + options.requests + " prompts of " + options.promptTokens +
            " tokens, written to L3", false);
        final Phase extend = new Phase("round 2: the same prompts extended by " + options.extendTokens +
            " tokens, device flushed: prefixes come back from L3", true);
        long id = 1;
        for (int i = 0; i < options.requests; i++)
        {
            final int[] prompt = tokens(random, options.promptTokens);
            seed.specs.add(new Spec(id++, 1, prompt, options.maxNewTokens, false, false));
            final int[] extended = concat(prompt, tokens(random, options.extendTokens));
            extend.specs.add(new Spec(id++, 1, extended, options.maxNewTokens, roll(random, options.retractRate),
                roll(random, options.abortRate)));
        }
        renumber(seed, extend);
        phases.add(seed);
        phases.add(extend);
    }

    private void renumber(final Phase a, final Phase b)
    {
        long id = 1;
        for (int i = 0; i < a.specs.size(); i++)
        {
            final Spec s = a.specs.get(i);
            a.specs.set(i, new Spec(id++, s.namespace, s.tokens, s.maxNewTokens, s.retract, s.abort));
        }
        for (int i = 0; i < b.specs.size(); i++)
        {
            final Spec s = b.specs.get(i);
            b.specs.set(i, new Spec(id++, s.namespace, s.tokens, s.maxNewTokens, s.retract, s.abort));
        }
    }

    private void multiTurn(final SplittableRandom random)
    {
        final int conversations = Math.max(1, options.requests / Math.max(1, options.turns));
        final int[][] context = new int[conversations][];
        final int turnTokens = Math.max(1, options.promptTokens / Math.max(1, options.turns));
        long id = 1;
        for (int t = 0; t < options.turns; t++)
        {
            final Phase phase = new Phase("turn " + (t + 1) + " of " + conversations + " conversations", false);
            for (int c = 0; c < conversations; c++)
            {
                final int[] previous = context[c] == null ? new int[0] : context[c];
                context[c] = concat(previous, tokens(random, turnTokens));
                phase.specs.add(new Spec(id++, 100 + c % 4, context[c], options.maxNewTokens,
                    roll(random, options.retractRate), roll(random, options.abortRate)));
            }
            phases.add(phase);
        }
    }

    private void random(final SplittableRandom random)
    {
        final int prefixes = Math.max(1, options.prefixes);
        final int[][] shared = new int[prefixes][];
        for (int p = 0; p < prefixes; p++)
        {
            shared[p] = tokens(random, options.promptTokens / 2 + random.nextInt(Math.max(1, options.promptTokens / 2)));
        }
        final Phase warm = new Phase("warm-up: shared prefixes", false);
        final Phase mixed = new Phase("mixed: shared prefixes, retracts, aborts, failures", true);
        long id = 1;
        for (int p = 0; p < prefixes; p++)
        {
            warm.specs.add(new Spec(id++, 7 + p % 2, shared[p], options.maxNewTokens, false, false));
        }
        for (int i = 0; i < options.requests; i++)
        {
            final int p = random.nextInt(prefixes);
            final int[] t = concat(shared[p], tokens(random, 1 + random.nextInt(Math.max(1, options.extendTokens))));
            mixed.specs.add(new Spec(id++, 7 + p % 2, t, options.maxNewTokens, roll(random, options.retractRate),
                roll(random, options.abortRate)));
        }
        phases.add(warm);
        phases.add(mixed);
    }
}
