package io.homa4j.transport;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;
import java.util.SplittableRandom;

/**
 * Drops datagrams at random with fixed per-direction probabilities, from a seeded generator. Counts what it
 * dropped so tests can assert that loss actually happened.
 *
 * <p>Threading: event loop only (see {@link PacketFilter}); the counters may be read from any thread.
 */
public final class LossyPacketFilter implements PacketFilter {
    private final SplittableRandom random;
    private final double outboundDrop;
    private final double inboundDrop;
    private volatile long droppedOutbound;
    private volatile long droppedInbound;

    public LossyPacketFilter(long seed, double outboundDropProbability, double inboundDropProbability) {
        this.random = new SplittableRandom(seed);
        this.outboundDrop = probability(outboundDropProbability, "outboundDropProbability");
        this.inboundDrop = probability(inboundDropProbability, "inboundDropProbability");
    }

    @Override
    public boolean passOutbound(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
        if (outboundDrop > 0 && random.nextDouble() < outboundDrop) {
            droppedOutbound++; // single writer: the event loop
            return false;
        }
        return true;
    }

    @Override
    public boolean passInbound(InetSocketAddress from, ByteBuf packet) {
        if (inboundDrop > 0 && random.nextDouble() < inboundDrop) {
            droppedInbound++;
            return false;
        }
        return true;
    }

    public long droppedOutbound() {
        return droppedOutbound;
    }

    public long droppedInbound() {
        return droppedInbound;
    }

    private static double probability(double p, String name) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(name + " must be in [0, 1]: " + p);
        }
        return p;
    }
}
