package io.kvledger.engine.counters;

import java.util.Locale;

/**
 * Writes a {@link CountersSnapshot} in the Prometheus text exposition format (version 0.0.4): one
 * {@code # HELP} and {@code # TYPE} line per metric name, then one sample per counter, labels in braces. Names
 * end in {@code _total} for counters; prefix-cache queries and hits are in tokens as in vLLM and SGLang
 * ({@link KvCounter#pagesAsTokens()}); times are in seconds. A derived gauge
 * {@code kvledger_prefix_cache_hit_rate} (hits over queries, as SGLang's {@code cache_hit_rate}) closes the text.
 */
public final class PrometheusText
{
    /** The Content-Type of the format. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private PrometheusText()
    {
    }

    /**
     * @param snapshot the values.
     * @return the exposition text.
     */
    public static String format(final CountersSnapshot snapshot)
    {
        final StringBuilder out = new StringBuilder(8192);
        final long pageSize = Math.max(1, snapshot.get(KvCounter.PAGE_SIZE));
        String lastMetric = null;
        for (final KvCounter c : KvCounter.values())
        {
            if (!snapshot.has(c))
            {
                continue;
            }
            if (!c.metric().equals(lastMetric))
            {
                lastMetric = c.metric();
                out.append("# HELP ").append(c.metric()).append(' ').append(c.help()).append('\n');
                out.append("# TYPE ").append(c.metric()).append(' ')
                    .append(c.kind() == KvCounter.Kind.COUNTER ? "counter" : "gauge").append('\n');
            }
            out.append(c.metric());
            if (null != c.labelName())
            {
                out.append('{').append(c.labelName()).append("=\"").append(c.labelValue()).append("\"}");
            }
            out.append(' ');
            final long value = snapshot.get(c);
            if (c == KvCounter.START_TIME_MS || c == KvCounter.STOP_TIME_MS || c == KvCounter.UPDATE_TIME_MS)
            {
                out.append(String.format(Locale.ROOT, "%.3f", value / 1000.0));
            }
            else
            {
                out.append(c.pagesAsTokens() ? value * pageSize : value);
            }
            out.append('\n');
        }
        final long queries = snapshot.get(KvCounter.PREFIX_QUERY_PAGES);
        final long hits = snapshot.get(KvCounter.PREFIX_HIT_PAGES);
        out.append("# HELP kvledger_prefix_cache_hit_rate Prefix cache hits over queries since start (0 without " +
            "queries)\n");
        out.append("# TYPE kvledger_prefix_cache_hit_rate gauge\n");
        out.append("kvledger_prefix_cache_hit_rate ")
            .append(String.format(Locale.ROOT, "%.6f", queries == 0 ? 0.0 : (double)hits / queries)).append('\n');
        return out.toString();
    }
}
