package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;

/**
 * A test's hand-picked packet drops (a partition, "lose the third DATA packet"), applied when a packet reaches the
 * switch, after random faults. Must not modify or release {@code packet}. Called on the network's thread.
 */
@FunctionalInterface
public interface PacketFilter {

    /** Returns true to drop the packet (counted as {@link NetworkDropReason#FILTERED}). */
    boolean drop(SimHost from, SimHost to, int priorityLevel, ByteBuf packet, long nowNanos);
}
