package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.journal.ReadStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A live {@code kvledger run} (host device with a copy delay, file L3 store) in a child JVM, stopped by a signal
 * once its journal holds a few hundred documents: after SIGKILL every tool reads the journal it left and every
 * object in the store is the key of a STORE decision the journal holds; SIGTERM closes the controller (its
 * launched copies completed and journaled, the counters file says stopped).
 */
class RunSignalTest
{
    private static final long DOCUMENTS_BEFORE_SIGNAL = 300;

    @TempDir
    Path dir;

    @Test
    void shouldLeaveAJournalEveryToolReadsAndNoUnjournaledStoreObjectAfterSigkill() throws Exception
    {
        final Path journal = dir.resolve("journal");
        final Path store = dir.resolve("l3");
        final Process run = startRun(journal, store, "--journal-thread");
        awaitDocuments(run, journal);
        run.destroyForcibly();
        assertTrue(run.waitFor(60, TimeUnit.SECONDS));

        for (final Object[] args : new Object[][]{
            {"check", journal}, {"replay", journal}, {"stats", journal}, {"timeline", journal, "--slot", "mamba:3"}})
        {
            final CliRun r = CliRun.kvledger(args);
            assertEquals(0, r.exitCode(), args[0] + ": " + r);
            assertEquals("", r.err(), args[0] + ": " + r);
        }
        final JsonNode stat = CliRun.kvledger("stat", journal, "--json").json();
        assertTrue(stat.get("state").asText().endsWith("ended without closing)"), stat.toString());
        final StoreJournalAudit.Result audit = StoreJournalAudit.audit(journal, store);
        assertTrue(audit.strays().isEmpty(), audit.describe());
        assertTrue(audit.objects() > 0, audit.describe());
    }

    /**
     * The same kill with the journal appended on the engine thread: check and replay read every document up to the
     * last complete one (a document cut by the kill is at most a torn-tail warning), numbered 1 to N without a gap.
     */
    @Test
    void shouldLeaveAJournalReadToItsLastCompleteDocumentAfterSigkillWithoutTheJournalThread() throws Exception
    {
        final Path journal = dir.resolve("journal");
        final Process run = startRun(journal, dir.resolve("l3"), "--no-journal-thread");
        awaitDocuments(run, journal);
        run.destroyForcibly();
        assertTrue(run.waitFor(60, TimeUnit.SECONDS));

        final CliRun check = CliRun.kvledger("check", journal, "--json");
        assertEquals(0, check.exitCode(), check.toString());
        assertTrue(check.err().isEmpty() || check.err().startsWith("warning: torn tail after document ") &&
            1 == check.err().split("\n").length, check.err());
        final long documents = check.json().get("documents").asLong();
        assertTrue(documents > 0, check.out());
        final CliRun last = CliRun.kvledger("dump", journal, "--json", "--from", documents);
        assertEquals(0, last.exitCode(), last.toString());
        assertEquals(documents, CliRun.MAPPER.readTree(last.lines().get(last.lines().size() - 1)).get("seq")
            .asLong(), "documents numbered 1 to N");
        final CliRun replay = CliRun.kvledger("replay", journal);
        assertEquals(0, replay.exitCode(), replay.toString());
        assertTrue(replay.firstLine().startsWith("identical: " + documents + " documents"), replay.out());
    }

    @Test
    void shouldCloseTheControllerOnSigterm() throws Exception
    {
        final Path journal = dir.resolve("journal");
        final Path store = dir.resolve("l3");
        final Process run = startRun(journal, store, "--journal-thread");
        awaitDocuments(run, journal);
        run.destroy();
        assertTrue(run.waitFor(60, TimeUnit.SECONDS));
        final String err = Files.readString(dir.resolve("run.err"), StandardCharsets.UTF_8);
        assertFalse(err.contains("Exception") || err.contains("\tat "), err);
        assertTrue(err.startsWith("kvledger run: stopped by a signal after "), err);
        assertEquals(1, err.split("\n").length, err);

        final JsonNode stat = CliRun.kvledger("stat", journal, "--json").json();
        assertEquals("stopped", stat.get("state").asText(), stat.toString());
        final CliRun check = CliRun.kvledger("check", journal);
        assertEquals(0, check.exitCode(), check.toString());
        assertEquals("", check.err(), check.toString());
        final StoreJournalAudit.Result audit = StoreJournalAudit.audit(journal, store);
        assertEquals(ReadStatus.CLEAN, audit.outcome().status(), audit.describe());
        assertTrue(audit.strays().isEmpty(), audit.describe());
        assertEquals(0, audit.launched(), "every launched copy completed and journaled: " + audit.describe());
        assertEquals(0, audit.temps(), audit.describe());
    }

    /** Start {@code kvledger run} in a new JVM with this JVM's module flags: a run far longer than the test. */
    private Process startRun(final Path journal, final Path store, final String... extra) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        for (final String flag : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (flag.startsWith("--add-") || flag.startsWith("-Dchronicle") || flag.startsWith("-Dorg.slf4j") ||
                flag.startsWith("-Dbackground"))
            {
                command.add(flag);
            }
        }
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(KvledgerMain.class.getName());
        command.addAll(List.of("run", "--journal", journal.toString(), "--store-dir", store.toString(),
            "--requests", "100000", "--prompt-tokens", "1024", "--copy-delay-us", "300"));
        command.addAll(List.of(extra));
        return new ProcessBuilder(command).redirectOutput(dir.resolve("run.out").toFile())
            .redirectError(dir.resolve("run.err").toFile()).start();
    }

    /** Wait until the run's counters file says it applied a few hundred inputs (the journal holds them). */
    private static void awaitDocuments(final Process run, final Path journal) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline)
        {
            assertTrue(run.isAlive(), "the run ended before it was signalled");
            if (Files.exists(journal.resolve("kvledger-counters.dat")))
            {
                final CliRun stat = CliRun.kvledger("stat", journal, "--json");
                if (0 == stat.exitCode() && stat.json().get("counters").get("inputs").asLong() >=
                    DOCUMENTS_BEFORE_SIGNAL)
                {
                    return;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the run did not apply " + DOCUMENTS_BEFORE_SIGNAL + " inputs in 60 s");
    }
}
