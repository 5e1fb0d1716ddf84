package io.homa4j.core.internal.rpc;

import io.homa4j.core.internal.metrics.Metrics;
import io.homa4j.core.metrics.DropReason;

/**
 * Whether the received packet in progress was dropped, and why: every drop is counted under exactly one reason,
 * the first one found, however many parts of the engine reject the packet. The only writer of the drop counters.
 * Engine thread only.
 */
public final class PacketVerdict {
    private final Metrics metrics;
    private boolean dropped;

    public PacketVerdict(Metrics metrics) {
        this.metrics = metrics;
    }

    /** Starts the verdict for one received packet. */
    public void beginPacket() {
        dropped = false;
    }

    /** Counts the packet in progress as dropped for {@code reason} (only the first reason counts). */
    public void drop(DropReason reason) {
        if (!dropped) {
            dropped = true;
            metrics.drop(reason);
        }
    }

    /**
     * Counts a loss that belongs to no single packet (a failure after a burst was handled), whatever the verdict of
     * the packet in progress.
     */
    public void dropOutsidePacket(DropReason reason) {
        metrics.drop(reason);
    }

    /** Drops counted so far for {@code reason}. */
    public long count(DropReason reason) {
        return metrics.dropCount(reason);
    }

    public boolean dropped() {
        return dropped;
    }
}
