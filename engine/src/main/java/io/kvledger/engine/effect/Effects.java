package io.kvledger.engine.effect;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

/**
 * Typed emitters over the engine's reusable {@link EffectList}. Every structure that changes state (pools,
 * tree, operation table, state machine) records the change here in the same call that makes it, so the effect
 * list of an input is the exact, ordered account of what the input changed. Engine thread only; allocation-free.
 */
public final class Effects
{
    private final EffectList list;

    /**
     * @param list the reusable list effects are appended to.
     */
    public Effects(final EffectList list)
    {
        this.list = list;
    }

    public EffectList list()
    {
        return list;
    }

    public void nodeInserted(final long node, final long parent, final int pages, final int depthPages)
    {
        final int i = list.add(EffectType.NODE_INSERTED);
        list.id(i, node).owner(i, parent).value1(i, pages).value2(i, depthPages);
    }

    public void nodeSplit(final long node, final long newParent, final int pagesMoved)
    {
        final int i = list.add(EffectType.NODE_SPLIT);
        list.id(i, node).owner(i, newParent).value1(i, pagesMoved);
    }

    public void nodeDeleted(final long node)
    {
        final int i = list.add(EffectType.NODE_DELETED);
        list.id(i, node);
    }

    public void locked(final long node, final Component component, final SlotState holderKind, final long holder,
        final long receipt)
    {
        final int i = list.add(EffectType.LOCKED);
        list.id(i, node).component(i, component).toState(i, holderKind).owner(i, holder).value1(i, receipt);
    }

    public void unlocked(final long node, final Component component, final SlotState holderKind, final long holder,
        final long receipt)
    {
        final int i = list.add(EffectType.UNLOCKED);
        list.id(i, node).component(i, component).toState(i, holderKind).owner(i, holder).value1(i, receipt);
    }

    public void slotTransition(final Pool pool, final int slot, final SlotState from, final SlotState to,
        final long owner, final long previousOwner)
    {
        list.addSlotTransition(pool, slot, from, to, owner, previousOwner);
    }

    public void cursorsReset(final Pool pool, final int slot)
    {
        final int i = list.add(EffectType.CURSORS_RESET);
        list.pool(i, pool).id(i, slot);
    }

    public void cursorsObserved(final Pool pool, final int slot, final long writePos, final long cacheBase,
        final long isFlush)
    {
        final int i = list.add(EffectType.CURSORS_OBSERVED);
        list.pool(i, pool).id(i, slot).value1(i, writePos).value2(i, cacheBase).value3(i, isFlush);
    }

    public void opQueued(final long op, final OpKind kind, final long owner, final int targets, final int pages)
    {
        final int i = list.add(EffectType.OP_QUEUED);
        list.id(i, op).opKind(i, kind).owner(i, owner).value1(i, targets).value2(i, pages);
    }

    public void opTarget(final long op, final Pool pool, final Role role, final int slot)
    {
        final int i = list.add(EffectType.OP_TARGET);
        list.id(i, op).pool(i, pool).role(i, role).value1(i, slot);
    }

    public void opEvent(final EffectType type, final long op, final OpKind kind)
    {
        final int i = list.add(type);
        list.id(i, op).opKind(i, kind);
    }

    public void deferred(final long request, final Reason reason, final int count)
    {
        final int i = list.add(EffectType.DEFERRED);
        list.owner(i, request).reason(i, reason).value1(i, count);
    }

    public void holdDropped(final long request, final Reason reason, final int pages)
    {
        final int i = list.add(EffectType.HOLD_DROPPED);
        list.owner(i, request).reason(i, reason).value1(i, pages);
    }

    public void admitted(final long request, final long loadOp, final int prefixPages, final int loadedPages,
        final long cowOp)
    {
        final int i = list.add(EffectType.ADMITTED);
        list.owner(i, request).id(i, loadOp).value1(i, prefixPages).value2(i, loadedPages).value3(i, cowOp);
    }

    public void rejected(final long request, final Reason reason)
    {
        final int i = list.add(EffectType.REJECTED);
        list.owner(i, request).reason(i, reason);
    }

    public void evicted(final long node, final Component component)
    {
        final int i = list.add(EffectType.EVICTED);
        list.id(i, node).component(i, component);
    }

    public void holdStaged(final long request, final long fetchOp, final int pages, final int firstPage)
    {
        final int i = list.add(EffectType.HOLD_STAGED);
        list.owner(i, request).id(i, fetchOp).value1(i, pages).value2(i, firstPage);
    }

    public void hitParked(final long request, final int pages)
    {
        final int i = list.add(EffectType.HIT_PARKED);
        list.owner(i, request).value1(i, pages);
    }

    public void waited(final long request, final Reason reason)
    {
        final int i = list.add(EffectType.WAITED);
        list.owner(i, request).reason(i, reason);
    }

    public void requestState(final long request, final RequestState from, final RequestState to)
    {
        final int i = list.add(EffectType.REQUEST_STATE);
        list.owner(i, request).requestFrom(i, from).requestTo(i, to);
    }

    public void pagesStored(final long op, final int pages)
    {
        final int i = list.add(EffectType.PAGES_STORED);
        list.id(i, op).value1(i, pages);
    }

    public void reserved(final long request, final int mambaSlots, final int kvPages)
    {
        final int i = list.add(EffectType.RESERVED);
        list.owner(i, request).value1(i, mambaSlots).value2(i, kvPages);
    }

    /**
     * A backup intent that can never fit the host staging was dropped from the backlog.
     *
     * @param node   node whose pages it would have backed up.
     * @param reason why.
     * @param pages  pages it would have moved.
     */
    public void backupDropped(final long node, final Reason reason, final int pages)
    {
        final int i = list.add(EffectType.BACKUP_DROPPED);
        list.id(i, node).reason(i, reason).value1(i, pages);
    }
}
