package io.homa4j.bench.cli;

import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.transport.BenchServer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code node}: one host of an all-to-all run in one JVM, an echo server on {@code --port} and an open-loop client
 * of the other hosts' servers. For Homa both go through one endpoint, as on a host running the Linux module, where
 * one transport instance carries everything: one pacer and one SRPT order for all the host sends (its requests
 * and its responses), one grant scheduler for all it receives. Two JVMs per host would each pace and grant as if
 * the link were theirs alone.
 *
 * <p>For a script that starts a node in every host: the first stdout line is
 * {@code homa-bench node: protocol=P listening=HOST:PORT} once the server answers; the client starts when
 * {@code --start-file} exists (created once every host serves: TCP connects at once, and a Homa call to a host
 * not yet up would wait for retransmissions); when its run ends, the client's summary line follows on stdout as
 * with {@code client}, and the server keeps answering the other hosts until SIGTERM or SIGINT. The exit code is
 * the client's; a signal while the client runs ends the JVM at once with exit code 1.
 */
@Command(name = "node", sortOptions = false, description = {"One host of an all-to-all run: echo server and"
        + " client in one JVM (Homa: one endpoint).", "The client starts once F exists; the server answers until"
        + " SIGTERM/SIGINT."})
final class NodeCommand implements BenchCommand {
    static final String READY_PREFIX = "homa-bench node: protocol=";
    private static final long START_POLL_MILLIS = 10;

    @Mixin
    HelpOption help;

    @Bounds(min = 0, max = 65_535)
    @Option(names = "--port", required = true, paramLabel = "P", description = "the echo server's UDP or TCP port")
    int port;

    @Option(names = "--start-file", paramLabel = "F",
            description = "the client starts once this file exists (default: at once)")
    Path startFile;

    @Mixin
    ClientOptions client;

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        ClientPlan plan = client.plan();
        CountDownLatch stop = new CountDownLatch(1);
        AtomicBoolean clientRunning = new AtomicBoolean();
        Signals.onTerminate(() -> {
            stop.countDown();
            if (clientRunning.get()) {
                // a script gave up on this node's client: no summary, no results, a failed exit
                err.println("homa-bench node: stopped while the client was running");
                System.exit(Cli.FAILED);
            }
        });
        return serveAndRun(plan, port, startFile, stop, clientRunning, out, err);
    }

    /**
     * Serves on {@code port}, runs the client once {@code startFile} exists, then serves until {@code stop};
     * {@code clientRunning} is true while the client runs. Returns the exit code.
     */
    static int serveAndRun(ClientPlan plan, int port, Path startFile, CountDownLatch stop,
                           AtomicBoolean clientRunning, PrintStream out, PrintStream err) throws Exception {
        RunStats stats = null;
        try (BenchServer server = plan.protocol().startServer(plan.transport().withPort(port))) {
            ServerCommand.printReady(out, READY_PREFIX, plan.protocol(), server);
            err.println(server.describe());
            if (awaitStart(startFile, stop)) {
                clientRunning.set(true);
                stats = ClientCommand.execute(plan, server, out, err);
                clientRunning.set(false);
                out.flush();
                stop.await(); // the other hosts' calls still come here
            }
            if (!server.statistics().isEmpty()) {
                err.println(server.statistics());
            }
        }
        if (stats == null) {
            err.println("homa-bench node: stopped before the client started");
            return Cli.FAILED;
        }
        err.println("homa-bench node: stopped");
        return ClientCommand.succeeded(stats, err) ? Cli.OK : Cli.FAILED;
    }

    /** Waits until {@code startFile} exists (null: no wait); false when told to stop first. */
    private static boolean awaitStart(Path startFile, CountDownLatch stop) throws InterruptedException {
        while (startFile != null && !Files.exists(startFile)) {
            if (stop.await(START_POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                return false;
            }
        }
        return stop.getCount() > 0;
    }
}
