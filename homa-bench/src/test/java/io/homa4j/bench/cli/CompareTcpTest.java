package io.homa4j.bench.cli;

import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultsCsv;
import io.homa4j.bench.report.RunsCsv;
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
        CliTest.Result r = CliTest.run("compare", "--where", "loopback", "--repeats", "1",
                "--protocols", "tcp", "--mode", "in-process", "--duration", "1",
                "--warmup", "0.2", "--link-mbps", "200", "--load", "0.8", "--out", out.toString());
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
        CliTest.Result r = CliTest.run("compare", "--where", "loopback", "--repeats", "1",
                "--protocols", "tcp", "--duration", "0.5", "--warmup", "0",
                "--link-mbps", "100", "--load", "0.8", "--out", out.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(totalCount(out.resolve("results.csv"), "tcp") > 20, r.out());
        assertTrue(Files.exists(out.resolve("repeat-1").resolve("tcp").resolve(HistogramsCsv.FILE_NAME)));
        assertTrue(r.err().contains("homa-bench server: stopped"), "server got SIGTERM and closed: " + r.err());
    }

    @Test
    void repeatsAreMergedAndEachKeepsItsOwnRun(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("compare");
        CliTest.Result r = CliTest.run("compare", "--where", "loopback", "--repeats", "2", "--protocols", "tcp",
                "--mode", "in-process", "--workload", "1000", "--duration", "0.5", "--warmup", "0",
                "--link-mbps", "8", "--load", "0.5", "--out", out.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        long first = totalCount(out.resolve("repeat-1").resolve("tcp").resolve("results.csv"), "tcp");
        long second = totalCount(out.resolve("repeat-2").resolve("tcp").resolve("results.csv"), "tcp");
        assertTrue(first > 0 && second > 0, r.out());
        assertEquals(first + second, totalCount(out.resolve("results.csv"), "tcp"));
        List<String> runs = Files.readAllLines(out.resolve(RunsCsv.FILE_NAME));
        assertEquals(3, runs.size(), "header and one row per repeat: " + runs);
        assertTrue(r.out().contains("repeat 1 tcp: requests sent=") && r.out().contains("repeat 2 tcp: requests"),
                r.out());
    }

    @Test
    void anOverloadedRunSaysSoInTableSummaryPlotAndMerge(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("compare");
        // 100 KB messages at 40 Mbit/s (50 calls/s) with one call in flight at a time: whenever a call is out,
        // the next arrival waits for the cap, far more than 1% of them
        CliTest.Result r = CliTest.run("compare", "--where", "loopback", "--repeats", "1", "--protocols", "tcp",
                "--mode", "in-process", "--workload", "100000", "--max-outstanding", "1", "--duration", "1",
                "--warmup", "0", "--link-mbps", "40", "--load", "1", "--tcp-connections", "1", "--out",
                out.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("tcp OVERLOADED: ") && r.out().contains("waited for the outstanding cap"),
                r.out());
        assertTrue(r.out().contains("OVERLOADED: no headline ratios"), r.out());
        assertTrue(r.out().matches("(?s).*repeat 1 tcp: requests sent=.* OVERLOADED \\(.*"), r.out());
        assertTrue(Files.readString(out.resolve("rtt.svg")).contains(">OVERLOADED</text>"));

        CliTest.Result merged = CliTest.run("merge", "--in", out.resolve("repeat-1").resolve("tcp").toString(),
                "--out", tmp.resolve("m").toString());
        assertEquals(0, merged.code(), merged.err());
        assertTrue(merged.out().contains("OVERLOADED: no headline ratios"), merged.out());
        String svg = Files.readString(tmp.resolve("m").resolve("rtt.svg"));
        assertTrue(svg.contains(">OVERLOADED</text>"), svg);
        assertTrue(svg.contains("100000 (truncated at 1000000 B), 1 client offering 40.0 Mbit/s of requests: tcp"),
                "default title from runs.csv: " + svg);
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
            // the largest bucket's calls one by one: as many lines as that bucket counted, each within its bounds
            List<String> results = Files.readAllLines(tmp.resolve("a").resolve("results.csv"));
            String[] largest = results.get(results.size() - 1).split(",");
            String[] belowLargest = results.get(results.size() - 2).split(",");
            List<String> calls = Files.readAllLines(tmp.resolve("a").resolve("largest-calls.csv"));
            assertEquals("arrival,server,length,intended_us,rtt_us", calls.get(0));
            assertEquals(Long.parseLong(largest[2]), calls.size() - 1);
            for (String call : calls.subList(1, calls.size())) {
                long length = Long.parseLong(call.split(",")[2]);
                assertTrue(length > Long.parseLong(belowLargest[1]) && length <= Long.parseLong(largest[1]), call);
            }
            CliTest.Result merged = CliTest.run("merge", "--in", tmp.resolve("a") + "," + tmp.resolve("b"),
                    "--out", tmp.resolve("m").toString());
            assertEquals(0, merged.code(), merged.err());
            assertTrue(a > 0 && b > 0);
            assertEquals(a + b, totalCount(tmp.resolve("m").resolve("results.csv"), "tcp"));
            assertTrue(Files.size(tmp.resolve("m").resolve("rtt.svg")) > 1000);
        }
    }
}
