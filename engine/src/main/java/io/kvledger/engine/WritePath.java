package io.kvledger.engine;

import io.kvledger.engine.effect.EngineBugException;
import io.kvledger.engine.effect.ResultCode;

import io.kvledger.engine.util.Hashing;
import io.kvledger.engine.slot.SlotPool;
import io.kvledger.engine.tree.MatchResult;
import io.kvledger.engine.tree.RadixTree;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.SlotState;

/**
 * The write path: CHUNK and FINISH cache what a request computed (insert its pages, move its lock to the node it
 * cached, checkpoint its state), then back the new pages up to host staging and on to L3 (BACKUP, then STORE at the
 * backup's ack). Owns the backup backlog: a FIFO of intents waiting for host staging.
 * <p>
 * Decisions:
 * <ul>
 * <li>Chunk and Finish of a request whose own load or copy is not yet acked are refused (REQUEST_STATE): the
 * server reports progress only after the forward that waited for that data.</li>
 * <li>Only pages new to the tree are backed up; a backup that can never fit the host staging is dropped
 * (BACKUP_DROPPED) rather than blocking the backlog.</li>
 * </ul>
 */
final class WritePath extends Flow
{
    /** Backup backlog (a ring): node to back up and the first page not yet backed up. */
    private final int[] backlogNode;
    private final int[] backlogFrom;
    /** The incarnation of each backlog node, so an entry whose node was deleted and its id reused is dropped. */
    private final long[] backlogIncarnation;
    private int backlogHead;
    private int backlogCount;

    /** A backup's moves (host slot and L3 key), kept aside while its storage write is queued. */
    private final byte[] movePool;
    private final int[] moveSlot;
    private final long[] moveHi;
    private final long[] moveLo;

    private final SlotPool kvPool;
    private final MatchResult scratchMatch;
    private final int[] pageScratch;
    private final int[] canonicalScratch;
    private ReadPath read;
    private OpCompletion completion;
    private RequestLifecycle lifecycle;

    /**
     * @param state the state holder shared with the other flows.
     */
    WritePath(final ApplyState state)
    {
        super(state);
        kvPool = state.kvPool;
        scratchMatch = state.scratchMatch;
        pageScratch = state.pageScratch;
        canonicalScratch = state.canonicalScratch;
        backlogNode = new int[state.config.maxNodes()];
        backlogFrom = new int[state.config.maxNodes()];
        backlogIncarnation = new long[state.config.maxNodes()];
        final int maxMoves = state.ops.maxMoves();
        movePool = new byte[maxMoves];
        moveSlot = new int[maxMoves];
        moveHi = new long[maxMoves];
        moveLo = new long[maxMoves];
    }

    /** Wire the flows this one hands work to (once, at construction of the state machine). */
    void wire(final ReadPath read, final OpCompletion completion, final RequestLifecycle lifecycle)
    {
        this.read = read;
        this.completion = completion;
        this.lifecycle = lifecycle;
    }

    @Override
    void register(final InputHandlers handlers)
    {
        handlers.on(InputType.CHUNK, this::onChunk);
        handlers.on(InputType.FINISH, this::onFinish);
    }

    int onChunk(final InputRecord in)
    {
        return onCache(in, false);
    }

    int onFinish(final InputRecord in)
    {
        return onCache(in, true);
    }

    private int onCache(final InputRecord in, final boolean finish)
    {
        final int r = requests.slotOf(in.request());
        if (r == NONE)
        {
            return ResultCode.UNKNOWN_REQUEST;
        }
        final RequestState current = requests.state[r];
        if ((current != RequestState.ADMITTED && current != RequestState.RUNNING) ||
            requests.loadOp[r] != NONE || requests.cowOp[r] != NONE)
        {
            return ResultCode.REQUEST_STATE;
        }
        final long computed = Inputs.computedPages(in);
        final long tracked = Inputs.trackedPages(in);
        if (computed < 0 || computed > requests.pages[r] || tracked < 0 || tracked > computed)
        {
            return ResultCode.BAD_REQUEST_SIZE;
        }
        final long requestId = requests.id[r];
        if (current == RequestState.ADMITTED)
        {
            state.setState(r, RequestState.RUNNING);
        }
        int length = (int)computed;
        for (final TreeComponent c : components)
        {
            length = Math.min(length, c.cacheLength(r, (int)computed, (int)tracked));
        }
        int node = NONE;
        int before = requests.cachedPages[r];
        if (length > before)
        {
            node = insertRequestPages(r, length);
            if (!config.fault(FaultSwitch.BACKUP_CACHED_PAGES))
            {
                // Only pages new to the tree are backed up: what it already held (another request's pages, or
                // this one's own earlier chunks) is stored, or on its way, through the backup of whoever put it there.
                before = Math.max(before, scratchMatch.existingPages);
            }
        }
        if (node != NONE)
        {
            // The request's lock moves to the node it just cached, so nothing it caches can be evicted under it.
            final long receipt = tree.acquire(node, Component.FULL, SlotState.REQUEST, requestId);
            state.unlockRequest(r);
            requests.lockedNode[r] = node;
            requests.lockedIncarnation[r] = tree.incarnation(node);
            requests.lockReceipt[r] = receipt;
        }
        for (final TreeComponent c : components)
        {
            c.cache(r, node != NONE && tree.depth(node) == length ? node : NONE, finish,
                Inputs.writePos(in), Inputs.cacheBase(in), Inputs.isFlush(in));
        }
        if (node != NONE)
        {
            requestBackup(node, before);
        }
        if (finish)
        {
            freeOwnPages(r, requests.cachedPages[r]);
            final int lockedNode = requests.lockedNode[r];
            final long receipt = requests.lockReceipt[r];
            state.unlockRequest(r);
            if (config.fault(FaultSwitch.UNLOCK_TWICE_ON_FINISH) && receipt != NONE)
            {
                tree.unlockAgain(receipt, lockedNode, Component.FULL, SlotState.REQUEST, requestId);
            }
            state.running--;
            lifecycle.finishRequest(r, RequestState.FINISHED);
            counters.finished++;
        }
        return ResultCode.OK;
    }

