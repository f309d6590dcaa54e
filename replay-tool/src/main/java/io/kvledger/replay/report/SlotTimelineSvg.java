package io.kvledger.replay.report;

import io.kvledger.replay.check.SlotLane;

import java.util.List;
import java.util.Locale;

/**
 * An inline SVG picture of slot owners over sequence numbers: one horizontal lane per implicated slot, one
 * coloured segment per owner (FREE grey, requests blue, nodes green, ops orange, PENDING_FREE purple, shades by
 * id) and a red marker at each violation.
 */
final class SlotTimelineSvg
{
    private static final int LABEL_WIDTH = 150;
    private static final int PLOT_WIDTH = 860;
    private static final int LANE_HEIGHT = 26;
    private static final int LANE_GAP = 8;
    private static final int TOP = 12;
    private static final int AXIS_HEIGHT = 30;

    private final List<SlotLane> lanes;
    private final long lastSequence;
    private long minSequence;
    private long maxSequence;

    SlotTimelineSvg(final List<SlotLane> lanes, final long lastSequence)
    {
        this.lanes = lanes;
        this.lastSequence = lastSequence;
    }

    String render()
    {
        bounds();
        final int height = TOP + Math.max(1, lanes.size()) * (LANE_HEIGHT + LANE_GAP) + AXIS_HEIGHT;
        final int width = LABEL_WIDTH + PLOT_WIDTH + 20;
        final StringBuilder b = new StringBuilder(4096);
        b.append("<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width)
            .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(width).append(' ')
            .append(height).append("\" role=\"img\" aria-label=\"slot owners over sequence numbers\">\n");
        if (lanes.isEmpty())
        {
            b.append("<text x=\"10\" y=\"").append(TOP + 16).append("\">no slot implicated</text>\n");
        }
        for (int n = 0; n < lanes.size(); n++)
        {
            lane(b, lanes.get(n), TOP + n * (LANE_HEIGHT + LANE_GAP));
        }
        axis(b, height - AXIS_HEIGHT + 6);
        return b.append("</svg>\n").toString();
    }

    private void bounds()
    {
        minSequence = Long.MAX_VALUE;
        maxSequence = Math.max(lastSequence, 0);
        for (final SlotLane lane : lanes)
        {
            for (final SlotLane.Point point : lane.points())
            {
                minSequence = Math.min(minSequence, point.sequence());
                maxSequence = Math.max(maxSequence, point.sequence());
            }
            for (final long sequence : lane.violations())
            {
                minSequence = Math.min(minSequence, sequence);
                maxSequence = Math.max(maxSequence, sequence);
            }
        }
        if (minSequence == Long.MAX_VALUE)
        {
            minSequence = 0;
        }
        if (maxSequence <= minSequence)
        {
            maxSequence = minSequence + 1;
        }
    }

    private double x(final long sequence)
    {
        return LABEL_WIDTH + (double)(sequence - minSequence) * PLOT_WIDTH / (maxSequence + 1 - minSequence);
    }

    private void lane(final StringBuilder b, final SlotLane lane, final int y)
    {
        final String subject = lane.pool() + ":" + lane.id();
        b.append("<g class=\"lane\"><text x=\"6\" y=\"").append(y + LANE_HEIGHT / 2 + 4).append("\">")
            .append(Html.escape(subject)).append("</text>\n");
        b.append("<rect x=\"").append(LABEL_WIDTH).append("\" y=\"").append(y).append("\" width=\"")
            .append(PLOT_WIDTH).append("\" height=\"").append(LANE_HEIGHT).append("\" fill=\"#f9fafb\"/>\n");
        final List<SlotLane.Point> points = lane.points();
        for (int n = 0; n < points.size(); n++)
        {
            final SlotLane.Point point = points.get(n);
            final long end = n + 1 < points.size() ? points.get(n + 1).sequence() : maxSequence + 1;
            final double x0 = x(point.sequence());
            final double w = Math.max(1.5, x(end) - x0);
            b.append("<rect x=\"").append(fmt(x0)).append("\" y=\"").append(y).append("\" width=\"").append(fmt(w))
                .append("\" height=\"").append(LANE_HEIGHT).append("\" fill=\"").append(color(point.owner()))
                .append("\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>").append(Html.escape(subject))
                .append(" #").append(point.sequence()).append(" .. #").append(end - 1).append(": ")
                .append(Html.escape(point.owner())).append("</title></rect>\n");
            if (w > 7.0 * point.owner().length())
            {
                b.append("<text x=\"").append(fmt(x0 + 3)).append("\" y=\"").append(y + LANE_HEIGHT / 2 + 4)
                    .append("\" fill=\"").append(point.owner().startsWith("FREE") ? "#374151" : "#ffffff")
                    .append("\">").append(Html.escape(point.owner())).append("</text>\n");
            }
        }
        for (final long sequence : lane.violations())
        {
            final double vx = x(sequence);
            b.append("<g class=\"violation\"><line x1=\"").append(fmt(vx)).append("\" y1=\"").append(y - 3)
                .append("\" x2=\"").append(fmt(vx)).append("\" y2=\"").append(y + LANE_HEIGHT + 3)
                .append("\" stroke=\"#dc2626\" stroke-width=\"2\"/><polygon points=\"").append(fmt(vx - 5))
                .append(',').append(y - 5).append(' ').append(fmt(vx + 5)).append(',').append(y - 5).append(' ')
                .append(fmt(vx)).append(',').append(y + 2).append("\" fill=\"#dc2626\"><title>violation at #")
                .append(sequence).append("</title></polygon></g>\n");
        }
        b.append("</g>\n");
    }

    private void axis(final StringBuilder b, final int y)
    {
        b.append("<line x1=\"").append(LABEL_WIDTH).append("\" y1=\"").append(y).append("\" x2=\"")
            .append(LABEL_WIDTH + PLOT_WIDTH).append("\" y2=\"").append(y).append("\" stroke=\"#9ca3af\"/>\n");
        final long span = maxSequence + 1 - minSequence;
        final long step = Math.max(1, niceStep(span / 8.0));
        for (long s = ((minSequence + step - 1) / step) * step; s <= maxSequence; s += step)
        {
            final double tx = x(s);
            b.append("<line x1=\"").append(fmt(tx)).append("\" y1=\"").append(y).append("\" x2=\"").append(fmt(tx))
                .append("\" y2=\"").append(y + 4).append("\" stroke=\"#9ca3af\"/><text x=\"").append(fmt(tx - 6))
                .append("\" y=\"").append(y + 16).append("\" fill=\"#6b7280\">#").append(s).append("</text>\n");
        }
    }

    private static long niceStep(final double raw)
    {
        if (raw <= 1)
        {
            return 1;
        }
        final double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        final double fraction = raw / magnitude;
        final double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
        return (long)(nice * magnitude);
    }

    static String color(final String owner)
    {
        final int space = owner.indexOf(' ');
        final String kind = space < 0 ? owner : owner.substring(0, space);
        long id = 0;
        if (space > 0)
        {
            try
            {
                id = Long.parseLong(owner.substring(space + 1).trim());
            }
            catch (final NumberFormatException ex)
            {
                id = owner.hashCode();
            }
        }
        final int hue = switch (kind)
        {
            case "FREE" -> -1;
            case "REQUEST" -> 215;
            case "NODE" -> 145;
            case "OP" -> 28;
            case "PENDING_FREE" -> 275;
            default -> -2;
        };
        if (hue == -1)
        {
            return "#d1d5db";
        }
        if (hue == -2)
        {
            return "#9ca3af";
        }
        final long shade = Math.floorMod(id * 37, 5);
        return hex(hue + shade * 6, 0.65, 0.32 + shade * 0.06);
    }

    private static String hex(final double hue, final double saturation, final double lightness)
    {
        final double c = (1 - Math.abs(2 * lightness - 1)) * saturation;
        final double h = (hue % 360) / 60.0;
        final double x = c * (1 - Math.abs(h % 2 - 1));
        final double[] rgb = switch ((int)h)
        {
            case 0 -> new double[] {c, x, 0};
            case 1 -> new double[] {x, c, 0};
            case 2 -> new double[] {0, c, x};
            case 3 -> new double[] {0, x, c};
            case 4 -> new double[] {x, 0, c};
            default -> new double[] {c, 0, x};
        };
        final double m = lightness - c / 2;
        return String.format(Locale.ROOT, "#%02x%02x%02x", Math.round((rgb[0] + m) * 255),
            Math.round((rgb[1] + m) * 255), Math.round((rgb[2] + m) * 255));
    }

    private static String fmt(final double value)
    {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
