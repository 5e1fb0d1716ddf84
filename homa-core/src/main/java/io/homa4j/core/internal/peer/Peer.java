package io.homa4j.core.internal.peer;

import io.homa4j.core.internal.priority.UnscheduledCutoffs;
import io.homa4j.core.internal.timer.RttEstimator;

import java.net.InetSocketAddress;

/**
 * What this engine knows about one remote host: the unscheduled cutoffs it asked us to use, the acks we owe it
 * (finished client RPCs whose server state it may free), when we last pushed our cutoffs to it, and how many
 * bytes we buffer for its incoming messages, and the round trip its data takes as measured (queueing included).
 * Engine thread only.
 */
public final class Peer {
    /** Acks held for piggy-backing; more are flushed in an explicit ACK so the list stays bounded. */
    public static final int MAX_PENDING_ACKS = 32;

    private final InetSocketAddress address;
    private UnscheduledCutoffs cutoffs;
    private final long[] pendingAcks = new long[MAX_PENDING_ACKS];
    private int pendingAckCount;
    private long lastCutoffsSentNanos = Long.MIN_VALUE;
    private long bufferedBytes;
    private int rpcs;
    private long lastHeardNanos = Long.MIN_VALUE;
    private long resendBudgetTick = -1;
    private int resendsThisTick;
    private final RttEstimator rtt = new RttEstimator();

    Peer(InetSocketAddress address, UnscheduledCutoffs initialCutoffs) {
        this.address = address;
        this.cutoffs = initialCutoffs;
    }

    public InetSocketAddress address() {
        return address;
    }

    /**
     * The measured round trip with this peer. Samples come from data it sends us (GRANT to granted data); the same
     * estimate stands for data we send it, which crosses the same kind of loaded switch port the other way (an
     * engine is client and server at once in the all-to-all workloads Homa is for; without samples it is 0 and
     * the configured timeouts apply).
     */
    public RttEstimator rtt() {
        return rtt;
    }

    /** The cutoffs to use for messages sent to this peer (ours, version 0, until the peer sends its own). */
    public UnscheduledCutoffs cutoffs() {
        return cutoffs;
    }

    public void cutoffs(UnscheduledCutoffs c) {
        cutoffs = c;
    }

    /**
     * Queues an ack for piggy-backing.
     *
     * @return false when the list is full; the caller should flush with {@link #drainAcks} first
     */
    public boolean addPendingAck(long clientRpcId) {
        if (pendingAckCount == MAX_PENDING_ACKS) {
            return false;
        }
        pendingAcks[pendingAckCount++] = clientRpcId;
        return true;
    }

    /** Takes one pending ack, or 0 when none. */
    public long pollPendingAck() {
        return pendingAckCount == 0 ? 0 : pendingAcks[--pendingAckCount];
    }

    public int pendingAckCount() {
        return pendingAckCount;
    }

    /** Moves all pending acks into {@code into} starting at {@code at}; returns the new fill level. */
    public int drainAcks(long[] into, int at) {
        int n = Math.min(pendingAckCount, into.length - at);
        for (int i = 0; i < n; i++) {
            into[at + i] = pendingAcks[--pendingAckCount];
        }
        return at + n;
    }

    public long lastCutoffsSentNanos() {
        return lastCutoffsSentNanos;
    }

    public void lastCutoffsSentNanos(long t) {
        lastCutoffsSentNanos = t;
    }

    public long bufferedBytes() {
        return bufferedBytes;
    }

    public void addBufferedBytes(long delta) {
        bufferedBytes += delta;
    }

    /** Count of live RPCs with this peer; an idle peer may be evicted from the table. */
    public int rpcs() {
        return rpcs;
    }

    public void rpcOpened() {
        rpcs++;
    }

    public void rpcClosed() {
        rpcs--;
    }

    boolean idle() {
        return rpcs == 0 && pendingAckCount == 0 && bufferedBytes == 0;
    }

    /** A well-formed packet from this peer arrived at {@code nowNanos}. */
    public void heard(long nowNanos) {
        lastHeardNanos = nowNanos;
    }

    /** Whether a well-formed packet from this peer arrived within {@code windowNanos} before {@code nowNanos}. */
    public boolean heardWithin(long windowNanos, long nowNanos) {
        return lastHeardNanos != Long.MIN_VALUE && nowNanos - lastHeardNanos <= windowNanos;
    }

    /** Whether a well-formed packet from this peer arrived at or after {@code sinceNanos}. */
    public boolean heardSince(long sinceNanos) {
        return lastHeardNanos != Long.MIN_VALUE && lastHeardNanos - sinceNanos >= 0;
    }

    /**
     * Takes one unit of this peer's RESEND budget for timer tick {@code tick}; false when {@code perTick} RPCs
     * already sent RESENDs to it in this tick. Bounding RESENDs per peer keeps thousands of silent RPCs from
     * flooding a peer that is merely slow (each RESEND would cost it a packet to process and answer).
     */
    public boolean takeResendBudget(long tick, int perTick) {
        if (tick != resendBudgetTick) {
            resendBudgetTick = tick;
            resendsThisTick = 0;
        }
        if (resendsThisTick >= perTick) {
            return false;
        }
        resendsThisTick++;
        return true;
    }
}
