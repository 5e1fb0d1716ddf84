package io.homa4j.transport.internal;

import io.homa4j.transport.TransportStats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.SegmentedDatagramPacket;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sink on embedded channels: level routing, GSO run building, fallback, filtering, ownership. */
class DatagramSinkTest {
    private static final InetSocketAddress PEER_A = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4001);
    private static final InetSocketAddress PEER_B = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4002);
    private static final int FULL = 1472;
    private static final DatagramSink.GsoPacketFactory GSO = SegmentedDatagramPacket::new;

    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final TransportCounters counters = new TransportCounters();

    private Channel[] levels(int n) {
        Channel[] byLevel = new Channel[n];
        for (int i = 0; i < n; i++) {
            EmbeddedChannel c = new EmbeddedChannel();
            channels.add(c);
            byLevel[i] = c;
        }
        return byLevel;
    }

    @AfterEach
    void closeChannels() {
        for (EmbeddedChannel c : channels) {
            for (Object o; (o = c.readOutbound()) != null; ) {
                ReferenceCountUtil.release(o);
            }
            c.finishAndReleaseAll();
        }
    }

    /**
     * A message's unscheduled bytes go out at one level and, once the receiver's GRANT arrives in the same turn,
     * its granted bytes at another: the sockets must reach the kernel in that order, whatever the level numbers.
     */
    @Test
    void socketsAreFlushedInTheOrderOfTheirFirstWriteNotByLevel() {
        Channel[] byLevel = levels(8);
        List<Integer> flushed = new ArrayList<>();
        for (int i = 0; i < byLevel.length; i++) {
            int level = i;
            byLevel[i].pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
                @Override
                public void flush(ChannelHandlerContext ctx) {
                    flushed.add(level);
                    ctx.flush();
                }
            });
        }
        for (boolean gso : new boolean[] {false, true}) {
            flushed.clear();
            DatagramSink sink = new DatagramSink(byLevel, counters, gso ? GSO : null);
            sink.send(PEER_A, 5, packet(FULL, 0)); // unscheduled bytes
            sink.send(PEER_A, 5, packet(FULL, 1));
            sink.send(PEER_A, 7, packet(40, 2));   // a control packet
            sink.send(PEER_A, 2, packet(FULL, 3)); // granted bytes
            sink.send(PEER_A, 5, packet(FULL, 4)); // another unscheduled message
            sink.flushNow();
            assertEquals(List.of(5, 7, 2), flushed, "GSO " + gso);
            sink.flushNow();
            assertEquals(List.of(5, 7, 2), flushed, "nothing left to flush");
        }
    }

    private static ByteBuf packet(int length, int fill) {
        ByteBuf b = Unpooled.directBuffer(length);
        for (int i = 0; i < length; i++) {
            b.writeByte(fill + i);
        }
        return b;
    }

    private EmbeddedChannel channel(int level) {
        return channels.get(level);
    }

    @Test
    void eachLevelGoesToItsOwnChannel() {
        DatagramSink sink = new DatagramSink(levels(8), counters, GSO);
        for (int level = 0; level < 8; level++) {
            sink.send(PEER_A, level, packet(100, level));
        }
        sink.flush();
        for (int level = 0; level < 8; level++) {
            DatagramPacket p = channel(level).readOutbound();
            assertEquals(PEER_A, p.recipient());
            assertEquals(level, p.content().getByte(0));
            p.release();
            assertNull(channel(level).readOutbound(), "one packet per level");
        }
        assertEquals(8, counters.snapshot().datagramsSent());
    }

    @Test
    void outOfRangeLevelsAreClamped() {
        DatagramSink sink = new DatagramSink(levels(2), counters, GSO);
        sink.send(PEER_A, 9, packet(10, 1));
        sink.send(PEER_A, -3, packet(10, 2));
        sink.flush();
        DatagramPacket high = channel(1).readOutbound();
        DatagramPacket low = channel(0).readOutbound();
        assertEquals(1, high.content().getByte(0));
        assertEquals(2, low.content().getByte(0));
        high.release();
        low.release();
    }

    @Test
    void runOfFullPacketsToOnePeerBecomesOneGsoSendWithShortTail() {
        DatagramSink sink = new DatagramSink(levels(8), counters, GSO);
        ByteBuf expected = Unpooled.buffer();
        for (int i = 0; i < 10; i++) {
            ByteBuf p = packet(FULL, i);
            expected.writeBytes(p, p.readerIndex(), p.readableBytes());
            sink.send(PEER_A, 3, p);
        }
        ByteBuf tail = packet(500, 99);
        expected.writeBytes(tail, 0, tail.readableBytes());
        sink.send(PEER_A, 3, tail);
        sink.flush();

        SegmentedDatagramPacket gso = assertInstanceOf(SegmentedDatagramPacket.class, channel(3).readOutbound());
        assertEquals(FULL, gso.segmentSize());
        assertEquals(PEER_A, gso.recipient());
        assertArrayEquals(ByteBufUtil.getBytes(expected), ByteBufUtil.getBytes(gso.content()));
        gso.release();
        expected.release();
        assertNull(channel(3).readOutbound());
        TransportStats s = counters.snapshot();
        assertEquals(1, s.gsoSends());
        assertEquals(11, s.gsoSegments());
        assertEquals(11, s.datagramsSent());
        assertEquals(10 * FULL + 500, s.bytesSent());
    }

    /** The engine's packets from the sink's arena: a run is one slice of the arena's block, not a composite. */
    @Test
    void aRunOfArenaPacketsIsSentAsOneSliceOfItsBlock() {
        DatagramSink sink = new DatagramSink(levels(8), counters, GSO);
        ByteBuf expected = Unpooled.buffer();
        for (int i = 0; i < 10; i++) {
            ByteBuf p = arenaPacket(sink, i < 9 ? FULL : 500, i);
            expected.writeBytes(p, p.readerIndex(), p.readableBytes());
            sink.send(PEER_A, 3, p);
        }
        sink.flush();

        SegmentedDatagramPacket gso = assertInstanceOf(SegmentedDatagramPacket.class, channel(3).readOutbound());
        assertFalse(gso.content() instanceof CompositeByteBuf, "one piece of memory");
        assertEquals(1, gso.content().nioBufferCount());
        assertEquals(FULL, gso.segmentSize());
        assertArrayEquals(ByteBufUtil.getBytes(expected), ByteBufUtil.getBytes(gso.content()));
        gso.release();
        expected.release();
        assertEquals(10, counters.snapshot().gsoSegments());
        ByteBuf block = ((PacketArena) sink.packetAllocator()).block();
        assertEquals(1, block.refCnt(), "only the arena's reference is left");
        sink.close();
        assertEquals(0, block.refCnt());
    }

    /** A packet not cut right after the run's last one (another allocator's, or cut out of order) is gathered. */
    @Test
    void aRunWithAForeignOrOutOfOrderPacketIsGathered() {
        DatagramSink sink = new DatagramSink(levels(1), counters, GSO);
        ByteBuf expected = Unpooled.buffer();
        ByteBuf first = arenaPacket(sink, FULL, 0);
        ByteBuf skipped = arenaPacket(sink, FULL, 1); // cut, then sent after the next one
        ByteBuf third = arenaPacket(sink, FULL, 2);
        ByteBuf foreign = packet(FULL, 3);
        for (ByteBuf p : new ByteBuf[] {first, third, skipped, foreign}) {
            expected.writeBytes(p, p.readerIndex(), p.readableBytes());
            sink.send(PEER_A, 0, p);
        }
        sink.flush();
        SegmentedDatagramPacket gso = assertInstanceOf(SegmentedDatagramPacket.class, channel(0).readOutbound());
        assertInstanceOf(CompositeByteBuf.class, gso.content());
        assertArrayEquals(ByteBufUtil.getBytes(expected), ByteBufUtil.getBytes(gso.content()));
        gso.release();
        expected.release();
        assertEquals(0, foreign.refCnt());
        sink.close();
        assertEquals(0, first.refCnt(), "the block, freed once the arena and every packet let go");
    }

    private static ByteBuf arenaPacket(DatagramSink sink, int length, int fill) {
        ByteBuf b = sink.packetAllocator().buffer(length, length);
        for (int i = 0; i < length; i++) {
            b.writeByte(fill + i);
        }
        return b;
    }

    @Test
    void runsBreakOnPeerLevelLengthAndShortPacket() {
        DatagramSink sink = new DatagramSink(levels(8), counters, GSO);
        sink.send(PEER_A, 2, packet(FULL, 0));
        sink.send(PEER_A, 2, packet(FULL, 1));
        sink.send(PEER_B, 2, packet(FULL, 2));   // other peer
        sink.send(PEER_B, 5, packet(FULL, 3));   // other level
        sink.send(PEER_B, 5, packet(200, 4));    // short: ends the run
        sink.send(PEER_B, 5, packet(200, 5));    // cannot join a run that ended
        sink.flush();

        SegmentedDatagramPacket toA = assertInstanceOf(SegmentedDatagramPacket.class, channel(2).readOutbound());
        assertEquals(2 * FULL, toA.content().readableBytes());
        toA.release();
        DatagramPacket toB = channel(2).readOutbound();
        assertFalse(toB instanceof SegmentedDatagramPacket, "a run of one is a plain datagram");
        assertEquals(PEER_B, toB.recipient());
        toB.release();
        SegmentedDatagramPacket level5 = assertInstanceOf(SegmentedDatagramPacket.class, channel(5).readOutbound());
        assertEquals(FULL + 200, level5.content().readableBytes());
        level5.release();
        DatagramPacket last = channel(5).readOutbound();
        assertEquals(200, last.content().readableBytes());
        assertEquals(5, last.content().getByte(0));
        last.release();
    }

    @Test
    void longRunsAreCutAtTheUdpPayloadLimit() {
        DatagramSink sink = new DatagramSink(levels(1), counters, GSO);
        int n = 100;
        for (int i = 0; i < n; i++) {
            sink.send(PEER_A, 0, packet(FULL, i));
        }
        sink.flush();
        int perSend = DatagramSink.MAX_GSO_BYTES / FULL; // 44 at MTU 1500
        int total = 0;
        for (Object o; (o = channel(0).readOutbound()) != null; ) {
            DatagramPacket p = (DatagramPacket) o;
            int segments = p.content().readableBytes() / FULL;
            assertTrue(segments <= perSend && segments <= DatagramSink.MAX_GSO_SEGMENTS, "segments " + segments);
            assertTrue(p.content().readableBytes() <= DatagramSink.MAX_GSO_BYTES);
            total += segments;
            p.release();
        }
        assertEquals(n, total);
        assertEquals(3, counters.snapshot().gsoSends()); // 44 + 44 + 12
    }

    @Test
    void smallPacketsAreNeverSegmentedWhenGsoIsOff() {
        DatagramSink sink = new DatagramSink(levels(1), counters, null);
        for (int i = 0; i < 5; i++) {
            sink.send(PEER_A, 0, packet(FULL, i));
        }
        sink.flush();
        for (int i = 0; i < 5; i++) {
            DatagramPacket p = channel(0).readOutbound();
            assertFalse(p instanceof SegmentedDatagramPacket);
            assertEquals(i, p.content().getByte(0));
            p.release();
        }
        assertEquals(0, counters.snapshot().gsoSends());
    }

    @Test
    void refusedGsoSendIsResentPlainAndGsoStaysOff() {
        EmbeddedChannel refusing = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                if (msg instanceof SegmentedDatagramPacket) {
                    ReferenceCountUtil.release(msg);
                    promise.setFailure(new IOException("sendmmsg(...) failed: Input/output error"));
                    return;
                }
                ctx.write(msg, promise);
            }
        });
        channels.add(refusing);
        DatagramSink sink = new DatagramSink(new Channel[] {refusing}, counters, GSO);
        for (int i = 0; i < 3; i++) {
            sink.send(PEER_A, 0, packet(FULL, i));
        }
        sink.flush();
        assertFalse(sink.gsoEnabled());
        for (int i = 0; i < 3; i++) {
            DatagramPacket p = refusing.readOutbound();
            assertFalse(p instanceof SegmentedDatagramPacket);
            assertEquals(FULL, p.content().readableBytes());
            assertEquals(i, p.content().getByte(0), "order kept");
            p.release();
        }
        sink.send(PEER_A, 0, packet(FULL, 7));
        sink.send(PEER_A, 0, packet(FULL, 8));
        sink.flush();
        for (int i = 0; i < 2; i++) {
            DatagramPacket p = refusing.readOutbound();
            assertFalse(p instanceof SegmentedDatagramPacket, "GSO stays off");
            p.release();
        }
        TransportStats s = counters.snapshot();
        assertEquals(1, s.gsoFallbacks());
        assertEquals(5, s.datagramsSent());
    }

    @Test
    void closeReleasesQueuedPacketsAndRefusesNewOnes() {
        DatagramSink sink = new DatagramSink(levels(1), counters, GSO);
        ByteBuf queued = packet(FULL, 0);
        sink.send(PEER_A, 0, queued);
        sink.close();
        assertEquals(0, queued.refCnt());
        ByteBuf late = packet(FULL, 0);
        sink.send(PEER_A, 0, late);
        assertEquals(0, late.refCnt());
        sink.flush();
        assertNull(channel(0).readOutbound());
    }

    /** A turn that sends a large message's window hands it to the kernel piecewise, not all at the turn's end. */
    @Test
    void aDeferredFlushStillFlushesEveryFlushAfterBytes() {
        Channel[] byLevel = levels(1);
        List<Integer> flushedAfter = new ArrayList<>();
        int[] written = {0};
        byLevel[0].pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                written[0] += ((DatagramPacket) msg).content().readableBytes();
                ctx.write(msg, promise);
            }

            @Override
            public void flush(ChannelHandlerContext ctx) {
                flushedAfter.add(written[0]);
                ctx.flush();
            }
        });
        DatagramSink sink = new DatagramSink(byLevel, counters, GSO);
        sink.deferSocketFlush(true);
        int perSend = DatagramSink.MAX_GSO_BYTES / FULL;
        int packets = 5 * perSend;
        for (int i = 0; i < packets; i++) {
            sink.send(PEER_A, 0, arenaPacket(sink, FULL, i));
        }
        sink.flush();
        int gsoBytes = perSend * FULL;
        assertEquals(List.of(2 * gsoBytes, 4 * gsoBytes), flushedAfter, "every second GSO send, then the turn's end");
        sink.flushNow();
        assertEquals(List.of(2 * gsoBytes, 4 * gsoBytes, 5 * gsoBytes), flushedAfter);
        sink.close();
    }

    @Test
    void deferredSocketFlushWaitsForFlushNow() {
        DatagramSink sink = new DatagramSink(levels(1), counters, GSO);
        sink.deferSocketFlush(true);
        sink.send(PEER_A, 0, packet(50, 1));
        sink.flush(); // what the engine calls after each method
        assertNull(channel(0).readOutbound(), "written but not flushed to the socket yet");
        sink.send(PEER_A, 0, packet(60, 2));
        sink.flushNow(); // end of the event-loop turn
        DatagramPacket first = channel(0).readOutbound();
        DatagramPacket second = channel(0).readOutbound();
        assertEquals(50, first.content().readableBytes());
        assertEquals(60, second.content().readableBytes());
        first.release();
        second.release();
    }
}
