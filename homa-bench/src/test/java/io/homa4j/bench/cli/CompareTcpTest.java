package io.homa4j.bench.cli;

import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultsCsv;
import io.homa4j.bench.transport.BenchServer;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tiny end-to-end runs over TCP on loopback: compare (both modes), and two clients merged. */
class CompareTcpTest {
    static long totalCount(Path resultsCsv, String protocol) throws Exception {
        List<String> lines = Files.readAllLines(resultsCsv);
        assertEquals(ResultsCsv.HEADER, lines.get(0));
        long n = 0;
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            assertEquals(6, cells.length, line);
            if (cells[0].equals(protocol)) {
                n += Long.parseLong(cells[2]);
            }
        }
        return n;
    }

    @Test
    void inProcessCompareWritesResultsPlotAndTable(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("compare");
        CliTest.Result r = CliTest.run("compare", "--protocols", "tcp", "--mode", "in-process", "--duration", "1",
                "--warmup", "0.2", "--link-mbps", "200", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(totalCount(out.resolve("results.csv"), "tcp") > 100, r.out());
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(out.resolve("rtt.svg").toFile());
        assertTrue(r.out().contains("bucket<=B"), r.out());
        assertTrue(r.out().contains("tcp: requests sent="), "client summary line: " + r.out());
        assertTrue(r.err().contains("[tcp]"), "progress line: " + r.err());
        assertTrue(r.err().contains("congestion control"), r.err());
    }

    @Test
    void childJvmCompareRunsServerAndClientProcesses(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("compare");
        CliTest.Result r = CliTest.run("compare", "--protocols", "tcp", "--duration", "0.5", "--warmup", "0",
                "--link-mbps", "100", "--out", out.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(totalCount(out.resolve("results.csv"), "tcp") > 20, r.out());
        assertTrue(Files.exists(out.resolve("tcp").resolve(HistogramsCsv.FILE_NAME)));
        assertTrue(r.err().contains("homa-bench server: stopped"), "server got SIGTERM and closed: " + r.err());
    }

    @Test
    void twoClientsMergeIntoTheSumOfTheirCounts(@TempDir Path tmp) throws Exception {
        try (BenchServer server = Protocol.TCP.startServer(TransportOptions.loopback(1000, 1_000_000))) {
            String address = "127.0.0.1:" + server.localAddress().getPort();
            for (String name : new String[] {"a", "b"}) {
                CliTest.Result r = CliTest.run("client", "--protocol", "tcp", "--servers", address, "--workload",
                        "w2", "--load-mbps", "20", "--duration", "0.5", "--warmup", "0", "--max-message", "100000",
                        "--seed", name.equals("a") ? "1" : "2", "--tcp-connections", "2", "--progress", "none",
                        "--out", tmp.resolve(name).toString());
                assertEquals(0, r.code(), r.err());
                assertTrue(r.out().startsWith("tcp: requests sent="), r.out());
            }
            long a = totalCount(tmp.resolve("a").resolve("results.csv"), "tcp");
            long b = totalCount(tmp.resolve("b").resolve("results.csv"), "tcp");
            CliTest.Result merged = CliTest.run("merge", "--in", tmp.resolve("a") + "," + tmp.resolve("b"),
                    "--out", tmp.resolve("m").toString());
            assertEquals(0, merged.code(), merged.err());
            assertTrue(a > 0 && b > 0);
            assertEquals(a + b, totalCount(tmp.resolve("m").resolve("results.csv"), "tcp"));
            assertTrue(Files.size(tmp.resolve("m").resolve("rtt.svg")) > 1000);
        }
    }
}
