package io.kvledger.engine;

import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import org.junit.jupiter.api.Test;

import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The embedder's guards behind the command line's checks: each names the field, before anything is allocated. */
class ConfigLimitsTest
{
    @Test
    void shouldRefuseAnOpTableThatCannotBeOneArrayAndANegativePrefetchTimeout()
    {
        assertEquals("maxOps * (maxRequestPages + 4) must fit one array (the op table's moves): 262144 * 10004",
            assertThrows(IllegalArgumentException.class,
                () -> EngineConfig.builder().maxOps(262_144).maxRequestPages(10_000).build()).getMessage());
        // more pages than one journal document records a staged admission of (DocumentEffectLimitTest)
        assertEquals("maxRequestPages must be <= 10240 (a staged admission records 5 effects a page and one " +
            "journal document holds 65534)", assertThrows(IllegalArgumentException.class,
                () -> EngineConfig.builder().maxRequestPages(65_535).build()).getMessage());
        assertEquals("prefetchTimeoutNs must be >= 0", assertThrows(IllegalArgumentException.class,
            () -> EngineConfig.builder().prefetchTimeoutNs(-1).build()).getMessage());
    }

    @Test
    void shouldRefuseWorkloadOptionsOutOfRangeBeforeBuildingAnything()
    {
        assertRefused(o -> o.requests = 0, "requests must be >= 1: 0");
        assertRefused(o -> o.promptTokens = -1, "promptTokens must be >= 1: -1");
        assertRefused(o -> o.extendTokens = -5, "extendTokens must be >= 0: -5");
        assertRefused(o -> o.turns = 0, "turns must be >= 1: 0");
        assertRefused(o -> o.retractRate = Double.NaN, "retractRate must be in [0, 1]: NaN");
        assertRefused(o -> o.abortRate = 1.5, "abortRate must be in [0, 1]: 1.5");
        assertRefused(o -> o.failureRate = -0.1, "failureRate must be in [0, 1]: -0.1");
    }

    @Test
    void shouldNameTheSmallestPromptThatHoldsAPagePerRequest()
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.kind = WorkloadKind.PR_BENCH;
        assertEquals(64, o.minPromptTokens(64));
        o.kind = WorkloadKind.MULTI_TURN;
        assertEquals(256, o.minPromptTokens(64), "the first of 4 turns holds a quarter of the prompt");
        o.kind = WorkloadKind.RANDOM;
        assertEquals(128, o.minPromptTokens(64), "shared prefixes are at least half a prompt");
    }

    private static void assertRefused(final Consumer<WorkloadOptions> change, final String message)
    {
        final WorkloadOptions o = new WorkloadOptions();
        o.requests = 2;
        change.accept(o);
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> Workload.build(o)).getMessage());
    }
}
