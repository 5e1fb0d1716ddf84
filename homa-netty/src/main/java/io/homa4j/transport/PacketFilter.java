package io.homa4j.transport;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * Fault-injection hook between the engine and the sockets: decides, packet by packet, whether a datagram is
 * dropped. Meant for tests and experiments (loss, one-way partitions); production endpoints use {@link #NONE}.
 *
 * <p>Threading: called on the endpoint's event loop only. The buffers are only inspected, never retained or
 * released by the filter; reading them must not move their indices.
 */
public interface PacketFilter {

    /** Passes everything. */
    PacketFilter NONE = new PacketFilter() {
        @Override
        public boolean passOutbound(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
            return true;
        }

        @Override
        public boolean passInbound(InetSocketAddress from, ByteBuf packet) {
            return true;
        }
    };

    /** False drops {@code packet}, which the engine asked to send to {@code peer}. */
    boolean passOutbound(InetSocketAddress peer, int priorityLevel, ByteBuf packet);

    /** False drops {@code packet}, which arrived from {@code from}, before the engine sees it. */
    boolean passInbound(InetSocketAddress from, ByteBuf packet);

    /**
     * Drops each datagram, in both directions, independently with probability {@code dropProbability}, from a
     * seeded generator, so a single-threaded run drops the same packets every time.
     */
    static PacketFilter lossy(long seed, double dropProbability) {
        return new LossyPacketFilter(seed, dropProbability, dropProbability);
    }
}
