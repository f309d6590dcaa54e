package io.kvledger.replay.cli;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.sim.WorkloadKind;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The run's limits follow the streamed workload: a long run is bounded by its journal, not by holding every
 * request's tokens, so {@code kvledger run --requests 200000} (issue 11: ≤ 1 GB resident) is accepted on a heap of
 * 1 GB, while a configuration whose requests in flight cannot fit is still refused.
 */
class RunLimitsTest
{
    private static final long GIB = 1L << 30;

    private static EngineConfig config()
    {
        return EngineConfig.builder().pageSize(64).deviceKvPages(4096).build();
    }

    @Test
    void shouldAcceptTwoHundredThousandRequestsOnAGigabyteHeap()
    {
        assertTrue(RunLimits.MAX_REQUESTS >= 200_000);
        assertDoesNotThrow(() -> RunLimits.checkWorkload(WorkloadKind.PR_BENCH, 200_000, 4096, 512, 64));
        for (final WorkloadKind kind : WorkloadKind.values())
        {
            assertDoesNotThrow(() -> RunLimits.checkMemory(config(), kind, 200_000, 4096, 512,
                RunLimits.HeldStore.NONE, Long.MAX_VALUE, GIB),
                kind.name());
        }
    }

    @Test
    void shouldStillRefuseRequestsInFlightThatCannotFit()
    {
        final CliException refused = assertThrows(CliException.class,
            () -> RunLimits.checkMemory(config(), WorkloadKind.PR_BENCH, 200_000, 1 << 20, 0,
                RunLimits.HeldStore.NONE, Long.MAX_VALUE, GIB));
        assertTrue(refused.getMessage().contains("--requests 200000"), refused.getMessage());
    }

    @Test
    void shouldCountAStoreKeptOnTheHeap()
    {
        // 200,000 pr-bench requests write about 14.8 million pages: 61 GB as a memory store's contents, about
        // 1.1 GB as the simulated store's fingerprints and tags
        final CliException contents = assertThrows(CliException.class, () -> RunLimits.checkMemory(config(),
            WorkloadKind.PR_BENCH, 200_000, 4096, 512, RunLimits.HeldStore.CONTENTS, Long.MAX_VALUE, 64 * GIB));
        assertTrue(contents.getMessage().startsWith("--requests 200000 with --store memory need "),
            contents.getMessage());
        final CliException tags = assertThrows(CliException.class, () -> RunLimits.checkMemory(config(),
            WorkloadKind.PR_BENCH, 200_000, 4096, 512, RunLimits.HeldStore.TAGS, Long.MAX_VALUE, GIB));
        assertTrue(tags.getMessage().startsWith("--requests 200000 with --deterministic need "), tags.getMessage());
        assertDoesNotThrow(() -> RunLimits.checkMemory(config(), WorkloadKind.PR_BENCH, 200_000, 4096, 512,
            RunLimits.HeldStore.TAGS, Long.MAX_VALUE, 4 * GIB));
        assertDoesNotThrow(() -> RunLimits.checkMemory(config(), WorkloadKind.PR_BENCH, 2_000, 4096, 512,
            RunLimits.HeldStore.CONTENTS, Long.MAX_VALUE, GIB), "a small memory-store run still fits");
        assertEquals(200_000L * 74, RunLimits.storedPages(WorkloadKind.PR_BENCH, 200_000, 4096, 512, 64));
        assertEquals(200_000L * 19, RunLimits.storedPages(WorkloadKind.MULTI_TURN, 200_000, 4096, 512, 64),
            "a multi-turn request stores its turn's share of the conversation");
    }

    @Test
    void shouldRefuseMoreRequestsThanTheLimit()
    {
        assertThrows(CliException.class,
            () -> RunLimits.checkWorkload(WorkloadKind.PR_BENCH, RunLimits.MAX_REQUESTS + 1, 4096, 512, 64));
    }
}
