package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code kvledger run} and {@code kvledger demo} end to end, on the real runtime and real journals. */
class RunAndDemoCommandTest
{
    @Test
    void shouldRunPrBenchLiveAndPrintTheSummary(@TempDir final Path dir)
    {
        final Path journal = dir.resolve("journal");
        final CliRun run = kvledger("run", "--requests", 8, "--prompt-tokens", 1024, "--extend-tokens", 128,
            "--journal", journal, "--store-dir", dir.resolve("l3")).exits(0);
        assertTrue(run.out().contains("kvledger run: pr-bench, 8 requests of 1024 tokens (+128)"), run.out());
        for (final String line : new String[]{"requests          16 (16 finished", "L3 hit tokens", "bytes moved",
            "deferrals", "drops", "digest mismatches 0", "inputs", "state hash", "journal           " + journal})
        {
            assertTrue(run.out().contains(line), line + " in\n" + run.out());
        }
        assertTrue(run.out().matches("(?s).*L3 store +file store .*: [1-9][\\d,]* pages written, [\\d,]+ read, " +
            "0 missing, 0 corrupt, 0 I/O errors\\n.*"), "the file store's line, no Redis connection counts:\n" +
            run.out());
        kvledger("check", journal).exits(0);
        kvledger("replay", journal).exits(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"--journal-thread", "--no-journal-thread"})
    void shouldJournalOnEitherThreadWhenAsked(final String journalThread, @TempDir final Path dir)
    {
        final Path journal = dir.resolve("journal");
        final CliRun run = kvledger("run", "--requests", 8, "--prompt-tokens", 1024, "--extend-tokens", 128,
            journalThread, "--journal", journal, "--store-dir", dir.resolve("l3")).exits(0);
        assertTrue(run.out().contains("requests          16 (16 finished"), run.out());
        kvledger("check", journal).exits(0);
        kvledger("replay", journal).exits(0);
    }

