package io.homa4j.bench.simulate;

import io.homa4j.bench.driver.LatencyRecorder;
import io.homa4j.bench.driver.LengthBuckets;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code slowdown.csv}: per protocol and length bucket (the same rows as {@code results.csv}), the slowdown
 * percentiles and mean (RTT over the unloaded RTT of the same length, 2 decimals), and the unloaded RTT of the
 * bucket's largest length in microseconds (what a slowdown of 1 means there).
 */
public final class SlowdownCsv {
    public static final String HEADER =
            "protocol,bucket_max_bytes,count,p50_slowdown,p99_slowdown,p999_slowdown,mean_slowdown,unloaded_rtt_us";
    public static final String FILE_NAME = "slowdown.csv";

    private SlowdownCsv() {
    }

    public static String format(String protocol, LatencyRecorder slowdownMilli, UnloadedRtt unloaded) {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        LengthBuckets buckets = slowdownMilli.buckets();
        for (int i = 0; i < buckets.count(); i++) {
            Histogram h = slowdownMilli.snapshot(i);
            int bound = buckets.upperBound(i);
            sb.append(protocol).append(',').append(bound).append(',').append(h.getTotalCount());
            if (h.getTotalCount() > 0) {
                sb.append(String.format(Locale.ROOT, ",%.2f,%.2f,%.2f,%.2f", h.getValueAtPercentile(50) / 1e3,
                        h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3, h.getMean() / 1e3));
            } else {
                sb.append(",,,,");
            }
            sb.append(String.format(Locale.ROOT, ",%.3f%n",
                    unloaded.rttNanos(Math.min(bound, unloaded.maxLength())) / 1e3));
        }
        return sb.toString();
    }

    public static Path write(Path dir, String protocol, LatencyRecorder slowdownMilli, UnloadedRtt unloaded)
            throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE_NAME);
        Files.writeString(file, format(protocol, slowdownMilli, unloaded), StandardCharsets.UTF_8);
        return file;
    }
}
