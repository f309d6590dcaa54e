package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One in-process run of the real {@code kvledger} command tree with captured streams.
 *
 * @param exitCode what the process would exit with.
 * @param out      standard output.
 * @param err      standard error.
 */
record CliRun(int exitCode, String out, String err)
{
    static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * @param args command line.
     * @return the run.
     */
    static CliRun kvledger(final Object... args)
    {
        final String[] strings = new String[args.length];
        for (int i = 0; i < args.length; i++)
        {
            strings[i] = String.valueOf(args[i]);
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exitCode;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            exitCode = KvledgerMain.execute(outStream, errStream, strings);
        }
        return new CliRun(exitCode, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * @return stdout lines.
     */
    List<String> lines()
    {
        return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }

    /**
     * @return the first stdout line.
     */
    String firstLine()
    {
        return lines().isEmpty() ? "" : lines().get(0);
    }

    /**
     * @return stdout parsed as one JSON document.
     */
    JsonNode json()
    {
        try
        {
            return MAPPER.readTree(out);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("not JSON: " + out, ex);
        }
    }

    /**
     * Assert the exit code, showing both streams on failure.
     *
     * @param expected exit code.
     * @return this.
     */
    CliRun exits(final int expected)
    {
        assertEquals(expected, exitCode, () -> "exit code; stdout:\n" + out + "\nstderr:\n" + err);
        return this;
    }

    /**
     * Assert a failure the kvledger way: exit 2, nothing on stdout, exactly one line on stderr, no stack trace.
     *
     * @return the stderr line.
     */
    String failsWithOneLine()
    {
        exits(KvledgerMain.EXIT_BAD_INPUT);
        assertEquals("", out, "nothing on stdout");
        assertTrue(err.endsWith("\n"), err);
        assertEquals(1, err.split("\n").length, () -> "one line on stderr:\n" + err);
        assertNoStackTrace();
        return err.trim();
    }

    /**
     * Assert that stderr holds no exception name and no stack frame.
     */
    void assertNoStackTrace()
    {
        assertFalse(err.contains("Exception"), err);
        assertFalse(err.contains("at io."), err);
        assertFalse(err.contains("\tat "), err);
    }

    /**
     * @param node a JSON object.
     * @return its field names in order.
     */
    static List<String> fieldNames(final JsonNode node)
    {
        final List<String> names = new ArrayList<>();
        final Iterator<String> it = node.fieldNames();
        it.forEachRemaining(names::add);
        return names;
    }
}