    /** {@code --mamba-slots 0} runs a pure-attention model, live and deterministic, and both journals check clean. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldRunAPureAttentionModelWithNoMambaSlots(final boolean deterministic, @TempDir final Path dir)
    {
        final Path journal = dir.resolve("journal");
        final List<Object> args = new ArrayList<>(List.of("run", "--mamba-slots", 0, "--workload", "random",
            "--requests", 24, "--prompt-tokens", 512, "--retract-rate", 0.2, "--journal", journal));
        args.add(deterministic ? "--deterministic" : "--store-dir");
        if (!deterministic)
        {
            args.add(dir.resolve("l3"));
        }
        kvledger(args.toArray()).exits(0);
        final String header = kvledger("dump", journal, "--limit", 1).exits(0).out();
        assertTrue(header.contains("deviceMamba=0 ") && header.contains("hybrid=false"), header);
        kvledger("check", journal).exits(0);
        kvledger("replay", journal).exits(0);
    }

    @Test
    void shouldSayWhichFreePortTheMetricsServeOnForPortZero(@TempDir final Path dir)
    {
        final CliRun run = kvledger("run", "--requests", 2, "--metrics-port", 0, "--journal", dir.resolve("journal"),
            "--store-dir", dir.resolve("l3")).exits(0);

        assertTrue(run.out().matches("(?s).*\n  metrics on http://127\\.0\\.0\\.1:[1-9]\\d*/metrics\n.*"), run.out());
    }

    @Test
    void shouldReportAFileStoreThatCannotWriteInTheSummary(@TempDir final Path dir) throws IOException
    {
        // Every fan-out directory of the store is a plain file: each write fails, as on a full disk.
        final Path store = dir.resolve("l3");
        for (final String kind : new String[]{"kv", "mamba"})
        {
            Files.createDirectories(store.resolve(kind));
            for (int i = 0; i < 256; i++)
            {
                Files.createFile(store.resolve(kind).resolve(String.format("%02x", i)));
            }
        }
        final CliRun run = kvledger("run", "--requests", 8, "--journal", dir.resolve("journal"), "--store-dir",
            store).exits(0);
        assertTrue(run.out().matches("(?s).*L3 store +file store .*: 0 pages written, 0 read, 0 missing, 0 corrupt, " +
            "[1-9][\\d,]* I/O errors\\n.*"), "the failed writes are in the summary:\n" + run.out());
        kvledger("check", dir.resolve("journal")).exits(0);
    }

    @Test
    void shouldPrintJsonSummaryAndWriteTheSameJournalTwiceWhenDeterministic(@TempDir final Path dir)
    {
        final JsonNode a = kvledger("run", "--deterministic", "--workload", "random", "--requests", 40,
            "--prompt-tokens", 512, "--extend-tokens", 64, "--seed", 5, "--journal", dir.resolve("a"), "--json")
            .exits(0).json();
        final JsonNode b = kvledger("run", "--deterministic", "--workload", "random", "--requests", 40,
            "--prompt-tokens", 512, "--extend-tokens", 64, "--seed", 5, "--journal", dir.resolve("b"), "--json")
            .exits(0).json();
        for (final String field : new String[]{"requests", "inputs", "hitTokens", "loads", "bytesMoved", "defers",
            "drops", "digestMismatches", "stateHash", "journal"})
        {
            assertTrue(a.has(field), field);
        }
        assertEquals(a.get("stateHash"), b.get("stateHash"));
        assertEquals(a.get("inputs"), b.get("inputs"));
        final String dumpA = kvledger("dump", dir.resolve("a")).exits(0).out();
        final String dumpB = kvledger("dump", dir.resolve("b")).exits(0).out();
        assertEquals(dumpA.replaceAll("created: .*", ""), dumpB.replaceAll("created: .*", ""));
    }

    /**
     * Requests the engine refuses (here prompts of 64 pages against a pool of 40) are counted in the summary: before,
     * '16 (0 finished, 0 aborted, 0 retracts)' left the reader to guess where the sixteen went.
     */
    @Test
    void shouldCountTheRequestsTheEngineRefusedInTheSummary(@TempDir final Path dir)
    {
        final String[] flags = {"run", "--deterministic", "--requests", "8", "--prompt-tokens", "4096", "--kv-pages",
            "40"};
        final JsonNode json = kvledger(concat(flags, "--journal", dir.resolve("a").toString(), "--json")).exits(0)
            .json();
        final long requests = json.get("requests").asLong();
        assertTrue(json.get("rejected").asLong() > 0, json.toString());
        assertEquals(requests, json.get("finished").asLong() + json.get("aborted").asLong() +
            json.get("rejected").asLong(), json.toString());

        final CliRun text = kvledger(concat(flags, "--journal", dir.resolve("b").toString())).exits(0);
        assertTrue(text.out().contains(json.get("rejected").asLong() + " rejected, "), text.out());
    }

    private static Object[] concat(final String[] flags, final String... more)
    {
        final Object[] all = new Object[flags.length + more.length];
        System.arraycopy(flags, 0, all, 0, flags.length);
        System.arraycopy(more, 0, all, flags.length, more.length);
        return all;
    }

    @Test
    void shouldRefuseAnUnknownFaultOrWorkloadWithOneLine(@TempDir final Path dir)
    {
        assertTrue(kvledger("run", "--fault", "NO_SUCH_BUG", "--journal", dir.resolve("j")).failsWithOneLine()
            .contains("unknown fault 'NO_SUCH_BUG'"));
        assertTrue(kvledger("run", "--workload", "chat", "--journal", dir.resolve("j")).failsWithOneLine()
            .contains("unknown workload 'chat'"));
        assertTrue(kvledger("run", "--mamba-slots", 1, "--journal", dir.resolve("j")).failsWithOneLine()
            .startsWith("kvledger: --mamba-slots 1 is out of range: 3 to "));
    }

    @Test
    void shouldMeasureApplyAndJournalAppend()
    {
        final String out = kvledger("bench", "--requests", 8, "--iterations", 4).exits(0).out();
        assertTrue(out.startsWith("recorded pr-bench: "), out);
        assertTrue(out.contains("apply ") && out.contains("journal append (unsynced)") && out.contains("p99.9"), out);
    }

    @Test
    void shouldRefuseTheDataPathBenchmarkWithOneLineWithoutCudaOrAGpu()
    {
        assertTrue(kvledger("bench", "--data-path").failsWithOneLine()
            .contains("bench --data-path needs --device cuda"));
        assertTrue(kvledger("bench", "--device", "cuda").failsWithOneLine().contains("add --data-path"));
        assertTrue(kvledger("bench", "--device", "gpu").failsWithOneLine().contains("unknown device 'gpu'"));
        if (!io.kvledger.engine.device.CudaDeviceBackend.available(null))
        {
            final String line = kvledger("bench", "--device", "cuda", "--data-path").failsWithOneLine();
            assertTrue(line.startsWith("kvledger: bench --data-path needs an NVIDIA GPU: cuda: "), line);
        }
    }

    @Test
    void shouldFallBackToHostMemoryFromTheCudaCopyPaths(@TempDir final Path dir)
    {
        assertTrue(kvledger("run", "--io-backend", "layer", "--journal", dir.resolve("x")).failsWithOneLine()
            .contains("unknown io backend 'layer' (kernel, direct or resident)"));
        final CliRun run = kvledger("run", "--device", "cuda", "--io-backend", "direct", "--requests", 4,
            "--prompt-tokens", 512, "--extend-tokens", 64, "--journal", dir.resolve("journal"), "--store-dir",
            dir.resolve("l3")).exits(0);
        assertTrue(run.out().contains("digest mismatches 0"), run.out());
        if (!io.kvledger.engine.device.CudaDeviceBackend.available(null))
        {
            assertTrue(run.out().contains("note              cuda: ") && run.out().contains("using host memory"),
                run.out());
        }
    }

    @Test
    void shouldServeAPeerTraceAndPrintOneJsonLinePerPhase() throws Exception
    {
        final CliRun run = kvledger("bench", "--trace", "pr-bench", "--json", "--iterations", 2).exits(0);
        final java.util.List<String> lines = run.lines();
        assertEquals(3, lines.size(), run.out());
        final String[] phases = {"round1", "round2", "all"};
        for (int i = 0; i < phases.length; i++)
        {
            final JsonNode row = CliRun.MAPPER.readTree(lines.get(i));
            assertEquals("pr-bench", row.get("trace").asText());
            assertEquals(phases[i], row.get("phase").asText());
            assertEquals(256 * (i == 2 ? 2 : 1), row.get("requests").asInt());
            for (final String field : new String[]{"usPerRequestJournalOff", "usPerRequestJournalOn",
                "usPerRequestFingerprint", "bytesPerDocument"})
            {
                assertTrue(row.get(field).asDouble() > 0, field + " in " + lines.get(i));
            }
            assertEquals(0, row.get("evictedTokens").asLong());
        }
        final JsonNode all = CliRun.MAPPER.readTree(lines.get(2));
        assertEquals(1_048_576, all.get("hitTokens").asLong());
        assertEquals(all.get("expectedHitTokens").asLong(), all.get("hitTokens").asLong());
        assertEquals(all.get("expectedTokensInTree").asLong(), all.get("tokensInTree").asLong());
        assertTrue(all.get("bytesPerDocument").asDouble() < 400, "compact documents: " + lines.get(2));
        for (final String field : new String[]{"throughputRatioOnOffSustained", "usPerRequestSustainedOffWall",
            "usPerRequestSustainedOnWall", "usPerRequestSustainedJournallerThread",
            "usPerRequestSustainedApplyingThread"})
        {
            assertTrue(all.get(field).asDouble() > 0, field + " in " + lines.get(2));
        }

        assertTrue(kvledger("bench", "--trace", "chat").failsWithOneLine().contains("unknown trace 'chat'"));
        assertTrue(kvledger("bench", "--json").failsWithOneLine().contains("--json needs --trace"));
    }

    @Test
    void shouldTellTheWholeStoryInTheDemo(@TempDir final Path dir) throws Exception
    {
        final CliRun demo = kvledger("demo", "--dir", dir.resolve("demo"), "--requests", 24).exits(0);
        final String out = demo.out();
        assertTrue(out.contains("0 digest mismatches"), out);
        assertTrue(out.contains("clean."), out);
        assertTrue(out.contains(" I13 DEVICE_MAMBA:"), out);
        assertTrue(out.contains("shrunk "), out);
        assertTrue(out.contains("(invariant I13)"), out);
        assertTrue(Files.readString(dir.resolve("demo").resolve("report.html")).contains("<svg"));
        kvledger("check", dir.resolve("demo").resolve("minimal")).exits(1);
    }
}
