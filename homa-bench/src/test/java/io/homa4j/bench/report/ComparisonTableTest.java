package io.homa4j.bench.report;

import io.homa4j.bench.driver.LatencyRecorder;
import io.homa4j.bench.driver.RunStats;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static java.lang.Double.NaN;
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
    void eachPairOfProtocolsGetsItsTableAndHeadline() {
        ResultSet four = new ResultSet().add("homa", 500, micros(10, 10)).add("tcp", 500, micros(40, 10))
                .add("grpc-homa", 500, micros(20, 10)).add("grpc-tcp", 500, micros(300, 10));
        String table = ComparisonTable.format(four);
        double homaTcp = HeadlineRatios.of(four, ProtocolPair.HOMA_TCP).shortP99();
        double grpc = HeadlineRatios.of(four, ProtocolPair.GRPC).shortP99();
        assertEquals(4, homaTcp, 0.05);
        assertEquals(15, grpc, 0.1);
        assertTrue(table.contains("P99 tcp/homa = " + ComparisonTable.ratioText(homaTcp)), table);
        assertTrue(table.contains("P99 grpc-tcp/grpc-homa = " + ComparisonTable.ratioText(grpc)), table);
        assertTrue(table.indexOf("P99 tcp/homa") < table.indexOf("grpc-homa p50"), "homa/tcp first: " + table);
        String grpcOnly = ComparisonTable.format(new ResultSet().add("grpc-tcp", 500, micros(300, 10))
                .add("grpc-homa", 500, micros(20, 10)));
        assertTrue(grpcOnly.startsWith(String.format("%12s %11s", "bucket<=B", "grpc-homa n")), grpcOnly);
        assertTrue(!grpcOnly.contains("tcp/homa ="), "no homa/tcp table without homa and tcp: " + grpcOnly);
    }

    @Test
    void smallRatiosKeepTwoSignificantDigits() {
        assertEquals("0.0042", ComparisonTable.ratioText(0.0042));
        assertEquals("0.25", ComparisonTable.ratioText(0.25));
        assertEquals("12.00", ComparisonTable.ratioText(12));
    }

    private static ResultSet pair(long homaShortUs, long tcpShortUs, long homaLongUs, long tcpLongUs) {
        return new ResultSet().add("homa", 500, micros(homaShortUs, 10)).add("tcp", 500, micros(tcpShortUs, 10))
                .add("homa", 1_000_000, micros(homaLongUs, 10)).add("tcp", 1_000_000, micros(tcpLongUs, 10));
    }

    @Test
    void repeatsGiveTheMedianAndTheRangeOfEachRatio() {
        List<ResultSet> repeats = List.of(pair(10, 400, 1_000, 900), pair(10, 200, 1_000, 1_300),
                pair(10, 300, 1_000, 1_100));
        ResultSet merged = new ResultSet();
        repeats.forEach(r -> merged.addAll(r.rows()));
        String table = ComparisonTable.format(merged, new OverloadVerdict(List.of(), true), repeats);
        // (the histograms keep 3 significant digits: 10 us is recorded as 10.007 us)
        assertTrue(table.matches("(?s).*headline, median \\(min-max\\) over 3 repeats: messages <= 1000 B P99"
                + " tcp/homa = 29\\.9\\d \\(19\\.9\\d-39\\.9\\d\\).*"), table);
        assertTrue(table.contains("largest bucket P99 tcp/homa = 1.10 (0.90-1.30)"), table);
        assertTrue(table.contains("the largest bucket holds only 30 calls"), table);
    }

    @Test
    void anOverloadedRunHasNoHeadline() {
        String table = ComparisonTable.format(pair(10, 400, 1_000, 900),
                new OverloadVerdict(List.of("homa OVERLOADED: 12 calls unfinished"), true), List.of());
        assertTrue(table.contains("homa OVERLOADED: 12 calls unfinished"), table);
        assertTrue(table.contains("OVERLOADED: no headline ratios"), table);
        assertTrue(!table.contains("P99 tcp/homa ="), table);
    }

    @Test
    void overloadVerdictsComeFromTheRunsStatistics() {
        RunStats fine = new RunStats("tcp", 1000, 1000, 1000, 0, 10, 0, 0, 900, 30, 800, NaN, NaN, 10, 10);
        RunStats late = new RunStats("homa", 1000, 1000, 1000, 0, 10, 0, 0, 900, 30, 8_000, NaN, NaN, 10, 10);
        RunStats capped = new RunStats("homa", 1000, 1000, 1000, 0, 11, 0, 0, 900, 30, 800, NaN, NaN, 10, 10);
        RunStats lost = new RunStats("homa", 1000, 998, 990, 0, 0, 2, 8, 900, 30, 800, NaN, NaN, 10, 10);
        assertEquals(List.of(), fine.overloadReasons(), "10 of 1000 waited: 1% is still fine");
        assertEquals(List.of("send lag P99 8.0 ms > 5 ms"), late.overloadReasons());
        assertEquals(List.of("1.1% of calls waited for the outstanding cap (> 1%)"), capped.overloadReasons());
        assertEquals(List.of("2 calls skipped", "8 calls unfinished"), lost.overloadReasons());
        assertTrue(late.summaryLine().endsWith(" OVERLOADED (send lag P99 8.0 ms > 5 ms)"), late.summaryLine());
        assertTrue(!fine.summaryLine().contains("OVERLOADED"));
        OverloadVerdict verdict = OverloadVerdict.of(List.of(run(fine), run(late), run(capped), run(fine)));
        assertEquals(List.of("homa OVERLOADED in 2 of 2 runs: send lag P99 8.0 ms > 5 ms"), verdict.notes());
        assertTrue(!OverloadVerdict.of(List.of(run(fine))).overloaded());
    }

    @Test
    void aGeneratorWokenLateIsNoQueueInTheClient() {
        // 8 ms late at P99, of which at most 0.4 ms after the generator had the CPU back: the machine's delay
        RunStats wokenLate = new RunStats("tcp", 1000, 1000, 1000, 0, 0, 0, 0, 900, 30, 8_000, 400, 7_900, 10, 10);
        RunStats queued = new RunStats("tcp", 1000, 1000, 1000, 0, 0, 0, 0, 900, 30, 8_000, 6_000, 2_500, 10, 10);
        assertEquals(List.of(), wokenLate.overloadReasons());
        assertTrue(wokenLate.summaryLine().contains("send_lag_p99=8000.0 us client_lag_p99=400.0 us"
                + " wake_lag_p99=7900.0 us"), wokenLate.summaryLine());
        assertEquals(List.of("send lag in the client P99 6.0 ms > 5 ms"), queued.overloadReasons());
        RunStats both = RunStats.combine("tcp", List.of(wokenLate, queued));
        assertEquals(6_000, both.queueLagP99Micros(), "the worst client's");
        assertEquals(7_900, both.wakeLagP99Micros(), "the worst client's");
    }

    private static RunsCsv.ClientRun run(RunStats stats) {
        return new RunsCsv.ClientRun("w4", java.time.Instant.EPOCH, "abc", stats);
    }

    @Test
    void runsCsvRoundTrips(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        RunStats stats = new RunStats("homa", 1000, 998, 990, 3, 4, 2, 8, 900, 30.5, NaN, 12.5, NaN, 10.25, 9.5);
        RunsCsv.ClientRun run = new RunsCsv.ClientRun("W4 (truncated at 1000000 B)",
                java.time.Instant.parse("2026-12-03T10:41:00Z"), "c2e0715+changes", stats);
        RunsCsv.write(dir, List.of(run));
        assertEquals(List.of(run), RunsCsv.read(dir.resolve(RunsCsv.FILE_NAME)).stream()
                .map(r -> new RunsCsv.ClientRun(r.workload(), r.finished(), r.commit(), r.stats())).toList());
    }

    @Test
    void runsCsvOfABenchBeforeTheLagSplitStillReads(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = dir.resolve(RunsCsv.FILE_NAME);
        java.nio.file.Files.writeString(file, "protocol,workload,finished_utc,commit,arrivals,sent,completed,failed,"
                + "waited_outstanding_cap,skipped_outstanding_cap,unfinished,recorded,send_lag_p50_us,send_lag_p99_us,"
                + "offered_mbps,achieved_mbps\ntcp,W4,2026-12-03T14:40:40Z,c38a5e7,2552,2552,2552,0,0,0,0,1894,0.3,"
                + "7800.0,40.000,37.633\n");
        RunStats read = RunsCsv.read(file).get(0).stats();
        assertTrue(Double.isNaN(read.queueLagP99Micros()) && Double.isNaN(read.wakeLagP99Micros()));
        assertEquals(List.of("send lag P99 7.8 ms > 5 ms"), read.overloadReasons(), "judged on the whole lag");
    }
}
