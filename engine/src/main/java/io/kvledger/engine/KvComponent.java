package io.kvledger.engine;

import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.journal.JournalFrame;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.SlotState;

/**
 * The FULL attention component: device KV pages, one per tree page, staged page by page through host memory.
 * The tree's page runs are this component's data, so insertion itself stays in the pipeline; this class decides
 * how many pages an admission needs, allocates them (evicting LRU leaves first) and stages and loads them.
 * <p>
 * Under admission rules 2 a request whose prompt ends in a partial page also gets a device KV page for that tail,
 * as SGLang's paged allocator gives one to every extend token: the page is the request's while it runs, is never
 * cached (the tree holds full pages only) and is freed when the request finishes, aborts, is retracted or its load
 * fails. Rules 1 journals replay without it. Engine thread only.
 */
final class KvComponent implements TreeComponent
{
    private static final int NONE = -1;
    private static final byte DEVICE_KV = 0;
    private static final byte HOST_KV = 2;

    private final RadixTree tree;
    private final SlotPool kvPool;
    private final SlotPool hostPool;
    private final RequestTable requests;
    private final OpTable ops;
    private final boolean ignoreOpLocks;
    private final boolean tailPages;

    KvComponent(final EngineConfig config, final RadixTree tree, final SlotPool kvPool, final SlotPool hostPool,
        final RequestTable requests, final OpTable ops, final boolean ignoreOpLocks)
    {
        this.tree = tree;
        this.kvPool = kvPool;
        this.hostPool = hostPool;
        this.requests = requests;
        this.ops = ops;
        this.ignoreOpLocks = ignoreOpLocks;
        this.tailPages = config.rules().tailPages();
    }

    /** Pages the request's tail needs: one under rules 2 when its prompt ends in a partial page. */
    private int tailNeed(final int request)
    {
        return tailPages && requests.tailTokens[request] > 0 ? 1 : 0;
    }

    private void freeTailPage(final int request)
    {
        final int page = requests.tailPage[request];
        if (page != NONE && kvPool.state(page) == SlotState.REQUEST && kvPool.owner(page) == requests.id[request])
        {
            kvPool.move(page, SlotState.FREE, NONE);
        }
        requests.tailPage[request] = NONE;
    }

    @Override
    public Component component()
    {
        return Component.FULL;
    }

    @Override
    public void validate(final EngineConfig config)
    {
        if (config.hostKvPages() < 2)
        {
            throw new IllegalArgumentException("buffer-only host mode needs at least 2 host KV staging pages " +
                "(one for writes, one reserved for loads), got " + config.hostKvPages());
        }
    }

    @Override
    public int usablePrefix(final MatchResult match)
    {
        return match.pages;
    }

    @Override
    public int usableHit(final int presentPages, final int statePages)
    {
        return presentPages;
    }

    @Override
    public int stagingNeeded(final int hitPages)
    {
        return hitPages;
    }

    @Override
    public SlotPool hostPool()
    {
        return hostPool;
    }

    @Override
    public void stage(final int opSlot, final int request, final int hitStart, final int hitPages)
    {
        final long opId = ops.id(opSlot);
        final int off = requests.offset(request);
        for (int i = hitStart; i < hitStart + hitPages; i++)
        {
            final int slot = hostPool.take(SlotState.OP, opId);
            ops.addMove(opSlot, OpTable.L3, NONE, HOST_KV, slot, requests.fpHi[off + i], requests.fpLo[off + i]);
        }
    }

    @Override
    public void pin(final AdmissionPlan plan)
    {
    }

    @Override
    public void unpin(final AdmissionPlan plan)
    {
    }

    @Override
    public int gateNeed(final AdmissionPlan plan)
    {
        return plan.loadPages + plan.computePages + tailNeed(plan.request);
    }

    @Override
    public int gateAvailable()
    {
        return kvPool.freeCount() + tree.evictablePages();
    }

    @Override
    public Reason gateReason()
    {
        return Reason.ALLOCATION;
    }

