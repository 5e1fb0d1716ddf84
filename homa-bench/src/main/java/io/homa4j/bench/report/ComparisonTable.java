package io.homa4j.bench.report;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The stdout table: per bucket, each protocol's count, P50 and P99, and the TCP/Homa ratios (above 1: Homa is
 * faster), followed by the two headline ratios; one table per {@link ProtocolPair} run (homa and tcp, grpc-homa
 * and grpc-tcp): messages up to 1,000 B merged, and the largest bucket. With
 * several repeats (Homa/TCP pairs) the headline is each ratio's median over the repeats with its min-max. When
 * a run behind the table was overloaded, it says OVERLOADED and prints no headline: the ratios would compare
 * queues in the clients, not transports.
 */
public final class ComparisonTable {
    /** Short messages, as in "&lt;= 1 KB". */
    public static final int SHORT_MESSAGE_BYTES = HeadlineRatios.SHORT_MESSAGE_BYTES;
    /** Fewer calls than this in the largest bucket and its P99 is one of its few slowest calls: said so. */
    public static final long TAIL_CALLS = 500;

    private ComparisonTable() {
    }

    public static String format(ResultSet results) {
        return format(results, new OverloadVerdict(List.of(), false), List.of());
    }

    /**
     * @param merged  every call of every repeat, by protocol and bucket
     * @param verdict whether the runs were overloaded
     * @param repeats each repeat's own results (one Homa/TCP pair each); fewer than two: no spread is printed
     */
    public static String format(ResultSet merged, OverloadVerdict verdict, List<ResultSet> repeats) {
        List<ProtocolPair> pairs = ProtocolPair.present(merged);
        if (pairs.isEmpty()) {
            return format(merged, verdict, repeats, ProtocolPair.HOMA_TCP);
        }
        StringBuilder sb = new StringBuilder();
        for (ProtocolPair pair : pairs) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(format(merged, verdict, repeats, pair));
        }
        return sb.toString();
    }

    /** The table and headline of one pair of protocols. */
    private static String format(ResultSet merged, OverloadVerdict verdict, List<ResultSet> repeats,
                                 ProtocolPair pair) {
        StringBuilder sb = new StringBuilder();
        List<Integer> bounds = merged.bucketBounds();
        String h = pair.homa();
        String t = pair.tcp();
        // the columns widen for longer names (grpc-homa) and stay as they were for homa and tcp
        int countWidth = Math.max(8, Math.max(h.length(), t.length()) + 2);
        int usWidth = Math.max(10, Math.max(h.length(), t.length()) + 4);
        String row = "%12s %" + countWidth + "s %" + usWidth + "s %" + usWidth + "s %" + countWidth + "s %" + usWidth
                + "s %" + usWidth + "s %9s %9s%n";
        sb.append(String.format(Locale.ROOT, row, "bucket<=B", h + " n", h + " p50", h + " p99", t + " n",
                t + " p50", t + " p99", "p50 t/h", "p99 t/h"));
        for (int bound : bounds) {
            Optional<BucketLatencies> homa = merged.get(h, bound);
            Optional<BucketLatencies> tcp = merged.get(t, bound);
            sb.append(String.format(Locale.ROOT, row, Integer.toString(bound),
                    count(homa), us(homa, 50), us(homa, 99), count(tcp), us(tcp, 50), us(tcp, 99),
                    ratio(tcp, homa, 50), ratio(tcp, homa, 99)));
        }
        sb.append(pair.equals(ProtocolPair.HOMA_TCP)
                ? "(RTT in microseconds; t/h = TCP / Homa, above 1 means Homa is faster)\n"
                : "(RTT in microseconds; t/h = " + pair.ratioName() + ", above 1 means " + h + " is faster)\n");
        if (bounds.isEmpty()) {
            return sb.toString();
        }
        if (verdict.overloaded()) {
            verdict.notes().forEach(note -> sb.append(note).append('\n'));
            sb.append("OVERLOADED: no headline ratios; the RTTs above include time the requests spent in the"
                    + " clients (sent late, waiting for the outstanding cap) or leave calls out, so they do not"
                    + " measure the transports alone\n");
            return sb.toString();
        }
        HeadlineRatios all = HeadlineRatios.of(merged, pair);
        Histogram homaShort = merged.mergedUpTo(h, SHORT_MESSAGE_BYTES);
        Histogram tcpShort = merged.mergedUpTo(t, SHORT_MESSAGE_BYTES);
        String scope = repeats.size() > 1 ? ", all " + repeats.size() + " repeats" : "";
        if (!Double.isNaN(all.shortP99())) {
            sb.append(String.format(Locale.ROOT,
                    "messages <= %d B (buckets merged%s): P50 %s = %s, P99 %s = %s (%s P99 %.1f us, %s P99 %.1f us)%n",
                    SHORT_MESSAGE_BYTES, scope, pair.ratioName(), ratioText(all.shortP50()), pair.ratioName(),
                    ratioText(all.shortP99()), h,
                    homaShort.getValueAtPercentile(99) / 1e3, t, tcpShort.getValueAtPercentile(99) / 1e3));
        }
        Optional<BucketLatencies> homaLargest = merged.get(h, all.largestBucket());
        Optional<BucketLatencies> tcpLargest = merged.get(t, all.largestBucket());
        if (!Double.isNaN(all.largestP99())) {
            sb.append(String.format(Locale.ROOT,
                    "largest bucket (<= %d B%s): P50 %s = %s, P99 %s = %s%n", all.largestBucket(),
                    scope, pair.ratioName(), ratioText(all.largestP50()), pair.ratioName(),
                    ratioText(all.largestP99())));
        }
        long fewest = Math.min(homaLargest.map(BucketLatencies::count).orElse(0L),
                tcpLargest.map(BucketLatencies::count).orElse(0L));
        if (fewest > 0 && fewest < TAIL_CALLS) {
            long slowest = Math.max(1, (long) Math.ceil(fewest * 0.01));
            sb.append(String.format(Locale.ROOT, "note: the largest bucket holds only %d calls of a protocol"
                    + " (fewer than %d): its P99 is %s%n", fewest, TAIL_CALLS,
                    slowest == 1 ? "its slowest call" : "one of its " + slowest + " slowest calls"));
        }
        if (repeats.size() > 1) {
            List<HeadlineRatios> each = repeats.stream().map(r -> HeadlineRatios.of(r, pair)).toList();
            sb.append(String.format(Locale.ROOT, "headline, median (min-max) over %d repeats:"
                            + " messages <= %d B P99 %s = %s, P50 = %s; largest bucket P99 %s = %s,"
                            + " P50 = %s%n", repeats.size(), SHORT_MESSAGE_BYTES, pair.ratioName(),
                    spread(each, HeadlineRatios::shortP99), spread(each, HeadlineRatios::shortP50), pair.ratioName(),
                    spread(each, HeadlineRatios::largestP99), spread(each, HeadlineRatios::largestP50)));
        }
        return sb.toString();
    }

    /** "45.50 (38.30-47.50)": the median of the repeats' values and their range; NaN values left out. */
    static String spread(List<HeadlineRatios> repeats, ToDoubleFunction<HeadlineRatios> ratio) {
        double[] values = repeats.stream().mapToDouble(ratio).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (values.length == 0) {
            return "-";
        }
        return ratioText(median(values)) + " (" + ratioText(values[0]) + "-" + ratioText(values[values.length - 1])
                + ")";
    }

    /** The median of sorted values (the mean of the two middle ones for an even count). */
    static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String count(Optional<BucketLatencies> b) {
        return b.map(x -> Long.toString(x.count())).orElse("-");
    }

    private static String us(Optional<BucketLatencies> b, double percentile) {
        return b.filter(x -> x.count() > 0)
                .map(x -> String.format(Locale.ROOT, "%.1f", x.percentileMicros(percentile))).orElse("-");
    }

    private static String ratio(Optional<BucketLatencies> tcp, Optional<BucketLatencies> homa, double percentile) {
        if (tcp.isEmpty() || homa.isEmpty() || tcp.get().count() == 0 || homa.get().count() == 0) {
            return "-";
        }
        return ratioText(tcp.get().percentileMicros(percentile) / homa.get().percentileMicros(percentile));
    }

    /** Two decimals, or two significant digits below 0.1 (so a ratio of 0.004 does not print as 0.00). */
    static String ratioText(double ratio) {
        if (Double.isNaN(ratio)) {
            return "-";
        }
        return ratio >= 0.1 || ratio == 0 ? String.format(Locale.ROOT, "%.2f", ratio)
                : String.format(Locale.ROOT, "%.2g", ratio);
    }
}
