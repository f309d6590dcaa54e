package io.kvledger.engine.store;

/**
 * The store's internal copy of a query's fingerprints, so the caller may reuse its arrays as soon as
 * {@link L3Store#query(long, long[], long[], int, int)} returns.
 */
final class QueryPlan extends StorePlan
{
    QueryPlan(final Object owner, final int capacity)
    {
        super(owner, QUERY, capacity, 0, 0);
    }
}
