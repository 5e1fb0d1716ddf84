package io.homa4j.bench.report;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The stdout table: per bucket, each protocol's count, P50 and P99, and the TCP/Homa ratios (above 1: Homa is
 * faster), followed by the two headline ratios: messages up to 1,000 B merged, and the largest bucket.
 */
public final class ComparisonTable {
    /** Short messages, as in "<= 1 KB". */
    public static final int SHORT_MESSAGE_BYTES = 1_000;

    private ComparisonTable() {
    }

    public static String format(ResultSet results) {
        StringBuilder sb = new StringBuilder();
        List<Integer> bounds = results.bucketBounds();
        sb.append(String.format(Locale.ROOT, "%12s %8s %10s %10s %8s %10s %10s %9s %9s%n", "bucket<=B", "homa n",
                "homa p50", "homa p99", "tcp n", "tcp p50", "tcp p99", "p50 t/h", "p99 t/h"));
        for (int bound : bounds) {
            Optional<BucketLatencies> homa = results.get("homa", bound);
            Optional<BucketLatencies> tcp = results.get("tcp", bound);
            sb.append(String.format(Locale.ROOT, "%12d %8s %10s %10s %8s %10s %10s %9s %9s%n", bound,
                    count(homa), us(homa, 50), us(homa, 99), count(tcp), us(tcp, 50), us(tcp, 99),
                    ratio(tcp, homa, 50), ratio(tcp, homa, 99)));
        }
        sb.append("(RTT in microseconds; t/h = TCP / Homa, above 1 means Homa is faster)\n");
        if (!bounds.isEmpty()) {
            Histogram homaShort = results.mergedUpTo("homa", SHORT_MESSAGE_BYTES);
            Histogram tcpShort = results.mergedUpTo("tcp", SHORT_MESSAGE_BYTES);
            if (homaShort.getTotalCount() > 0 && tcpShort.getTotalCount() > 0) {
                sb.append(String.format(Locale.ROOT,
                        "messages <= %d B (buckets merged): P50 tcp/homa = %s, P99 tcp/homa = %s"
                                + " (homa P99 %.1f us, tcp P99 %.1f us)%n",
                        SHORT_MESSAGE_BYTES, ratioText(ratio(tcpShort, homaShort, 50)),
                        ratioText(ratio(tcpShort, homaShort, 99)),
                        homaShort.getValueAtPercentile(99) / 1e3, tcpShort.getValueAtPercentile(99) / 1e3));
            }
            int largest = bounds.get(bounds.size() - 1);
            Optional<BucketLatencies> homa = results.get("homa", largest);
            Optional<BucketLatencies> tcp = results.get("tcp", largest);
            if (homa.isPresent() && tcp.isPresent() && homa.get().count() > 0 && tcp.get().count() > 0) {
                sb.append(String.format(Locale.ROOT,
                        "largest bucket (<= %d B): P50 tcp/homa = %s, P99 tcp/homa = %s%n", largest,
                        ratio(tcp, homa, 50), ratio(tcp, homa, 99)));
            }
        }
        return sb.toString();
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
        return ratio >= 0.1 || ratio == 0 ? String.format(Locale.ROOT, "%.2f", ratio)
                : String.format(Locale.ROOT, "%.2g", ratio);
    }

    private static double ratio(Histogram tcp, Histogram homa, double percentile) {
        return (double) tcp.getValueAtPercentile(percentile) / homa.getValueAtPercentile(percentile);
    }
}
