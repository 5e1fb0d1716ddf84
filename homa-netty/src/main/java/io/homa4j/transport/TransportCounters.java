package io.homa4j.transport;

/**
 * What the UDP layer did, as running totals. Written only by the endpoint's event loop (single writer, so plain
 * increments of volatile fields are exact); readable from any thread.
 */
public final class TransportCounters {
    volatile long datagramsSent;
    volatile long bytesSent;
    volatile long gsoSends;
    volatile long gsoSegments;
    volatile long gsoFallbacks;
    volatile long datagramsReceived;
    volatile long bytesReceived;
    volatile long coalescedReceived;
    volatile long packetsReceived;
    volatile long receiveBursts;
    volatile long oversizedDropped;
    volatile long filteredOutbound;
    volatile long filteredInbound;
    volatile long socketErrors;
    volatile long engineWakes;

    /** An immutable copy of the totals so far. */
    public TransportStats snapshot() {
        return new TransportStats(datagramsSent, bytesSent, gsoSends, gsoSegments, gsoFallbacks,
                datagramsReceived, bytesReceived, coalescedReceived, packetsReceived, receiveBursts, oversizedDropped, filteredOutbound, filteredInbound, socketErrors,
                engineWakes);
    }
}
