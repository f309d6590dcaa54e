package io.kvledger.engine.runtime;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.EngineCounters;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.counters.CountersFile;
import io.kvledger.engine.counters.CountersPublisher;
import io.kvledger.engine.counters.CountersSnapshot;
import io.kvledger.engine.counters.EngineState;
import io.kvledger.engine.counters.KvCounter;
import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.store.MemoryL3Store;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The live counters of a real controller: the counters file read while it runs and after it closed, the
 * Prometheus endpoint scraped over HTTP and its text parsed, and the failed state after a fail-stop.
 */
class LiveCountersTest
{
    private static final Pattern SAMPLE =
        Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\"\\})? (-?[0-9.eE+]+)");

    @Test
    void shouldServeTheCountersOverHttpWhileRunningAndPublishTheFinalValuesAtClose(@TempDir final Path dir)
        throws Exception
    {
        final EngineConfig config = LiveRuntimeTest.config().build();
        final KvLedgerOptions options = LiveRuntimeTest.options(dir, config, true);
        options.store = KvLedgerOptions.StoreKind.MEMORY;
        options.metricsPort = 0;
        final KvLedger ledger = KvLedger.open(options);
        final CountersReader reader = CountersFile.openReadOnly(options.journalDir).reader();
        final Map<String, Double> scraped;
        final CountersSnapshot live;
        try
        {
            new ServingLoop(ledger.session(), config,
                Workload.build(LiveRuntimeTest.workload(WorkloadKind.PR_BENCH, 200))).run();

            live = CountersSnapshot.read(reader);
            assertEquals(EngineState.RUNNING, live.state());
            assertTrue(live.writerAlive());
            assertEquals(ProcessHandle.current().pid(), live.get(KvCounter.PID));
            assertTrue(live.get(KvCounter.INPUTS) > 0 && live.get(KvCounter.INPUTS) <= ledger.loop().appliedSequence(),
                "published inputs " + live.get(KvCounter.INPUTS) + " of " + ledger.loop().appliedSequence());
            assertEquals(config.deviceKvPages(), live.get(KvCounter.DEVICE_KV_CAPACITY));
            assertEquals(options.ringSize, live.get(KvCounter.RING_CAPACITY));
            assertTrue(live.get(KvCounter.ADMITTED) > 0);

            assertTrue(ledger.metricsPort() > 0);
            final HttpClient http = HttpClient.newHttpClient();
            final HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + ledger.metricsPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertTrue(response.headers().firstValue("Content-Type").orElse("")
                .startsWith("text/plain; version=0.0.4"));
            scraped = parseExposition(response.body());
            final HttpResponse<String> missing = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + ledger.metricsPort() + "/other")).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(404, missing.statusCode());
        }
        finally
        {
            ledger.close();
        }

        assertEquals(1.0, scraped.get("kvledger_engine_state"));
        assertEquals((double)config.deviceKvPages(), scraped.get("kvledger_pool_capacity{pool=\"device_kv\"}"));
        assertEquals((double)config.hostKvPages(), scraped.get("kvledger_pool_capacity{pool=\"host_kv\"}"));
        assertTrue(scraped.containsKey("kvledger_pool_used{pool=\"device_mamba\"}"));
        final double inputs = scraped.get("kvledger_inputs_total");
        assertTrue(inputs >= live.get(KvCounter.INPUTS), "a later scrape never goes back");
        final double queries = scraped.get("kvledger_prefix_cache_queries_total");
        final double hits = scraped.get("kvledger_prefix_cache_hits_total");
        assertEquals(0.0, queries % config.pageSize(), "queries are whole pages of tokens");
        assertTrue(queries > 0 && hits <= queries);
        assertEquals(hits / queries, scraped.get("kvledger_prefix_cache_hit_rate"), 1e-6);

        final CountersSnapshot last = CountersSnapshot.read(reader);
        assertEquals(EngineState.STOPPED, last.state());
        assertFalse(last.writerAlive());
        assertTrue(last.get(KvCounter.STOP_TIME_MS) >= last.get(KvCounter.START_TIME_MS));
        assertTrue(last.stateText().equals("stopped"), last.stateText());
        final EngineCounters c = ledger.engine().counters();
        assertEquals(c.inputs, last.get(KvCounter.INPUTS));
        assertEquals(ledger.loop().appliedSequence(), last.get(KvCounter.INPUTS));
        assertEquals(c.inputs, last.get(KvCounter.JOURNAL_DOCUMENTS), "the journal thread appended every input");
        assertEquals(0, last.get(KvCounter.JOURNAL_LAG), "and nothing is left behind at close");
        assertTrue(last.get(KvCounter.JOURNAL_BYTES) > c.inputs * 32);
        assertEquals(c.effects, last.get(KvCounter.EFFECTS));
        assertEquals(c.admitted, last.get(KvCounter.ADMITTED));
        assertEquals(c.admittedPages, last.get(KvCounter.PREFIX_QUERY_PAGES));
        assertEquals(c.prefixPages, last.get(KvCounter.PREFIX_HIT_PAGES));
        assertEquals(c.loadedPages, last.get(KvCounter.L3_HIT_PAGES));
        assertEquals(c.defers, last.get(KvCounter.DEFERS));
        assertEquals(c.finished, last.get(KvCounter.FINISHED));
        assertEquals(c.inputs(InputType.ARRIVE), last.get(KvCounter.ARRIVALS));
        assertEquals(ledger.engine().pool(Pool.DEVICE_KV).capacity() -
            ledger.engine().pool(Pool.DEVICE_KV).freeCount(), last.get(KvCounter.DEVICE_KV_USED));
        assertEquals(ledger.engine().inFlightOps(), last.get(KvCounter.OPS_IN_FLIGHT));
        assertEquals(ledger.device().completedBatches(), last.get(KvCounter.DEVICE_BATCHES));
        assertEquals(ledger.device().failedBatches(), last.get(KvCounter.DEVICE_ERRORS));
    }

    @Test
    void shouldPublishTheFailedStateWhenTheLoopFailStops(@TempDir final Path dir)
    {
        final EngineConfig config = EngineConfig.builder().pageSize(4).deviceKvPages(64).deviceMambaSlots(8)
            .hostKvPages(16).hostMambaSlots(4).maxRequests(8).maxRequestPages(8).maxOps(32).build();
        final DocumentSink failing = (in, result, effects) ->
        {
            if (in.sequence() == 3)
            {
                throw new IllegalStateException("disk full");
            }
        };
        final HostDeviceBackend device = new HostDeviceBackend(new DeviceConfig().deviceKvPages(64)
            .deviceMambaSlots(8).hostKvPages(16).hostMambaSlots(4));
        final MemoryL3Store store = new MemoryL3Store(device);
        final CacheStateMachine engine = new CacheStateMachine(config);
        final EngineLoop loop = new EngineLoop(engine, failing, null, device, store, 64, WaitStrategyKind.BLOCKING, 16);
        final CountersPublisher counters = CountersPublisher.open(dir.resolve(CountersFile.FILE_NAME), engine, null,
            device, store, loop::ringFill, loop.ringCapacity(), loop::movedBytes);
        loop.observer(counters);
        device.start(loop);
        store.start(loop);
        loop.start();
        counters.onStarted();
        final CountersReader reader = CountersFile.openReadOnly(dir).reader();
        final Reply reply = new Reply(8);
        final InputRecord tick = Inputs.tick(new InputRecord(1), 0);
        for (int i = 1; i <= 3; i++)
        {
            final long ticket = reply.next();
            assertEquals(EngineLoop.PUBLISHED, loop.publish(tick, reply, ticket, false));
            reply.await(ticket, new BackoffIdleStrategy(), loop);
            if (i < 3)
            {
                final CountersSnapshot running = awaitInputs(reader, i);
                assertEquals(EngineState.RUNNING, running.state());
                assertEquals(i, running.get(KvCounter.INPUTS), "published when the engine went idle");
            }
        }
        assertEquals(ResultCode.ENGINE_STOPPED, reply.decision.resultCode);
        final CountersSnapshot failed = CountersSnapshot.read(reader);
        assertEquals(EngineState.FAILED, failed.state(), "published on the engine thread at the failure");
        assertEquals("failed", failed.stateText());
        assertTrue(failed.get(KvCounter.STOP_TIME_MS) > 0);
        store.close();
        device.close();
        loop.close();
        counters.close(null != loop.failure());
        assertEquals(EngineState.FAILED, CountersSnapshot.read(reader).state());
    }

    @Test
    void shouldPublishWithoutAllocatingAndOnlyWhenIdleOrEveryMaxUnpublishedInputs(@TempDir final Path dir)
    {
        final EngineConfig config = LiveRuntimeTest.config().build();
        final CacheStateMachine engine = new CacheStateMachine(config);
        final CountersPublisher counters = CountersPublisher.open(dir.resolve(CountersFile.FILE_NAME), engine, null,
            null, null, null, 0, null);
        final CountersReader reader = CountersFile.openReadOnly(dir).reader();
        final InputRecord tick = Inputs.tick(new InputRecord(1), 0);
        for (int i = 1; i < CountersPublisher.MAX_UNPUBLISHED; i++)
        {
            engine.apply(tick.sequence(i));
            counters.onApplied();
        }
        assertEquals(0, CountersSnapshot.read(reader).get(KvCounter.INPUTS), "busy: not yet");
        engine.apply(tick.sequence(CountersPublisher.MAX_UNPUBLISHED));
        counters.onApplied();
        assertEquals(CountersPublisher.MAX_UNPUBLISHED, CountersSnapshot.read(reader).get(KvCounter.INPUTS));
        engine.apply(tick.sequence(CountersPublisher.MAX_UNPUBLISHED + 1));
        counters.onApplied();
        counters.onIdle();
        assertEquals(CountersPublisher.MAX_UNPUBLISHED + 1, CountersSnapshot.read(reader).get(KvCounter.INPUTS),
            "idle: exact");
        // every engine counter an operator acts on is published, the three rare ones included
        engine.counters().backupsDropped = 3;
        engine.counters().queriesFailed = 5;
        engine.counters().insertsRefused = 7;
        engine.counters().queriesSkipped = 9;
        counters.onApplied();
        counters.onIdle();
        final CountersSnapshot rare = CountersSnapshot.read(reader);
        assertEquals(3, rare.get(KvCounter.BACKUPS_DROPPED));
        assertEquals(5, rare.get(KvCounter.QUERIES_FAILED));
        assertEquals(7, rare.get(KvCounter.INSERTS_REFUSED));
        assertEquals(9, rare.get(KvCounter.QUERIES_SKIPPED));

        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        for (int i = 0; i < 100_000; i++)
        {
            counters.onApplied();
            counters.onIdle();
        }
        final long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 1_000_000; i++)
        {
            counters.onApplied();
            counters.onIdle();
        }
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(allocated < 16 * 1024, "a million publications allocated " + allocated + " bytes");
    }

    @Test
    void shouldRefuseAMetricsPortWithoutCountersAndABusyPort(@TempDir final Path dir) throws IOException
    {
        final EngineConfig config = LiveRuntimeTest.config().build();
        final KvLedgerOptions noCounters = LiveRuntimeTest.options(dir.resolve("a"), config);
        noCounters.store = KvLedgerOptions.StoreKind.MEMORY;
        noCounters.counters = false;
        noCounters.metricsPort = 0;
        assertThrows(IllegalArgumentException.class, () -> KvLedger.open(noCounters));

        final long journallersBefore = journallerThreads();
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            final KvLedgerOptions busy = LiveRuntimeTest.options(dir.resolve("b"), config);
            busy.store = KvLedgerOptions.StoreKind.MEMORY;
            busy.metricsPort = taken.getLocalPort();
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> KvLedger.open(busy));
            assertTrue(ex.getMessage().contains("cannot serve metrics"), ex.getMessage());
        }
        // the refused controller leaves no journaller thread behind, and its counters file does not say STARTING
        // a busy port is refused before anything is created: no journaller thread, no journal, no counters file,
        // and the same directories open once the port is free
        assertEquals(journallersBefore, journallerThreads(), "a journaller thread is left");
        assertFalse(java.nio.file.Files.exists(dir.resolve("b").resolve("journal")), "the refused open made a journal");
        final KvLedgerOptions retry = LiveRuntimeTest.options(dir.resolve("b"), config);
        retry.store = KvLedgerOptions.StoreKind.MEMORY;
        retry.metricsPort = 0;
        try (KvLedger ledger = KvLedger.open(retry))
        {
            assertTrue(ledger.metricsPort() > 0);
        }

        final KvLedgerOptions off = LiveRuntimeTest.options(dir.resolve("c"), config);
        off.store = KvLedgerOptions.StoreKind.MEMORY;
        off.counters = false;
        try (KvLedger ledger = KvLedger.open(off))
        {
            assertEquals(null, ledger.countersFile());
            assertEquals(-1, ledger.metricsPort());
        }
        assertThrows(IllegalArgumentException.class, () -> CountersFile.openReadOnly(off.journalDir));
    }

    private static long journallerThreads()
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && "kvledger-journaller".equals(t.getName())).count();
    }

    /**
     * The engine thread publishes when it goes idle, just after it answered the caller: wait (up to 10 s) for it.
     */
    private static CountersSnapshot awaitInputs(final CountersReader reader, final long inputs)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        CountersSnapshot snapshot = CountersSnapshot.read(reader);
        while (snapshot.get(KvCounter.INPUTS) < inputs && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
            snapshot = CountersSnapshot.read(reader);
        }
        return snapshot;
    }

    /**
     * Parse the Prometheus text format strictly: every sample's metric has HELP and TYPE lines before it, counters
     * end in {@code _total}, no series repeats.
     */
    static Map<String, Double> parseExposition(final String text)
    {
        final Map<String, String> types = new HashMap<>();
        final Set<String> helped = new HashSet<>();
        final Map<String, Double> samples = new HashMap<>();
        for (final String line : text.split("\n"))
        {
            if (line.startsWith("# HELP "))
            {
                helped.add(line.split(" ")[2]);
                continue;
            }
            if (line.startsWith("# TYPE "))
            {
                final String[] parts = line.split(" ");
                assertEquals(4, parts.length, line);
                assertTrue(parts[3].equals("counter") || parts[3].equals("gauge"), line);
                assertFalse(types.containsKey(parts[2]), "TYPE twice: " + line);
                types.put(parts[2], parts[3]);
                continue;
            }
            final Matcher m = SAMPLE.matcher(line);
            if (!m.matches())
            {
                fail("not an exposition line: '" + line + "'");
            }
            final String name = m.group(1);
            assertTrue(helped.contains(name), "no HELP before " + line);
            assertTrue(types.containsKey(name), "no TYPE before " + line);
            if ("counter".equals(types.get(name)))
            {
                assertTrue(name.endsWith("_total"), "a counter's name ends in _total: " + name);
            }
            final String series = null == m.group(2) ? name : name + m.group(2);
            assertFalse(samples.containsKey(series), "series twice: " + series);
            samples.put(series, Double.parseDouble(m.group(5)));
        }
        return samples;
    }
}
