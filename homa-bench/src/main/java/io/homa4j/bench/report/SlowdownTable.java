package io.homa4j.bench.report;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The stdout table of slowdown, beside the RTT table: per length bucket the unloaded RTT and the P50 and P99
 * slowdown of the two protocols of a {@link ProtocolPair} (homa and tcp, grpc-homa and grpc-tcp), Homa's limit on
 * the same rack ({@link #IDEAL}, simulated with ideal hosts), and how far the pair's Homa side is from that limit
 * (Homa / ideal: 1 is the limit). Then the same for messages up to 1 KB merged and for the largest bucket, the two
 * places the headline ratios look at. One table per pair run, as in {@link ComparisonTable}.
 */
public final class SlowdownTable {
    /** The protocol name of the simulated limit in {@code slowdown.csv}, the table and the figure. */
    public static final String IDEAL = "homa-ideal";

    private SlowdownTable() {
    }

    /**
     * One table per {@link ProtocolPair} with both sides in {@code slowdownsMilli}; with neither pair complete,
     * the {@link ProtocolPair#HOMA_TCP} table (its missing cells "-").
     *
     * @param slowdownsMilli slowdown x 1000 per protocol and bucket, all calls merged (the compared protocols and
     *                       {@link #IDEAL})
     * @param rows           {@code slowdown.csv}'s rows of the same (for the unloaded RTTs)
     */
    public static String format(ResultSet slowdownsMilli, List<SlowdownCsv.Row> rows) {
        List<ProtocolPair> pairs = ProtocolPair.present(slowdownsMilli);
        if (pairs.isEmpty()) {
            return format(slowdownsMilli, rows, ProtocolPair.HOMA_TCP);
        }
        StringBuilder sb = new StringBuilder();
        for (ProtocolPair pair : pairs) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(format(slowdownsMilli, rows, pair));
        }
        return sb.toString();
    }

    /**
     * The same distance from the limit in round-trip time, for messages up to 1 KB merged and the largest bucket:
     * one line each, per pair with both sides measured. Slowdowns divide by each side's own unloaded RTT, and the
     * idle emulated rack passes a short message faster than the simulated one (whose links serialize every packet
     * at the link rate, while an idle emulated link lets a short burst through at once), so a short message's
     * slowdown can be further from the limit than its RTT is. Empty when {@code rtts} has no {@link #IDEAL} side.
     *
     * @param rtts RTTs in nanoseconds per protocol and bucket, all calls merged (the compared protocols and
     *             {@link #IDEAL})
     * @param rows {@code slowdown.csv}'s rows (for the unloaded RTTs of the shortest bucket)
     */
    public static String againstTheLimitInRtt(ResultSet rtts, List<SlowdownCsv.Row> rows) {
        List<Integer> bounds = rtts.bucketBounds();
        if (bounds.isEmpty() || !rtts.protocols().contains(IDEAL)) {
            return "";
        }
        int shortest = bounds.get(0);
        int largest = bounds.get(bounds.size() - 1);
        StringBuilder sb = new StringBuilder();
        for (ProtocolPair pair : ProtocolPair.present(rtts)) {
            String h = pair.homa();
            sb.append(rttLine("messages <= " + HeadlineRatios.SHORT_MESSAGE_BYTES + " B", h,
                    rtts.mergedUpTo(h, HeadlineRatios.SHORT_MESSAGE_BYTES),
                    rtts.mergedUpTo(IDEAL, HeadlineRatios.SHORT_MESSAGE_BYTES)));
            sb.append(rttLine("largest bucket (<= " + largest + " B)", h, bucket(rtts, h, largest),
                    bucket(rtts, IDEAL, largest)));
            sb.append(String.format(Locale.ROOT, "(unloaded RTT at <= %d B: %s %s us, %s %s us; slowdowns divide by"
                            + " these)%n", shortest, h, unloaded(rows, h, shortest), IDEAL,
                    unloaded(rows, IDEAL, shortest)));
        }
        return sb.toString();
    }

    private static String rttLine(String what, String h, Histogram homa, Histogram ideal) {
        return String.format(Locale.ROOT, "RTT, %s: P50 %s %s us, %s %s us (%s/ideal %s); P99 %s %s us, %s %s us"
                        + " (%s/ideal %s)%n", what, h, micros(homa, 50), IDEAL, micros(ideal, 50), h,
                ratio(homa, ideal, 50), h, micros(homa, 99), IDEAL, micros(ideal, 99), h, ratio(homa, ideal, 99));
    }

    private static String micros(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? "-"
                : String.format(Locale.ROOT, "%.1f", h.getValueAtPercentile(percentile) / 1e3);
    }

    /** The table of {@code pair} and {@link #IDEAL}; see {@link #format(ResultSet, List)}. */
    public static String format(ResultSet slowdownsMilli, List<SlowdownCsv.Row> rows, ProtocolPair pair) {
        String h = pair.homa();
        String t = pair.tcp();
        // the columns widen for longer names (grpc-homa) and stay as they were for homa and tcp
        int longest = Math.max(h.length(), t.length());
        int idleWidth = Math.max(11, longest + 7);
        int valueWidth = Math.max(8, longest + 4);
        String row = "%12s %" + idleWidth + "s %" + idleWidth + "s %" + valueWidth + "s %" + valueWidth + "s %"
                + valueWidth + "s %" + valueWidth + "s %8s %8s %9s %9s%n";
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, row, "bucket<=B", h + " idle", t + " idle", h + " p50", h + " p99",
                t + " p50", t + " p99", "ideal50", "ideal99", "p50 h/id", "p99 h/id"));
        for (int bound : slowdownsMilli.bucketBounds()) {
            sb.append(String.format(Locale.ROOT, row, Integer.toString(bound),
                    unloaded(rows, h, bound), unloaded(rows, t, bound),
                    value(slowdownsMilli, h, bound, 50), value(slowdownsMilli, h, bound, 99),
                    value(slowdownsMilli, t, bound, 50), value(slowdownsMilli, t, bound, 99),
                    value(slowdownsMilli, IDEAL, bound, 50), value(slowdownsMilli, IDEAL, bound, 99),
                    toIdeal(slowdownsMilli, h, bound, 50), toIdeal(slowdownsMilli, h, bound, 99)));
        }
        sb.append("(slowdown = RTT / unloaded RTT of the same length; idle = the bucket's median unloaded RTT, us;"
                + " h/id = " + (pair.equals(ProtocolPair.HOMA_TCP) ? "Homa" : h) + " / " + IDEAL
                + ", 1 is Homa's limit on this rack)\n");
        List<Integer> bounds = slowdownsMilli.bucketBounds();
        if (bounds.isEmpty()) {
            return sb.toString();
        }
        sb.append(line("messages <= " + HeadlineRatios.SHORT_MESSAGE_BYTES + " B", pair,
                merged(slowdownsMilli, h), merged(slowdownsMilli, t), merged(slowdownsMilli, IDEAL)));
        int largest = bounds.get(bounds.size() - 1);
        sb.append(line("largest bucket (<= " + largest + " B)", pair, bucket(slowdownsMilli, h, largest),
                bucket(slowdownsMilli, t, largest), bucket(slowdownsMilli, IDEAL, largest)));
        return sb.toString();
    }

    private static String line(String what, ProtocolPair pair, Histogram homa, Histogram tcp, Histogram ideal) {
        String h = pair.homa();
        String t = pair.tcp();
        return String.format(Locale.ROOT, "slowdown, %s: P50 %s %s, %s %s, %s %s (%s/ideal %s); P99 %s %s,"
                        + " %s %s, %s %s (%s/ideal %s)%n", what, h, p(homa, 50), t, p(tcp, 50), IDEAL, p(ideal, 50),
                h, ratio(homa, ideal, 50), h, p(homa, 99), t, p(tcp, 99), IDEAL, p(ideal, 99), h,
                ratio(homa, ideal, 99));
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

    private static String toIdeal(ResultSet s, String homaSide, int bound, double percentile) {
        Optional<BucketLatencies> homa = s.get(homaSide, bound).filter(x -> x.count() > 0);
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
