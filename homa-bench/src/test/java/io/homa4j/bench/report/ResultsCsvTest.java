package io.homa4j.bench.report;

import io.homa4j.bench.driver.LatencyRecorder;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ResultsCsvTest {
    @Test
    void headerAndRowsInMicrosecondsWithOneDecimalWhateverTheLocale() {
        Locale saved = Locale.getDefault();
        Locale.setDefault(Locale.GERMANY); // decimal comma must not leak into the CSV
        try {
            Histogram h = LatencyRecorder.newHistogram();
            for (int i = 1; i <= 1000; i++) {
                h.recordValue(i * 1_000L); // 1 us .. 1000 us
            }
            String csv = ResultsCsv.format(List.of(new BucketLatencies("homa", 315, h),
                    new BucketLatencies("tcp", 1_000_000, LatencyRecorder.newHistogram())));
            String[] lines = csv.split("\n");
            assertEquals("protocol,bucket_max_bytes,count,p50_us,p99_us,p999_us", lines[0]);
            // HdrHistogram reports the highest value equivalent to the percentile's (3 significant digits)
            assertEquals("homa,315,1000,500.2,990.2,999.4", lines[1]);
            assertEquals("tcp,1000000,0,,,", lines[2], "empty bucket: count 0, no percentiles");
            assertEquals(3, lines.length);
        } finally {
            Locale.setDefault(saved);
        }
    }
}
