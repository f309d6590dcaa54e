package io.kvledger.engine.sim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The streamed workload gives the same requests in the same order as the workload generated up front did (the
 * generator before streaming is kept below as the reference, with {@link SplittableRandom}), so deterministic
 * journals of {@code kvledger run} do not change.
 */
class WorkloadStreamTest
{
    private record Expected(long id, long namespace, int[] tokens, boolean retract, boolean abort)
    {
    }

    @Test
    void shouldStreamTheMaterialisedRequestsForEveryKindAndSeveralSeeds()
    {
        for (final WorkloadKind kind : WorkloadKind.values())
        {
            for (final long seed : new long[] { 1, 7, 42, 20_261_130 })
            {
                final WorkloadOptions o = options(kind, seed);
                final List<List<Expected>> expected = materialised(o);
                final Workload streamed = Workload.build(o);
                assertEquals(expected.size(), streamed.phases().size(), kind + " seed " + seed + " phases");
                int total = 0;
                for (int p = 0; p < expected.size(); p++)
                {
                    final Workload.Phase phase = streamed.phases().get(p);
                    assertEquals(expected.get(p).size(), phase.size, kind + " seed " + seed + " phase " + p);
                    compare(expected.get(p), phase.arrivals(), kind + " seed " + seed + " phase " + p);
                    total += phase.size;
                }
                assertEquals(total, streamed.requestCount());
            }
        }
    }

    @Test
    void shouldGiveThePhasesAgainWhenOpenedOutOfOrder()
    {
        final WorkloadOptions o = options(WorkloadKind.MULTI_TURN, 3);
        final List<List<Expected>> expected = materialised(o);
        final Workload streamed = Workload.build(o);

        compare(expected.get(2), streamed.phases().get(2).arrivals(), "turn 3 first");
        compare(expected.get(0), streamed.phases().get(0).arrivals(), "turn 1");
        compare(expected.get(1), streamed.phases().get(1).arrivals(), "turn 2 after turn 1");
        compare(expected.get(1), streamed.phases().get(1).arrivals(), "turn 2 again");
        compare(expected.get(3), streamed.phases().get(3).arrivals(), "turn 4 after turn 2");
    }

    private static void compare(final List<Expected> expected, final Workload.Arrivals arrivals, final String what)
    {
        for (int i = 0; i < expected.size(); i++)
        {
            final Expected e = expected.get(i);
            assertTrue(!arrivals.isEmpty(), what + ": ends early at " + i);
            final Workload.Spec s = arrivals.poll();
            assertEquals(e.id(), s.id, what + " id at " + i);
            assertEquals(e.namespace(), s.namespace, what + " namespace at " + i);
            assertArrayEquals(e.tokens(), s.tokens, what + " tokens at " + i);
            assertEquals(e.retract(), s.retract, what + " retract at " + i);
            assertEquals(e.abort(), s.abort, what + " abort at " + i);
            assertEquals(16, s.maxNewTokens);
        }
        assertTrue(arrivals.isEmpty(), what + ": more requests than expected");
        assertNull(arrivals.poll());
    }

    private static WorkloadOptions options(final WorkloadKind kind, final long seed)
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.kind = kind;
        o.seed = seed;
        o.requests = 37;
        o.promptTokens = 300;
        o.extendTokens = 70;
        o.turns = 4;
        o.retractRate = 0.3;
        o.abortRate = 0.2;
        return o;
    }

    // ------------------------------------------------------------------------- the generator before streaming

    private static List<List<Expected>> materialised(final WorkloadOptions o)
    {
        final SplittableRandom random = new SplittableRandom(o.seed);
        final List<List<Expected>> phases = new ArrayList<>();
        switch (o.kind)
        {
            case PR_BENCH:
            {
                final List<Expected> seed = new ArrayList<>();
                final List<Expected> extend = new ArrayList<>();
                for (int i = 0; i < o.requests; i++)
                {
                    final int[] prompt = tokens(random, o.promptTokens);
                    seed.add(new Expected(i + 1, 1, prompt, false, false));
                    final int[] extended = concat(prompt, tokens(random, o.extendTokens));
                    extend.add(new Expected(o.requests + i + 1, 1, extended, roll(random, o.retractRate),
                        roll(random, o.abortRate)));
                }
                phases.add(seed);
                phases.add(extend);
                break;
            }
            case MULTI_TURN:
            {
                final int conversations = Math.max(1, o.requests / Math.max(1, o.turns));
                final int[][] context = new int[conversations][];
                final int turnTokens = Math.max(1, o.promptTokens / Math.max(1, o.turns));
                long id = 1;
                for (int t = 0; t < o.turns; t++)
                {
                    final List<Expected> phase = new ArrayList<>();
                    for (int c = 0; c < conversations; c++)
                    {
                        final int[] previous = context[c] == null ? new int[0] : context[c];
                        context[c] = concat(previous, tokens(random, turnTokens));
                        phase.add(new Expected(id++, 100 + c % 4, context[c], roll(random, o.retractRate),
                            roll(random, o.abortRate)));
                    }
                    phases.add(phase);
                }
                break;
            }
            default:
            {
                final int prefixes = 8;
                final int[][] shared = new int[prefixes][];
                for (int p = 0; p < prefixes; p++)
                {
                    shared[p] = tokens(random, o.promptTokens / 2 + random.nextInt(Math.max(1, o.promptTokens / 2)));
                }
                final List<Expected> warm = new ArrayList<>();
                final List<Expected> mixed = new ArrayList<>();
                long id = 1;
                for (int p = 0; p < prefixes; p++)
                {
                    warm.add(new Expected(id++, 7 + p % 2, shared[p], false, false));
                }
                for (int i = 0; i < o.requests; i++)
                {
                    final int p = random.nextInt(prefixes);
                    final int[] t = concat(shared[p], tokens(random, 1 + random.nextInt(Math.max(1, o.extendTokens))));
                    mixed.add(new Expected(id++, 7 + p % 2, t, roll(random, o.retractRate), roll(random, o.abortRate)));
                }
                phases.add(warm);
                phases.add(mixed);
                break;
            }
        }
        return phases;
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

    private static boolean roll(final SplittableRandom random, final double p)
    {
        return p > 0 && random.nextDouble() < p;
    }
}
