package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds a synthetic journal by hand (header plus documents of input, result code and effects) and feeds it to
 * listeners, for checker tests.
 */
final class JournalFixture
{
    static final Pool KV = Pool.DEVICE_KV;
    static final Pool MAMBA = Pool.DEVICE_MAMBA;
    static final Pool HOST_KV = Pool.HOST_KV;
    static final Pool HOST_MAMBA = Pool.HOST_MAMBA;

    /** One target of an op. */
    record Target(Pool pool, Role role, int slot)
    {
    }

    static Target read(final Pool pool, final int slot)
    {
        return new Target(pool, Role.READ, slot);
    }

    static Target write(final Pool pool, final int slot)
    {
        return new Target(pool, Role.WRITE, slot);
    }

    /** One document under construction. */
    final class Doc
    {
        final InputRecord input = new InputRecord(4);
        final EffectList effects = new EffectList(8);
        int result;

        /**
         * The input's request; an ARRIVE document opens with the request's creation (REQUEST_STATE none to
         * WAITING), as the engine journals it.
         */
        Doc request(final long request)
        {
            input.request(request);
            if (input.type() == InputType.ARRIVE && effects.size() == 0)
            {
                state(request, RequestState.NULL_VAL, RequestState.WAITING);
            }
            return this;
        }

        /** An ARRIVE of the request without its creation effect (the journal lost it). */
        Doc arrivedWithoutState(final long request)
        {
            input.request(request);
            return this;
        }

        Doc namespace(final long namespace)
        {
            input.value3(namespace);
            return this;
        }

        /** A STORAGE_HIT whose L3 query failed (value3 = 1). */
        Doc queryFailed()
        {
            input.value3(1);
            return this;
        }

        Doc evictPages(final long pages)
        {
            input.value1(pages);
            return this;
        }

        Doc op(final long op)
        {
            input.op(op);
            return this;
        }

        Doc ok(final boolean ok)
        {
            input.ok(ok);
            return this;
        }

        Doc result(final int result)
        {
            this.result = result;
            return this;
        }

        Doc transition(final Pool pool, final int slot, final SlotState from, final long fromOwner,
            final SlotState to, final long toOwner)
        {
            final int i = effects.add(EffectType.SLOT_TRANSITION);
            effects.pool(i, pool).id(i, slot).fromState(i, from).toState(i, to).owner(i, toOwner)
                .value1(i, fromOwner);
            return this;
        }

        Doc alloc(final Pool pool, final int slot, final SlotState to, final long owner)
        {
            return transition(pool, slot, SlotState.FREE, -1, to, owner);
        }

        Doc free(final Pool pool, final int slot, final SlotState from, final long owner)
        {
            return transition(pool, slot, from, owner, SlotState.FREE, -1);
        }

        Doc queued(final long op, final OpKind kind, final long owner, final Target... targets)
        {
            // value2 is the pages the op moves, as the engine writes it: the KV pages it writes.
            int pages = 0;
            for (final Target target : targets)
            {
                final boolean kv = target.pool() == Pool.DEVICE_KV || target.pool() == Pool.HOST_KV;
                pages += kv && target.role() == Role.WRITE ? 1 : 0;
            }
            final int i = effects.add(EffectType.OP_QUEUED);
            effects.id(i, op).opKind(i, kind).owner(i, owner).value1(i, targets.length).value2(i, pages);
            for (final Target target : targets)
            {
                final int t = effects.add(EffectType.OP_TARGET);
                effects.id(t, op).pool(t, target.pool()).role(t, target.role()).value1(t, target.slot());
            }
            return this;
        }

        Doc opEvent(final EffectType type, final long op, final OpKind kind)
        {
            final int i = effects.add(type);
            effects.id(i, op).opKind(i, kind);
            return this;
        }

        Doc launched(final long op, final OpKind kind)
        {
            return opEvent(EffectType.OP_LAUNCHED, op, kind);
        }

        Doc acked(final long op, final OpKind kind)
        {
            return opEvent(EffectType.OP_ACKED, op, kind);
        }

        Doc cancelled(final long op, final OpKind kind)
        {
            return opEvent(EffectType.OP_CANCELLED, op, kind);
        }

        Doc inserted(final long node, final long parent, final int pages, final int depth)
        {
            final int i = effects.add(EffectType.NODE_INSERTED);
            effects.id(i, node).owner(i, parent).value1(i, pages).value2(i, depth);
            return this;
        }

        Doc split(final long node, final long newParent, final int pages)
        {
            final int i = effects.add(EffectType.NODE_SPLIT);
            effects.id(i, node).owner(i, newParent).value1(i, pages);
            return this;
        }

        Doc deleted(final long node)
        {
            final int i = effects.add(EffectType.NODE_DELETED);
            effects.id(i, node);
            return this;
        }

