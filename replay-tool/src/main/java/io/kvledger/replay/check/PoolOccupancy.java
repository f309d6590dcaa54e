package io.kvledger.replay.check;

/**
 * How one pool's slots are held at a point of the journal. {@code free + request + node + op + pending ==
 * capacity} always holds in the shadow model.
 *
 * @param pool     pool name.
 * @param capacity slots in the pool (from the journal header).
 * @param free     FREE slots.
 * @param request  slots owned by requests.
 * @param node     slots owned by tree nodes.
 * @param op       slots owned by in-flight operations.
 * @param pending  PENDING_FREE slots.
 */
public record PoolOccupancy(String pool, int capacity, int free, int request, int node, int op, int pending)
{
}
