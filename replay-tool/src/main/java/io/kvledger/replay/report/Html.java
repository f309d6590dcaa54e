package io.kvledger.replay.report;

/**
 * HTML escaping and the report's inline stylesheet.
 */
final class Html
{
    static final String CSS = """
        body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em; color: #1f2937; }
        h1 { font-size: 1.5em; margin-bottom: 0.2em; }
        h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #e5e7eb; padding-bottom: 0.2em; }
        .summary { font-weight: 600; padding: 0.5em 0.8em; border-radius: 4px; display: inline-block; }
        .summary.clean { background: #dcfce7; color: #166534; }
        .summary.dirty { background: #fee2e2; color: #991b1b; }
        ol.violations { padding-left: 1.6em; }
        ol.violations li { margin-bottom: 0.8em; }
        .head { font-family: ui-monospace, Menlo, Consolas, monospace; }
        .seq { color: #6b7280; font-family: ui-monospace, Menlo, Consolas, monospace; }
        .inv { font-weight: 700; color: #b91c1c; }
        .subject { font-weight: 600; color: #1d4ed8; }
        details summary { cursor: pointer; color: #4b5563; margin: 0.2em 0; }
        table.history, table.invariants { border-collapse: collapse; \
        font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
        table.history td, table.invariants td { padding: 1px 8px; border-bottom: 1px solid #f3f4f6; \
        vertical-align: top; }
        table.invariants { font-family: inherit; font-size: 13px; }
        svg.timeline { border: 1px solid #e5e7eb; background: #fff; }
        svg.timeline text { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 11px; }
        """;

    private Html()
    {
    }

    static String escape(final String text)
    {
        final StringBuilder b = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
