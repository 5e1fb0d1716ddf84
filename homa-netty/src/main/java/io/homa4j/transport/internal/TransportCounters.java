package io.homa4j.transport.internal;

import io.homa4j.transport.TransportStats;

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
    volatile long timerWakes;
    volatile long probesSent;
    volatile long probesRefused;
    volatile long probesSkipped;
    volatile long probesOpen;
    volatile long engineFailures;

    /** One datagram a fault-injecting filter dropped on its way out. */
    public void countFilteredOutbound() {
        filteredOutbound++;
    }

    /** One datagram a fault-injecting filter dropped on its way in. */
    public void countFilteredInbound() {
        filteredInbound++;
    }

    /** An immutable copy of the totals so far, without the kernel's drop count (-1). */
    public TransportStats snapshot() {
        return snapshot(-1);
    }

    /** An immutable copy of the totals so far, with the kernel's drops of the endpoint's sockets. */
    public TransportStats snapshot(long socketDrops) {
        return new TransportStats(datagramsSent, bytesSent, gsoSends, gsoSegments, gsoFallbacks,
                datagramsReceived, bytesReceived, coalescedReceived, packetsReceived, receiveBursts, oversizedDropped,
                filteredOutbound, filteredInbound, socketErrors, engineWakes, timerWakes, socketDrops, probesSent, probesRefused,
                probesSkipped, probesOpen, engineFailures);
    }
}
