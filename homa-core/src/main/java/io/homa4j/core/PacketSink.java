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
     * @param packet        the packet, readable bytes only; ownership passes to the sink, which must release it. It
     *                      must be a Homa packet that declares its own length (the receiver cuts coalesced UDP
     *                      GRO reads by that length, {@code PacketDecoder.framedLength})
     */
    void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet);

    /**
     * Called by the engine at the end of every engine method that may have sent packets. A transport that
     * batches (UDP GSO, for example) sends what it batched now, or, when it drives the engine itself, at the end
     * of its current unit of work (the UDP transport: the end of the event-loop turn, so the packets of several
     * engine methods share GSO sends); it never holds packets while it waits for input. The default does nothing.
     */
    default void flush() {
    }
}
