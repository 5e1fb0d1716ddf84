package io.homa4j.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code results.csv}: one row per protocol and bucket with the count and P50/P99/P99.9 in microseconds (one
 * decimal). Percentile cells are empty for an empty bucket.
 */
public final class ResultsCsv {
    public static final String HEADER = "protocol,bucket_max_bytes,count,p50_us,p99_us,p999_us";
    public static final String FILE_NAME = "results.csv";

    private ResultsCsv() {
    }

    public static String format(List<BucketLatencies> rows) {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (BucketLatencies row : rows) {
            sb.append(row.protocol()).append(',').append(row.bucketMaxBytes()).append(',').append(row.count());
            for (double p : new double[] {50, 99, 99.9}) {
                sb.append(',');
                if (row.count() > 0) {
                    sb.append(String.format(Locale.ROOT, "%.1f", row.percentileMicros(p)));
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    public static Path write(Path dir, List<BucketLatencies> rows) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE_NAME);
        Files.writeString(file, format(rows), StandardCharsets.UTF_8);
        return file;
    }
}
