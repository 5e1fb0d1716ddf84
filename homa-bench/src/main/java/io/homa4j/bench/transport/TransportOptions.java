package io.homa4j.bench.transport;

import java.net.InetAddress;

/**
 * Settings shared by both transports so that a comparison changes only the protocol.
 *
 * @param bindAddress    local address to bind (servers: where to listen; clients: source address)
 * @param port           server port, 0 for an ephemeral one (ignored by clients)
 * @param linkMbps       link rate the Homa engine paces and sizes its budgets for
 * @param rttMicros      unloaded round-trip time the Homa engine sizes its budgets for
 * @param maxMessage     longest request or response, bytes
 * @param tcpConnections TCP connections the client opens to every server
 * @param linkFramingBytes bytes per packet the link charges beyond the IP packet, which Homa's pacer adds
 *                         ({@code HomaConfig.linkFramingBytes}; 14 in the netlab rack, whose tbf counts the
 *                         Ethernet header)
 */
public record TransportOptions(InetAddress bindAddress, int port, int linkMbps, int rttMicros, int maxMessage,
                               int tcpConnections, int linkFramingBytes) {
    /** Without link framing (loopback: nothing shapes the path). */
    public TransportOptions(InetAddress bindAddress, int port, int linkMbps, int rttMicros, int maxMessage,
                            int tcpConnections) {
        this(bindAddress, port, linkMbps, rttMicros, maxMessage, tcpConnections, 0);
    }

    /** As the Linux module's cp_vs_tcp at 25 Gb/s: 4 client ports x 8 server ports; see docs/benchmarking.md. */
    public static final int DEFAULT_TCP_CONNECTIONS = 32;

    public static TransportOptions loopback(int linkMbps, int maxMessage) {
        return new TransportOptions(InetAddress.getLoopbackAddress(), 0, linkMbps, 20, maxMessage,
                DEFAULT_TCP_CONNECTIONS);
    }

    public TransportOptions withPort(int newPort) {
        return new TransportOptions(bindAddress, newPort, linkMbps, rttMicros, maxMessage, tcpConnections,
                linkFramingBytes);
    }
}
