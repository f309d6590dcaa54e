package io.kvledger.replay.check;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.InputType;
import org.junit.jupiter.api.Test;

import static io.kvledger.journal.codec.SlotState.REQUEST;
import static io.kvledger.replay.check.CheckAssertions.assertFirst;
import static io.kvledger.replay.check.Scenarios.NODE1;
import static io.kvledger.replay.check.Scenarios.R2;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bug/clean twins for the namespace rule (part of I3): a request may lock a node of its own namespace, never one of
 * another tenant's.
 */
class NamespaceCheckTest
{
    private static long lockByAnotherRequest(final JournalFixture f, final long namespace)
    {
        f.doc(InputType.ARRIVE).request(R2).namespace(namespace);
        return f.doc(InputType.TICK).locked(NODE1, Component.FULL, REQUEST, R2, 77)
            .unlocked(NODE1, Component.FULL, REQUEST, R2, 77).sequence();
    }

    @Test
    void shouldReportARequestLockingANodeOfAnotherNamespace()
    {
        final JournalFixture f = Scenarios.fullPath();
        final long lock = lockByAnotherRequest(f, 9);
        final Violation first = assertFirst(f.check(), Invariant.I3, lock, "node:" + NODE1);
        assertTrue(first.explanation().contains("across namespaces"), first.explanation());
    }

    @Test
    void shouldAcceptALockOfTheSameNamespace()
    {
        final JournalFixture f = Scenarios.fullPath();
        lockByAnotherRequest(f, 0);
        assertTrue(f.check().violations().isEmpty(), () -> f.check().violations().toString());
    }

    /** Any 64-bit value is a namespace: Long.MIN_VALUE (the rule's own "not known") is checked like any other. */
    @Test
    void shouldCheckTheNamespaceLongMinValueLikeAnyOther()
    {
        final JournalFixture f = Scenarios.fullPath();
        final long lock = lockByAnotherRequest(f, Long.MIN_VALUE);
        final Violation first = assertFirst(f.check(), Invariant.I3, lock, "node:" + NODE1);
        assertTrue(first.explanation().contains("namespace " + Long.MIN_VALUE), first.explanation());
    }
}
