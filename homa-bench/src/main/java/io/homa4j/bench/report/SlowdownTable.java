package io.homa4j.bench.report;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The stdout table of slowdown, beside the RTT table: per length bucket the unloaded RTT and the P50 and P99
 * slowdown of Homa, TCP and Homa's limit on the same rack ({@link #IDEAL}, simulated with ideal hosts), and how far
 * Homa is from that limit (Homa / ideal: 1 is the limit). Then the same for messages up to 1 KB merged and for the
 * largest bucket, the two places the headline ratios look at.
 */
public final class SlowdownTable {
    /** The protocol name of the simulated limit in {@code slowdown.csv}, the table and the figure. */
    public static final String IDEAL = "homa-ideal";

    private SlowdownTable() {
    }

    /**
     * @param slowdownsMilli slowdown x 1000 per protocol and bucket, all calls merged (homa, tcp, {@link #IDEAL})
     * @param rows           {@code slowdown.csv}'s rows of the same (for the unloaded RTTs)
     */
    public static String format(ResultSet slowdownsMilli, List<SlowdownCsv.Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%12s %11s %11s %8s %8s %8s %8s %8s %8s %9s %9s%n", "bucket<=B",
                "homa idle", "tcp idle", "homa p50", "homa p99", "tcp p50", "tcp p99", "ideal50", "ideal99",
                "p50 h/id", "p99 h/id"));
        for (int bound : slowdownsMilli.bucketBounds()) {
            sb.append(String.format(Locale.ROOT, "%12d %11s %11s %8s %8s %8s %8s %8s %8s %9s %9s%n", bound,
                    unloaded(rows, "homa", bound), unloaded(rows, "tcp", bound),
                    value(slowdownsMilli, "homa", bound, 50), value(slowdownsMilli, "homa", bound, 99),
                    value(slowdownsMilli, "tcp", bound, 50), value(slowdownsMilli, "tcp", bound, 99),
                    value(slowdownsMilli, IDEAL, bound, 50), value(slowdownsMilli, IDEAL, bound, 99),
                    toIdeal(slowdownsMilli, bound, 50), toIdeal(slowdownsMilli, bound, 99)));
        }
        sb.append("(slowdown = RTT / unloaded RTT of the same length; idle = the bucket's median unloaded RTT, us;"
                + " h/id = Homa / " + IDEAL + ", 1 is Homa's limit on this rack)\n");
        List<Integer> bounds = slowdownsMilli.bucketBounds();
        if (bounds.isEmpty()) {
            return sb.toString();
        }
        sb.append(line("messages <= " + HeadlineRatios.SHORT_MESSAGE_BYTES + " B",
                merged(slowdownsMilli, "homa"), merged(slowdownsMilli, "tcp"), merged(slowdownsMilli, IDEAL)));
        int largest = bounds.get(bounds.size() - 1);
        sb.append(line("largest bucket (<= " + largest + " B)", bucket(slowdownsMilli, "homa", largest),
                bucket(slowdownsMilli, "tcp", largest), bucket(slowdownsMilli, IDEAL, largest)));
        return sb.toString();
    }

    private static String line(String what, Histogram homa, Histogram tcp, Histogram ideal) {
        return String.format(Locale.ROOT, "slowdown, %s: P50 homa %s, tcp %s, %s %s (homa/ideal %s); P99 homa %s,"
                        + " tcp %s, %s %s (homa/ideal %s)%n", what, p(homa, 50), p(tcp, 50), IDEAL, p(ideal, 50),
                ratio(homa, ideal, 50), p(homa, 99), p(tcp, 99), IDEAL, p(ideal, 99), ratio(homa, ideal, 99));
    }

    private static Histogram merged(ResultSet s, String protocol) {
        return s.mergedUpTo(protocol, HeadlineRatios.SHORT_MESSAGE_BYTES);
    }

    private static Histogram bucket(ResultSet s, String protocol, int bound) {
        return s.get(protocol, bound).map(BucketLatencies::histogram).orElseGet(
                io.homa4j.bench.driver.LatencyRecorder::newHistogram);
    }

    private static String p(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? "-"
                : String.format(Locale.ROOT, "%.2f", h.getValueAtPercentile(percentile) / 1e3);
    }

    private static String ratio(Histogram homa, Histogram ideal, double percentile) {
        if (homa.getTotalCount() == 0 || ideal.getTotalCount() == 0) {
            return "-";
        }
        return ComparisonTable.ratioText((double) homa.getValueAtPercentile(percentile)
                / ideal.getValueAtPercentile(percentile));
    }

    private static String value(ResultSet s, String protocol, int bound, double percentile) {
        Optional<BucketLatencies> b = s.get(protocol, bound).filter(x -> x.count() > 0);
        return b.map(x -> String.format(Locale.ROOT, "%.2f", x.percentileMicros(percentile))).orElse("-");
    }

    private static String toIdeal(ResultSet s, int bound, double percentile) {
        Optional<BucketLatencies> homa = s.get("homa", bound).filter(x -> x.count() > 0);
        Optional<BucketLatencies> ideal = s.get(IDEAL, bound).filter(x -> x.count() > 0);
        if (homa.isEmpty() || ideal.isEmpty()) {
            return "-";
        }
        return ComparisonTable.ratioText(homa.get().percentileMicros(percentile)
                / ideal.get().percentileMicros(percentile));
    }

    private static String unloaded(List<SlowdownCsv.Row> rows, String protocol, int bound) {
        return rows.stream().filter(r -> r.protocol().equals(protocol) && r.bucketMaxBytes() == bound).findFirst()
                .map(r -> String.format(Locale.ROOT, "%.1f", r.unloadedMicros())).orElse("-");
    }
}
