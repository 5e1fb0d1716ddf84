package io.homa4j.bench.report;

import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.driver.RttByLength;
import io.homa4j.bench.driver.SlowdownRecorder;
import io.homa4j.bench.workload.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlowdownCsvTest {
    /** Lengths 100 B and 10 KB, half each; idle RTT 1 us per byte. */
    private final Workload workload = Workload.of("two", "0.5:100 1:10000", 5_050);
    private final RttByLength unloaded = new RttByLength(new long[] {1, 100_000}, new double[] {1_000,
            100_000_000});

    @Test
    void eachCallIsDividedByTheUnloadedRttOfItsOwnLength() {
        LengthBuckets buckets = new LengthBuckets(1_000, 10_000);
        SlowdownRecorder recorder = new SlowdownRecorder(buckets, unloaded);
        for (int i = 0; i < 98; i++) {
            assertEquals(2.0, recorder.record(100, 200_000), 1e-9); // 100 B idle: 100 us
        }
        recorder.record(500, 5_000_000); // 500 B idle: 500 us -> 10
        recorder.record(1_000, 10_000_000); // 1 KB idle: 1 ms -> 10
        recorder.record(10_000, 30_000_000); // 10 KB idle: 10 ms -> 3

        List<SlowdownCsv.Row> rows = SlowdownCsv.rows("homa", new ResultSet().addRecorder("homa", recorder.milli()),
                workload, unloaded);
        assertEquals(2, rows.size());
        SlowdownCsv.Row small = rows.get(0);
        assertEquals(1_000, small.bucketMaxBytes());
        assertEquals(100, small.count());
        assertEquals(2.0, small.p50(), 0.01);
        assertEquals(10.0, small.p99(), 0.01);
        assertEquals(3.0, rows.get(1).p50(), 0.01);
        assertEquals(1, rows.get(1).count());
    }

    @Test
    void theUnloadedColumnIsTheRttOfTheBucketsMedianLength() {
        // every message of the first bucket is 100 B long (the CDF jumps there), so its median unloaded RTT is 100 us
        double first = SlowdownCsv.bucketMedianUnloadedNanos(Workload.fixed(100), 0, 1_000, unloaded);
        assertEquals(100_000, first, 1);
        // a bucket no message falls in: its upper bound
        assertEquals(2_000_000, SlowdownCsv.bucketMedianUnloadedNanos(Workload.fixed(100).truncatedAt(100), 1_000,
                2_000, unloaded), 1);
    }

    @Test
    void writesTheHeaderAndEmptyCellsForEmptyBucketsAndReadsThemBack(@TempDir Path dir) throws IOException {
        List<SlowdownCsv.Row> rows = List.of(new SlowdownCsv.Row("homa-ideal", 1_000, 5, 12.3456, 1.5, 2.25),
                new SlowdownCsv.Row("homa-ideal", 10_000, 0, 99, Double.NaN, Double.NaN));
        Path file = SlowdownCsv.write(dir, rows);
        assertEquals("protocol,bucket_max_bytes,count,unloaded_us,p50_slowdown,p99_slowdown\n"
                + "homa-ideal,1000,5,12.346,1.50,2.25\nhoma-ideal,10000,0,99.000,,\n", Files.readString(file));
        List<SlowdownCsv.Row> back = SlowdownCsv.read(file);
        assertEquals(2, back.size());
        assertEquals(2.25, back.get(0).p99());
        assertTrue(Double.isNaN(back.get(1).p50()));

        Files.writeString(file, SlowdownCsv.HEADER + "\nhoma,1,x,1,1,1\n");
        IOException e = assertThrows(IOException.class, () -> SlowdownCsv.read(file));
        assertTrue(e.getMessage().contains(":2:"), e.getMessage());
    }
}
