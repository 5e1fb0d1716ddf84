package io.homa4j.core;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * Where a {@link HomaEngine} puts the packets it wants on the wire: a UDP transport, or the simulator.
 *
 * <p>Threading: called only from the thread that drives the engine, from inside an engine method.
 */
public interface PacketSink {

    /**
     * Queues one encoded Homa packet for {@code peer}.
     *
     * @param peer          destination host and port
     * @param priorityLevel 0 (lowest) to {@code HomaConfig.priorityLevels() - 1} (highest); the transport maps it
     *                      to a DSCP value (see {@link HomaConfig#dscpForLevel(int)})
     * @param packet        the packet, readable bytes only; ownership passes to the sink, which must release it
     */
    void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet);

    /**
     * Called by the engine at the end of every engine method that may have sent packets. A transport that
     * batches (UDP GSO, for example) sends what it batched now; the default does nothing.
     */
    default void flush() {
    }
}
