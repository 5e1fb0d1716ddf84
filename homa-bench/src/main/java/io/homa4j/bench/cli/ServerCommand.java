package io.homa4j.bench.cli;

import io.homa4j.bench.transport.BenchServer;
import io.homa4j.bench.transport.Protocol;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

/**
 * {@code server}: an echo server until SIGTERM or SIGINT, then a clean exit 0. The first stdout line is
 * {@code homa-bench server: protocol=P listening=HOST:PORT}, which {@code compare} reads to learn an ephemeral port.
 */
@Command(name = "server", sortOptions = false, description = "Echo server until SIGTERM/SIGINT.")
final class ServerCommand implements BenchCommand {
    static final String READY_PREFIX = "homa-bench server: protocol=";
    static final int DEFAULT_MAX_MESSAGE = 64 << 20;

    @Mixin
    HelpOption help;

    @Bounds(min = 0, max = 65_535)
    @Option(names = "--port", required = true, paramLabel = "P",
            description = "UDP or TCP port; 0 for any free one (printed when serving)")
    int port;

    @Mixin
    EndpointOptions endpoint;

    @Bounds(min = 1, max = Integer.MAX_VALUE - 8)
    @Option(names = "--max-message", paramLabel = "B",
            description = "longest message accepted (default " + DEFAULT_MAX_MESSAGE + ")")
    int maxMessage = DEFAULT_MAX_MESSAGE;

    /** The server these options describe. */
    ServerPlan plan() {
        return new ServerPlan(endpoint.protocol(), endpoint.transport(port, maxMessage));
    }

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        ServerPlan plan = plan();
        Protocol protocol = plan.protocol();
        CountDownLatch stop = new CountDownLatch(1);
        Signals.onTerminate(stop::countDown);
        try (BenchServer server = protocol.startServer(plan.transport())) {
            printReady(out, READY_PREFIX, protocol, server);
            err.println(server.describe());
            stop.await();
            if (!server.statistics().isEmpty()) {
                err.println(server.statistics());
            }
        }
        err.println("homa-bench server: stopped");
        return Cli.OK;
    }

    /** Prints and flushes the line a script waits for: {@code PREFIX<protocol> listening=HOST:PORT}. */
    static void printReady(PrintStream out, String prefix, Protocol protocol, BenchServer server) {
        InetSocketAddress local = server.localAddress();
        out.println(prefix + protocol.id() + " listening=" + local.getAddress().getHostAddress() + ":"
                + local.getPort());
        out.flush();
    }
}
