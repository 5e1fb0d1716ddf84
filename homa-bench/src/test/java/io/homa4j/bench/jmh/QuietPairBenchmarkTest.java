package io.homa4j.bench.jmh;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class QuietPairBenchmarkTest {
    @Test
    void theReportGivesEachProtocolsPercentilesAndHomaOverTcp() {
        Histogram homa = new Histogram(10_000_000_000L, 3);
        Histogram tcp = new Histogram(10_000_000_000L, 3);
        for (int i = 1; i <= 100; i++) {
            homa.recordValue(i * 1_000L); // 1..100 us
            tcp.recordValue(i * 2_000L);  // 2..200 us
        }
        String line = QuietPairBenchmark.report(1000, 100, homa, tcp, 2_500_000_000L);
        assertTrue(line.startsWith("quiet-pair gap 1000 us, 100 B: 100 calls per protocol"), line);
        assertTrue(line.contains("P50 homa 50.0 us, tcp 100.0 us (homa/tcp 0.50)"), line);
        assertTrue(line.contains("P99 homa 99.0 us, tcp 198.0 us (homa/tcp 0.50)"), line);
        assertTrue(line.endsWith("JIT quiet after 2.5 s more of back-to-back calls"), line);
    }
}
