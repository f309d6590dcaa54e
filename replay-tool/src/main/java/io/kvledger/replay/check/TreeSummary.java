package io.kvledger.replay.check;

/**
 * Shape of the shadow radix tree.
 *
 * @param nodeCount      live nodes, the root included.
 * @param maxDepthPages  deepest node end, in pages.
 * @param leaves         live non-root nodes without children.
 * @param nodesWithMamba nodes owning a device Mamba slot (checkpoints).
 * @param lockedNodes    non-root nodes with a FULL or MAMBA lock count above zero.
 * @param receipts       lock receipts currently held.
 */
public record TreeSummary(int nodeCount, long maxDepthPages, int leaves, int nodesWithMamba, int lockedNodes,
    int receipts)
{
}
