package io.homa4j.core.internal.timer;

/**
 * The round trip to one peer as measured, smoothed the way TCP's retransmission timer smooths it (RFC 6298:
 * {@code SRTT} and {@code RTTVAR}, gains 1/8 and 1/4): how long the peer's data may take to arrive after we asked
 * for it, queueing in the network included. Homa's timers otherwise know only the configured RTT, which is the
 * unloaded one; behind a congested switch port, data at a low priority level waits for every higher level, and
 * RESENDs timed by the configured RTT would ask for packets that are only queued.
 *
 * <p>Fed by the receiving side with unambiguous samples only, one probe at a time: the time from a GRANT to the
 * arrival of the first packet of that RPC which only that GRANT let the sender send ({@link #grantSent},
 * {@link #dataArrived}), never a retransmitted one (DATA says so in a flag, so unlike TCP no sample is ambiguous
 * and none need be dropped for Karn's rule). A RESEND does not end the probe: the original may still arrive, also
 * after its message completed, and its delay is what a RESEND timer must learn (a probe ended by each RESEND never
 * measured a queue longer than the configured timeout). Read by both sides: the receiver waits at least
 * {@link #timeoutNanos()} of silence before a RESEND, and a sender treats bytes sent within it as still on their
 * way. Engine thread only; owned by its peer.
 */
public final class RttEstimator {
    /**
     * A probe whose packet has not come for this long is given up for a new one (its packet was lost, or its RPC
     * ended): far longer than any RESEND interval the estimate sets (at most a tenth of the abort timeout, 100 ms
     * by default), so every delay that matters can still be measured.
     */
    static final long PROBE_EXPIRY_NANOS = 2_000_000_000L;

    private long smoothedNanos = -1;
    private long variationNanos;
    private long samples;
    /** The probe: the first non-retransmitted DATA packet of {@link #probeRpcId} at or past this offset; -1: none. */
    private int probeFromOffset = -1;
    private long probeRpcId;
    private long probeSinceNanos;

    /**
     * We sent a GRANT at {@code nowNanos} that raised RPC {@code rpcId}'s (the id the peer's DATA carries) granted
     * offset from {@code fromOffset}: unless a probe is pending, time the first packet it lets the sender send. A
     * sender sends a whole packet when its first byte is granted, so a packet starting below {@code fromOffset}
     * may have left before this GRANT arrived; one starting at or past it cannot have.
     */
    public void grantSent(long rpcId, int fromOffset, long nowNanos) {
        if (probeFromOffset >= 0 && nowNanos - probeSinceNanos < PROBE_EXPIRY_NANOS) {
            return;
        }
        probeRpcId = rpcId;
        probeFromOffset = fromOffset;
        probeSinceNanos = nowNanos;
    }

    /** A DATA packet of RPC {@code rpcId} starting at {@code offset} arrived from the peer at {@code nowNanos}. */
    public void dataArrived(long rpcId, int offset, boolean retransmitted, long nowNanos) {
        if (probeFromOffset < 0 || rpcId != probeRpcId || retransmitted || offset < probeFromOffset) {
            return;
        }
        probeFromOffset = -1;
        sample(nowNanos - probeSinceNanos);
    }

    /** A round trip of {@code rttNanos} was measured; negative values (a clock that went back) are ignored. */
    public void sample(long rttNanos) {
        if (rttNanos < 0) {
            return;
        }
        samples++;
        if (smoothedNanos < 0) {
            smoothedNanos = rttNanos;
            variationNanos = rttNanos / 2;
            return;
        }
        long error = Math.abs(smoothedNanos - rttNanos);
        variationNanos += (error - variationNanos) / 4;
        smoothedNanos += (rttNanos - smoothedNanos) / 8;
    }

    /** {@code SRTT + 4 x RTTVAR}: how long the peer's data may still be on its way; 0 before any sample. */
    public long timeoutNanos() {
        return smoothedNanos < 0 ? 0 : smoothedNanos + 4 * variationNanos;
    }

    /** The smoothed round trip ({@code SRTT}), or -1 before any sample. */
    public long smoothedNanos() {
        return smoothedNanos;
    }

    /** The smoothed variation ({@code RTTVAR}), 0 before any sample. */
    public long variationNanos() {
        return variationNanos;
    }

    /** Samples taken so far. */
    public long samples() {
        return samples;
    }
}
