package io.homa4j.bench.cli;

import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.InetAddress;

/** The transport and how Homa is tuned for the path: what {@code server}, {@code client} and {@code node} share. */
public final class EndpointOptions {
    static final int DEFAULT_LINK_MBPS = 10_000;
    @Option(names = "--protocol", required = true, paramLabel = "PROTOCOL",
            description = "the transport: ${COMPLETION-CANDIDATES}")
    Protocol protocol;

    @Option(names = "--bind", paramLabel = "ADDR", description = "local address (default loopback)")
    InetAddress bind = InetAddress.getLoopbackAddress();

    @Bounds(min = 1, max = 1_000_000)
    @Option(names = "--link-mbps", paramLabel = "N",
            description = "Homa's link rate: pacing and windows (default " + DEFAULT_LINK_MBPS + ")")
    int linkMbps = DEFAULT_LINK_MBPS;

    @Bounds(min = 0, max = 1_000)
    @Option(names = "--link-framing-bytes", paramLabel = "B", description = "bytes per packet the link charges"
            + " beyond the IP packet, added by Homa's pacer: 38 for an Ethernet NIC at line rate, 14 under a tc"
            + " shaper (default 0)")
    int linkFramingBytes;

    @Mixin
    RttOption rtt;

    @Bounds(min = 1, max = 1_024)
    @Option(names = "--tcp-connections", paramLabel = "N", description = "TCP connections a client opens to each"
            + " server (default " + TransportOptions.DEFAULT_TCP_CONNECTIONS + "; a server takes any number)")
    int tcpConnections = TransportOptions.DEFAULT_TCP_CONNECTIONS;

    Protocol protocol() {
        return protocol;
    }

    TransportOptions transport(int port, int maxMessage) {
        return new TransportOptions(bind, port, linkMbps, rtt.rttUs, maxMessage, tcpConnections, linkFramingBytes);
    }
}
