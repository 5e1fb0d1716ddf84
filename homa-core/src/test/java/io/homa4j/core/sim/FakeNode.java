package io.homa4j.core.sim;

import io.homa4j.core.PacketDriven;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/** A trivial endpoint for testing the network itself: sends tagged packets, records arrivals and polls. */
final class FakeNode implements PacketDriven {
    record Arrival(long nanos, InetSocketAddress from, int length, long tag) {
    }

    final SimHost host;
    final List<Arrival> arrivals = new ArrayList<>();
    final List<Long> polls = new ArrayList<>();
    long wakeAtNanos = Long.MAX_VALUE;
    /** Wake time to ask for after each packet, relative to its arrival; negative for "unchanged". */
    long wakeAfterPacketNanos = -1;
    /** Whether a poll consumes the wake-up (false models a node that stays due). */
    boolean clearWakeOnPoll = true;

    @Override
    public void close(long nowNanos) {
        // holds no buffers
    }

    FakeNode(SimHost host) {
        this.host = host;
        host.attach(this);
    }

    static FakeNode[] attachAll(SimulatedNetwork network) {
        FakeNode[] nodes = new FakeNode[network.hostCount()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = new FakeNode(network.host(i));
        }
        return nodes;
    }

    /** Sends {@code payloadBytes} (at least 8) starting with {@code tag}. */
    void send(SimHost to, int level, int payloadBytes, long tag) {
        ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(payloadBytes);
        buf.writeLong(tag);
        buf.writeZero(payloadBytes - 8);
        host.sink().send(to.address(), level, buf);
    }

    List<Long> tags() {
        List<Long> tags = new ArrayList<>();
        for (Arrival a : arrivals) {
            tags.add(a.tag());
        }
        return tags;
    }

    @Override
    public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
        try {
            long tag = packet.readableBytes() >= 8 ? packet.getLong(packet.readerIndex()) : -1;
            arrivals.add(new Arrival(nowNanos, from, packet.readableBytes(), tag));
            if (wakeAfterPacketNanos >= 0) {
                wakeAtNanos = nowNanos + wakeAfterPacketNanos;
            }
        } finally {
            packet.release();
        }
    }

    @Override
    public void poll(long nowNanos) {
        polls.add(nowNanos);
        if (clearWakeOnPoll && wakeAtNanos <= nowNanos) {
            wakeAtNanos = Long.MAX_VALUE;
        }
    }

    @Override
    public long nextWakeNanos() {
        return wakeAtNanos;
    }
}
