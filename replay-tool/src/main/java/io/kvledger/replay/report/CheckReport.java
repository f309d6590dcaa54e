package io.kvledger.replay.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.replay.check.HistoryEntry;
import io.kvledger.replay.check.Invariant;
import io.kvledger.replay.check.InvariantChecker;
import io.kvledger.replay.check.SlotLane;
import io.kvledger.replay.check.Violation;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The outcome of {@code kvledger check}: how many documents were checked and which invariants broke, rendered as
 * text (default), JSON ({@code --json}) or a self-contained HTML page with an SVG timeline of the implicated slots
 * ({@code --html FILE}). Immutable.
 */
public final class CheckReport
{
    /** Created on the first JSON report only: a text report never pays for Jackson's start (about 0.1 s). */
    private static final class Mapper
    {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    private final long documents;
    private final long lastSequence;
    private final List<Violation> violations;
    private final long violationCount;
    private final List<SlotLane> lanes;
    private final String title;

    /**
     * @param documents      documents checked.
     * @param lastSequence   sequence of the last document checked (the timeline's right edge).
     * @param violations     violations kept, in detection order.
     * @param violationCount violations found (may exceed the kept ones).
     * @param lanes          owners over time of the implicated slots.
     * @param title          what was checked (journal path or label).
     */
    public CheckReport(final long documents, final long lastSequence, final List<Violation> violations,
        final long violationCount, final List<SlotLane> lanes, final String title)
    {
        this.documents = documents;
        this.lastSequence = lastSequence;
        this.violations = List.copyOf(violations);
        this.violationCount = Math.max(violationCount, violations.size());
        this.lanes = List.copyOf(lanes);
        this.title = title == null ? "" : title;
    }

    /**
     * @param checker a checker that has seen a journal.
     * @param title   what was checked (journal path or label).
     * @return its report.
     */
    public static CheckReport of(final InvariantChecker checker, final String title)
    {
        return new CheckReport(checker.documents(), checker.model().lastSequence(), checker.violations(),
            checker.violationCount(), checker.lanes(), title);
    }

    /**
     * @param checker a checker that has seen a journal; the title is the journal header's label.
     * @return its report.
     */
    public static CheckReport of(final InvariantChecker checker)
    {
        return of(checker, checker.header().label());
    }

    /**
     * @return documents checked.
     */
    public long documents()
    {
        return documents;
    }

    /**
     * @return the violations kept, in detection order.
     */
    public List<Violation> violations()
    {
        return violations;
    }

    /**
     * @return every violation found, kept or not.
     */
    public long violationCount()
    {
        return violationCount;
    }

    /**
     * @return true when no invariant broke (exit code 0).
     */
    public boolean clean()
    {
        return violationCount == 0;
    }

    /**
     * @return owners over time of the slots named by violations.
     */
    public List<SlotLane> lanes()
    {
        return lanes;
    }

    /**
     * @return one block per violation: {@code #SEQ Ix POOL:id explanation}, then the subject's history indented.
     */
    public String toText()
    {
        final StringBuilder b = new StringBuilder(256);
        b.append("checked ").append(documents).append(documents == 1 ? " document" : " documents");
        if (!title.isEmpty())
        {
            b.append(" of ").append(title);
        }
        if (clean())
        {
            return b.append(": clean\n").toString();
        }
        b.append(": ").append(violationCount).append(violationCount == 1 ? " violation" : " violations");
        if (violationCount > violations.size())
        {
            b.append(" (first ").append(violations.size()).append(" shown)");
        }
        b.append('\n');
        for (final Violation v : violations)
        {
            b.append('#').append(v.documentSequence()).append(' ').append(v.invariant().name()).append(' ')
                .append(v.subject()).append(' ').append(v.explanation()).append('\n');
            for (final HistoryEntry entry : v.history())
            {
                b.append("    #").append(entry.sequence()).append(' ').append(entry.text()).append('\n');
            }
        }
        return b.toString();
    }

    /**
     * @return {@code {"documents":N,"clean":bool,"violations":[{"seq","invariant","pool","id","explanation",
     * "history":[{"seq","effect"}]}]}}.
     */
    public String toJson()
    {
        return toJson(documents, false);
    }

