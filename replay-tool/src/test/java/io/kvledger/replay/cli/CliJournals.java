package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.SimulatedPort;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.codec.PrefetchPolicy;

import java.nio.file.Path;

/**
 * Real journals for the command-line tests, written by the deterministic simulation through a
 * {@link JournalWriter}: a clean run and the same run with the retract bug switched on.
 */
final class CliJournals
{
    static final long SEED = 7;

    private CliJournals()
    {
    }

    static EngineConfig config(final FaultSwitch... faults)
    {
        final EngineConfig.Builder builder = EngineConfig.builder().pageSize(16).deviceKvPages(512)
            .deviceMambaSlots(64).hostKvPages(2048).hostMambaSlots(128).maxRequests(256).maxRequestPages(64)
            .maxOps(512).prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE).seed(SEED);
        for (final FaultSwitch fault : faults)
        {
            builder.fault(fault);
        }
        return builder.build();
    }

    static WorkloadOptions workload(final double retractRate)
    {
        final WorkloadOptions options = new WorkloadOptions();
        options.kind = WorkloadKind.PR_BENCH;
        options.requests = 12;
        options.promptTokens = 256;
        options.extendTokens = 64;
        options.seed = SEED;
        options.retractRate = retractRate;
        return options;
    }

    /**
     * Serve a workload and journal every document.
     *
     * @param directory for the new journal.
     * @param label     header label.
     * @param config    engine configuration (fault switches included).
     * @param options   workload.
     * @return the directory.
     */
    static Path write(final Path directory, final String label, final EngineConfig config,
        final WorkloadOptions options)
    {
        final JournalHeader header = config.toHeader(new JournalHeader()).label(label).createdNs(1_000_000L);
        try (JournalWriter writer = JournalWriter.open(directory, header, false))
        {
            final CacheStateMachine engine = new CacheStateMachine(config);
            final SimulatedPort port = new SimulatedPort(engine, (input, result, effects) ->
                writer.append(input, result, effects), SEED, options.failureRate, null);
            new ServingLoop(port, config, Workload.build(options)).run();
        }
        return directory;
    }

    static Path clean(final Path directory)
    {
        return write(directory, "clean", config(), workload(0));
    }

    static Path buggy(final Path directory)
    {
        return write(directory, "retract-bug", config(FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD), workload(0.5));
    }
}
