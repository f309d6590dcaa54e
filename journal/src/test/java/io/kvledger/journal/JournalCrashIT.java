package io.kvledger.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Kills a writing child JVM with SIGKILL at seeded random moments; what it journaled must read back as a valid,
 * contiguous prefix holding at least every document the child reported as appended.
 */
class JournalCrashIT
{
    private static final long SEED = 0xC0FFEE;
    private static final int KILLS = 20;
    private static final int MAX_KILL_DELAY_MS = 250;
    private static final long MAX_DOCUMENTS = 2_000_000;
    private static final List<String> BUILD_NOTES_FLAGS = List.of(
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "-Dchronicle.analytics.disable=true",
        "-Dchronicle.announcer.disable=true",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    @TempDir
    Path tempDir;

    @Test
    void shouldReadAValidPrefixAfterEverySigkill() throws Exception
    {
        final Random random = new Random(SEED);
        final Map<ReadStatus, Integer> tally = new EnumMap<>(ReadStatus.class);
        final long start = System.nanoTime();
        long totalDocuments = 0;
        for (int kill = 0; kill < KILLS; kill++)
        {
            final long seed = random.nextLong();
            final int delayMs = 0 == kill % 5 ? 0 : random.nextInt(MAX_KILL_DELAY_MS);
            final Path dir = tempDir.resolve("kill-" + kill);
            final long reported = runAndKill(dir, seed, delayMs);

            final Checker checker = new Checker(seed);
            final ReadOutcome outcome = JournalReader.open(dir).read(checker);
            final String context = "kill " + kill + " after " + delayMs + " ms, child reported " + reported + ": " +
                outcome;

            if (null != checker.failure)
            {
                fail(context + ": " + checker.failure);
            }
            assertTrue(outcome.isReadable(), context);
            assertEquals(checker.documents, outcome.documents(), context);
            assertTrue(outcome.documents() >= reported, context);
            tally.merge(outcome.status(), 1, Integer::sum);
            totalDocuments += outcome.documents();
            JournalTestData.deleteRecursively(dir);
        }

        System.out.println("JournalCrashIT: " + KILLS + " kills in " + (System.nanoTime() - start) / 1_000_000 +
            " ms, " + totalDocuments + " documents read back, outcomes " + tally);
    }

    private static long runAndKill(final Path dir, final long seed, final int delayMs) throws Exception
    {
        final Path stderr = dir.resolveSibling(dir.getFileName() + ".stderr");
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(CrashWriterMain.class.getName());
        command.add(dir.toString());
        command.add(Long.toString(seed));
        command.add(Long.toString(MAX_DOCUMENTS));

        final Process child = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        final AtomicLong reported = new AtomicLong();
        final CountDownLatch started = new CountDownLatch(1);
        final Thread drain = new Thread(() -> drain(child, reported, started), "crash-child-stdout");
        drain.setDaemon(true);
        drain.start();
        try
        {
            if (!started.await(60, TimeUnit.SECONDS))
            {
                fail("child did not start: " + Files.readString(stderr, StandardCharsets.UTF_8));
            }
            Thread.sleep(delayMs);
        }
        finally
        {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "child did not die");
            drain.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertEquals(137, child.exitValue(), "child must die of SIGKILL");

        return reported.get();
    }

    private static void drain(final Process child, final AtomicLong reported, final CountDownLatch started)
    {
        try (BufferedReader lines = new BufferedReader(
            new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = lines.readLine()))
            {
                if (line.equals("started"))
                {
                    started.countDown();
                }
                else if (line.startsWith("appended "))
                {
                    reported.set(Long.parseLong(line.substring("appended ".length())));
                }
            }
        }
        catch (final IOException ignore)
        {
            // the child was killed; what was read so far is the report
        }
    }

    private static List<String> jvmFlags()
    {
        final List<String> flags = new ArrayList<>();
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-") || argument.startsWith("--enable-native-access") ||
                argument.startsWith("--sun-misc-unsafe-memory-access") || argument.startsWith("-Dchronicle.") ||
                argument.startsWith("-Dorg.slf4j.") || argument.startsWith("-Dsbe."))
            {
                flags.add(argument);
            }
        }
        return flags.isEmpty() ? BUILD_NOTES_FLAGS : flags;
    }

    private static final class Checker implements JournalListener
    {
        private final long seed;
        private final InputRecord expected = new InputRecord(64);
        private final EffectList expectedEffects = new EffectList(CrashWriterMain.MAX_EFFECTS);
        private long documents;
        private String failure;

        Checker(final long seed)
        {
            this.seed = seed;
        }

        public void onHeader(final JournalHeader header, final JournalPosition position)
        {
            try
            {
                JournalTestData.assertSameHeader(JournalTestData.header(seed), header);
            }
            catch (final AssertionError ex)
            {
                failure = "header: " + ex.getMessage();
            }
        }

        public void onDocument(
            final InputRecord input, final int resultCode, final EffectList effects, final JournalPosition position)
        {
            if (null != failure)
            {
                return;
            }
            try
            {
                assertEquals(documents + 1, input.sequence());
                JournalTestData.document(
                    seed, input.sequence(), expected, expectedEffects, CrashWriterMain.MAX_EFFECTS);
                JournalTestData.assertSameDocument(
                    expected, (int)input.sequence(), expectedEffects, input, resultCode, effects);
                documents++;
            }
            catch (final AssertionError ex)
            {
                failure = "document " + input.sequence() + ": " + ex.getMessage();
            }
        }
    }
}
