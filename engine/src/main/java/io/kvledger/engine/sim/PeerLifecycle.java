package io.kvledger.engine.sim;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.SlotState;

/**
 * One request's lifecycle of the peer comparison ({@code shared/peer-traces.md}) served on one engine, each request
 * to completion before the next: {@code ARRIVE} (fingerprints of the full pages), {@code PASS_BEGIN}, {@code ADMIT},
 * {@code PASS_END}, {@code FINISH} (all full pages computed). Attention only, page size 64, no L3; host staging is
 * the minimum (2 pages) so write-through backups never start and the prefetch threshold is never reached so no L3
 * query is issued, as SGLang's plain {@code RadixCache} has neither. Every
 * document goes to a {@link DocumentSink} (a journal writer, or nothing) right after apply, as the engine loop does.
 * <p>
 * Inputs carry their sequence as their time (deterministic). Serving allocates nothing. Single-threaded.
 */
public final class PeerLifecycle
{
    /** Input types of one lifecycle, in order. */
    public static final InputType[] STEPS =
        {InputType.ARRIVE, InputType.PASS_BEGIN, InputType.ADMIT, InputType.PASS_END, InputType.FINISH};

    private static final int MAX_REQUEST_PAGES = 128;

    private final CacheStateMachine engine;
    private final DocumentSink sink;
    private final InputRecord input = new InputRecord(MAX_REQUEST_PAGES);
    private final long[] stepNanos = new long[STEPS.length];
    private long sequence;
    private long hitPages;
    private long evictedPages;

    /**
     * @param config an engine configuration, normally {@link #config(PeerTrace.Kind)}.
     * @param sink   where each applied document goes ({@link DocumentSink#NONE} for the journal off).
     */
    public PeerLifecycle(final EngineConfig config, final DocumentSink sink)
    {
        this.engine = new CacheStateMachine(config);
        this.sink = sink;
    }

    /**
     * The engine configuration of a peer trace: attention only, page size 64, the trace's KV pool.
     *
     * @param kind the trace.
     * @return its configuration.
     */
    public static EngineConfig config(final PeerTrace.Kind kind)
    {
        return EngineConfig.builder().pageSize(PeerTrace.PAGE_SIZE).hybrid(false).deviceKvPages(kind.kvPoolPages())
            .deviceMambaSlots(0).hostKvPages(2).hostMambaSlots(2).maxRequests(16).maxRequestPages(MAX_REQUEST_PAGES)
            .maxOps(64).prefetchThresholdPages(Integer.MAX_VALUE).prefetchPolicy(PrefetchPolicy.BEST_EFFORT)
            .seed(kind.seed).build();
    }

    /** @return the engine served. */
    public CacheStateMachine engine()
    {
        return engine;
    }

    /**
     * Serve one request to completion.
     *
     * @param requestId its id.
     * @param hi        high halves of its page fingerprints.
     * @param lo        low halves.
     * @param pages     full pages.
     * @param tail      tokens after the last full page.
     */
    public void serve(final long requestId, final long[] hi, final long[] lo, final int pages, final int tail)
    {
        arrive(requestId, hi, lo, pages, tail);
        apply();
        Inputs.passBegin(input.reset(), Integer.MAX_VALUE, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4);
        apply();
        Inputs.admit(input.reset(), requestId);
        apply();
        Inputs.passEnd(input.reset());
        apply();
        finish(requestId, pages);
        apply();
    }

    /**
     * Serve one request to completion, timing each input (apply plus the sink) and counting its hit and evicted
     * pages from the effects (outside the timed parts).
     *
     * @param requestId its id.
     * @param hi        high halves of its page fingerprints.
     * @param lo        low halves.
     * @param pages     full pages.
     * @param tail      tokens after the last full page.
     */
    public void serveMeasured(final long requestId, final long[] hi, final long[] lo, final int pages,
        final int tail)
    {
        arrive(requestId, hi, lo, pages, tail);
        timed(0);
        Inputs.passBegin(input.reset(), Integer.MAX_VALUE, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4);
        timed(1);
        Inputs.admit(input.reset(), requestId);
        timed(2);
        count(engine.effects());
        Inputs.passEnd(input.reset());
        timed(3);
        finish(requestId, pages);
        timed(4);
    }

    /**
     * Nanoseconds spent per step by {@link #serveMeasured}, indexed as {@link #STEPS}.
     *
     * @return the live array (reset it to start over).
     */
    public long[] stepNanos()
    {
        return stepNanos;
    }

    /** @return pages found on the device at admission, summed by {@link #serveMeasured}. */
    public long hitPages()
    {
        return hitPages;
    }

    /** @return device KV pages evicted from the tree, summed by {@link #serveMeasured}. */
    public long evictedPages()
    {
        return evictedPages;
    }

    /** @return device KV pages held by the tree now. */
    public long treePages()
    {
        return engine.pool(Pool.DEVICE_KV).count(SlotState.NODE);
    }

    private void arrive(final long requestId, final long[] hi, final long[] lo, final int pages, final int tail)
    {
        Inputs.arrive(input.reset(), requestId, tail, 0, 0).addFingerprints(hi, lo, 0, pages);
    }

    private void finish(final long requestId, final int pages)
    {
        Inputs.finish(input.reset(), requestId, pages, pages, 0, 0, 0);
    }

    private void apply()
    {
        final long s = ++sequence;
        input.sequence(s).timestampNs(s);
        final int result = engine.apply(input);
        sink.append(input, result, engine.effects());
    }

    private void timed(final int step)
    {
        final long start = System.nanoTime();
        apply();
        stepNanos[step] += System.nanoTime() - start;
    }

    private void count(final EffectList effects)
    {
        final short transition = EffectType.SLOT_TRANSITION.value();
        final short admitted = EffectType.ADMITTED.value();
        final short deviceKv = Pool.DEVICE_KV.value();
        final short node = SlotState.NODE.value();
        final short free = SlotState.FREE.value();
        for (int i = 0; i < effects.size(); i++)
        {
            final short type = effects.typeCode(i);
            if (type == admitted)
            {
                hitPages += effects.value1(i);
            }
            else if (type == transition && effects.poolCode(i) == deviceKv && effects.fromStateCode(i) == node &&
                effects.toStateCode(i) == free)
            {
                evictedPages++;
            }
        }
    }
}
