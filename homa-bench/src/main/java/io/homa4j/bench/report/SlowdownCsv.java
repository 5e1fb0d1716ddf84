package io.homa4j.bench.report;

import io.homa4j.bench.driver.RttByLength;
import io.homa4j.bench.workload.Workload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code slowdown.csv}: per protocol and length bucket (the rows of {@code results.csv}), how many calls were
 * measured, the bucket's median unloaded RTT in microseconds (what a slowdown of 1 means there) and the P50 and P99
 * slowdown (each call's RTT over the unloaded RTT of its own length, as the Homa papers report it; 2 decimals).
 * {@code compare} writes the rows of the protocols it compared and the simulated limit's ({@code homa-ideal});
 * {@code simulate} its own protocol's. Empty buckets have empty slowdown cells.
 */
public final class SlowdownCsv {
    public static final String HEADER = "protocol,bucket_max_bytes,count,unloaded_us,p50_slowdown,p99_slowdown";
    public static final String FILE_NAME = "slowdown.csv";

    /** One row; {@code p50} and {@code p99} are NaN when {@code count} is 0. */
    public record Row(String protocol, int bucketMaxBytes, long count, double unloadedMicros, double p50,
                      double p99) {
    }

    private SlowdownCsv() {
    }

    /**
     * The rows of {@code protocol} in {@code slowdownsMilli} (slowdown x 1000 per bucket, as the recorders hold it),
     * each with the median unloaded RTT of the calls {@code workload} puts in its bucket.
     */
    public static List<Row> rows(String protocol, ResultSet slowdownsMilli, Workload workload, RttByLength unloaded) {
        List<Row> rows = new ArrayList<>();
        List<Integer> bounds = slowdownsMilli.bucketBounds();
        for (int i = 0; i < bounds.size(); i++) {
            int bound = bounds.get(i);
            int below = i == 0 ? 0 : bounds.get(i - 1);
            double unloadedMicros = bucketMedianUnloadedNanos(workload, below, bound, unloaded) / 1e3;
            BucketLatencies b = slowdownsMilli.get(protocol, bound).orElse(null);
            if (b == null || b.count() == 0) {
                rows.add(new Row(protocol, bound, 0, unloadedMicros, Double.NaN, Double.NaN));
            } else {
                rows.add(new Row(protocol, bound, b.count(), unloadedMicros, b.percentileMicros(50),
                        b.percentileMicros(99)));
            }
        }
        return rows;
    }

    /**
     * The median unloaded RTT of the calls in the bucket {@code (below, bound]}: the unloaded RTT grows with the
     * length, so it is the RTT of the bucket's median length under {@code workload}.
     */
    public static double bucketMedianUnloadedNanos(Workload workload, int below, int bound, RttByLength unloaded) {
        double from = workload.cumulativeFraction(below);
        double to = workload.cumulativeFraction(bound);
        int median = to > from ? workload.quantile((from + to) / 2) : bound;
        return unloaded.rttNanos(Math.max(below + 1, Math.min(bound, median)));
    }

    public static String format(List<Row> rows) {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (Row r : rows) {
            sb.append(r.protocol()).append(',').append(r.bucketMaxBytes()).append(',').append(r.count())
                    .append(String.format(Locale.ROOT, ",%.3f", r.unloadedMicros()));
            if (r.count() > 0) {
                sb.append(String.format(Locale.ROOT, ",%.2f,%.2f", r.p50(), r.p99()));
            } else {
                sb.append(",,");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    public static Path write(Path dir, List<Row> rows) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE_NAME);
        Files.writeString(file, format(rows), StandardCharsets.UTF_8);
        return file;
    }

    /** Parses {@code slowdown.csv}; throws {@link IOException} naming the file and line on malformed content. */
    public static List<Row> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).trim().equals(HEADER)) {
            throw new IOException(file + ": first line must be '" + HEADER + "'");
        }
        List<Row> rows = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] c = line.split(",", -1);
            try {
                if (c.length != 6 || c[0].isEmpty()) {
                    throw new NumberFormatException("expected 6 cells");
                }
                long count = Long.parseLong(c[2]);
                rows.add(new Row(c[0], Integer.parseInt(c[1]), count, Double.parseDouble(c[3]),
                        c[4].isEmpty() ? Double.NaN : Double.parseDouble(c[4]),
                        c[5].isEmpty() ? Double.NaN : Double.parseDouble(c[5])));
            } catch (NumberFormatException e) {
                throw new IOException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return rows;
    }
}
