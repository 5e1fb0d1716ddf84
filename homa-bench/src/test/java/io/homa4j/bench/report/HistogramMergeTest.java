package io.homa4j.bench.report;

import io.homa4j.bench.driver.LatencyRecorder;
import io.homa4j.bench.driver.LengthBuckets;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HistogramMergeTest {
    private static final LengthBuckets BUCKETS = new LengthBuckets(100, 10_000, 1_000_000);

    @Test
    void mergingTwoClientsThroughHistogramsCsvIsExact(@TempDir Path tmp) throws IOException {
        LatencyRecorder a = new LatencyRecorder(BUCKETS);
        LatencyRecorder b = new LatencyRecorder(BUCKETS);
        Histogram[] direct = {LatencyRecorder.newHistogram(), LatencyRecorder.newHistogram(),
                LatencyRecorder.newHistogram()};
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 50_000; i++) {
            int length = 1 + random.nextInt(1_000_000);
            long rtt = 1_000 + (long) (-Math.log(1 - random.nextDouble()) * 200_000);
            (i % 3 == 0 ? a : b).record(length, rtt);
            direct[BUCKETS.indexOf(length)].recordValue(rtt);
        }
        HistogramsCsv.write(tmp.resolve("a"), new ResultSet().addRecorder("homa", a).rows());
        HistogramsCsv.write(tmp.resolve("b"), new ResultSet().addRecorder("homa", b).rows());

        ResultSet merged = new ResultSet()
                .addAll(HistogramsCsv.read(tmp.resolve("a").resolve(HistogramsCsv.FILE_NAME)))
                .addAll(HistogramsCsv.read(tmp.resolve("b").resolve(HistogramsCsv.FILE_NAME)));

        assertEquals(List.of(100, 10_000, 1_000_000), merged.bucketBounds());
        for (int i = 0; i < BUCKETS.count(); i++) {
            Histogram m = merged.get("homa", BUCKETS.upperBound(i)).orElseThrow().histogram();
            assertEquals(direct[i], m, "bucket " + BUCKETS.upperBound(i) + " differs from recording directly");
            for (double p : new double[] {50, 99, 99.9}) {
                assertEquals(direct[i].getValueAtPercentile(p), m.getValueAtPercentile(p));
            }
        }
    }

    @Test
    void protocolsStaySeparateAndMergedUpToAddsBuckets() {
        Histogram h1 = LatencyRecorder.newHistogram();
        h1.recordValue(10_000);
        Histogram h2 = LatencyRecorder.newHistogram();
        h2.recordValueWithCount(20_000, 3);
        ResultSet set = new ResultSet().add("tcp", 100, h1).add("homa", 100, h2).add("homa", 1000, h1)
                .add("homa", 5000, h1);
        assertEquals(List.of("homa", "tcp"), set.protocols());
        assertEquals(4, set.mergedUpTo("homa", 1000).getTotalCount(), "3 at 100 B + 1 at 1000 B");
        assertEquals(1, set.mergedUpTo("tcp", 1000).getTotalCount());
        assertEquals(4, set.totalCount(100));
    }

    @Test
    void malformedHistogramsCsvIsAClearError(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve(HistogramsCsv.FILE_NAME);
        Files.writeString(file, "protocol,bucket\n");
        IOException e = assertThrows(IOException.class, () -> HistogramsCsv.read(file));
        assertTrue(e.getMessage().contains("first line"), e.getMessage());
        Files.writeString(file, HistogramsCsv.HEADER + "\nhoma,100,notbase64!!\n");
        e = assertThrows(IOException.class, () -> HistogramsCsv.read(file));
        assertTrue(e.getMessage().contains(":2:"), e.getMessage());
        Files.writeString(file, HistogramsCsv.HEADER + "\nhoma,100\n");
        assertThrows(IOException.class, () -> HistogramsCsv.read(file));
    }
}
