package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;

/**
 * Observes packets as they move through the network, for tests and traces. Implementations must not modify,
 * retain past the call or release {@code packet}. Called on the network's thread, allocation-free on the network's
 * side.
 */
public interface PacketTap {

    /** A node handed a packet to its host's NIC. */
    default void sent(SimHost from, SimHost to, int priorityLevel, ByteBuf packet, long nowNanos) {
    }

    /**
     * A packet is about to be handed to the destination node; {@code from} is null for a packet injected from
     * outside the hosts ({@link SimulatedNetwork#inject}).
     */
    default void delivered(SimHost from, SimHost to, int priorityLevel, ByteBuf packet, long nowNanos) {
    }

    /**
     * A packet is being discarded; {@code to} is null for {@link NetworkDropReason#UNKNOWN_DESTINATION},
     * {@code from} for an injected packet.
     */
    default void dropped(SimHost from, SimHost to, int priorityLevel, ByteBuf packet, NetworkDropReason reason,
                         long nowNanos) {
    }
}
