package io.kvledger.bench;

import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What an {@code ADMIT} pays to learn how many KV pages eviction could free, as the tree grows: the count the tree
 * keeps ({@link RadixTree#evictablePages}) against the full walk it replaced ({@link RadixTree#countEvictablePages},
 * which is the old implementation). The tree holds {@code nodes} leaves of 4 pages under one shared 8-page prefix,
 * every 8th leaf locked.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"})
public class EvictableCountBenchmark
{
    private static final int PREFIX_PAGES = 8;
    private static final int LEAF_PAGES = 4;

    @Param({"200", "1600"})
    public int nodes;

    private RadixTree tree;

    /**
     * Build the tree of {@code nodes} leaves under the shared prefix, lock every 8th leaf and check that the kept
     * count equals the full walk's.
     */
    @Setup
    public void build()
    {
        final int pages = PREFIX_PAGES + nodes * LEAF_PAGES;
        final EffectList list = new EffectList(1024);
        final Effects effects = new Effects(list);
        final SlotPool kvPool = new SlotPool(Pool.DEVICE_KV, pages, effects);
        tree = new RadixTree(nodes + 2, nodes, kvPool, null, effects);
        final int length = PREFIX_PAGES + LEAF_PAGES;
        final long[] hi = new long[length];
        final long[] lo = new long[length];
        final int[] kvPages = new int[length];
        final int[] canonical = new int[length];
        final MatchResult out = new MatchResult();
        for (int leaf = 0; leaf < nodes; leaf++)
        {
            for (int i = 0; i < length; i++)
            {
                hi[i] = i < PREFIX_PAGES ? i : 1_000_000L + leaf;
                lo[i] = i < PREFIX_PAGES ? 0 : i;
            }
            tree.match(hi, lo, 0, length, false, out);
            for (int i = 0; i < length; i++)
            {
                kvPages[i] = i < out.pages ? -1 : kvPool.allocate(SlotState.REQUEST, 1);
            }
            tree.insert(hi, lo, 0, length, kvPages, canonical, leaf + 1, out);
            if (0 == leaf % 8)
            {
                tree.lock(out.node, Component.FULL, SlotState.REQUEST, leaf);
            }
            list.clear();
        }
        if (tree.evictablePages() != tree.countEvictablePages())
        {
            throw new IllegalStateException("kept count differs from the recount");
        }
    }

    /** @return the kept count. */
    @Benchmark
    public int keptCount()
    {
        return tree.evictablePages();
    }

    /** @return the full walk's count (the implementation before the kept count). */
    @Benchmark
    public int fullWalk()
    {
        return tree.countEvictablePages();
    }
}
