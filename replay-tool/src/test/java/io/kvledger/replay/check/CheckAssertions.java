package io.kvledger.replay.check;

import io.kvledger.replay.report.CheckReport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Assertions over a checker's outcome that print the full report when they fail.
 */
final class CheckAssertions
{
    private CheckAssertions()
    {
    }

    static void assertClean(final InvariantChecker checker)
    {
        if (!checker.clean())
        {
            fail("expected a clean journal:\n" + CheckReport.of(checker).toText());
        }
    }

    /**
     * The first violation is the expected one.
     */
    static Violation assertFirst(final InvariantChecker checker, final Invariant invariant, final long sequence,
        final String subject)
    {
        final String report = CheckReport.of(checker).toText();
        assertTrue(checker.firstViolation().isPresent(), "expected a violation, got a clean journal");
        final Violation first = checker.firstViolation().get();
        assertEquals(invariant, first.invariant(), report);
        assertEquals(sequence, first.documentSequence(), report);
        assertEquals(subject, first.subject(), report);
        return first;
    }

    /**
     * Every violation names the invariant.
     */
    static void assertOnly(final InvariantChecker checker, final Invariant invariant)
    {
        final String report = CheckReport.of(checker).toText();
        for (final Violation violation : checker.violations())
        {
            assertEquals(invariant, violation.invariant(), report);
        }
    }
}
