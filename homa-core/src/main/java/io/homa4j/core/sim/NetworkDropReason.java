package io.homa4j.core.sim;

/** Why the simulated network discarded a packet. Every discarded packet is released and counted by reason. */
public enum NetworkDropReason {
    /** Random loss injected by {@link NetworkConfig#lossProbability()}. */
    RANDOM_LOSS,
    /** The destination's switch egress port had no room (per-port byte or packet limit). */
    PORT_BUFFER_FULL,
    /** The switch's shared buffer (all ports together) had no room. */
    SHARED_BUFFER_FULL,
    /** A test's {@link PacketFilter} chose to drop the packet. */
    FILTERED,
    /** No simulated host has the destination address. */
    UNKNOWN_DESTINATION,
    /** The destination host is down (crashed) or has no node attached. */
    HOST_DOWN,
    /** The sender gave a priority level outside 0..7. */
    INVALID_PRIORITY,
    /** The network was closed while the packet was in flight or queued. */
    NETWORK_CLOSED
}
