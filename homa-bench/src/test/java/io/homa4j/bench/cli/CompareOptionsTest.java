package io.homa4j.bench.cli;

import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.workload.Workloads;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** compare's options as picocli types them, the defaults that depend on the place, and the plans' own argv. */
class CompareOptionsTest {
    private static CompareCommand parse(String... argv) {
        return Cli.parse(new CompareCommand(), argv);
    }

    @Test
    void optionsArriveTyped() throws Exception {
        ComparePlan plan = parse("--where", "loopback", "--protocols", "tcp,HOMA", "--mode", "in-process",
                "--workload", "w2", "--max-message", "5000", "--load=0.25", "--repeats", "2", "--seed", "9",
                "--out", "x").plan(false);
        assertEquals(List.of(Protocol.TCP, Protocol.HOMA), plan.protocols());
        assertEquals(CompareCommand.Mode.IN_PROCESS, plan.loopback().mode());
        assertEquals("W2", plan.workload().name());
        assertEquals(5000, plan.workload().maxMessage());
        assertEquals(0.25, plan.load());
        assertEquals(Path.of("x"), plan.outDir());
        assertEquals(10, plan.seed(2));
        assertEquals(List.of(Protocol.HOMA, Protocol.TCP), plan.order(2), "even repeats run the other way round");
    }

    @Test
    void theGrpcProtocolsAreOptInByTheirCommandLineNames() throws Exception {
        assertEquals(List.of(Protocol.HOMA, Protocol.TCP), parse().plan(false).protocols());
        ComparePlan grpc = parse("--where", "loopback", "--protocols", "grpc-homa,GRPC-TCP").plan(false);
        assertEquals(List.of(Protocol.GRPC_HOMA, Protocol.GRPC_TCP), grpc.protocols());
        assertEquals(List.of(Protocol.GRPC_TCP, Protocol.GRPC_HOMA), grpc.order(2));
        assertEquals("Homa vs TCP", CompareReport.versus(List.of(Protocol.TCP, Protocol.HOMA)));
        assertEquals("grpc-homa vs grpc-tcp", CompareReport.versus(grpc.protocols()));
        assertEquals("homa vs tcp vs grpc-homa vs grpc-tcp", CompareReport.versus(List.of(Protocol.values())));
    }

    @Test
    void defaultsDependOnThePlace() throws Exception {
        CompareCommand command = parse();
        ComparePlan rack = command.plan(true);
        ComparePlan loopback = command.plan(false);
        assertEquals(CompareCommand.RACK_LOAD, rack.load());
        assertEquals(CompareCommand.LOOPBACK_LOAD, loopback.load());
        assertEquals(CompareCommand.RACK_LINK_MBPS, rack.linkMbps());
        assertEquals(CompareCommand.LOOPBACK_LINK_MBPS, loopback.linkMbps());
        assertEquals(CompareCommand.RACK_WARMUP_SECONDS, rack.warmupSeconds());
        assertEquals(CompareCommand.LOOPBACK_WARMUP_SECONDS, loopback.warmupSeconds());
        assertNull(rack.rttUs(), "the rack measures its round trip");
        assertEquals(RttOption.DEFAULT_RTT_US, loopback.rttUs());
        assertEquals(CompareCommand.RACK_HOSTS, rack.rack().hosts());
        assertTrue(rack.rack().prefix().startsWith("homa-cmp-"), rack.rack().prefix());
        assertEquals(CompareCommand.RACK_HOST_QUEUES, rack.rack().hostQueues());
        assertTrue(rack.argv().containsAll(List.of("--host-queues", CompareCommand.RACK_HOST_QUEUES.toString())),
                "the plan's command line names the hosts' queues: " + rack.argv());
        assertEquals(CompareCommand.autoDuration(Workloads.W4.truncatedAt(1_000_000), rack.requestMbps(), 3),
                rack.durationSeconds());
        assertEquals(0.8 * 50 / 2 * 4, rack.requestMbps(), 1e-9, "four hosts, each offering half its link");

        ComparePlan given = parse("--load", "0.5", "--link-mbps", "20", "--warmup", "1", "--duration", "2",
                "--rtt-us", "30").plan(true);
        assertEquals(0.5, given.load());
        assertEquals(20, given.linkMbps());
        assertEquals(1, given.warmupSeconds());
        assertEquals(2, given.durationSeconds());
        assertEquals(30, given.rttUs());
        assertEquals(ComparePlan.HostQueues.PRIO, parse("--host-queues", "PRIO").plan(true).rack().hostQueues());
        assertEquals(ComparePlan.HostQueues.FIFO, parse("--host-queues", "fifo").plan(true).rack().hostQueues());
    }

    @Test
    void theHelpNamesTheChoicesAndTheDefaultHostQueues() {
        CliTest.Result help = CliTest.run("compare", "--help");
        assertEquals(0, help.code(), help.err());
        assertTrue(help.out().replaceAll("\\s+", " ").contains("--host-queues=Q rack only: the hosts' NIC queues, fifo,"
                + " prio: one FIFO, or strict-priority queues by DSCP as at the switch (default "
                + CompareCommand.RACK_HOST_QUEUES + ")"), help.out());
    }

