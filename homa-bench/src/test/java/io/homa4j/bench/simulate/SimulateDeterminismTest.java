package io.homa4j.bench.simulate;

import io.homa4j.bench.report.ResultsCsv;
import io.homa4j.bench.report.SlowdownCsv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import io.homa4j.bench.cli.Cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The same seed gives byte-identical results; another seed another run. A small loaded rack, seconds of wall time. */
class SimulateDeterminismTest {
    @TempDir
    Path tmp;

    private SimulationResult run(Path dir, long seed) throws Exception {
        String[] argv = {"--hosts", "4", "--link-gbps", "10", "--workload", "w3", "--max-message",
                "60000", "--load", "0.7", "--duration-ms", "1", "--warmup-ms", "0.2", "--drain-ms", "10",
                "--seed", Long.toString(seed), "--progress", "none", "--out", dir.toString()};
        SimulateCommand.Invocation inv = Cli.parse(new SimulateCommand(), argv).invocation();
        return SimulateCommand.execute(inv, java.util.List.of(argv), new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
    }

    @Test
    void sameSeedSameBytes() throws Exception {
        SimulationResult first = run(tmp.resolve("a"), 7);
        SimulationResult second = run(tmp.resolve("b"), 7);
        SimulationResult other = run(tmp.resolve("c"), 8);

        byte[] a = Files.readAllBytes(tmp.resolve("a").resolve(ResultsCsv.FILE_NAME));
        byte[] b = Files.readAllBytes(tmp.resolve("b").resolve(ResultsCsv.FILE_NAME));
        byte[] c = Files.readAllBytes(tmp.resolve("c").resolve(ResultsCsv.FILE_NAME));
        assertArrayEquals(a, b, "results.csv differs between two runs with seed 7");
        assertArrayEquals(Files.readAllBytes(tmp.resolve("a").resolve(SlowdownCsv.FILE_NAME)),
                Files.readAllBytes(tmp.resolve("b").resolve(SlowdownCsv.FILE_NAME)));
        assertFalse(java.util.Arrays.equals(a, c), "seed 8 gave the same results as seed 7");
        assertEquals(first.packets(), second.packets());
        assertEquals(first.events(), second.events());

        String csv = new String(a, StandardCharsets.UTF_8);
        assertTrue(csv.startsWith(ResultsCsv.HEADER + "\n"), csv);
        assertTrue(first.measured() > 500, "a loaded run measures many calls: " + first.measured());
        assertEquals(0, first.failed());
        assertEquals(0, first.unfinished());
        long rows = csv.lines().skip(1).filter(l -> l.startsWith("homa,")).count();
        assertEquals(first.rtt().buckets().count(), rows);
        assertTrue(first.linkUtilization() > 0.5 && first.linkUtilization() < 0.8,
                "offered 70% of the links: " + first.linkUtilization());
        assertTrue(first.meanSlowdown() > 1.0, "a loaded network is slower than an idle one");
        assertTrue(other.measured() > 500);
        assertTrue(Files.readString(tmp.resolve("a").resolve("slowdown.svg")).contains("</svg>"));
    }
}
