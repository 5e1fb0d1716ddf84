package io.homa4j.bench.report;

import org.HdrHistogram.Histogram;

/**
 * The RTT histogram (nanoseconds) of one protocol's messages in one length bucket.
 *
 * @param protocol       {@code homa} or {@code tcp}
 * @param bucketMaxBytes largest message length of the bucket
 * @param histogram      RTTs in nanoseconds; owned by this record (callers must not change it afterwards)
 */
public record BucketLatencies(String protocol, int bucketMaxBytes, Histogram histogram) {
    public long count() {
        return histogram.getTotalCount();
    }

    /** RTT at {@code percentile} (0..100) in microseconds; NaN when the bucket is empty. */
    public double percentileMicros(double percentile) {
        return count() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1_000.0;
    }
}
