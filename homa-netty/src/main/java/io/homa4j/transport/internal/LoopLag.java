package io.homa4j.transport.internal;

/**
 * How far behind its sockets an event loop lately fell: the longest loop turn (from the turn's first engine
 * interaction to its end) within the current and the previous epoch of {@link #EPOCH_NANOS}, so a long turn is
 * remembered for between one and two epochs and then forgotten. A datagram read in a turn may have waited in the
 * socket for the previous turn and this one; the engine widens its in-flight time by it
 * ({@code PacketDriven.onHostLag}) so that it does not retransmit for RESENDs that only crossed its data.
 *
 * <p>Threading: event loop only.
 */
final class LoopLag {
    /**
     * Long enough that the RESENDs a lagging peer or loop sent during a long turn are read and answered while the
     * turn still counts (they come within a few turns after it); short enough that real losses are resent
     * promptly again soon after.
     */
    static final long EPOCH_NANOS = 250_000_000L;

    private long epochStartNanos = Long.MIN_VALUE / 2;
    private long epochLongestNanos;
    private long previousEpochLongestNanos;
    private long reportedNanos;

    /**
     * A turn that began at {@code startNanos} ended at {@code endNanos}.
     *
     * @return true when {@link #lagNanos()} changed (and should be reported to the engine)
     */
    boolean turnEnded(long startNanos, long endNanos) {
        if (endNanos - epochStartNanos >= EPOCH_NANOS) {
            boolean skippedAnEpoch = endNanos - epochStartNanos >= 2 * EPOCH_NANOS;
            previousEpochLongestNanos = skippedAnEpoch ? 0 : epochLongestNanos;
            epochLongestNanos = 0;
            epochStartNanos = endNanos;
        }
        epochLongestNanos = Math.max(epochLongestNanos, Math.max(0, endNanos - startNanos));
        long lag = Math.max(epochLongestNanos, previousEpochLongestNanos);
        if (lag == reportedNanos) {
            return false;
        }
        reportedNanos = lag;
        return true;
    }

    /** The longest turn of the current and the previous epoch. */
    long lagNanos() {
        return reportedNanos;
    }
}
