package io.homa4j.bench.report;

import io.homa4j.bench.driver.LatencyRecorder;
import io.homa4j.bench.driver.RttByLength;
import io.homa4j.bench.workload.Workloads;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlowdownTableTest {
    /**
     * {@code values} x 1000, as the recorders hold them: slowdowns in thousandths, or RTTs in nanoseconds given in
     * microseconds. HdrHistogram reports a bucket by its highest value.
     */
    private static Histogram thousandths(double... values) {
        Histogram h = LatencyRecorder.newHistogram();
        for (double v : values) {
            h.recordValue(Math.round(v * 1_000));
        }
        return h;
    }

    private static Histogram slowdowns(double... values) {
        return thousandths(values);
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

    /** RTTs in nanoseconds, given in microseconds. */
    private static Histogram rtts(double... micros) {
        return thousandths(micros);
    }

    @Test
    void showsHowFarHomaIsFromItsLimitInRoundTripTimeToo() {
        ResultSet r = new ResultSet()
                .add("homa", 315, rtts(1_000, 1_000, 1_000, 4_000)).add("tcp", 315, rtts(90_000))
                .add(SlowdownTable.IDEAL, 315, rtts(2_000, 2_000, 2_000, 3_000))
                .add("homa", 1_000_000, rtts(500_000)).add("tcp", 1_000_000, rtts(600_000))
                .add(SlowdownTable.IDEAL, 1_000_000, rtts(400_000));
        List<SlowdownCsv.Row> rows = List.of(new SlowdownCsv.Row("homa", 315, 4, 300, 3, 8),
                new SlowdownCsv.Row(SlowdownTable.IDEAL, 315, 4, 1_200, 1.5, 3));
        String lines = SlowdownTable.againstTheLimitInRtt(r, rows);
        assertTrue(lines.contains("RTT, messages <= 1000 B: P50 homa 1000.4 us, homa-ideal 2000.9 us (homa/ideal 0.50);"
                + " P99 homa 4001.8 us, homa-ideal 3000.3 us (homa/ideal 1.33)"), lines);
        assertTrue(lines.contains("RTT, largest bucket (<= 1000000 B): P50 homa 500170.8 us, homa-ideal 400031.7 us"
                + " (homa/ideal 1.25)"), lines);
        assertTrue(lines.contains("(unloaded RTT at <= 315 B: homa 300.0 us, homa-ideal 1200.0 us;"), lines);
        assertEquals("", SlowdownTable.againstTheLimitInRtt(new ResultSet().add("homa", 315, rtts(1))
                .add("tcp", 315, rtts(2)), rows), "no limit simulated: no line");
    }

    /** The W4 buckets of the rack's slowdowns with {@code homaSide} and {@code tcpSide} measured, and the limit. */
    private static ResultSet rackSlowdowns(String homaSide, String tcpSide) {
        return new ResultSet()
                .add(homaSide, 315, slowdowns(1.2, 1.4, 2.5)).add(tcpSide, 315, slowdowns(9, 30, 61))
                .add(SlowdownTable.IDEAL, 315, slowdowns(1.1, 1.2))
                .add(homaSide, 20_000, slowdowns(2, 3)).add(tcpSide, 20_000, slowdowns(4, 7))
                .add(SlowdownTable.IDEAL, 20_000, slowdowns(1.5))
                .add(homaSide, 1_000_000, slowdowns(3.5)).add(tcpSide, 1_000_000, slowdowns(4.5))
                .add(SlowdownTable.IDEAL, 1_000_000, slowdowns(2.5));
    }

    /** {@code slowdown.csv}'s rows as compare makes them: each protocol against its own unloaded RTT by length. */
    private static List<SlowdownCsv.Row> rows(ResultSet s, String homaSide, String tcpSide) {
        RttByLength homaIdle = new RttByLength(new long[] {1, 1_000_000}, new double[] {20_000, 900_000});
        RttByLength tcpIdle = new RttByLength(new long[] {1, 1_000_000}, new double[] {30_000, 950_000});
        List<SlowdownCsv.Row> rows = new ArrayList<>(SlowdownCsv.rows(homaSide, s, Workloads.W4, homaIdle));
        rows.addAll(SlowdownCsv.rows(tcpSide, s, Workloads.W4, tcpIdle));
        return rows;
    }

    /** The cells of a table's bucket rows, past the header: what the protocols' names do not change. */
    private static List<List<String>> cells(String table) {
        return table.lines().skip(1).takeWhile(l -> !l.startsWith("("))
                .map(l -> Arrays.asList(l.trim().split("\\s+"))).toList();
    }

    @Test
    void grpcProtocolsFillTheirOwnTable() {
        ResultSet grpc = rackSlowdowns("grpc-homa", "grpc-tcp");
        String table = SlowdownTable.format(grpc, rows(grpc, "grpc-homa", "grpc-tcp"));

        List<List<String>> cells = cells(table);
        assertEquals(3, cells.size(), table);
        for (List<String> row : cells) {
            assertEquals(11, row.size(), table);
            assertFalse(row.contains("-"), "every cell filled: " + table);
        }
        assertTrue(table.lines().findFirst().orElseThrow().matches("\\s+bucket<=B\\s+grpc-homa idle\\s+grpc-tcp idle"
                + "\\s+grpc-homa p50\\s+grpc-homa p99\\s+grpc-tcp p50\\s+grpc-tcp p99\\s+ideal50\\s+ideal99"
                + "\\s+p50 h/id\\s+p99 h/id"), table);
        assertTrue(table.contains("h/id = grpc-homa / homa-ideal"), table);
        assertTrue(table.contains("slowdown, messages <= 1000 B: P50 grpc-homa "), table);
        assertTrue(table.contains("slowdown, largest bucket (<= 1000000 B): P50 grpc-homa "), table);
        assertFalse(table.contains(" - "), "no empty cell or headline value: " + table);
    }

    @Test
    void grpcTableHoldsTheNumbersTheHomaTcpTableWouldForTheSameCalls() {
        ResultSet grpc = rackSlowdowns("grpc-homa", "grpc-tcp");
        ResultSet plain = rackSlowdowns("homa", "tcp");
        String grpcTable = SlowdownTable.format(grpc, rows(grpc, "grpc-homa", "grpc-tcp"));
        String plainTable = SlowdownTable.format(plain, rows(plain, "homa", "tcp"));

        assertEquals(cells(plainTable), cells(grpcTable));
        assertEquals(plainTable.lines().filter(l -> l.startsWith("slowdown,")).map(l -> l.replace("homa-ideal", "LIMIT")
                        .replace("homa", "grpc-homa").replace("tcp", "grpc-tcp").replace("LIMIT", "homa-ideal"))
                        .toList(),
                grpcTable.lines().filter(l -> l.startsWith("slowdown,")).toList());
    }

    @Test
    void bothPairsRunGiveOneTableEach() {
        ResultSet all = rackSlowdowns("homa", "tcp");
        rackSlowdowns("grpc-homa", "grpc-tcp").rows().stream().filter(r -> r.protocol().startsWith("grpc-"))
                .forEach(r -> all.add(r.protocol(), r.bucketMaxBytes(), r.histogram()));
        List<SlowdownCsv.Row> rows = new ArrayList<>(rows(all, "homa", "tcp"));
        rows.addAll(rows(all, "grpc-homa", "grpc-tcp"));

        String table = SlowdownTable.format(all, rows);

        assertEquals(SlowdownTable.format(all, rows, ProtocolPair.HOMA_TCP) + "\n"
                + SlowdownTable.format(all, rows, ProtocolPair.GRPC), table);
        assertEquals(cells(SlowdownTable.format(all, rows, ProtocolPair.HOMA_TCP)),
                cells(SlowdownTable.format(all, rows, ProtocolPair.GRPC)));
    }
}