    /**
     * Insert the request's pages up to {@code length}; duplicates of pages already cached are freed and the
     * request continues on the canonical pages.
     * <p>
     * The insert walks from the node the request holds its FULL lock on ({@link RadixTree#insertFrom}), not from the
     * root, so its cost follows the pages past that node. The node was on the request's path when the lock was
     * taken (the admission's base or loaded prefix node, or the node a chunk cached), its incarnation is kept with
     * it, and the request's page ids up to its depth are the tree's ids of that path (the admission copies them from
     * the tree, each chunk sets them to the canonical ids): they are the canonical ids the tree does not write.
     *
     * @return the node ending at the cached length, or -1 when nothing could be inserted.
     */
    private int insertRequestPages(final int r, final int length)
    {
        final int off = requests.offset(r);
        System.arraycopy(requests.pageIds, off, pageScratch, 0, length);
        System.arraycopy(requests.pageIds, off, canonicalScratch, 0, length);
        if (state.crossCheckWalks)
        {
            state.checkLockedPath(r);
        }
        final int code = tree.insertFrom(requests.lockedNode[r], requests.lockedIncarnation[r], requests.fpHi,
            requests.fpLo, off, length, pageScratch, canonicalScratch, state.sequence, scratchMatch);
        if (code == ResultCode.NODE_POOL_EXHAUSTED)
        {
            counters.insertsRefused++;
            return NONE;
        }
        EngineBugException.check(code, "insert of the pages computed by request", requests.id[r], length);
        final int inserted = scratchMatch.pages;
        for (int i = 0; i < inserted; i++)
        {
            final int own = requests.pageIds[off + i];
            final int canonical = canonicalScratch[i];
            if (own != canonical)
            {
                if (own != NONE && kvPool.state(own) == SlotState.REQUEST && kvPool.owner(own) == requests.id[r])
                {
                    kvPool.move(own, SlotState.FREE, NONE);
                    counters.dedupedPages++;
                }
                requests.pageIds[off + i] = canonical;
            }
        }
        requests.cachedPages[r] = Math.max(requests.cachedPages[r], inserted);
        return inserted > 0 ? scratchMatch.node : NONE;
    }

    /** Free the request's own KV pages from {@code from} on (not cacheable: no state can resume them). */
    private void freeOwnPages(final int r, final int from)
    {
        final int off = requests.offset(r);
        final long requestId = requests.id[r];
        for (int i = from; i < requests.validPages[r]; i++)
        {
            final int page = requests.pageIds[off + i];
            if (page != NONE && kvPool.state(page) == SlotState.REQUEST && kvPool.owner(page) == requestId)
            {
                kvPool.move(page, SlotState.FREE, NONE);
            }
        }
        requests.validPages[r] = Math.min(requests.validPages[r], from);
    }

    /**
     * Queue the backup of what a request just cached (pages [from, end of node)) and write what staging allows.
     * Intents wait in a FIFO while host staging, past its loads margin, cannot take the head one (head-of-line,
     * as SGLang's pending write queue); a node evicted or shrunk below {@code from} before its turn is dropped.
     */
    private void requestBackup(final int node, final int from)
    {
        if (tree.depth(node) <= from)
        {
            return;
        }
        if (backlogCount == backlogNode.length)
        {
            counters.backupsSkipped++;
            return;
        }
        final int tail = (backlogHead + backlogCount) % backlogNode.length;
        backlogNode[tail] = node;
        backlogFrom[tail] = from;
        backlogIncarnation[tail] = tree.incarnation(node);
        backlogCount++;
        flushBackups();
    }