        Doc evicted(final long node, final Component component)
        {
            final int i = effects.add(EffectType.EVICTED);
            effects.id(i, node).component(i, component);
            return this;
        }

        Doc locked(final long node, final Component component, final SlotState holderKind, final long holder,
            final long receipt)
        {
            final int i = effects.add(EffectType.LOCKED);
            effects.id(i, node).component(i, component).toState(i, holderKind).owner(i, holder).value1(i, receipt);
            return this;
        }

        Doc unlocked(final long node, final Component component, final SlotState holderKind, final long holder,
            final long receipt)
        {
            final int i = effects.add(EffectType.UNLOCKED);
            effects.id(i, node).component(i, component).toState(i, holderKind).owner(i, holder).value1(i, receipt);
            return this;
        }

        Doc reset(final int mambaSlot)
        {
            final int i = effects.add(EffectType.CURSORS_RESET);
            effects.pool(i, MAMBA).id(i, mambaSlot);
            return this;
        }

        Doc observed(final int mambaSlot, final long writePos, final long cacheBase, final long isFlush)
        {
            final int i = effects.add(EffectType.CURSORS_OBSERVED);
            effects.pool(i, MAMBA).id(i, mambaSlot).value1(i, writePos).value2(i, cacheBase).value3(i, isFlush);
            return this;
        }

        Doc state(final long request, final RequestState from, final RequestState to)
        {
            final int i = effects.add(EffectType.REQUEST_STATE);
            effects.owner(i, request).requestFrom(i, from).requestTo(i, to);
            return this;
        }

        Doc reserved(final long request, final int mambaSlots, final int kvPages)
        {
            final int i = effects.add(EffectType.RESERVED);
            effects.owner(i, request).value1(i, mambaSlots).value2(i, kvPages);
            return this;
        }

        Doc admitted(final long request, final long loadOp, final int prefix, final int loaded, final long cowOp)
        {
            final int i = effects.add(EffectType.ADMITTED);
            effects.owner(i, request).id(i, loadOp).value1(i, prefix).value2(i, loaded).value3(i, cowOp);
            return this;
        }

        Doc deferred(final long request, final Reason reason, final int count)
        {
            final int i = effects.add(EffectType.DEFERRED);
            effects.owner(i, request).reason(i, reason).value1(i, count);
            return this;
        }

        Doc dropped(final long request, final Reason reason, final int pages)
        {
            final int i = effects.add(EffectType.HOLD_DROPPED);
            effects.owner(i, request).reason(i, reason).value1(i, pages);
            return this;
        }

        Doc staged(final long request, final long fetchOp, final int pages)
        {
            final int i = effects.add(EffectType.HOLD_STAGED);
            effects.owner(i, request).id(i, fetchOp).value1(i, pages).value2(i, 0);
            return this;
        }

        Doc waited(final long request, final Reason reason)
        {
            final int i = effects.add(EffectType.WAITED);
            effects.owner(i, request).reason(i, reason);
            return this;
        }

        Doc parked(final long request, final int pages)
        {
            final int i = effects.add(EffectType.HIT_PARKED);
            effects.owner(i, request).value1(i, pages);
            return this;
        }

        Doc stored(final long op, final int pages)
        {
            final int i = effects.add(EffectType.PAGES_STORED);
            effects.id(i, op).value1(i, pages);
            return this;
        }

        /**
         * @return the sequence of this document.
         */
        long sequence()
        {
            return input.sequence();
        }
    }

    final JournalHeader header = new JournalHeader().createdNs(1_000).seed(42).pageSize(64).deviceKvPages(16)
        .deviceMambaSlots(8).hostKvPages(16).hostMambaSlots(4).trackingSlots(1).maxStagedDefers(32).hybrid(true)
        .label("fixture");
    private final List<Doc> docs = new ArrayList<>();
    private long timestampNs = 1_000_000;

    /**
     * Start a new document with the next sequence.
     *
     * @param type input type.
     * @return the document.
     */
    Doc doc(final InputType type)
    {
        final Doc doc = new Doc();
        doc.input.type(type).sequence(docs.size() + 1).timestampNs(timestampNs);
        timestampNs += 1_000_000;
        docs.add(doc);
        return doc;
    }

    /**
     * @return sequence of the last document added.
     */
    long last()
    {
        return docs.size();
    }

    void feed(final JournalListener listener)
    {
        final JournalPosition position = new JournalPosition();
        listener.onHeader(header, position.set(0, 0, 0));
        long ordinal = 1;
        for (final Doc doc : docs)
        {
            listener.onDocument(doc.input, doc.result, doc.effects, position.set(0, ordinal, ordinal));
            ordinal++;
        }
    }

    InvariantChecker check()
    {
        final InvariantChecker checker = new InvariantChecker();
        feed(checker);
        return checker;
    }
}
