package io.homa4j.core;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * Something driven by packets and by time, on one thread with one clock: what a host runs and what drives it.
 * The endpoint's event loop drives a {@link HomaEngine} this way (packets from its sockets, wake-ups at
 * {@link #nextWakeNanos()}); so does the simulated network ({@code io.homa4j.core.sim}) in virtual time, for an
 * engine or for anything else that runs on a simulated host.
 *
 * <p>Threading: every method is called on the one thread that drives it, never concurrently. Ownership:
 * {@code packet} passed to {@link #onPacket} belongs to the callee, which releases it.
 */
public interface PacketDriven {

    /** One packet arrived from {@code from} at {@code nowNanos}. */
    void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos);

    /**
     * The packets of one socket read, in order ({@link PacketBatch}: regions of buffers the caller keeps and
     * releases after this returns). Implementations without a batched path take them one by one as retained
     * slices, which is this default.
     */
    default void onPackets(PacketBatch batch, long nowNanos) {
        for (int i = 0, n = batch.count(); i < n; i++) {
            onPacket(batch.sender(i), batch.buffer(i).retainedSlice(batch.index(i), batch.length(i)), nowNanos);
        }
    }

    /**
     * The driver's turn ended at {@code nowNanos} and what this sent in it has left (the sockets were flushed):
     * time for bookkeeping that was put off so that it would not delay those packets. Drivers that hand over one
     * packet at a time may skip it. The default does nothing.
     */
    default void finishTurn(long nowNanos) {
    }

    /** The time returned by {@link #nextWakeNanos()} has come (or passed): run what is due. */
    void poll(long nowNanos);

    /**
     * When this next wants {@link #poll}, or {@code Long.MAX_VALUE} for never. The driver reads it after every
     * call it makes, and again when told the time may have changed (an API call made from elsewhere).
     */
    long nextWakeNanos();

    /**
     * The latest time by which {@link #poll} should run: at or after {@link #nextWakeNanos()}, later when the work
     * due first tolerates lateness (the engine's timer tick). A driver whose turns come often anyway (packets)
     * polls in any turn at or after {@link #nextWakeNanos()} and arms its timer for this time only, so that a
     * turn it makes for packets does the work a timer wake-up would have cost. A driver that wakes exactly when
     * asked (the simulator) uses {@link #nextWakeNanos()}. The default is {@link #nextWakeNanos()}.
     */
    default long wakeByNanos() {
        return nextWakeNanos();
    }

    /**
     * The host that drives this lately took up to {@code lagNanos} between reads of its sockets (its longest
     * recent event-loop turn; 0 when it keeps up). Packets it hands over may have waited that long, and what this
     * sends may wait as long before it leaves. The default ignores it (a simulated host never lags).
     */
    default void onHostLag(long lagNanos, long nowNanos) {
    }

    /**
     * Whether a packet from a peer is expected within about a round trip: a call of ours waits for its response.
     * A driver may then poll its sockets for a moment before it sleeps, since the packet most likely comes
     * sooner than a sleeping thread wakes up. The default is false (never expected).
     */
    default boolean awaitingPeer() {
        return false;
    }

    /**
     * The driver's wake-ups proved precise enough for a smaller own-queue bound than configured: bound the
     * pacer's queue at {@code maxQueueNanos} (never above the configured bound) and let a poll for it come up to
     * {@code wakeLatenessNanos} late. The default ignores it (a simulated host wakes exactly when asked).
     */
    default void fitPacer(long maxQueueNanos, long wakeLatenessNanos, long nowNanos) {
    }

    /** Closes: releases every buffer held; packets and polls that come later are ignored. */
    void close(long nowNanos);
}
