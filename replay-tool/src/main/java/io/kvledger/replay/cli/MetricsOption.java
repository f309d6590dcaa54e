package io.kvledger.replay.cli;

import io.kvledger.engine.runtime.KvLedgerOptions;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Checks {@code --metrics-port} and sets it on the runtime options: a TCP port from 0 (a free one) to 65535, for a
 * live run only (a deterministic run has no engine loop to watch). A port that cannot be listened on is refused
 * here, before the journal is created, not once the run has made a header-only journal.
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
     * @throws CliException for a port out of range, in use, or a deterministic run.
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
        // Port 0 is resolved here to the free port the probe got, so the run can say where it serves.
        options.metricsPort = probe(port);
    }

    /** Listen on 127.0.0.1:port for a moment, as the metrics server will; port 0 asks for a free one. */
    private static int probe(final int port)
    {
        try (ServerSocket socket = new ServerSocket())
        {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new CliException("--metrics-port " + port + ": cannot listen on 127.0.0.1:" + port + ": " +
                ex.getMessage(), ex);
        }
    }
}
