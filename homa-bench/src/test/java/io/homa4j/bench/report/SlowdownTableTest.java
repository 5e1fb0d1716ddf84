package io.homa4j.bench.report;

import io.homa4j.bench.driver.LatencyRecorder;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

class SlowdownTableTest {
    /** Slowdowns as the recorders hold them (x 1000); HdrHistogram reports a bucket by its highest value. */
    private static Histogram slowdowns(double... values) {
        Histogram h = LatencyRecorder.newHistogram();
        for (double v : values) {
            h.recordValue(Math.round(v * 1_000));
        }
        return h;
    }

    @Test
    void showsEachProtocolsSlowdownAndHowFarHomaIsFromItsLimit() {
        ResultSet s = new ResultSet()
                .add("homa", 315, slowdowns(3, 3, 3, 8)).add("tcp", 315, slowdowns(16, 32))
                .add(SlowdownTable.IDEAL, 315, slowdowns(1.5, 1.5, 1.5, 3))
                .add("homa", 1_000_000, slowdowns(4)).add("tcp", 1_000_000, slowdowns(5))
                .add(SlowdownTable.IDEAL, 1_000_000, slowdowns(2));
        List<SlowdownCsv.Row> rows = List.of(new SlowdownCsv.Row("homa", 315, 4, 1_234.5, 3, 8),
                new SlowdownCsv.Row("tcp", 315, 2, 987.6, 16, 32));
        String table = SlowdownTable.format(s, rows);
        String[] lines = table.split("\n");
        assertTrue(lines[1].matches("\\s+315\\s+1234\\.5\\s+987\\.6\\s+3\\.00\\s+8\\.00\\s+16\\.01\\s+32\\.02\\s+1\\.50"
                + "\\s+3\\.00\\s+2\\.00\\s+2\\.67"), lines[1]);
        assertTrue(lines[2].matches("\\s+1000000\\s+-\\s+-\\s+4\\.00\\s+4\\.00\\s+5\\.00\\s+5\\.00\\s+2\\.00\\s+2\\.00"
                + "\\s+2\\.00\\s+2\\.00"), lines[2]);
        assertTrue(table.contains("slowdown, messages <= 1000 B: P50 homa 3.00, tcp 16.01, homa-ideal 1.50"
                + " (homa/ideal 2.00); P99 homa 8.00, tcp 32.02, homa-ideal 3.00 (homa/ideal 2.67)"), table);
        assertTrue(table.contains("slowdown, largest bucket (<= 1000000 B): P50 homa 4.00"), table);
    }
}
