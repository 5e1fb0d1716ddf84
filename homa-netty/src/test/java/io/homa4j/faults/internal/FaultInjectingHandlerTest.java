package io.homa4j.faults.internal;

import io.homa4j.faults.DatagramFilter;
import io.homa4j.faults.DatagramPath;
import io.homa4j.transport.internal.TransportCounters;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The fault-injection handler on an embedded socket: what the filter drops is released and counted, what it
 * delays leaves later (inbound with a read-complete of its own, outbound with a flush) and is overtaken, and
 * closing the socket releases what it holds.
 */
class FaultInjectingHandlerTest {
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5000);
    private static final InetSocketAddress LOCAL = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5001);

    private final TransportCounters counters = new TransportCounters();

    private static ByteBuf packet(int marker) {
        return Unpooled.directBuffer(20).writeByte(marker).writeZero(19);
    }

    /** Drops datagrams marked 0, delays those marked 1 by 2 ms, passes the rest; both directions. */
    private static final DatagramFilter BY_MARKER = new DatagramFilter() {
        @Override
        public void outbound(InetSocketAddress peer, int level, ByteBuf packet, DatagramPath path) {
            judge(peer, level, packet, path);
        }

        @Override
        public void inbound(InetSocketAddress from, ByteBuf packet, DatagramPath path) {
            judge(from, 0, packet, path);
        }

        private void judge(InetSocketAddress address, int level, ByteBuf packet, DatagramPath path) {
            switch (packet.getByte(0)) {
                case 0 -> path.drop(packet);
                case 1 -> path.forwardLater(2_000_000, address, level, packet);
                default -> path.forward(address, level, packet);
            }
        }
    };

    @Test
    void outboundDropsAreReleasedAndDelayedDatagramsLeaveLaterWithAFlush() {
        EmbeddedChannel socket = new EmbeddedChannel(new FaultInjectingHandler(BY_MARKER, 3, counters));
        socket.freezeTime();
        ByteBuf dropped = packet(0);
        socket.writeOutbound(new DatagramPacket(dropped, PEER), new DatagramPacket(packet(1), PEER),
                new DatagramPacket(packet(2), PEER));
        assertEquals(0, dropped.refCnt());
        assertEquals(1, counters.snapshot().filteredOutbound());
        DatagramPacket overtaking = socket.readOutbound();
        assertEquals(2, overtaking.content().getByte(0));
        assertEquals(PEER, overtaking.recipient());
        overtaking.release();
        assertNull(socket.readOutbound(), "the delayed one is held");
        socket.advanceTimeBy(2, TimeUnit.MILLISECONDS);
        socket.runScheduledPendingTasks();
        DatagramPacket late = socket.readOutbound();
        assertNotNull(late, "written and flushed by the delay line itself");
        assertEquals(1, late.content().getByte(0));
        late.release();
        socket.finishAndReleaseAll();
    }

    @Test
    void inboundDropsAreCountedAndDelayedDatagramsArriveWithAReadCompleteOfTheirOwn() {
        int[] readCompletes = {0};
        EmbeddedChannel socket = new EmbeddedChannel(new FaultInjectingHandler(BY_MARKER, 0, counters),
                new io.netty.channel.ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelReadComplete(io.netty.channel.ChannelHandlerContext ctx) {
                        readCompletes[0]++;
                        ctx.fireChannelReadComplete();
                    }
                });
        socket.freezeTime();
        ByteBuf dropped = packet(0);
        socket.pipeline().fireChannelRead(new DatagramPacket(dropped, LOCAL, PEER))
                .fireChannelRead(new DatagramPacket(packet(1), LOCAL, PEER))
                .fireChannelRead(new DatagramPacket(packet(2), LOCAL, PEER));
        assertEquals(0, dropped.refCnt());
        assertEquals(1, counters.snapshot().filteredInbound());
        DatagramPacket passed = socket.readInbound();
        assertEquals(2, passed.content().getByte(0));
        assertEquals(PEER, passed.sender());
        passed.release();
        assertNull(socket.readInbound());
        int before = readCompletes[0];
        socket.advanceTimeBy(2, TimeUnit.MILLISECONDS);
        socket.runScheduledPendingTasks();
        DatagramPacket late = socket.readInbound();
        assertEquals(1, late.content().getByte(0));
        late.release();
        assertEquals(before + 1, readCompletes[0], "a late datagram is handed on at once");
        socket.finishAndReleaseAll();
    }

    @Test
    void closingTheSocketReleasesWhatTheDelayLinesHold() {
        EmbeddedChannel socket = new EmbeddedChannel(new FaultInjectingHandler(BY_MARKER, 0, counters));
        socket.freezeTime();
        ByteBuf heldOut = packet(1);
        ByteBuf heldIn = packet(1);
        socket.writeOutbound(new DatagramPacket(heldOut, PEER));
        socket.writeInbound(new DatagramPacket(heldIn, LOCAL, PEER));
        assertEquals(1, heldOut.refCnt());
        assertEquals(1, heldIn.refCnt());
        socket.close();
        assertEquals(0, heldOut.refCnt());
        assertEquals(0, heldIn.refCnt());
        socket.advanceTimeBy(3, TimeUnit.MILLISECONDS);
        socket.runScheduledPendingTasks();
        assertNull(socket.readOutbound(), "nothing leaves after close");
        socket.finishAndReleaseAll();
    }
}
