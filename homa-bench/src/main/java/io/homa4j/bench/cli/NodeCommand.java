package io.homa4j.bench.cli;

import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.transport.BenchServer;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
final class NodeCommand implements Command {
    static final String READY_PREFIX = "homa-bench node: protocol=";
    private static final long START_POLL_MILLIS = 10;
    private static final List<CliOption> OPTIONS = withClientOptions(
            CliOption.required("port", "P", "the echo server's UDP or TCP port"),
            CliOption.value("start-file", "F", "the client starts once this file exists (default: at once)"));

    @Override
    public String name() {
        return "node";
    }

    @Override
    public String[] description() {
        return new String[] {"One host of an all-to-all run: echo server and client in one JVM (Homa: one endpoint).",
                "The client starts once F exists; the server answers until SIGTERM/SIGINT."};
    }

    @Override
    public List<CliOption> options() {
        return OPTIONS;
    }

    @Override
    public int run(Args args, PrintStream out, PrintStream err) throws Exception {
        ClientCommand.Plan plan = ClientCommand.plan(args);
        int port = args.intValue("port", null, 0, 65_535);
        Path startFile = args.has("start-file") ? Path.of(args.string("start-file", null)) : null;

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
    static int serveAndRun(ClientCommand.Plan plan, int port, Path startFile, CountDownLatch stop,
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

    private static List<CliOption> withClientOptions(CliOption... own) {
        List<CliOption> all = new ArrayList<>(List.of(own));
        all.addAll(ClientCommand.OPTIONS);
        return List.copyOf(all);
    }
}
