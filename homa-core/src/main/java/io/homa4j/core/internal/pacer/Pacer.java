package io.homa4j.core.internal.pacer;

/**
 * Estimates the host's own transmit queue from the bytes handed to the network and the link rate, so the engine
 * can hold packets back (and keep choosing among them by SRPT) instead of piling them into the NIC queue, where
 * a newly arrived short message would wait behind them.
 *
 * <p>The estimate is "the link is busy until {@code linkFreeAtNanos}": each packet adds its wire time. The
 * queue is {@code linkFreeAtNanos - now}. A packet may go when the link is idle or when it fits below the
 * configured maximum queue. Not thread-safe.
 */
public final class Pacer {
    private final double nanosPerByte;
    private long maxQueueNanos;
    private long linkFreeAtNanos;
    private long maxQueueSeenNanos;

    /**
     * @param linkMbps      link rate in Mbit/s
     * @param maxQueueNanos the most link time of packets this host queues
     */
    public Pacer(int linkMbps, long maxQueueNanos, long nowNanos) {
        this.nanosPerByte = 8_000.0 / linkMbps;
        this.maxQueueNanos = maxQueueNanos;
        this.linkFreeAtNanos = nowNanos;
    }

    /** Link time of {@code wireBytes} bytes, in nanoseconds (at least 1). */
    public long wireNanos(int wireBytes) {
        return Math.max(1, (long) Math.ceil(wireBytes * nanosPerByte));
    }

    /**
     * Changes the queue bound (the driver measured how late its wake-ups come: see
     * {@code HomaEngine.fitPacer}); packets already counted stay counted.
     */
    public void maxQueueNanos(long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("maxQueueNanos must be positive: " + nanos);
        }
        this.maxQueueNanos = nanos;
    }

    /** The queue bound in effect. */
    public long maxQueueNanos() {
        return maxQueueNanos;
    }

    /** Whether a packet of {@code wireBytes} may be handed to the network now without exceeding the queue bound. */
    public boolean hasRoom(int wireBytes, long nowNanos) {
        long queued = linkFreeAtNanos - nowNanos;
        return queued <= 0 || queued + wireNanos(wireBytes) <= maxQueueNanos;
    }

    /** Records a packet handed to the network (paced or not: control packets use the link too). */
    public void sent(int wireBytes, long nowNanos) {
        linkFreeAtNanos = Math.max(linkFreeAtNanos, nowNanos) + wireNanos(wireBytes);
        maxQueueSeenNanos = Math.max(maxQueueSeenNanos, linkFreeAtNanos - nowNanos);
    }

    /** Earliest time at which a packet of {@code wireBytes} will have room. */
    public long roomAtNanos(int wireBytes) {
        return Math.min(linkFreeAtNanos, linkFreeAtNanos + wireNanos(wireBytes) - maxQueueNanos);
    }

    /** Estimated own queue right now, in nanoseconds of link time. */
    public long queuedNanos(long nowNanos) {
        return Math.max(0, linkFreeAtNanos - nowNanos);
    }

    /** Largest estimated own queue seen right after a send. */
    public long maxQueueSeenNanos() {
        return maxQueueSeenNanos;
    }
}
