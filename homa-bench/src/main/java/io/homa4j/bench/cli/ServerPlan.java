package io.homa4j.bench.cli;

import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;

import java.util.List;

/**
 * One echo server: what {@code server} runs, and what a launcher hands a server JVM as {@link #argv()}, which
 * {@code server} parses back into the same plan.
 */
public record ServerPlan(Protocol protocol, TransportOptions transport) {
    /** The options of {@code server} that give this plan. */
    public List<String> argv() {
        return List.of("--protocol", protocol.id(), "--port", Integer.toString(transport.port()),
                "--bind", transport.bindAddress().getHostAddress(), "--link-mbps",
                Integer.toString(transport.linkMbps()), "--link-framing-bytes",
                Integer.toString(transport.linkFramingBytes()), "--rtt-us", Integer.toString(transport.rttMicros()),
                "--max-message", Integer.toString(transport.maxMessage()), "--tcp-connections",
                Integer.toString(transport.tcpConnections()));
    }
}
