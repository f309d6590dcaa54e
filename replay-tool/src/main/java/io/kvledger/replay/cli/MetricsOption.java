package io.kvledger.replay.cli;

import io.kvledger.engine.runtime.KvLedgerOptions;

/**
 * Checks {@code --metrics-port} and sets it on the runtime options: a TCP port from 0 (a free one) to 65535, for a
 * live run only (a deterministic run has no engine loop to watch).
 */
final class MetricsOption
{
    private MetricsOption()
    {
    }

    /**
     * @param options       the runtime options to set.
     * @param port          the port given, or null when the option was not.
     * @param deterministic whether the run is simulated in one thread.
     * @throws CliException for a port out of range or a deterministic run.
     */
    static void apply(final KvLedgerOptions options, final Integer port, final boolean deterministic)
    {
        if (null == port)
        {
            return;
        }
        if (port < 0 || port > 65_535)
        {
            throw new CliException("--metrics-port must be a TCP port from 0 to 65535, not " + port);
        }
        if (deterministic)
        {
            throw new CliException("--metrics-port needs a live run; --deterministic has no engine loop to serve");
        }
        options.metricsPort = port;
    }
}
