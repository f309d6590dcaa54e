package io.kvledger.engine.tree;

import io.kvledger.engine.effect.Effects;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

/**
 * A tree with its pools and effect list, plus helpers that speak in page symbols: symbol {@code s} has the
 * fingerprint (HI_BASE + s / 2, LO_BASE + s % 2), so symbols 2k and 2k+1 share the high word.
 */
final class TreeFixture
{
    static final long HI_BASE = 0x6A09E667F3BCC908L;
    static final long LO_BASE = 0x3C6EF372FE94F82BL;
    static final long REQUEST = 900;

    final EffectList list = new EffectList(64);
    final Effects effects = new Effects(list);
    final SlotPool kvPool;
    final SlotPool mambaPool;
    final RadixTree tree;
    final MatchResult out = new MatchResult();
    final int[] kvPages = new int[64];
    final int[] canonical = new int[64];
    private final long[] hi = new long[64];
    private final long[] lo = new long[64];

    TreeFixture(final int kvCapacity, final int mambaCapacity, final int maxNodes, final int maxReceipts)
    {
        kvPool = new SlotPool(Pool.DEVICE_KV, kvCapacity, effects);
        mambaPool = new SlotPool(Pool.DEVICE_MAMBA, mambaCapacity, effects);
        tree = new RadixTree(maxNodes, maxReceipts, kvPool, mambaPool, effects);
    }

    static long hi(final int symbol)
    {
        return HI_BASE + (symbol >> 1);
    }

    static long lo(final int symbol)
    {
        return LO_BASE + (symbol & 1);
    }

    static int symbol(final long hi, final long lo)
    {
        return (int)((hi - HI_BASE) << 1 | (lo - LO_BASE));
    }

    void load(final int... symbols)
    {
        for (int i = 0; i < symbols.length; i++)
        {
            hi[i] = hi(symbols[i]);
            lo[i] = lo(symbols[i]);
        }
    }

    long[] hi()
    {
        return hi;
    }

    long[] lo()
    {
        return lo;
    }

    void match(final boolean includeLoading, final int... symbols)
    {
        load(symbols);
        tree.match(hi, lo, 0, symbols.length, includeLoading, out);
    }

    /**
     * Insert a sequence the way the engine does: pages the tree lacks come from the KV pool as REQUEST pages,
     * unused ones are freed again.
     *
     * @return the insert's result code; {@link #out} holds the result.
     */
    int insert(final long sequence, final int... symbols)
    {
        load(symbols);
        tree.match(hi, lo, 0, symbols.length, false, out);
        final int cached = out.pages;
        for (int i = 0; i < symbols.length; i++)
        {
            kvPages[i] = i < cached ? -1 : kvPool.allocate(SlotState.REQUEST, REQUEST);
            if (i >= cached && kvPages[i] < 0)
            {
                throw new IllegalStateException("KV pool exhausted in a test");
            }
        }
        final int result = tree.insert(hi, lo, 0, symbols.length, kvPages, canonical, sequence, out);
        for (int i = cached; i < symbols.length; i++)
        {
            if (SlotState.REQUEST == kvPool.state(kvPages[i]))
            {
                kvPool.transition(kvPages[i], SlotState.FREE, -1);
            }
        }
        return result;
    }

    /** Insert and return the node ending at the sequence's end. */
    int node(final long sequence, final int... symbols)
    {
        final int result = insert(sequence, symbols);
        if (ResultCode.OK != result)
        {
            throw new IllegalStateException("insert failed: " + ResultCode.name(result));
        }
        return out.node;
    }

    int[] pageSymbols(final int node)
    {
        final int[] symbols = new int[tree.pageCount(node)];
        int page = tree.firstPage(node);
        for (int i = 0; i < symbols.length; i++)
        {
            symbols[i] = symbol(tree.pageHi(page), tree.pageLo(page));
            page = tree.nextPage(page);
        }
        return symbols;
    }

    int[] pageIds(final int node)
    {
        final int[] pages = new int[tree.pageCount(node)];
        int page = tree.firstPage(node);
        for (int i = 0; i < pages.length; i++)
        {
            pages[i] = page;
            page = tree.nextPage(page);
        }
        return pages;
    }

    void verify()
    {
        kvPool.verify();
        mambaPool.verify();
        tree.verify();
    }
}
