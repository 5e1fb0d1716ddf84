package io.homa4j.bench.cli;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CliTest {
    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Each line: the arguments (split on '|') and a fragment the one-line error must contain. */
    @ParameterizedTest
    @ValueSource(strings = {
            "=>missing command",
            "frobnicate=>Unmatched argument at index 0: 'frobnicate'",
            "compare|--bogus|1=>compare: Unknown options: '--bogus'",
            "compare|--load=>compare: Missing required parameter for option '--load'",
            "compare|--load|abc=>'--load': 'abc' is not a double",
            "compare|--load|0=>--load must be in",
            "compare|--load|0.5|--load|0.6=>'--load' (L) should be specified only once",
            "compare|--workload|w9=>workload must be w1..w5",
            "compare|--protocols|homa,udp=>must be homa, tcp, grpc-homa or grpc-tcp, not 'udp'",
            "compare|--mode|threads=>--mode': must be child or in-process, not 'threads'",
            "compare|--duration|-1=>--duration must be in",
            "compare|stray=>compare: Unmatched argument at index 1: 'stray'",
            "client|--protocol|tcp|--load-mbps|10|--duration|1|--out|x=>Missing required option: '--servers",
            "client|--protocol|sctp|--servers|h:1|--load-mbps|10|--duration|1|--out|x=>must be homa, tcp, grpc-homa or grpc-tcp, not 'sctp'",
            "client|--protocol|tcp|--servers|localhost|--load-mbps|10|--duration|1|--out|x=>needs host:port",
            "client|--protocol|tcp|--servers|127.0.0.1:70000|--load-mbps|10|--duration|1|--out|x=>port out of range",
            "client|--protocol|tcp|--servers|127.0.0.1:x|--load-mbps|10|--duration|1|--out|x=>bad port",
            "client|--protocol|tcp|--servers|127.0.0.1:9|--load-mbps|10|--duration|1|--out|x|--progress|loud"
                    + "=>--progress': must be auto, cr, lines or none, not 'loud'",
            "client|--protocol|tcp|--servers|127.0.0.1:9|--load-mbps|10|--duration|1|--out|x|--max-message|0"
                    + "=>--max-message must be in",
            "node|--protocol|tcp|--servers|127.0.0.1:9|--load-mbps|10|--duration|1|--out|x"
                    + "=>Missing required option: '--port",
            "node|--protocol|tcp|--servers|127.0.0.1:9|--load-mbps|10|--duration|1|--out|x|--port|1|--bogus|1"
                    + "=>node: Unknown options: '--bogus'",
            "server|--protocol|tcp=>Missing required option: '--port",
            "server|--protocol|tcp|--port|-3=>--port must be in",
            "merge|--out|x=>Missing required option: '--in",
            "merge|--in|a,,b|--out|x=>empty entry",
            "soak=>Missing required option: '--minutes",
            "soak|--minutes|0=>--minutes must be in",
            "soak|--minutes|ten=>'--minutes': 'ten' is not a double",
            "soak|--minutes|1|--loss|0.9=>--loss must be in [0, 0.5]",
            "soak|--minutes|1|--loss|-0.1=>--loss must be in [0, 0.5]",
            "soak|--minutes|1|--loss|lots=>'--loss': 'lots' is not a double",
            "soak|--minutes|1|--concurrency|0=>--concurrency must be in",
            "soak|--minutes|1|--workload|w7=>workload must be w1..w5",
            "soak|--minutes|1|--hours|2=>soak: Unknown options: '--hours'",
            "hostile|--rate|0=>--rate must be in",
            "hostile|--ports|many=>'--ports': 'many' is not an int",
            "hostile|--seconds|-2=>--seconds must be in",
            "hostile|--max-buffered-total|0=>--max-buffered-total must be in",
            "faults|--loss|1.5=>--loss must be in [0, 1)",
            "faults|--corrupt|x=>'--corrupt': 'x' is not a double",
            "faults|--calls|0=>--calls must be in",
    })
    void badArgumentsGiveOneErrorLineThenUsageAndExitTwo(String spec) {
        String[] parts = spec.split("=>", -1);
        String[] args = parts[0].isEmpty() ? new String[0] : parts[0].split("\\|");
        Result r = run(args);
        assertEquals(2, r.code(), spec + "\n" + r.err());
        String[] lines = r.err().split("\n");
        assertTrue(lines[0].startsWith("homa-bench: ") && lines[0].contains(parts[1]),
                "first line names the problem: " + lines[0]);
        // then the usage of the command that was given (suggestions may come first)
        String usage = "Usage: java -jar homa-bench.jar" + (args.length == 0 || parts[1].contains("index 0") ? " ["
                : " " + args[0] + " [");
        assertTrue(r.err().contains("\n" + usage), "then the usage: " + r.err());
        assertEquals("", r.out());
    }

    @Test
    void aMistypedCommandOrOptionGetsTheNearestName() {
        Result command = run("compre");
        assertEquals(2, command.code());
        assertTrue(command.err().contains("Did you mean: java -jar homa-bench.jar compare?"), command.err());
        Result option = run("compare", "--lod", "0.5");
        assertEquals(2, option.code());
        assertTrue(option.err().contains("Possible solutions: --load"), option.err());
    }

    @Test
    void everyCommandHasItsOwnHelp() {
        for (picocli.CommandLine command : Cli.subcommands()) {
            String name = command.getCommandName();
            if (name.equals("help") || name.equals("jmh")) {
                continue; // picocli's own; jmh's -h is JMH's
            }
            Result r = run(name, "--help");
            assertEquals(0, r.code(), name);
            assertTrue(r.out().startsWith("Usage: java -jar homa-bench.jar " + name), r.out());
            for (picocli.CommandLine.Model.OptionSpec option : command.getCommandSpec().options()) {
                assertTrue(r.out().contains(option.longestName()), name + " --help lists " + option.longestName());
            }
        }
        Result viaHelp = run("help", "soak");
        assertEquals(0, viaHelp.code());
        assertTrue(viaHelp.out().contains("--minutes=M"), viaHelp.out());
    }

    @Test
    void valuesMayFollowAnEqualsSignAndFlagsTakeNone() {
        io.homa4j.bench.simulate.SimulateCommand command = new io.homa4j.bench.simulate.SimulateCommand();
        picocli.CommandLine cli = new picocli.CommandLine(command);
        picocli.CommandLine.ParseResult parsed = cli.parseArgs("--load=0.5", "--no-srpt", "--hosts", "4");
        assertEquals(java.util.List.of("--load", "0.5", "--no-srpt", "--hosts", "4"), Cli.givenArgs(parsed));
    }

    @Test
    void failureNotesCountFailedCallsPerProtocolOverItsRuns() {
        java.util.function.BiFunction<String, Long, io.homa4j.bench.report.RunsCsv.ClientRun> run = (p, failed) ->
                new io.homa4j.bench.report.RunsCsv.ClientRun("w4", java.time.Instant.EPOCH, "abc",
                        new io.homa4j.bench.driver.RunStats(p, 20, 20, 20 - failed, failed, 0, 0, 0, 10, 5, 9, 1,
                                0.5, 1, 1));
        assertEquals(java.util.List.of("homa: 7 of 40 calls failed (not in the curves)"),
                MergeCommand.failureNotes(java.util.List.of(run.apply("homa", 5L), run.apply("tcp", 0L),
                        run.apply("homa", 2L))));
    }

    @Test
    void helpPrintsUsageAndSucceeds() {
        Result r = run("--help");
        assertEquals(0, r.code());
        assertTrue(r.out().contains("compare"));
    }

    @Test
    void mergeOfAMissingDirectoryIsARunFailureNotAUsageError(@TempDir Path tmp) {
        Result r = run("merge", "--in", tmp.resolve("nope").toString(), "--out", tmp.resolve("out").toString());
        assertEquals(1, r.code());
        assertTrue(r.err().contains("no histograms.csv in"), r.err());
    }

    @Test
    void clientThatCannotConnectFailsWithExitOne(@TempDir Path tmp) {
        // port 9 (discard) on loopback: nothing listens there in the test environment
        Result r = run("client", "--protocol", "tcp", "--servers", "127.0.0.1:9", "--load-mbps", "1", "--duration",
                "0.1", "--out", tmp.toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("TCP connect"), r.err());
    }

    @Test
    void faultsPrintsOneLinePerLossLevelAndExitsZeroWhenEveryCallEnded() {
        Result r = run("faults", "--loss", "0,0.1", "--calls", "30", "--max-message", "20000");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("failed by code"), r.out());
        assertTrue(r.out().matches("(?s).*\\nnone +30 +30 +0 +0 +0 .*"), r.out());
        assertTrue(r.out().matches("(?s).*\\nloss 10% +30 .*"), r.out());
    }
}
