package io.kvledger.engine.runtime;

import io.kvledger.engine.OpTable;
import io.kvledger.engine.device.CopyBatch;
import io.kvledger.engine.device.DeviceBackend;
import io.kvledger.engine.store.FetchPlan;
import io.kvledger.engine.store.L3Store;
import io.kvledger.engine.store.WritePlan;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;

/**
 * Hands launched operations to the data plane: copies to the device backend, existence queries, fetches and
 * writes to the L3 store. Runs on the engine thread after the document that launched them was journaled, and
 * reads the op's moves from the engine's op table (still valid at that point). Allocation-free: batches and
 * plans are claimed from the backends' pools.
 */
final class Dispatcher
{
    private static final byte HOST_KV = 2;
    private static final byte HOST_MAMBA = 3;

    private final DeviceBackend device;
    private final L3Store store;
    private final long[] keyHi;
    private final long[] keyLo;
    long dispatched;
    long movedBytes;
    private final int kvPageBytes;
    private final int mambaStateBytes;

    Dispatcher(final DeviceBackend device, final L3Store store, final int maxMoves, final int kvPageBytes,
        final int mambaStateBytes)
    {
        this.device = device;
        this.store = store;
        keyHi = new long[maxMoves];
        keyLo = new long[maxMoves];
        this.kvPageBytes = kvPageBytes;
        this.mambaStateBytes = mambaStateBytes;
    }

    /**
     * Launch one op the engine launched, read from its op table.
     *
     * @param opId the op's id.
     * @param ops  the engine's op table.
     */
    void launch(final long opId, final OpTable ops)
    {
        final int o = ops.slotOf(opId);
        if (o >= 0)
        {
            launch(ops, o);
        }
    }

    private void launch(final OpTable ops, final int o)
    {
        final long op = ops.id(o);
        final OpKind kind = ops.kind(o);
        final int moves = ops.moveCount(o);
        dispatched++;
        switch (kind)
        {
            case QUERY:
            {
                for (int m = 0; m < moves; m++)
                {
                    keyHi[m] = ops.keyHi(o, m);
                    keyLo[m] = ops.keyLo(o, m);
                }
                store.query(op, keyHi, keyLo, 0, moves);
                break;
            }
            case FETCH:
            {
                final FetchPlan plan = store.claimFetch();
                for (int m = 0; m < moves; m++)
                {
                    if (ops.dstPool(o, m) == HOST_MAMBA)
                    {
                        plan.mamba(ops.keyHi(o, m), ops.keyLo(o, m), ops.dstSlot(o, m));
                    }
                    else
                    {
                        plan.page(ops.keyHi(o, m), ops.keyLo(o, m), ops.dstSlot(o, m));
                    }
                    movedBytes += ops.dstPool(o, m) == HOST_MAMBA ? mambaStateBytes : kvPageBytes;
                }
                store.fetch(op, plan);
                break;
            }
            case STORE:
            {
                final WritePlan plan = store.claimWrite();
                for (int m = 0; m < moves; m++)
                {
                    if (ops.srcPool(o, m) == HOST_MAMBA)
                    {
                        plan.mamba(ops.keyHi(o, m), ops.keyLo(o, m), ops.srcSlot(o, m));
                    }
                    else if (ops.srcPool(o, m) == HOST_KV)
                    {
                        plan.page(ops.keyHi(o, m), ops.keyLo(o, m), ops.srcSlot(o, m));
                    }
                    movedBytes += ops.srcPool(o, m) == HOST_MAMBA ? mambaStateBytes : kvPageBytes;
                }
                store.write(op, plan);
                break;
            }
            default:
            {
                final CopyBatch batch = device.claimBatch();
                for (int m = 0; m < moves; m++)
                {
                    batch.add(Pool.get(ops.srcPool(o, m)), ops.srcSlot(o, m), Pool.get(ops.dstPool(o, m)),
                        ops.dstSlot(o, m));
                    final byte dst = ops.dstPool(o, m);
                    movedBytes += dst == HOST_MAMBA || dst == 1 ? mambaStateBytes : kvPageBytes;
                }
                device.submit(op, batch);
                break;
            }
        }
    }
}
