package io.homa4j.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tiny compare of both protocols in this JVM over loopback: Homa through HomaEndpoint, then TCP. */
class CompareHomaTest {
    @Test
    void bothProtocolsProduceBucketsAndTheTableHasRatios(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("compare");
        // 1,000 B messages at 0.8 Mbit/s: 100 calls/s for a second, light enough for any machine
        CliTest.Result r = CliTest.run("compare", "--where", "loopback", "--repeats", "1",
                "--mode", "in-process", "--workload", "1000", "--load", "0.001",
                "--link-mbps", "800", "--duration", "1", "--warmup", "0.2", "--drain", "5", "--out",
                out.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(CompareTcpTest.totalCount(out.resolve("results.csv"), "homa") > 30, r.out());
        assertTrue(CompareTcpTest.totalCount(out.resolve("results.csv"), "tcp") > 30, r.out());
        assertTrue(r.out().contains("homa: requests sent="), r.out());
        // either the headline, or (on a machine so busy that even this light load left late) the verdict why not
        assertTrue(r.out().matches("(?s).*messages <= 1000 B \\(buckets merged\\): P50 tcp/homa = [0-9.]+.*")
                || r.out().matches("(?s).*(homa|tcp) OVERLOADED: send lag .*OVERLOADED: no headline.*"), r.out());
    }
}
