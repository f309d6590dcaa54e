package io.kvledger.engine.counters;

import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the endpoint answers besides a scrape: a path other than {@code /metrics} is 404 whatever the method (no
 * such resource), a method other than GET or HEAD on {@code /metrics} is 405 with {@code Allow}, HEAD is the
 * scrape's status and Content-Type without a body.
 */
class MetricsServerTest
{
    @Test
    void shouldAnswer404ForAnyOtherPathAnd405OnlyForTheMetricsPath(@TempDir final Path dir) throws Exception
    {
        final CountersFile file = CountersFile.create(dir.resolve(CountersFile.FILE_NAME));
        final CountersManager manager = file.manager();
        manager.allocate(KvCounter.INPUTS.label(), KvCounter.INPUTS.typeId());
        file.markReady();
        try (MetricsServer server = MetricsServer.start(0, file.reader()))
        {
            final HttpClient http = HttpClient.newHttpClient();
            final String base = "http://127.0.0.1:" + server.port();
            assertEquals(404, send(http, "POST", base + "/metrics/other").statusCode(), "no such resource");
            assertEquals(404, send(http, "DELETE", base + "/metricsx").statusCode(), "no such resource");
            assertEquals(404, send(http, "GET", base + "/metrics/").statusCode());
            final HttpResponse<String> post = send(http, "POST", base + "/metrics");
            assertEquals(405, post.statusCode());
            assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElse(""));
            final HttpResponse<String> head = send(http, "HEAD", base + "/metrics");
            assertEquals(200, head.statusCode());
            assertEquals(PrometheusText.CONTENT_TYPE, head.headers().firstValue("Content-Type").orElse(""));
            assertEquals("", head.body());
            final HttpResponse<String> get = send(http, "GET", base + "/metrics");
            assertEquals(200, get.statusCode());
            assertTrue(get.body().contains("\nkvledger_inputs_total 0\n"), get.body());
        }
    }

    /**
     * A client that sent only part of its request (a stuck or suspended scraper, a probe) holds the thread that
     * reads it; another scrape is still answered. Before, the server had one thread: every later scrape waited
     * behind the stuck one for as long as its connection stayed open (the request below then timed out instead of
     * getting its 200; the timeout only keeps the test from hanging).
     */
    @Test
    void shouldAnswerAScrapeWhileAnotherClientHasSentOnlyPartOfItsRequest(@TempDir final Path dir) throws Exception
    {
        final CountersFile file = CountersFile.create(dir.resolve(CountersFile.FILE_NAME));
        file.manager().allocate(KvCounter.INPUTS.label(), KvCounter.INPUTS.typeId());
        file.markReady();
        try (MetricsServer server = MetricsServer.start(0, file.reader());
            Socket stuck = new Socket(InetAddress.getLoopbackAddress(), server.port()))
        {
            final OutputStream partial = stuck.getOutputStream();
            partial.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
            partial.flush();

            final HttpResponse<String> get = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/metrics")).timeout(Duration.ofMinutes(1)).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, get.statusCode());
            assertTrue(get.body().contains("\nkvledger_inputs_total 0\n"), get.body());
        }
    }

    private static HttpResponse<String> send(final HttpClient http, final String method, final String uri)
        throws Exception
    {
        return http.send(HttpRequest.newBuilder(URI.create(uri)).method(method, HttpRequest.BodyPublishers.noBody())
            .build(), HttpResponse.BodyHandlers.ofString());
    }
}
