package io.homa4j.transport;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * Drops datagrams at random with fixed per-direction probabilities, from a seeded generator; a
 * {@link FaultInjector} with loss only. Counts what it dropped so tests can assert that loss actually happened.
 *
 * <p>Threading: event loop only (see {@link PacketFilter}); the counters may be read from any thread.
 */
public final class LossyPacketFilter implements PacketFilter {
    private final FaultInjector faults;

    public LossyPacketFilter(long seed, double outboundDropProbability, double inboundDropProbability) {
        this.faults = new FaultInjector(seed, Faults.NONE.withDrop(outboundDropProbability),
                Faults.NONE.withDrop(inboundDropProbability));
    }

    @Override
    public void outbound(InetSocketAddress peer, int priorityLevel, ByteBuf packet, PacketPath path) {
        faults.outbound(peer, priorityLevel, packet, path);
    }

    @Override
    public void inbound(InetSocketAddress from, ByteBuf packet, PacketPath path) {
        faults.inbound(from, packet, path);
    }

    public long droppedOutbound() {
        return faults.droppedOutbound();
    }

    public long droppedInbound() {
        return faults.droppedInbound();
    }
}
