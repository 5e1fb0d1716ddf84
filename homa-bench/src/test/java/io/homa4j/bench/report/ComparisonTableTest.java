package io.homa4j.bench.report;

import io.homa4j.bench.driver.LatencyRecorder;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ComparisonTableTest {
    private static Histogram micros(long us, int count) {
        Histogram h = LatencyRecorder.newHistogram();
        h.recordValueWithCount(us * 1_000, count);
        return h;
    }

    @Test
    void rowsPerBucketWithRatiosAndTheTwoHeadlines() {
        ResultSet set = new ResultSet()
                .add("homa", 500, micros(20, 10)).add("tcp", 500, micros(200, 10))
                .add("homa", 960, micros(30, 10)).add("tcp", 960, micros(300, 10))
                .add("homa", 1_000_000, micros(4_000, 5)).add("tcp", 1_000_000, micros(2_000, 5));
        String table = ComparisonTable.format(set);
        String[] lines = table.split("\n");
        assertTrue(lines[0].contains("p99 t/h"), lines[0]);
        assertTrue(lines[1].trim().startsWith("500") && lines[1].trim().endsWith("10.00"), lines[1]);
        assertTrue(lines[3].trim().startsWith("1000000") && lines[3].trim().endsWith("0.50"), lines[3]);
        assertTrue(table.contains("messages <= 1000 B (buckets merged): P50 tcp/homa = 10.00, P99 tcp/homa = 10.00"),
                table);
        assertTrue(table.contains("largest bucket (<= 1000000 B): P50 tcp/homa = 0.50, P99 tcp/homa = 0.50"), table);
    }

    @Test
    void aMissingProtocolShowsDashes() {
        String table = ComparisonTable.format(new ResultSet().add("tcp", 100, micros(50, 3)));
        assertTrue(table.split("\n")[1].contains(" - "), table);
        assertTrue(!table.contains("buckets merged"), table);
    }

    @Test
    void smallRatiosKeepTwoSignificantDigits() {
        assertEquals("0.0042", ComparisonTable.ratioText(0.0042));
        assertEquals("0.25", ComparisonTable.ratioText(0.25));
        assertEquals("12.00", ComparisonTable.ratioText(12));
    }
}
