package io.homa4j.bench.simulate;

import io.homa4j.bench.cli.Cli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad {@code simulate} command lines exit 2 with one line naming the problem (then the usage), and run nothing. */
class SimulateArgumentsTest {

    /** Each value: the arguments after {@code simulate} (split on '|') and a fragment the error line must hold. */
    @ParameterizedTest
    @ValueSource(strings = {
            "--bogus|1=>Unknown options: '--bogus'",
            "--load=>Missing required parameter for option '--load'",
            "--load|1=>--load must be in",
            "--load|0=>--load must be in",
            "--load|lots=>'--load': 'lots' is not a double",
            "--hosts|1=>--hosts must be in [2, 1024]",
            "--link-gbps|0=>--link-gbps must be in",
            "--workload|w9=>workload must be w1..w5",
            "--duration-ms|0=>--duration-ms must be in",
            "--protocol|tcp=>--protocol': must be homa or fifo-baseline, not 'tcp'",
            "--priorities|9=>--priorities must be in [1, 8]",
            "--overcommit|0=>--overcommit must be in",
            "--no-srpt|--no-srpt=>'--no-srpt' should be specified only once",
            "--protocol|fifo-baseline|--no-srpt=>ablations of homa",
            "--protocol|fifo-baseline|--priorities|4=>ablations of homa",
            "--protocol|fifo-baseline|--fifo-fraction|0.1=>ablations of homa",
            "--protocol|fifo-baseline|--rtt-budget-us|30=>ablations of homa",
            "--fifo-fraction|0.6=>--fifo-fraction must be in",
            "--rtt-budget-us|0=>--rtt-budget-us must be in",
            "--load-basis|bytes=>--load-basis': must be wire or data, not 'bytes'",
            "--progress|loud=>--progress': must be lines or none, not 'loud'",
            "--max-message|0=>--max-message must be in",
            "--seed|x=>'--seed': 'x' is not a long",
            "stray=>Unmatched argument at index 1: 'stray'",
    })
    void badArgumentsExitTwoWithOneLine(String spec) {
        String[] parts = spec.split("=>", 2);
        String[] tail = parts[0].isEmpty() ? new String[0] : parts[0].split("\\|");
        String[] argv = new String[tail.length + 1];
        argv[0] = "simulate";
        System.arraycopy(tail, 0, argv, 1, tail.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Cli.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(Cli.USAGE, code, spec);
        String firstLine = err.toString(StandardCharsets.UTF_8).lines().findFirst().orElse("");
        assertTrue(firstLine.startsWith("homa-bench: simulate: "), firstLine);
        assertTrue(firstLine.contains(parts[1]), "expected '" + parts[1] + "' in: " + firstLine);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("Usage: java -jar homa-bench.jar simulate"),
                "then simulate's usage");
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing ran");
    }

    @Test
    void theFifoShareAndRttBudgetAblationsReachTheEngineConfiguration() {
        RackSpec rack = RackSpec.defaults().withHosts(4);
        io.homa4j.core.HomaConfig defaults = ProtocolSetup.homa().homaConfig(rack, 1_000_000);
        io.homa4j.core.HomaConfig ablated = new ProtocolSetup(SimProtocol.HOMA, 0, 0, true, 0, 0.2, 27)
                .homaConfig(rack, 1_000_000);
        assertEquals(0.05, defaults.fifoGrantFraction());
        assertEquals(rack.fullPacketRttMicros(RackSpec.mtu()), defaults.rttMicros());
        assertEquals(0.2, ablated.fifoGrantFraction());
        assertEquals(27, ablated.rttMicros());
        assertTrue(ablated.unscheduledBytes() > defaults.unscheduledBytes(), "27 us is more than the 100 Gbit/s"
                + " rack's round trip: more bytes sent blind");
        assertEquals("homa --fifo-fraction 0.2 --rtt-budget-us 27",
                new ProtocolSetup(SimProtocol.HOMA, 0, 0, true, 0, 0.2, 27).describe());
    }
}
