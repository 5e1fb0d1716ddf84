package io.homa4j.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The talk's plot as a self-contained SVG: RTT on a log axis (microseconds) against message length, where each
 * length bucket takes horizontal room in proportion to its share of the messages (so the x axis is the cumulative
 * fraction of messages, labelled with the bucket bounds). P50 (solid) and P99 (dashed) per protocol.
 *
 * <p>Written by hand rather than with a plotting library: homa-bench's pom says which were weighed and why.
 */
public final class RttPlot {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;
    /** Room for the y tick labels ("100 ms" is about 45 px) and, left of them, the rotated axis title. */
    private static final int LEFT = 104;
    private static final int Y_TITLE_X = 18;
    private static final int RIGHT = 30;
    private static final int TOP = 72;
    /** Each title line after the first (a subtitle, e.g. the date and commit) adds this much room above the plot. */
    private static final int SUBTITLE_LINE = 17;
    private static final int BOTTOM = 110;
    /** A single panel's plot height, and each one's when two are stacked. */
    private static final int PLOT_HEIGHT = 378;
    private static final int STACKED_PLOT_HEIGHT = 300;
    /** Between stacked panels: room for the lower one's legend. */
    private static final int PANEL_GAP = 44;
    /** Average glyph widths (Helvetica) of the 16 px title and the 12 px subtitles, for wrapping them. */
    private static final double TITLE_CHAR_PX = 8.6;
    private static final double SUBTITLE_CHAR_PX = 6.6;
    private static final int TITLE_MARGIN = 16;
    /** For protocols {@link #color(String)} does not know, in turn; none is a known protocol's colour. */
    private static final String[] OTHER_COLORS = {"#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

    private RttPlot() {
    }

    public static String render(ResultSet results, String title) {
        return render(results, title, List.of());
    }

    /**
     * As {@link #render(ResultSet, String)}, with {@code notes} printed under the x axis (one line each, in red):
     * what the curves do not show, such as calls that failed.
     */
    public static String render(ResultSet results, String title, List<String> notes) {
        return render(results, title, notes, new OverloadVerdict(List.of(), false));
    }

    /**
     * The RTT plot; when {@code verdict} says the runs were overloaded, the plot area carries a large OVERLOADED
     * mark and the verdict's notes are printed under the axis, before {@code notes}.
     */
    public static String render(ResultSet results, String title, List<String> notes, OverloadVerdict verdict) {
        return render(results, title, notes, verdict, "Round-trip time (log scale)", 4, RttPlot::decadeLabel);
    }

    /**
     * The same plot for any positive quantity the histograms hold in thousandths of the plotted unit (as RTTs are
     * held in nanoseconds and plotted in microseconds), e.g. slowdown: {@code yAxisLabel} names it, and the y axis
     * reaches at least {@code 10^minTopDecade}; {@code decadeLabels} labels the y axis at each power of ten.
     */
    public static String render(ResultSet results, String title, List<String> notes, String yAxisLabel,
                                int minTopDecade, java.util.function.IntFunction<String> decadeLabels) {
        return render(results, title, notes, new OverloadVerdict(List.of(), false), yAxisLabel, minTopDecade,
                decadeLabels);
    }

    /**
     * The general form: {@code title} may hold several lines ('\n'), the first large, the others (such as the
     * run's date and commit) smaller; lines too wide for the figure are wrapped.
     */
    public static String render(ResultSet results, String title, List<String> notes, OverloadVerdict verdict,
                                String yAxisLabel, int minTopDecade,
                                java.util.function.IntFunction<String> decadeLabels) {
        return render(results, List.of(new Panel(results, yAxisLabel, minTopDecade, decadeLabels, PLOT_HEIGHT)),
                title, notes, verdict);
    }

    /**
     * The Homa papers' figure: slowdown by message length on top (P50 and P99 per protocol, with the limit's
     * protocol, such as {@code homa-ideal}, as one more line), the RTT below it, both over the same x axis (each
     * bucket as wide as its share of {@code rtts}' messages).
     *
     * @param slowdownsMilli slowdown x 1000 per protocol and bucket
     */
    public static String renderSlowdownAndRtt(ResultSet rtts, ResultSet slowdownsMilli, String title,
                                              List<String> notes, OverloadVerdict verdict) {
        return render(rtts, List.of(
                new Panel(slowdownsMilli, "Slowdown (RTT / unloaded RTT, log scale)", 1, RttPlot::slowdownLabel,
                        STACKED_PLOT_HEIGHT),
                new Panel(rtts, "Round-trip time (log scale)", 4, RttPlot::decadeLabel, STACKED_PLOT_HEIGHT)),
                title, notes, verdict);
    }

    /** One plot area: its curves, y axis and height; the x axis is the figure's. */
    private record Panel(ResultSet results, String yAxisLabel, int minTopDecade,
                         java.util.function.IntFunction<String> decadeLabels, int plotHeight) {
    }

    private static String render(ResultSet shares, List<Panel> panels, String title, List<String> notes,
                                 OverloadVerdict verdict) {
        List<String> titleLines = new ArrayList<>();
        String[] given = title.split("\n");
        for (int i = 0; i < given.length; i++) {
            titleLines.addAll(wrap(given[i], (WIDTH - 2 * TITLE_MARGIN) / (i == 0 ? TITLE_CHAR_PX : SUBTITLE_CHAR_PX)));
        }
        int firstSubtitle = wrap(given[0], (WIDTH - 2 * TITLE_MARGIN) / TITLE_CHAR_PX).size();
        int top = TOP + SUBTITLE_LINE * (titleLines.size() - 1);
        List<String> allNotes = new ArrayList<>();
        for (String note : concat(verdict.notes(), notes)) {
            allNotes.addAll(wrap(note, (WIDTH - LEFT - TITLE_MARGIN) / SUBTITLE_CHAR_PX));
        }
        notes = allNotes;
        List<Integer> bounds = shares.bucketBounds();
        double[] left = new double[bounds.size()];
        double[] right = new double[bounds.size()];
        long total = 0;
        for (int b : bounds) {
            total += shares.totalCount(b);
        }
        double cumulative = 0;
        for (int i = 0; i < bounds.size(); i++) {
            left[i] = cumulative;
            double share = total == 0 ? 1.0 / bounds.size() : (double) shares.totalCount(bounds.get(i)) / total;
            cumulative += share;
            right[i] = cumulative;
        }
        int panelsHeight = 0;
        for (Panel panel : panels) {
            panelsHeight += panel.plotHeight();
        }
        panelsHeight += PANEL_GAP * (panels.size() - 1);
        int plotBottom = top + panelsHeight;
        int height = plotBottom + BOTTOM + 16 * Math.max(0, notes.size() - 1);

        StringBuilder svg = new StringBuilder();
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">%n",
                WIDTH, height, WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>%n",
                WIDTH, height));
        for (int i = 0; i < titleLines.size(); i++) {
            boolean main = i < firstSubtitle;
            svg.append(String.format(Locale.ROOT, "<text%s x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\"%s>"
                            + "%s</text>%n", main ? "" : " class=\"subtitle\"", WIDTH / 2, 28 + SUBTITLE_LINE * i,
                    main ? 16 : 12, main ? "" : " fill=\"#444\"", escape(titleLines.get(i))));
        }
        int panelTop = top;
        for (int p = 0; p < panels.size(); p++) {
            Panel panel = panels.get(p);
            Frame frame = frame(panel, panelTop);
            drawPanel(svg, panel, frame, bounds, left, right, p == panels.size() - 1);
            if (verdict.overloaded()) {
                svg.append(String.format(Locale.ROOT, "<text class=\"overloaded\" x=\"%d\" y=\"%d\""
                        + " text-anchor=\"middle\" font-size=\"56\" font-weight=\"bold\" fill=\"#b00000\""
                        + " fill-opacity=\"0.25\">OVERLOADED</text>%n", (LEFT + WIDTH - RIGHT) / 2,
                        (frame.top + frame.bottom) / 2 + 20));
            }
            panelTop = frame.bottom + PANEL_GAP;
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                (LEFT + WIDTH - RIGHT) / 2, plotBottom + 62, escape("Message length (bucket upper bounds; 1 KB ="
                        + " 1,000 B), each bucket as wide as its share of the messages")));
        for (int i = 0; i < notes.size(); i++) {
            svg.append(String.format(Locale.ROOT, "<text class=\"note\" x=\"%d\" y=\"%d\" fill=\"#b00000\""
                    + " font-size=\"12\">%s</text>%n", LEFT, plotBottom + BOTTOM - 22 + 16 * i, escape(notes.get(i))));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static Frame frame(Panel panel, int top) {
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        for (BucketLatencies row : panel.results().rows()) {
            if (row.count() > 0) {
                min = Math.min(min, row.percentileMicros(50));
                max = Math.max(max, row.percentileMicros(99));
            }
        }
        int lowDecade = Double.isInfinite(min) ? 0 : Math.min(panel.minTopDecade() - 1,
                (int) Math.floor(Math.log10(min)));
        if (panel.minTopDecade() > 1) {
            lowDecade = Math.min(1, lowDecade);
        }
        int highDecade = max == 0 ? panel.minTopDecade()
                : Math.max(panel.minTopDecade(), (int) Math.ceil(Math.log10(max)));
        if (highDecade <= lowDecade) {
            highDecade = lowDecade + 1;
        }
        return new Frame(lowDecade, highDecade, top, top + panel.plotHeight());
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Grid, axes, the panel's curves and its legend (one row above the panel, so it never hides a curve). */
    private static void drawPanel(StringBuilder svg, Panel panel, Frame frame, List<Integer> bounds, double[] left,
                                  double[] right, boolean xLabels) {
        int top = frame.top;
        int plotBottom = frame.bottom;
        // y grid: decades labelled, 2x and 5x as light lines
        for (int d = frame.lowDecade; d <= frame.highDecade; d++) {
            double y = frame.y(Math.pow(10, d));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#bbb\""
                    + " stroke-width=\"1\"/>%n", LEFT, y, WIDTH - RIGHT, y));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT - 8, y + 4, escape(panel.decadeLabels().apply(d))));
            if (d < frame.highDecade) {
                for (int m : new int[] {2, 5}) {
                    double ym = frame.y(m * Math.pow(10, d));
                    svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
                            + " stroke=\"#e6e6e6\" stroke-width=\"1\"/>%n", LEFT, ym, WIDTH - RIGHT, ym));
                }
            }
        }
        // x ticks at bucket bounds; a label that would overlap its left neighbour goes one row lower (narrow tail
        // buckets sit close together), so every bound is labelled
        double[] rowEnd = {-1e9, -1e9};
        for (int i = 0; i < bounds.size(); i++) {
            double x = frame.x(right[i]);
            if (!xLabels) {
                svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
                        + " stroke=\"#888\"/>%n", x, plotBottom, x, plotBottom + 4));
                continue;
            }
            String label = lengthLabel(bounds.get(i));
            double halfWidth = label.length() * 3.6; // about half the label's width at 13 px
            int row = x - halfWidth >= rowEnd[0] + 4 ? 0 : 1;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>%n",
                    x, plotBottom, x, plotBottom + 6 + 16 * row));
            svg.append(String.format(Locale.ROOT, "<text class=\"xtick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s"
                    + "</text>%n", x, plotBottom + 20 + 16 * row, escape(label)));
            rowEnd[row] = x + halfWidth;
        }
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\""
                + " stroke=\"#333\"/>%n", LEFT, top, WIDTH - LEFT - RIGHT, plotBottom - top));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\""
                + " transform=\"rotate(-90 %d %d)\">%s</text>%n", Y_TITLE_X, (top + plotBottom) / 2, Y_TITLE_X,
                (top + plotBottom) / 2, escape(panel.yAxisLabel())));

        ResultSet results = panel.results();
        List<String> legend = new ArrayList<>();
        int others = 0;
        for (String protocol : results.protocols()) {
            String color = color(protocol);
            if (color == null) {
                color = OTHER_COLORS[others++ % OTHER_COLORS.length];
            }
            for (double percentile : new double[] {50, 99}) {
                boolean median = percentile == 50;
                StringBuilder points = new StringBuilder();
                StringBuilder markers = new StringBuilder();
                for (int i = 0; i < bounds.size(); i++) {
                    Optional<BucketLatencies> b = results.get(protocol, bounds.get(i));
                    if (b.isEmpty() || b.get().count() == 0) {
                        continue;
                    }
                    double x = frame.x((left[i] + right[i]) / 2);
                    double y = frame.y(b.get().percentileMicros(percentile));
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                    markers.append(marker(median, x, y, color));
                }
                if (points.length() == 0) {
                    continue;
                }
                svg.append(String.format(Locale.ROOT, "<polyline class=\"series\" data-protocol=\"%s\""
                                + " data-percentile=\"%s\" points=\"%s\" fill=\"none\" stroke=\"%s\""
                                + " stroke-width=\"2\"%s/>%n", escape(protocol), median ? "p50" : "p99",
                        points.toString().trim(), color, median ? "" : " stroke-dasharray=\"7,4\""));
                svg.append(markers);
                legend.add(protocol + (median ? " P50" : " P99") + "|" + color + "|" + (median ? "" : "7,4"));
            }
        }
        double lx = LEFT;
        int ly = top - 22;
        for (String entry : legend) {
            String[] parts = entry.split("\\|", -1);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\""
                    + " stroke-width=\"2\"%s/>%n", lx, ly, lx + 32, ly, parts[1],
                    parts[2].isEmpty() ? "" : " stroke-dasharray=\"" + parts[2] + "\""));
            svg.append(marker(parts[2].isEmpty(), lx + 16, ly, parts[1]));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>%n", lx + 38, ly + 4,
                    escape(parts[0])));
            lx += 38 + parts[0].length() * 7.0 + 14;
        }
    }

    /**
     * A known protocol's own colour, the same in every figure whatever else it shows: Homa blue, TCP red, their gRPC
     * forms cyan and orange, the simulated limit green; null for another name.
     */
    private static String color(String protocol) {
        return switch (protocol) {
            case "homa" -> "#1f5fbf";
            case "tcp" -> "#d62728";
            case "grpc-homa" -> "#17becf";
            case "grpc-tcp" -> "#ff7f0e";
            case SlowdownTable.IDEAL -> "#2ca02c";
            default -> null;
        };
    }

    /**
     * {@code line} cut at its " \u00b7 " separators (else at spaces) into lines of at most {@code maxChars}
     * characters, so that a long subtitle stays inside the figure.
     */
    static List<String> wrap(String line, double maxChars) {
        List<String> lines = new ArrayList<>();
        if (line.length() <= maxChars) {
            lines.add(line);
            return lines;
        }
        String separator = line.contains(" \u00b7 ") ? " \u00b7 " : " ";
        StringBuilder current = new StringBuilder();
        for (String piece : line.split(java.util.regex.Pattern.quote(separator))) {
            if (current.length() > 0 && current.length() + separator.length() + piece.length() > maxChars) {
                lines.add(current.toString());
                current.setLength(0);
            }
            if (current.length() > 0) {
                current.append(separator);
            }
            current.append(piece);
        }
        lines.add(current.toString());
        if (separator.equals(" \u00b7 ")) {
            List<String> fitted = new ArrayList<>();
            for (String l : lines) {
                fitted.addAll(l.length() > maxChars ? wrap(l.replace(" \u00b7 ", " "), maxChars) : List.of(l));
            }
            return fitted;
        }
        return lines;
    }

    /** P50: a filled circle; P99: an open square (in the legend as on the curves). */
    private static String marker(boolean median, double x, double y, String color) {
        return median
                ? String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>%n", x, y, color)
                : String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"white\""
                        + " stroke=\"%s\" stroke-width=\"1.5\"/>%n", x - 3.5, y - 3.5, color);
    }

    /** One format for every length, three significant digits: "315 B", "6.39 KB", "49.4 KB", "273 KB", "1 MB". */
    public static String lengthLabel(int bytes) {
        if (bytes < 1_000) {
            return bytes + " B";
        }
        String[] units = {"KB", "MB", "GB"};
        double value = bytes / 1e3;
        int unit = 0;
        while (value >= 999.5 && unit < units.length - 1) {
            value /= 1e3;
            unit++;
        }
        String digits = value >= 99.5 ? String.format(Locale.ROOT, "%.0f", value)
                : value >= 9.995 ? String.format(Locale.ROOT, "%.1f", value) : String.format(Locale.ROOT, "%.2f", value);
        if (digits.contains(".")) {
            digits = digits.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return digits + " " + units[unit];
    }

    /** 10^decade microseconds as "10 \u00b5s", "1 ms", "10 s". */
    static String decadeLabel(int decade) {
        if (decade < 0) {
            return String.format(Locale.ROOT, "%s \u00b5s", Math.pow(10, decade));
        }
        String[] units = {"\u00b5s", "ms", "s"};
        int unit = Math.min(decade / 3, units.length - 1);
        long value = (long) Math.pow(10, decade - 3 * unit);
        return value + " " + units[unit];
    }

    /** 10^decade as a slowdown: "1", "10", "100", "0.1". */
    public static String slowdownLabel(int decade) {
        return decade >= 0 ? Long.toString((long) Math.pow(10, decade)) : Double.toString(Math.pow(10, decade));
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Maps cumulative fraction and RTT to the plot area. */
    private static final class Frame {
        private final int lowDecade;
        private final int highDecade;
        private final double lowLog;
        private final double highLog;
        private final int top;
        private final int bottom;

        Frame(int lowDecade, int highDecade, int top, int bottom) {
            this.lowDecade = lowDecade;
            this.highDecade = highDecade;
            this.lowLog = lowDecade;
            this.highLog = highDecade;
            this.top = top;
            this.bottom = bottom;
        }

        double x(double fraction) {
            return LEFT + fraction * (WIDTH - LEFT - RIGHT);
        }

        double y(double micros) {
            double t = (Math.log10(Math.max(micros, 1e-3)) - lowLog) / (highLog - lowLog);
            return bottom - t * (bottom - top);
        }
    }
}
