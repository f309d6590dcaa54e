package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;

import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Namespaces are the engine's business (issue 9, part 4): two tenants that pass the very same fingerprints never
 * share a node, whatever the caller did (or did not) salt.
 */
class NamespaceIsolationTest
{
    private static Driver withCachedPages(final long namespace)
    {
        final Driver d = new Driver(EngineConfig.builder().pageSize(4).deviceKvPages(128).deviceMambaSlots(16)
            .hostKvPages(64).hostMambaSlots(4).maxRequests(8).maxRequestPages(16).maxOps(64)
            .prefetchThresholdPages(1).build(), true);
        final long query = d.arrive(1, 9, 8, namespace);
        d.storageHit(query, 0, 0);
        d.passBegin();
        d.admit(1);
        d.passEnd();
        assertEquals(ResultCode.OK, d.finish(1, 8, 0, 0, 0));
        return d;
    }

    @Test
    void shouldNotMatchPagesOfAnotherNamespace()
    {
        final Driver d = withCachedPages(1);
        final long query = d.arrive(2, 9, 8, 2);
        assertEquals(8, d.last.value2(indexOf(d, EffectType.OP_QUEUED)), "all 8 pages are new to namespace 2");
        d.storageHit(query, 0, 0);
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(0, d.admittedPrefix(), "nothing of namespace 1 is matched");
    }

    @Test
    void shouldMatchPagesOfTheSameNamespace()
    {
        final Driver d = withCachedPages(7);
        final long query = d.arrive(2, 9, 8, 7);
        assertEquals(-1, query, "the whole prompt is on the device: no L3 query");
        d.passBegin();
        assertEquals(ResultCode.OK, d.admit(2));
        assertEquals(8, d.admittedPrefix());
    }

    @Test
    void shouldKeepTheDefaultNamespaceApartFromOthers()
    {
        final Driver d = withCachedPages(0);
        d.arrive(2, 9, 8, 3);
        assertEquals(OpKind.QUERY, d.last.opKind(indexOf(d, EffectType.OP_QUEUED)));
        assertEquals(8, d.last.value2(indexOf(d, EffectType.OP_QUEUED)));
    }

    private static int indexOf(final Driver d, final EffectType type)
    {
        for (int i = 0; i < d.last.size(); i++)
        {
            if (d.last.type(i) == type)
            {
                return i;
            }
        }
        throw new AssertionError("no " + type + " in the last input");
    }
}
