package io.kvledger.engine.counters;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves the counters file in the Prometheus text format on {@code http://127.0.0.1:PORT/metrics}, with the JDK's
 * own HTTP server on daemon threads made as requests need them (idle ones end after a minute): the JDK server reads
 * a request on the thread that answers it, so with a single thread one client that sent only part of its request
 * would hold every later scrape for as long as its connection stayed open. It reads the mapped file like any other
 * reader, so the engine thread does no extra work for a scrape. Bound to the loopback address only: exposing it
 * further is a deployment choice (a reverse proxy, or a Prometheus agent on the same host).
 */
public final class MetricsServer implements AutoCloseable
{
    /** The path served. */
    public static final String PATH = "/metrics";

    private final HttpServer server;
    private final ExecutorService executor;
    private CountersReader reader;

    private MetricsServer(final HttpServer server, final ExecutorService executor)
    {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Start serving.
     *
     * @param port   TCP port on 127.0.0.1; 0 picks a free one (see {@link #port()}).
     * @param reader the counters to serve.
     * @return the running server.
     * @throws IllegalArgumentException when the port cannot be bound.
     */
    public static MetricsServer start(final int port, final CountersReader reader)
    {
        return bind(port).serve(reader);
    }

    /**
     * Bind the port without serving yet, so that a controller can refuse a busy port before it creates anything;
     * {@link #serve} starts serving, {@link #close} gives the port back.
     *
     * @param port TCP port on 127.0.0.1; 0 picks a free one (see {@link #port()}).
     * @return the bound server, not serving.
     * @throws IllegalArgumentException when the port cannot be bound.
     */
    public static MetricsServer bind(final int port)
    {
        final HttpServer server;
        try
        {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot serve metrics on 127.0.0.1:" + port + ": " + ex.getMessage(),
                ex);
        }
        final ExecutorService executor = Executors.newCachedThreadPool(runnable ->
        {
            final Thread t = new Thread(runnable, "kvledger-metrics");
            t.setDaemon(true);
            return t;
        });
        return new MetricsServer(server, executor);
    }

    /**
     * Start serving a bound server; once only.
     *
     * @param counters the counters to serve.
     * @return this.
     */
    public MetricsServer serve(final CountersReader counters)
    {
        if (null != reader)
        {
            throw new IllegalStateException("metrics already served");
        }
        reader = counters;
        server.createContext(PATH, this::handle);
        server.setExecutor(executor);
        server.start();
        return this;
    }

    /** @return the bound port. */
    public int port()
    {
        return server.getAddress().getPort();
    }

    private void handle(final HttpExchange exchange) throws IOException
    {
        try (exchange)
        {
            // the path first: a method is refused (405) only on the one resource there is
            if (!PATH.equals(exchange.getRequestURI().getPath()))
            {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod()))
            {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            final byte[] body = PrometheusText.format(CountersSnapshot.read(reader)).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", PrometheusText.CONTENT_TYPE);
            if ("HEAD".equals(exchange.getRequestMethod()))
            {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody())
            {
                out.write(body);
            }
        }
    }

    /** Stop serving (a scrape in progress may finish). */
    @Override
    public void close()
    {
        server.stop(0);
        executor.shutdownNow();
    }
}
