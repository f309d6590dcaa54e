package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.engine.counters.CountersFile;
import io.kvledger.engine.counters.CountersSnapshot;
import io.kvledger.engine.counters.KvCounter;
import org.agrona.concurrent.status.CountersReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code kvledger stat DIR [--watch SECONDS] [--json]}: the live counters of a controller, read from its counters
 * file by another process, as Aeron's {@code AeronStat} reads the CnC file. Works while a {@code run} or an
 * embedding application is live and after it stopped. Rates are per second: over the last refresh with
 * {@code --watch}, averaged since the start otherwise. With {@code --watch} on a terminal the table is redrawn in
 * place; it ends once the controller is no longer running (after showing its final values), or after
 * {@code --count} samples.
 */
@Command(
    name = "stat",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "Show the live counters of a running (or stopped) controller.",
        "Reads DIR/" + CountersFile.FILE_NAME + " (written beside the journal by kvledger run and KvLedger.open): " +
            "inputs, hit rates, pool occupancy, defers and drops, ops in flight, ring fill, journal, store and " +
            "device errors, and the engine state."},
    footer = {"", "Exit codes: 0 done, 2 bad input or usage."})
final class StatCommand implements Callable<Integer>
{
    private static final String CLEAR_SCREEN = "\033[H\033[2J";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
        .withZone(ZoneId.systemDefault());

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR",
        description = "Journal directory holding " + CountersFile.FILE_NAME + " (or the file itself).")
    Path dir;

    @Option(names = "--watch", paramLabel = "SECONDS",
        description = "Refresh every SECONDS until the controller stops; rates over each interval.")
    Double watch;

    @Option(names = "--count", paramLabel = "N",
        description = "With --watch: stop after N samples (default: until the controller stops).")
    Integer count;

    @Option(names = "--json", description = "Print each sample as one JSON object per line.")
    boolean json;

    @Override
    public Integer call() throws InterruptedException
    {
        if (null != watch && (!(watch > 0) || watch > 86_400))
        {
            throw new CliException("--watch must be a number of seconds above 0 (and at most 86400), not " + watch);
        }
        if (null != count)
        {
            Flags.range("--count", count, 1, Integer.MAX_VALUE, "", "samples to print");
        }
        if (null != count && null == watch)
        {
            throw new CliException("--count needs --watch");
        }
        if (dir.toString().isEmpty())
        {
            throw new CliException("no directory given: DIR is empty");
        }
        final CountersFile file;
        try
        {
            file = CountersFile.openReadOnly(dir);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException(ex.getMessage(), ex);
        }
        final CountersReader reader = file.reader();
        final PrintWriter out = spec.commandLine().getOut();
        final boolean redraw = null != watch && !json && null != System.console();
        CountersSnapshot previous = null;
        int samples = 0;
        while (true)
        {
            final CountersSnapshot now = CountersSnapshot.read(reader);
            samples++;
            if (json)
            {
                out.println(Json.write(toJson(file, now, previous)));
            }
            else
            {
                if (redraw)
                {
                    out.print(CLEAR_SCREEN);
                }
                else if (null != previous)
                {
                    out.println();
                }
                out.print(toText(file, now, previous));
            }
            out.flush();
            if (null == watch || !now.writerAlive() || (null != count && samples >= count))
            {
                return KvledgerMain.EXIT_CLEAN;
            }
            previous = now;
            TimeUnit.MILLISECONDS.sleep(Math.max(1, Math.round(watch * 1000)));
        }
    }

    /**
     * The table: a header line (file, state, process, uptime), then one row per counter with its rate.
     *
     * @param file     the counters file.
     * @param now      this sample.
     * @param previous the previous sample, or null (rates then averaged since the start).
     * @return the text, ending with a line break.
     */
    static String toText(final CountersFile file, final CountersSnapshot now, final CountersSnapshot previous)
    {
        final StringBuilder text = new StringBuilder(4096);
        final double window = window(now, previous);
        text.append(String.format(Locale.ROOT, "kvledger stat %s at %s%n", file.path(),
            TIME.format(Instant.ofEpochMilli(now.readAtMs()))));
        text.append(String.format(Locale.ROOT, "engine %s, pid %d, up %.1f s, page %d tokens%n", now.stateText(),
            now.get(KvCounter.PID), now.uptimeSeconds(), now.get(KvCounter.PAGE_SIZE)));
        text.append(String.format(Locale.ROOT, "%-30s %16s %14s%n", "counter", "value",
            null == previous ? "avg/s" : "rate/s"));
        for (final KvCounter c : KvCounter.values())
        {
            if (c.tier() == KvCounter.Tier.FIXED || !now.has(c))
            {
                continue;
            }
            final String rate;
            if (c.kind() == KvCounter.Kind.COUNTER)
            {
                rate = String.format(Locale.ROOT, "%,.1f", rate(c, now, previous, window));
            }
            else
            {
                final KvCounter capacity = capacityOf(c);
                rate = null == capacity || now.get(capacity) == 0 ? "" : String.format(Locale.ROOT, "%.1f%% used",
                    100.0 * now.get(c) / now.get(capacity));
            }
            text.append(String.format(Locale.ROOT, "%-30s %,16d %14s", c.label(), now.get(c), rate).stripTrailing())
                .append(System.lineSeparator());
        }
        text.append(String.format(Locale.ROOT, "%-30s %15.1f%%%n", "prefix cache hit rate", 100 * hitRate(now)));
        for (final CountersSnapshot.Other other : now.others())
        {
            text.append(String.format(Locale.ROOT, "%-30s %,16d%n", other.label(), other.value()));
        }
        return text.toString();
    }

    /**
     * One sample as JSON: state, process, uptime, every counter by its key, the rates of the counters that only
     * grow, and the prefix cache hit rate.
     *
     * @param file     the counters file.
     * @param now      this sample.
     * @param previous the previous sample, or null.
     * @return the JSON object.
     */
    static ObjectNode toJson(final CountersFile file, final CountersSnapshot now, final CountersSnapshot previous)
    {
        final double window = window(now, previous);
        final ObjectNode root = Json.object();
        root.put("file", file.path().toString());
        root.put("state", now.stateText());
        root.put("alive", now.writerAlive());
        root.put("pid", now.get(KvCounter.PID));
        root.put("readAtMs", now.readAtMs());
        root.put("uptimeSeconds", now.uptimeSeconds());
        root.put("rateWindowSeconds", window);
        root.put("prefixCacheHitRate", hitRate(now));
        final ObjectNode counters = root.putObject("counters");
        final ObjectNode rates = root.putObject("rates");
        for (final KvCounter c : KvCounter.values())
        {
            if (!now.has(c))
            {
                continue;
            }
            counters.put(c.key(), now.get(c));
            if (c.kind() == KvCounter.Kind.COUNTER)
            {
                rates.put(c.key(), Math.round(rate(c, now, previous, window) * 10) / 10.0);
            }
        }
        for (final CountersSnapshot.Other other : now.others())
        {
            counters.put(other.label(), other.value());
        }
        return root;
    }

    private static double window(final CountersSnapshot now, final CountersSnapshot previous)
    {
        return null == previous ? now.uptimeSeconds() : Math.max(0.001, (now.readAtMs() - previous.readAtMs()) / 1e3);
    }

    private static double rate(final KvCounter c, final CountersSnapshot now, final CountersSnapshot previous,
        final double window)
    {
        if (window <= 0)
        {
            return 0;
        }
        final long delta = null == previous ? now.get(c) : now.get(c) - previous.get(c);
        return delta / window;
    }

    private static double hitRate(final CountersSnapshot now)
    {
        final long queries = now.get(KvCounter.PREFIX_QUERY_PAGES);
        return queries == 0 ? 0 : (double)now.get(KvCounter.PREFIX_HIT_PAGES) / queries;
    }

    private static KvCounter capacityOf(final KvCounter c)
    {
        switch (c)
        {
            case DEVICE_KV_USED: return KvCounter.DEVICE_KV_CAPACITY;
            case DEVICE_MAMBA_USED: return KvCounter.DEVICE_MAMBA_CAPACITY;
            case HOST_KV_USED: return KvCounter.HOST_KV_CAPACITY;
            case HOST_MAMBA_USED: return KvCounter.HOST_MAMBA_CAPACITY;
            case RING_FILL: return KvCounter.RING_CAPACITY;
            default: return null;
        }
    }
}
