package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongHashSet;

/**
 * Tenants never share a node (part of I3, match soundness): every node belongs to the namespace of the request that
 * inserted it (a split's new parent to its child's), a node inserted under a parent of another namespace or a
 * request lock on another namespace's node is a match across namespaces. Namespaces come from each ARRIVE's
 * {@code value3}; the root belongs to every namespace. Any 64-bit value is a namespace ({@code Long.MIN_VALUE}
 * included: {@link NamespaceMap} keeps it apart from "not known").
 */
final class NamespaceRule
{
    private static final long ROOT = 0;
    private static final long UNKNOWN = Long.MIN_VALUE;

    private final NamespaceMap requestNamespace = new NamespaceMap();
    private final NamespaceMap nodeNamespace = new NamespaceMap();

    void reset()
    {
        requestNamespace.clear();
        nodeNamespace.clear();
    }

    void arrive(final long request, final long namespace)
    {
        requestNamespace.put(request, namespace);
    }

    /**
     * @param e       effects.
     * @param i       a NODE_INSERTED.
     * @param request the request of the document that inserted it.
     * @return a finding's explanation, or null.
     */
    String inserted(final EffectList e, final int i, final long request)
    {
        final long node = e.id(i);
        final long parent = e.owner(i);
        final boolean known = requestNamespace.contains(request);
        final long namespace = requestNamespace.get(request);
        if (!known)
        {
            nodeNamespace.remove(node);
        }
        else
        {
            nodeNamespace.put(node, namespace);
        }
        final long parentNamespace = nodeNamespace.get(parent);
        if (known && parent != ROOT && nodeNamespace.contains(parent) && parentNamespace != namespace)
        {
            return "node " + node + " of request " + request + " (namespace " + namespace + ") was inserted under " +
                "node " + parent + " of namespace " + parentNamespace + ": a prefix matched across namespaces";
        }
        return null;
    }

    /**
     * @param e effects.
     * @param i a NODE_SPLIT: the new parent takes its child's namespace.
     */
    void split(final EffectList e, final int i)
    {
        if (nodeNamespace.contains(e.id(i)))
        {
            nodeNamespace.put(e.owner(i), nodeNamespace.get(e.id(i)));
        }
    }

    /**
     * @param node    node a request locks.
     * @param request the request.
     * @return a finding's explanation, or null.
     */
    String requestLocked(final long node, final long request)
    {
        final long namespace = requestNamespace.get(request);
        final long nodeNs = nodeNamespace.get(node);
        if (requestNamespace.contains(request) && node != ROOT && nodeNamespace.contains(node) && namespace != nodeNs)
        {
            return "request " + request + " (namespace " + namespace + ") locked node " + node + " of namespace " +
                nodeNs + ": a prefix matched across namespaces";
        }
        return null;
    }

    /**
     * Ids to namespaces over the whole 64-bit range: {@link Long2LongHashMap} cannot hold its missing value, so ids
     * whose namespace is {@link #UNKNOWN} ({@code Long.MIN_VALUE}) are kept in a set of their own.
     */
    private static final class NamespaceMap
    {
        private final Long2LongHashMap values = new Long2LongHashMap(UNKNOWN);
        private final LongHashSet minValueIds = new LongHashSet();

        void put(final long id, final long namespace)
        {
            if (namespace == UNKNOWN)
            {
                values.remove(id);
                minValueIds.add(id);
            }
            else
            {
                minValueIds.remove(id);
                values.put(id, namespace);
            }
        }

        boolean contains(final long id)
        {
            return values.containsKey(id) || minValueIds.contains(id);
        }

        /** @return the id's namespace; {@link #UNKNOWN} also when it has none ({@link #contains} tells). */
        long get(final long id)
        {
            return values.get(id);
        }

        void remove(final long id)
        {
            values.remove(id);
            minValueIds.remove(id);
        }

        void clear()
        {
            values.clear();
            minValueIds.clear();
        }
    }
}
