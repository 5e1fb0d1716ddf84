package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * What the {@link SimulatedNetwork} drives on one host: a packet-in, timer-driven endpoint with one virtual clock.
 * {@link HomaHost} adapts a real {@code HomaEngine} to it; tests of the network itself use trivial fakes.
 *
 * <p>Threading: every method is called on the thread that runs the network, never concurrently. A node sends
 * through the {@link SimHost#sink()} of its host, from inside these methods or from tasks scheduled on the network.
 *
 * <p>Ownership: {@code packet} passed to {@link #onPacket} belongs to the node, which must release it.
 */
public interface SimNode {

    /** One packet arrived at virtual time {@code nowNanos}. */
    void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos);

    /** The time returned by {@link #nextWakeNanos()} has come (or passed). */
    void poll(long nowNanos);

    /**
     * When the node next wants {@link #poll}, or {@code Long.MAX_VALUE} for never. The network reads it after
     * every call into the node and whenever {@link SimHost#wakeChanged()} is called.
     */
    long nextWakeNanos();

    /** The network is closing: release every buffer the node holds. Sends from here on are discarded. */
    default void close(long nowNanos) {
    }
}