    /**
     * The report as JSON with the journal's own document count: {@code documents} is the journal's, as the text
     * summary says; {@code checkedDocuments} how many the checker saw, fewer when {@code --fail-fast} stopped it
     * ({@code stopped}, and {@code stoppedAfter} the last sequence checked).
     *
     * @param journalDocuments documents the journal holds.
     * @param stopped          whether the check stopped at its first violation.
     * @return the JSON text.
     */
    public String toJson(final long journalDocuments, final boolean stopped)
    {
        final ObjectNode root = Mapper.MAPPER.createObjectNode();
        root.put("documents", journalDocuments);
        root.put("checkedDocuments", documents);
        root.put("stopped", stopped);
        if (stopped)
        {
            root.put("stoppedAfter", lastSequence);
        }
        root.put("clean", clean());
        final ArrayNode array = root.putArray("violations");
        for (final Violation v : violations)
        {
            final ObjectNode o = array.addObject();
            o.put("seq", v.documentSequence());
            o.put("invariant", v.invariant().name());
            o.put("pool", v.pool());
            o.put("id", v.id());
            o.put("explanation", v.explanation());
            final ArrayNode history = o.putArray("history");
            for (final HistoryEntry entry : v.history())
            {
                history.addObject().put("seq", entry.sequence()).put("effect", entry.text());
            }
        }
        try
        {
            return Mapper.MAPPER.writeValueAsString(root);
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot render the report as JSON", ex);
        }
    }

    /**
     * @return a self-contained HTML page (inline CSS and SVG, no external resources).
     */
    public String toHtml()
    {
        final StringBuilder b = new StringBuilder(8192);
        b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kvledger check")
            .append(title.isEmpty() ? "" : " - " + Html.escape(title)).append("</title>\n<style>\n")
            .append(Html.CSS).append("</style>\n</head>\n<body>\n");
        b.append("<h1>kvledger check</h1>\n<p class=\"summary ").append(clean() ? "clean" : "dirty").append("\">");
        if (!title.isEmpty())
        {
            b.append(Html.escape(title)).append(": ");
        }
        b.append(documents).append(" documents checked, ");
        b.append(clean() ? "no invariant broke" :
            violationCount + (violationCount == 1 ? " violation" : " violations"));
        if (violationCount > violations.size())
        {
            b.append(" (first ").append(violations.size()).append(" listed)");
        }
        b.append("</p>\n<h2>Slot timeline</h2>\n");
        b.append(new SlotTimelineSvg(lanes, lastSequence).render());
        b.append("<h2>Violations</h2>\n");
        if (violations.isEmpty())
        {
            b.append("<p>None.</p>\n");
        }
        else
        {
            appendViolations(b);
        }
        appendInvariants(b);
        b.append("</body>\n</html>\n");
        return b.toString();
    }

    private void appendViolations(final StringBuilder b)
    {
        b.append("<ol class=\"violations\">\n");
        for (final Violation v : violations)
        {
            b.append("<li><div class=\"head\"><span class=\"seq\">#").append(v.documentSequence())
                .append("</span> <span class=\"inv\" title=\"").append(Html.escape(v.invariant().description()))
                .append("\">").append(v.invariant().name()).append("</span> <span class=\"subject\">")
                .append(Html.escape(v.subject())).append("</span> ").append(Html.escape(v.explanation()))
                .append("</div>\n<details><summary>history (").append(v.history().size())
                .append(" effects)</summary>\n<table class=\"history\">\n");
            for (final HistoryEntry entry : v.history())
            {
                b.append("<tr><td class=\"seq\">#").append(entry.sequence()).append("</td><td>")
                    .append(Html.escape(entry.text())).append("</td></tr>\n");
            }
            b.append("</table>\n</details></li>\n");
        }
        b.append("</ol>\n");
    }

    private void appendInvariants(final StringBuilder b)
    {
        final Set<Invariant> seen = EnumSet.noneOf(Invariant.class);
        for (final Violation v : violations)
        {
            seen.add(v.invariant());
        }
        if (seen.isEmpty())
        {
            return;
        }
        b.append("<h2>Invariants involved</h2>\n<table class=\"invariants\">\n");
        for (final Invariant invariant : seen)
        {
            b.append("<tr><td class=\"inv\">").append(invariant.name()).append("</td><td>")
                .append(Html.escape(invariant.description())).append("</td></tr>\n");
        }
        b.append("</table>\n");
    }
}