    @Override
    public boolean allocate(final AdmissionPlan plan)
    {
        final int need = plan.loadPages + plan.computePages + tailNeed(plan.request);
        if (kvPool.freeCount() < need)
        {
            // Only what this input's document can record next to the admission's own effects (5 a page at most):
            // EngineConfig.MAX_REQUEST_PAGES leaves room for at least one node as large as a request.
            tree.evictPages(need - kvPool.freeCount(), ignoreOpLocks, JournalFrame.MAX_GROUP_COUNT -
                EngineConfig.EFFECTS_PER_REQUEST_PAGE * need - EngineConfig.EFFECTS_PER_INPUT);
        }
        if (kvPool.freeCount() < need)
        {
            plan.documentFull = kvPool.freeCount() + tree.evictablePages() >= need;
            return false;
        }
        final int off = requests.offset(plan.request);
        final int pages = requests.pages[plan.request];
        final int from = plan.hasHold ? plan.loadStart : plan.prefixPages;
        for (int i = from; i < pages; i++)
        {
            requests.pageIds[off + i] = kvPool.take(SlotState.REQUEST, plan.requestId);
        }
        if (tailNeed(plan.request) > 0)
        {
            requests.tailPage[plan.request] = kvPool.take(SlotState.REQUEST, plan.requestId);
        }
        return true;
    }

    @Override
    public void undoAllocate(final AdmissionPlan plan)
    {
        final int off = requests.offset(plan.request);
        final int pages = requests.pages[plan.request];
        final int from = plan.hasHold ? plan.loadStart : plan.prefixPages;
        for (int i = from; i < pages; i++)
        {
            kvPool.move(requests.pageIds[off + i], SlotState.FREE, NONE);
            requests.pageIds[off + i] = NONE;
        }
        freeTailPage(plan.request);
    }

    @Override
    public void commitLoad(final AdmissionPlan plan)
    {
        final int r = plan.request;
        final int off = requests.offset(r);
        final int hoff = requests.holdOffset(r);
        for (int i = plan.loadStart; i < plan.holdEnd; i++)
        {
            final int hostSlot = requests.holdSlot[hoff + (i - plan.holdStart)];
            ops.addMove(plan.loadOpSlot, HOST_KV, hostSlot, DEVICE_KV, requests.pageIds[off + i],
                requests.fpHi[off + i], requests.fpLo[off + i]);
        }
    }

    @Override
    public void commitCompute(final AdmissionPlan plan)
    {
    }

    @Override
    public int cacheLength(final int request, final int computedPages, final int trackedPages)
    {
        return computedPages;
    }

    @Override
    public void cache(final int request, final int node, final boolean finish, final long cursor1,
        final long cursor2, final long cursor3)
    {
        if (finish)
        {
            freeTailPage(request);
        }
    }

    @Override
    public void observe(final int request, final long cursor1, final long cursor2, final long cursor3)
    {
    }

    @Override
    public void release(final int request, final boolean abort)
    {
        final int off = requests.offset(request);
        final long requestId = requests.id[request];
        for (int i = 0; i < requests.validPages[request]; i++)
        {
            final int page = requests.pageIds[off + i];
            if (page != NONE && kvPool.state(page) == SlotState.REQUEST && kvPool.owner(page) == requestId)
            {
                kvPool.move(page, SlotState.FREE, NONE);
            }
        }
        freeTailPage(request);
    }

    @Override
    public void backup(final int opSlot, final int node, final int[] pathPages, final int from, final int to)
    {
        final long opId = ops.id(opSlot);
        for (int i = from; i < to; i++)
        {
            final int page = pathPages[i];
            final int hostSlot = hostPool.take(SlotState.OP, opId);
            ops.addMove(opSlot, DEVICE_KV, page, HOST_KV, hostSlot, tree.pageHi(page), tree.pageLo(page));
        }
    }

    @Override
    public int requestSlot(final int request, final boolean tracking)
    {
        return NONE;
    }

    @Override
    public int backupStagingNeeded(final int node, final int pages)
    {
        return pages;
    }

    @Override
    public void opDone(final int opSlot, final boolean ok)
    {
    }

    @Override
    public void verify(final RequestTable table)
    {
        for (int r = 0; r < table.capacity(); r++)
        {
            if (!table.live(r))
            {
                continue;
            }
            final int off = table.offset(r);
            for (int i = 0; i < table.validPages[r]; i++)
            {
                final int page = table.pageIds[off + i];
                final SlotState state = page == NONE ? SlotState.FREE : kvPool.state(page);
                if (state != SlotState.REQUEST && state != SlotState.NODE)
                {
                    throw new IllegalStateException("I12 request " + table.id[r] + " page " + i +
                        " uses device KV page " + page + " in state " + state);
                }
            }
            final int tail = table.tailPage[r];
            if (tail != NONE && (kvPool.state(tail) != SlotState.REQUEST || kvPool.owner(tail) != table.id[r]))
            {
                throw new IllegalStateException("I12 request " + table.id[r] + " tail page " + tail + " is " +
                    kvPool.state(tail) + " owned by " + kvPool.owner(tail));
            }
        }
    }

    @Override
    public long stateHash()
    {
        return 0;
    }
}
