package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import org.agrona.collections.Long2LongHashMap;

/**
 * Tenants never share a node (part of I3, match soundness): every node belongs to the namespace of the request that
 * inserted it (a split's new parent to its child's), a node inserted under a parent of another namespace or a
 * request lock on another namespace's node is a match across namespaces. Namespaces come from each ARRIVE's
 * {@code value3}; the root belongs to every namespace.
 */
final class NamespaceRule
{
    private static final long ROOT = 0;
    private static final long UNKNOWN = Long.MIN_VALUE;

    private final Long2LongHashMap requestNamespace = new Long2LongHashMap(UNKNOWN);
    private final Long2LongHashMap nodeNamespace = new Long2LongHashMap(UNKNOWN);

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
        final long namespace = requestNamespace.get(request);
        if (namespace == UNKNOWN)
        {
            nodeNamespace.remove(node);
        }
        else
        {
            nodeNamespace.put(node, namespace);
        }
        final long parentNamespace = parent == ROOT ? UNKNOWN : nodeNamespace.get(parent);
        if (namespace != UNKNOWN && parentNamespace != UNKNOWN && parentNamespace != namespace)
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
        final long namespace = nodeNamespace.get(e.id(i));
        if (namespace != UNKNOWN)
        {
            nodeNamespace.put(e.owner(i), namespace);
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
        final long nodeNs = node == ROOT ? UNKNOWN : nodeNamespace.get(node);
        if (namespace != UNKNOWN && nodeNs != UNKNOWN && namespace != nodeNs)
        {
            return "request " + request + " (namespace " + namespace + ") locked node " + node + " of namespace " +
                nodeNs + ": a prefix matched across namespaces";
        }
        return null;
    }
}
