package io.kvledger.bench;

import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * What an {@code ARRIVE} pays to match a prompt the tree holds: {@link #CONVERSATIONS} conversations of
 * {@code turns} turns of {@code pagesPerTurn} pages, inserted turn by turn and conversation after conversation as
 * the multi-turn trace does (so each conversation's path is {@code turns} nodes and its pages' ids are scattered
 * over the pool), then one full-length match per conversation per operation. {@code turns = 1, pagesPerTurn = 64} is
 * pr-bench round 2's hit (one 64-page node); {@code turns = 8, pagesPerTurn = 8} is multi-turn's turn 7. Reported per
 * match.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"})
public class TreeMatchBenchmark
{
    private static final int CONVERSATIONS = 256;

    @Param({"1:64", "8:8"})
    public String shape;

    private RadixTree tree;
    private long[][] hi;
    private long[][] lo;
    private int length;
    private final MatchResult out = new MatchResult();

    /** Build the tree and check that every conversation matches in full. */
    @Setup
    public void build()
    {
        final int turns = Integer.parseInt(shape.substring(0, shape.indexOf(':')));
        final int perTurn = Integer.parseInt(shape.substring(shape.indexOf(':') + 1));
        length = turns * perTurn;
        final EffectList list = new EffectList(1 << 12);
        final Effects effects = new Effects(list);
        final SlotPool kvPool = new SlotPool(Pool.DEVICE_KV, CONVERSATIONS * length, effects);
        tree = new RadixTree(CONVERSATIONS * turns + 1, 16, kvPool, null, effects);
        final SplittableRandom random = new SplittableRandom(42);
        hi = new long[CONVERSATIONS][length];
        lo = new long[CONVERSATIONS][length];
        for (int c = 0; c < CONVERSATIONS; c++)
        {
            for (int i = 0; i < length; i++)
            {
                hi[c][i] = random.nextLong();
                lo[c][i] = random.nextLong();
            }
        }
        final int[] kvPages = new int[length];
        final int[] canonical = new int[length];
        long sequence = 1;
        for (int t = 1; t <= turns; t++)
        {
            for (int c = 0; c < CONVERSATIONS; c++)
            {
                list.clear();
                final int count = t * perTurn;
                for (int i = (t - 1) * perTurn; i < count; i++)
                {
                    kvPages[i] = kvPool.allocate(SlotState.REQUEST, c);
                }
                if (0 != tree.insert(hi[c], lo[c], 0, count, kvPages, canonical, sequence++, out))
                {
                    throw new IllegalStateException("insert refused");
                }
            }
        }
        for (int c = 0; c < CONVERSATIONS; c++)
        {
            tree.match(hi[c], lo[c], 0, length, false, out);
            if (out.pages != length)
            {
                throw new IllegalStateException("conversation " + c + " matched " + out.pages + " of " + length);
            }
        }
    }

    /**
     * @return pages matched over every conversation (reported per match).
     */
    @Benchmark
    @OperationsPerInvocation(CONVERSATIONS)
    public int matchEveryConversation()
    {
        int pages = 0;
        for (int c = 0; c < CONVERSATIONS; c++)
        {
            tree.match(hi[c], lo[c], 0, length, false, out);
            pages += out.pages;
        }
        return pages;
    }
}
