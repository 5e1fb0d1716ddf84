package io.homa4j.bench.cli;

import io.homa4j.bench.driver.RttByLength;
import io.homa4j.bench.driver.SlowdownRecorder;
import io.homa4j.bench.report.BucketLatencies;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.transport.BenchServer;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code unloaded} against a real echo server, then a client measuring slowdown against what it wrote. */
class UnloadedAndSlowdownTest {
    @ParameterizedTest
    @EnumSource(Protocol.class)
    void theUnloadedTableFeedsTheClientsSlowdowns(Protocol protocol, @TempDir Path tmp) throws Exception {
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        try (BenchServer server = protocol.startServer(TransportOptions.loopback(1000, 100_000))) {
            String address = "127.0.0.1:" + server.localAddress().getPort();
            Path table = tmp.resolve("unloaded-" + protocol.id() + ".csv");
            UnloadedCommand unloaded = Cli.parse(new UnloadedCommand(), "--protocol", protocol.id(), "--server",
                    address, "--max-message", "100000", "--warmup", "0.2", "--samples", "3", "--out",
                    table.toString(), "--bind", "127.0.0.1");
            assertEquals(Cli.OK, unloaded.run(quiet, quiet));
            RttByLength rtts = RttByLength.read(table);
            assertEquals(1, rtts.rttNanos(1) > 0 ? 1 : 0);
            assertEquals(100_000, rtts.longestMeasured());

            Path out = tmp.resolve("client");
            ClientPlan plan = Cli.parse(new ClientCommand(), "--protocol", protocol.id(), "--servers", address,
                    "--workload", "w4", "--max-message", "100000", "--load-mbps", "5", "--duration", "0.5",
                    "--warmup", "0", "--drain", "5", "--out", out.toString(), "--progress", "none",
                    "--bind", "127.0.0.1", "--unloaded-rtt", table.toString()).options.plan();
            ClientCommand.execute(plan, quiet, quiet);

            List<BucketLatencies> rtt = HistogramsCsv.read(out.resolve(HistogramsCsv.FILE_NAME));
            List<BucketLatencies> slowdown = HistogramsCsv.read(out.resolve(SlowdownRecorder.FILE_NAME));
            assertEquals(rtt.size(), slowdown.size());
            long calls = 0;
            for (int i = 0; i < rtt.size(); i++) {
                assertEquals(rtt.get(i).bucketMaxBytes(), slowdown.get(i).bucketMaxBytes());
                assertEquals(rtt.get(i).count(), slowdown.get(i).count(), "every measured call has its slowdown");
                calls += rtt.get(i).count();
            }
            assertTrue(calls > 0, "the client measured calls");
        }
    }
}
