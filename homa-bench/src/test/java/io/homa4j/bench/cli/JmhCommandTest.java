package io.homa4j.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tiny JMH run in this JVM writes its scores and their provenance into the summary file. */
class JmhCommandTest {
    @Test
    void aRunWritesEveryScoreWithItsProvenance(@TempDir Path tmp) throws Exception {
        CliTest.Result r = CliTest.run("jmh", "--out", tmp.toString(), "EngineDataPathBenchmark", "-f", "0",
                "-wi", "0", "-i", "1", "-r", "200ms", "-p", "size=100");
        assertEquals(0, r.code(), r.out() + r.err());
        List<String> lines = Files.readAllLines(tmp.resolve(JmhCommand.SUMMARY_FILE));
        assertTrue(lines.get(0).startsWith("command: java -jar homa-bench.jar jmh EngineDataPathBenchmark -f 0"),
                lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("commit: ")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("load average before: ")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.matches("EngineDataPathBenchmark\\.\\w+ size=100  thrpt  1"
                + " samples  [0-9,.]+ ops/s")), lines.toString());
    }

    @Test
    void aBadJmhOptionIsAUsageError() {
        CliTest.Result r = CliTest.run("jmh", "-wi", "many");
        assertEquals(Cli.USAGE, r.code(), r.err());
        assertTrue(r.err().startsWith("homa-bench: jmh: "), r.err());
    }
}
