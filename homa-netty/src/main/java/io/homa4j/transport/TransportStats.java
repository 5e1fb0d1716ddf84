package io.homa4j.transport;

/**
 * A snapshot of an endpoint's UDP-level totals since it was built.
 *
 * @param datagramsSent     UDP datagrams written to the sockets (each GSO segment counts once; with a fault filter,
 *                          counted before the filter judges them)
 * @param bytesSent         UDP payload bytes of those datagrams
 * @param gsoSends          UDP GSO sends (one syscall buffer carrying several segments)
 * @param gsoSegments       datagrams that went out inside GSO sends
 * @param gsoFallbacks      GSO sends the kernel refused, re-sent as plain datagrams (GSO is then switched off)
 * @param datagramsReceived datagrams read from the sockets (before the inbound filter; a coalesced UDP GRO read
 *                          counts once)
 * @param bytesReceived     their payload bytes
 * @param coalescedReceived reads that held several datagrams coalesced by UDP GRO
 * @param packetsReceived   Homa packets cut from the datagrams read (a coalesced read holds up to 64)
 * @param receiveBursts     bursts of packets handed to the engine, one per socket read-readiness; with
 *                          {@code packetsReceived}, the packets the engine handles per wake-up
 * @param oversizedDropped  datagrams longer than the configured MTU allows, dropped unread by the engine
 * @param filteredOutbound  datagrams a fault-injecting filter ({@code io.homa4j.faults}) dropped on the way out
 * @param filteredInbound   datagrams a fault-injecting filter dropped on the way in
 * @param socketErrors      socket errors reported by Netty (failed plain sends, failed reads)
 * @param engineWakes       times the event loop ran the engine's timers and pacer ({@code poll})
 * @param timerWakes        of those, the ones the event loop's own timer woke it for; the others ran at the end of
 *                          a turn it made for packets or calls anyway (on a VM a wake-up costs tens of
 *                          microseconds of CPU, so these are what a loaded host wants few of)
 * @param socketDrops       datagrams the kernel dropped because the receive buffer of one of the endpoint's
 *                          sockets was full (read from /proc/net/udp); -1 where the kernel does not say
 * @param probesSent        PROBE packets sent to servers not heard from lately, to learn at once that nothing
 *                          listens at their port (see docs/user-guide.md, fail fast)
 * @param probesRefused     probes the kernel reported port unreachable for (ICMP): their servers' calls failed
 *                          with UNAVAILABLE
 * @param probesSkipped     servers not probed because 256 probes were open or no socket could be connected to
 *                          them
 * @param probesOpen        probe sockets open now
 * @param engineFailures    exceptions that escaped the engine, its sink or its probes into the event loop: a bug in
 *                          Homa4J, each logged with its stack trace; the loop goes on serving. 0 in a healthy run
 */
public record TransportStats(long datagramsSent, long bytesSent, long gsoSends, long gsoSegments, long gsoFallbacks,
                             long datagramsReceived, long bytesReceived, long coalescedReceived,
                             long packetsReceived, long receiveBursts, long oversizedDropped,
                             long filteredOutbound, long filteredInbound, long socketErrors,
                             long engineWakes, long timerWakes, long socketDrops, long probesSent, long probesRefused,
                             long probesSkipped, long probesOpen, long engineFailures) {

    /** Datagrams per GSO send, or 0 before the first one. */
    public double segmentsPerGsoSend() {
        return gsoSends == 0 ? 0 : (double) gsoSegments / gsoSends;
    }

    /** Packets the engine took per burst (per socket wake-up), or 0 before the first. */
    public double packetsPerReceiveBurst() {
        return receiveBursts == 0 ? 0 : (double) packetsReceived / receiveBursts;
    }
}