    @Test
    void aPlanRendersOptionsThatParseBackIntoTheSamePlan() throws Exception {
        for (boolean rack : new boolean[] {true, false}) {
            ComparePlan plan = parse("--protocols", "tcp", "--workload", "1000", "--load", "0.3",
                    "--max-outstanding", "7", "--tcp-connections", "3").plan(rack);
            CompareCommand again = parse(plan.argv().toArray(new String[0]));
            assertEquals(plan.argv(), again.plan(rack).argv());
            assertEquals(plan.durationSeconds(), again.plan(rack).durationSeconds());
        }
    }

    @Test
    void loopbackServerAndClientPlansRoundTripThroughTheirCommands() throws Exception {
        ComparePlan plan = parse("--where", "loopback", "--warmup", "0.3", "--duration", "1.7", "--seed", "4")
                .plan(false);
        LoopbackComparison loopback = new LoopbackComparison(plan);
        ClientPlan client = loopback.client(Protocol.HOMA, 2).withServers(List.of(
                new java.net.InetSocketAddress("127.0.0.1", 4000)));
        ClientPlan parsed = Cli.parse(new ClientCommand(), client.argv().toArray(new String[0])).options.plan();
        assertEquals(client.argv(), parsed.argv());
        assertEquals(client.driver().warmupNanos(), parsed.driver().warmupNanos());
        assertEquals(1_700_000_000L, parsed.driver().durationNanos());
        assertEquals(5, parsed.driver().seed());
        assertEquals(CompareCommand.LOOPBACK_HOMA_PACE_MBPS, parsed.transport().linkMbps(), "Homa paces at"
                + " loopback's rate");
        assertEquals(plan.repeatDir(2).resolve("homa"), parsed.out());

        ServerPlan server = loopback.server(Protocol.TCP);
        ServerPlan parsedServer = Cli.parse(new ServerCommand(), server.argv().toArray(new String[0])).plan();
        assertEquals(server, parsedServer);
        assertEquals(plan.linkMbps(), parsedServer.transport().linkMbps());
    }

    @Test
    void theRackScriptGetsEveryRepeatsOwnSeedOrderAndDirectory() throws Exception {
        ComparePlan plan = parse("--where", "rack", "--seed", "5", "--hosts", "2", "--prefix", "homa-t").plan(true);
        List<String> second = new RackComparison(plan, rate -> plan, false).scriptArgs(2);
        assertEquals("6", second.get(second.indexOf("--seed") + 1));
        assertEquals("tcp,homa", second.get(second.indexOf("--protocols") + 1));
        assertEquals("auto", second.get(second.indexOf("--rtt-us") + 1));
        assertEquals("w4", second.get(second.indexOf("--workload") + 1));
        assertEquals(plan.repeatDir(2).toString(), second.get(second.indexOf("--out") + 1));
    }

    /** The calibration re-plans at the chosen rate: the duration follows it, nothing else moves. */
    @Test
    void aRateChosenByTheCalibrationResolvesTheRateDependentDefaultsAgain() throws Exception {
        CompareCommand command = parse("--where", "rack", "--hosts", "4", "--prefix", "homa-t");
        ComparePlan at50 = command.plan(true);
        ComparePlan at25 = command.plan(true, 25);
        assertEquals(50, at50.linkMbps());
        assertEquals(25, at25.linkMbps());
        assertTrue(at25.durationSeconds() > at50.durationSeconds(), at25.durationSeconds() + " s");
        assertEquals(at50.warmupSeconds(), at25.warmupSeconds());
        assertEquals(at50.seed(1), at25.seed(1));
        assertTrue(at25.argv().contains("25"), "the results file's command line carries the chosen rate");
    }

    @Test
    void aClientPlanWithAnUnloadedTableRoundTripsThroughClient() throws Exception {
        ClientPlan plan = Cli.parse(new ClientCommand(), "--protocol", "tcp", "--servers", "127.0.0.1:9",
                "--load-mbps", "1", "--duration", "1", "--out", "x", "--unloaded-rtt", "u.csv").options.plan();
        assertEquals(java.nio.file.Path.of("u.csv"), plan.unloadedRtt());
        ClientPlan again = Cli.parse(new ClientCommand(), plan.argv().toArray(new String[0])).options.plan();
        assertEquals(plan.argv(), again.argv());
    }

    @Test
    void badCombinationsAreUsageErrors() {
        CliTest.Result both = CliTest.run("compare", "--hosts", "3", "--mode", "child");
        assertEquals(Cli.USAGE, both.code());
        assertTrue(both.err().lines().findFirst().orElseThrow().contains("mutually exclusive"), both.err());

        CliTest.Result misplaced = CliTest.run("compare", "--where", "loopback", "--prefix", "homa-x");
        assertEquals(Cli.USAGE, misplaced.code());
        assertTrue(misplaced.err().startsWith("homa-bench: compare: the options of the emulated rack do not apply"
                + " on loopback"), misplaced.err());

        CliTest.Result twice = CliTest.run("compare", "--where", "loopback", "--protocols", "tcp,tcp");
        assertEquals(Cli.USAGE, twice.code());
        assertTrue(twice.err().contains("names a protocol twice"), twice.err());

        CliTest.Result range = CliTest.run("compare", "--hosts", "1");
        assertEquals(Cli.USAGE, range.code());
        assertTrue(range.err().startsWith("homa-bench: compare: --hosts must be in [2, 64]: 1\n"), range.err());

        assertThrows(picocli.CommandLine.ParameterException.class, () -> parse("--load", "11"));
        assertThrows(picocli.CommandLine.ParameterException.class, () -> parse("--where", "moon"));
    }
}
