package io.homa4j.bench.cli;

import io.homa4j.bench.transport.BenchServer;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code server}: an echo server until SIGTERM or SIGINT, then a clean exit 0. The first stdout line is
 * {@code homa-bench server: protocol=P listening=HOST:PORT}, which {@code compare} reads to learn an ephemeral port.
 */
final class ServerCommand implements Command {
    static final String READY_PREFIX = "homa-bench server: protocol=";
    static final int DEFAULT_MAX_MESSAGE = 64 << 20;

    @Override
    public String name() {
        return "server";
    }

    @Override
    public String[] description() {
        return new String[] {"Echo server until SIGTERM/SIGINT."};
    }

    @Override
    public List<CliOption> options() {
        return List.of(
                CliOption.required("protocol", "homa|tcp", "the transport"),
                CliOption.required("port", "P", "UDP or TCP port; 0 for any free one (printed when serving)"),
                CliOption.value("bind", "ADDR", "local address (default loopback)"),
                CliOption.value("link-mbps", "N", "Homa's link rate: pacing and windows (default "
                        + ClientCommand.DEFAULT_LINK_MBPS + ")"),
                CliOption.linkFramingBytes(),
                CliOption.rttMicros(ClientCommand.DEFAULT_RTT_US),
                CliOption.value("max-message", "B", "longest message accepted (default " + DEFAULT_MAX_MESSAGE
                        + ")"),
                CliOption.value("tcp-connections", "N", "accepted and ignored: the server takes any number"));
    }

    @Override
    public int run(Args args, PrintStream out, PrintStream err) throws Exception {
        Protocol protocol = ClientCommand.protocol(args);
        int port = args.intValue("port", null, 0, 65_535);
        InetAddress bind = args.address("bind", InetAddress.getLoopbackAddress());
        int linkMbps = args.intValue("link-mbps", ClientCommand.DEFAULT_LINK_MBPS, 1, 1_000_000);
        int rttUs = args.intValue("rtt-us", ClientCommand.DEFAULT_RTT_US, 1, 1_000_000);
        int maxMessage = args.intValue("max-message", DEFAULT_MAX_MESSAGE, 1, Integer.MAX_VALUE - 8);
        TransportOptions options = new TransportOptions(bind, port, linkMbps, rttUs, maxMessage,
                TransportOptions.DEFAULT_TCP_CONNECTIONS, CliOption.linkFramingBytes(args));

        CountDownLatch stop = new CountDownLatch(1);
        Signals.onTerminate(stop::countDown);
        try (BenchServer server = protocol.startServer(options)) {
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
