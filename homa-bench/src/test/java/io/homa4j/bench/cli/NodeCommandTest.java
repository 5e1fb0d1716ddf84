package io.homa4j.bench.cli;

import io.homa4j.bench.transport.BenchServer;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeCommandTest {

    /** Collects what is printed and counts down when the client's summary line has been printed. */
    private static final class Watched extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CountDownLatch summary = new CountDownLatch(1);

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
            check();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
            check();
        }

        private void check() {
            if (bytes.toString(StandardCharsets.UTF_8).contains("requests sent=")) {
                summary.countDown();
            }
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void servesRunsTheClientOnceStartedThenServesUntilStopped(Protocol protocol, @TempDir Path tmp)
            throws Exception {
        TransportOptions options = TransportOptions.loopback(1000, 100_000);
        try (BenchServer other = protocol.startServer(options)) {
            String otherAddress = "127.0.0.1:" + other.localAddress().getPort();
            ClientPlan plan = Cli.parse(new ClientCommand(), "--protocol", protocol.id(),
                    "--servers", otherAddress, "--workload", "w4", "--max-message", "100000", "--load-mbps", "5",
                    "--duration", "0.5", "--warmup", "0", "--drain", "5", "--out", tmp.resolve("out").toString(),
                    "--progress", "none", "--bind", "127.0.0.1").options.plan();
            Path start = tmp.resolve("start");
            Files.createFile(start);
            Watched out = new Watched();
            CountDownLatch stop = new CountDownLatch(1);
            AtomicBoolean clientRunning = new AtomicBoolean();
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> {
                try {
                    return NodeCommand.serveAndRun(plan, 0, start, stop, clientRunning,
                            new PrintStream(out, true, StandardCharsets.UTF_8),
                            new PrintStream(OutputStream.nullOutputStream()));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(out.summary.await(30, TimeUnit.SECONDS), "no summary line: " + out.text());
            assertFalse(exit.isDone(), "the node keeps serving after its client is done");
            stop.countDown();
            assertEquals(Cli.OK, exit.get(30, TimeUnit.SECONDS));
            assertFalse(clientRunning.get());
            String[] lines = out.text().split("\n");
            assertTrue(lines[0].startsWith(NodeCommand.READY_PREFIX + protocol.id() + " listening=127.0.0.1:"),
                    lines[0]);
            assertTrue(lines[1].contains("failed=0 unfinished=0"), lines[1]);
            assertTrue(Files.exists(tmp.resolve("out").resolve("histograms.csv")));
        }
    }

    @Test
    void stoppedBeforeTheStartFileAppearsItFailsWithoutRunningTheClient(@TempDir Path tmp) throws Exception {
        ClientPlan plan = Cli.parse(new ClientCommand(), "--protocol", "homa",
                "--servers", "127.0.0.1:9", "--load-mbps", "5", "--duration", "1",
                "--out", tmp.resolve("out").toString(), "--bind", "127.0.0.1").options.plan();
        CountDownLatch stop = new CountDownLatch(1);
        stop.countDown();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = NodeCommand.serveAndRun(plan, 0, tmp.resolve("never"), stop, new AtomicBoolean(),
                new PrintStream(OutputStream.nullOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(Cli.FAILED, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("stopped before the client started"));
        assertFalse(Files.exists(tmp.resolve("out")));
    }
}
