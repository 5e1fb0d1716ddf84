package io.homa4j.bench.report;

import io.homa4j.bench.driver.LatencyRecorder;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Bucket histograms of one or more protocols, merged exactly: histograms of the same protocol and bucket (from
 * several clients) are added. Protocols are ordered homa, tcp, grpc-homa, grpc-tcp, then any other
 * name. Not thread-safe.
 */
public final class ResultSet {
    private final Map<String, TreeMap<Integer, Histogram>> byProtocol = new TreeMap<>(ResultSet::compareProtocols);

    private static int compareProtocols(String a, String b) {
        return Integer.compare(rank(a), rank(b)) != 0 ? Integer.compare(rank(a), rank(b)) : a.compareTo(b);
    }

    private static int rank(String protocol) {
        return switch (protocol) {
            case "homa" -> 0;
            case "tcp" -> 1;
            case "grpc-homa" -> 2;
            case "grpc-tcp" -> 3;
            default -> 4;
        };
    }

    /** Adds {@code histogram}'s counts into this set's histogram of {@code protocol} and bucket. */
    public ResultSet add(String protocol, int bucketMaxBytes, Histogram histogram) {
        byProtocol.computeIfAbsent(protocol, p -> new TreeMap<>())
                .computeIfAbsent(bucketMaxBytes, b -> LatencyRecorder.newHistogram())
                .add(histogram);
        return this;
    }

    public ResultSet addAll(List<BucketLatencies> rows) {
        for (BucketLatencies row : rows) {
            add(row.protocol(), row.bucketMaxBytes(), row.histogram());
        }
        return this;
    }

    /** Adds every bucket of {@code recorder} under {@code protocol}. */
    public ResultSet addRecorder(String protocol, LatencyRecorder recorder) {
        for (int i = 0; i < recorder.buckets().count(); i++) {
            add(protocol, recorder.buckets().upperBound(i), recorder.snapshot(i));
        }
        return this;
    }

    public List<String> protocols() {
        return new ArrayList<>(byProtocol.keySet());
    }

    /** Every bucket bound of any protocol, ascending. */
    public List<Integer> bucketBounds() {
        TreeSet<Integer> bounds = new TreeSet<>();
        byProtocol.values().forEach(m -> bounds.addAll(m.keySet()));
        return new ArrayList<>(bounds);
    }

    public Optional<BucketLatencies> get(String protocol, int bucketMaxBytes) {
        TreeMap<Integer, Histogram> buckets = byProtocol.get(protocol);
        Histogram h = buckets == null ? null : buckets.get(bucketMaxBytes);
        return h == null ? Optional.empty() : Optional.of(new BucketLatencies(protocol, bucketMaxBytes, h));
    }

    /** All rows, protocol by protocol, buckets ascending. */
    public List<BucketLatencies> rows() {
        List<BucketLatencies> rows = new ArrayList<>();
        byProtocol.forEach((protocol, buckets) ->
                buckets.forEach((bound, h) -> rows.add(new BucketLatencies(protocol, bound, h))));
        return rows;
    }

    /** One histogram of {@code protocol}'s messages in all buckets whose bound is at most {@code maxBytes}. */
    public Histogram mergedUpTo(String protocol, int maxBytes) {
        Histogram merged = LatencyRecorder.newHistogram();
        TreeMap<Integer, Histogram> buckets = byProtocol.get(protocol);
        if (buckets != null) {
            buckets.headMap(maxBytes, true).values().forEach(merged::add);
        }
        return merged;
    }

    /** Messages of all protocols in bucket {@code bucketMaxBytes}: the plot places buckets by these counts. */
    public long totalCount(int bucketMaxBytes) {
        long n = 0;
        for (TreeMap<Integer, Histogram> buckets : byProtocol.values()) {
            Histogram h = buckets.get(bucketMaxBytes);
            n += h == null ? 0 : h.getTotalCount();
        }
        return n;
    }

    public boolean isEmpty() {
        return byProtocol.isEmpty();
    }
}
