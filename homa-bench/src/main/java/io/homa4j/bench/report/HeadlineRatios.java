package io.homa4j.bench.report;

import org.HdrHistogram.Histogram;

import java.util.Optional;

/**
 * The two headline comparisons of the talk's figure, TCP / Homa (above 1: Homa is faster; for gRPC, grpc-tcp /
 * grpc-homa), NaN where a protocol has no calls: messages up to {@link #SHORT_MESSAGE_BYTES} merged, and the largest length bucket.
 */
public record HeadlineRatios(double shortP50, double shortP99, int largestBucket, double largestP50,
                             double largestP99) {
    /** Short messages, as in "&lt;= 1 KB". */
    public static final int SHORT_MESSAGE_BYTES = 1_000;

    public static HeadlineRatios of(ResultSet results) {
        return of(results, ProtocolPair.HOMA_TCP);
    }

    /** The ratios of {@code pair}'s TCP side to its Homa side. */
    public static HeadlineRatios of(ResultSet results, ProtocolPair pair) {
        Histogram homaShort = results.mergedUpTo(pair.homa(), SHORT_MESSAGE_BYTES);
        Histogram tcpShort = results.mergedUpTo(pair.tcp(), SHORT_MESSAGE_BYTES);
        int largest = results.bucketBounds().isEmpty() ? 0
                : results.bucketBounds().get(results.bucketBounds().size() - 1);
        Optional<BucketLatencies> homa = results.get(pair.homa(), largest).filter(b -> b.count() > 0);
        Optional<BucketLatencies> tcp = results.get(pair.tcp(), largest).filter(b -> b.count() > 0);
        return new HeadlineRatios(ratio(tcpShort, homaShort, 50), ratio(tcpShort, homaShort, 99), largest,
                ratio(tcp, homa, 50), ratio(tcp, homa, 99));
    }

    private static double ratio(Histogram tcp, Histogram homa, double percentile) {
        if (tcp.getTotalCount() == 0 || homa.getTotalCount() == 0) {
            return Double.NaN;
        }
        return (double) tcp.getValueAtPercentile(percentile) / homa.getValueAtPercentile(percentile);
    }

    private static double ratio(Optional<BucketLatencies> tcp, Optional<BucketLatencies> homa, double percentile) {
        if (tcp.isEmpty() || homa.isEmpty()) {
            return Double.NaN;
        }
        return tcp.get().percentileMicros(percentile) / homa.get().percentileMicros(percentile);
    }
}