    void flushBackups()
    {
        while (backlogCount > 0)
        {
            final int node = backlogNode[backlogHead];
            final int from = backlogFrom[backlogHead];
            if (!tree.live(node) || tree.incarnation(node) != backlogIncarnation[backlogHead] ||
                tree.depth(node) <= from)
            {
                popBacklog();
                counters.backupsSkipped++;
                continue;
            }
            final int pages = tree.depth(node) - from;
            if (ops.full())
            {
                return;
            }
            if (!config.fault(FaultSwitch.OVERSIZE_BACKUP_BLOCKS) && neverFits(node, pages))
            {
                // It can never start, whatever frees up: drop it (the domain's oversize write intent) so the backlog
                // moves on instead of blocking every later backup behind it.
                popBacklog();
                effects.backupDropped(node, Reason.STAGING_TOO_SMALL, pages);
                counters.backupsDropped++;
                continue;
            }
            for (final TreeComponent c : components)
            {
                if (c.stagingFree(true) < c.backupStagingNeeded(node, pages))
                {
                    return;
                }
            }
            if (!state.documentHolds(pages))
            {
                return;
            }
            popBacklog();
            startBackup(node, from);
        }
    }

    private boolean neverFits(final int node, final int pages)
    {
        for (final TreeComponent c : components)
        {
            if (c.backupStagingNeeded(node, pages) > c.stagingLimit(true))
            {
                return true;
            }
        }
        return false;
    }

    private void popBacklog()
    {
        backlogHead = (backlogHead + 1) % backlogNode.length;
        backlogCount--;
    }

    /** The D2H copy of pages [from, end of node) into host staging; it holds a lock on the node until its ack. */
    private void startBackup(final int node, final int from)
    {
        // The components read the path's page ids from `from` on only (KV: [from, depth); Mamba: the last one).
        final int depth = tree.collectPagesFrom(node, from, pageScratch);
        final int o = ops.add(OpKind.BACKUP, node);
        final long opId = ops.id[o];
        ops.pagesMoved[o] = depth - from;
        for (final TreeComponent c : components)
        {
            c.backup(o, node, pageScratch, from, depth);
        }
        ops.node[o] = node;
        ops.receipt[o] = tree.acquire(node, Component.FULL, SlotState.OP, opId);
        state.recordQueued(o, node);
        ops.advance(o, OpTable.LAUNCHED);
        counters.backups++;
    }

    void onBackupAck(final int o, final boolean ok)
    {
        ops.complete(o, ok);
        state.unlockOp(o);
        if (!ok)
        {
            completion.releaseOpSlots(o);
            ops.remove(o);
            read.drainParkedHits();
            return;
        }
        // The staging now feeds the storage write: host slot -> L3 key. The backup's moves are kept aside first:
        // when the op table is full the backup gives its own slot back before the store takes one (the store used
        // to be skipped then, its pages never written and nothing journaled to say so).
        final long owner = ops.request[o];
        final int pages = ops.pagesMoved[o];
        final int moves = ops.moveCount[o];
        for (int m = 0; m < moves; m++)
        {
            movePool[m] = ops.dstPool(o, m);
            moveSlot[m] = ops.dstSlot(o, m);
            moveHi[m] = ops.keyHi(o, m);
            moveLo[m] = ops.keyLo(o, m);
        }
        final boolean removedFirst = ops.full();
        if (removedFirst)
        {
            ops.remove(o);
        }
        final int s = ops.add(OpKind.STORE, owner);
        final long storeId = ops.id[s];
        ops.pagesMoved[s] = pages;
        for (int m = 0; m < moves; m++)
        {
            state.poolOf(movePool[m]).move(moveSlot[m], SlotState.OP, storeId);
            ops.addMove(s, movePool[m], moveSlot[m], OpTable.L3, NONE, moveHi[m], moveLo[m]);
        }
        if (!removedFirst)
        {
            ops.remove(o);
        }
        state.recordQueued(s, owner);
        ops.advance(s, OpTable.LAUNCHED);
    }

    /** @return backups waiting for host staging. */
    int backlogCount()
    {
        return backlogCount;
    }

    /**
     * Mix the backlog, head first, into a state hash.
     *
     * @param hash the hash so far.
     * @return the hash with the backlog mixed in.
     */
    long hashBacklog(final long hash)
    {
        long h = hash;
        for (int i = 0; i < backlogCount; i++)
        {
            final int b = (backlogHead + i) % backlogNode.length;
            h = Hashing.mixGamma(h ^ backlogNode[b] ^ ((long)backlogFrom[b] << 32) ^ (backlogIncarnation[b] << 48));
        }
        return h;
    }
}
