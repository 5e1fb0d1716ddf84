package io.homa4j.transport;

/**
 * A snapshot of an endpoint's UDP-level totals since it was built.
 *
 * @param datagramsSent     UDP datagrams handed to the kernel (each GSO segment counts once)
 * @param bytesSent         UDP payload bytes of those datagrams
 * @param gsoSends          UDP GSO sends (one syscall buffer carrying several segments)
 * @param gsoSegments       datagrams that went out inside GSO sends
 * @param gsoFallbacks      GSO sends the kernel refused, re-sent as plain datagrams (GSO is then switched off)
 * @param datagramsReceived datagrams read from the sockets (before the inbound filter)
 * @param bytesReceived     their payload bytes
 * @param oversizedDropped  datagrams longer than the configured MTU allows, dropped unread by the engine
 * @param filteredOutbound  datagrams a {@link PacketFilter} dropped on the way out
 * @param filteredInbound   datagrams a {@link PacketFilter} dropped on the way in
 * @param socketErrors      socket errors reported by Netty (failed plain sends, failed reads)
 * @param engineWakes       times the event loop woke the engine for its timers or pacer ({@code poll})
 */
public record TransportStats(long datagramsSent, long bytesSent, long gsoSends, long gsoSegments, long gsoFallbacks,
                             long datagramsReceived, long bytesReceived, long oversizedDropped,
                             long filteredOutbound, long filteredInbound, long socketErrors,
                             long engineWakes) {
}
