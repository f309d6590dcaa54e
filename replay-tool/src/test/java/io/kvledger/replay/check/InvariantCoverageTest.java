package io.kvledger.replay.check;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@link Invariant} has its {@link InvariantCoverage} row ({@code check --invariants} lists them all, so an
 * invariant added without one would break that listing), and the per-level counts add up to all of them.
 */
class InvariantCoverageTest
{
    @Test
    void shouldHaveARowForEveryInvariant()
    {
        for (final Invariant invariant : Invariant.values())
        {
            final InvariantCoverage.Row row = InvariantCoverage.of(invariant);
            assertNotNull(row, invariant + " has no InvariantCoverage row");
            assertNotNull(row.level(), invariant.name());
            assertFalse(row.how().isBlank(), invariant + " does not say how it is checked");
        }
    }

    @Test
    void shouldCountEveryInvariantOnce()
    {
        int total = 0;
        for (final InvariantCoverage.Level level : InvariantCoverage.Level.values())
        {
            total += InvariantCoverage.count(level);
        }
        assertEquals(Invariant.values().length, total);
    }

    @Test
    void shouldNameTheInvariantsOfALevel()
    {
        assertEquals("none", InvariantCoverage.names(InvariantCoverage.Level.NOT_CHECKED));
        assertTrue(InvariantCoverage.names(InvariantCoverage.Level.PARTIAL).contains("I20"));
        assertEquals("none", InvariantCoverage.names(InvariantCoverage.Level.ENGINE_VERIFY));
    }
}
