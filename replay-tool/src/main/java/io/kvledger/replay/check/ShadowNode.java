package io.kvledger.replay.check;

/**
 * Folded state of one radix tree node: parent, page run, depth, child count and lock counts. The slots it owns
 * live in the model's owner index. Owned by {@link ShadowModel}.
 */
final class ShadowNode
{
    final long id;
    long parent;
    long pages;
    long depth;
    int children;
    int fullLocks;
    int mambaLocks;
    boolean live;
    long insertedSequence;
    long life;
    HistoryRing history;

    ShadowNode(final long id)
    {
        this.id = id;
    }
}
