package io.homa4j.transport.internal;

import io.homa4j.core.Engine;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.PacketBatch;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketType;
import io.homa4j.transport.TransportStats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The inbound handler and the engine driver on an embedded channel, with a recording engine and a manual clock:
 * datagrams reach the engine, bad ones are dropped and counted, the clock is read once per turn, the sink is
 * flushed at the end of the turn and poll runs at the engine's next wake time.
 */
class HomaInboundHandlerTest {
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5000);
    private static final InetSocketAddress LOCAL = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5001);
    private static final int MAX_PAYLOAD = HomaConfig.defaults().maxUdpPayload();

    private long clockNanos = 1_000_000;
    private int clockReads;
    private final TransportCounters counters = new TransportCounters();
    private final RecordingEngine engine = new RecordingEngine();
    private EmbeddedChannel channel;
    private EngineDriver driver;
    private DatagramSink sink;

    @BeforeEach
    void setUp() {
        channel = new EmbeddedChannel();
        driver = new EngineDriver(channel.eventLoop(), () -> {
            clockReads++;
            return clockNanos;
        }, counters);
        channel.pipeline().addLast(new HomaInboundHandler(driver, counters, MAX_PAYLOAD));
        sink = new DatagramSink(new Channel[] {channel}, counters, null);
        engine.sink = sink;
        driver.attach(engine, sink);
    }

    @AfterEach
    void tearDown() {
        engine.releaseAll();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            ReferenceCountUtil.release(o);
        }
        channel.finishAndReleaseAll();
    }

    private static DatagramPacket datagram(int length) {
        ByteBuf b = Unpooled.directBuffer(length);
        b.writeZero(length);
        return new DatagramPacket(b, LOCAL, PEER);
    }

    @Test
    void datagramsReachTheEngineWithSenderAndTheTimeTheirTurnOpened() {
        channel.writeInbound(datagram(100), datagram(MAX_PAYLOAD));
        assertEquals(2, engine.packets.size());
        assertEquals(PEER, engine.from.get(0));
        assertEquals(100, engine.packets.get(0).readableBytes());
        assertEquals(MAX_PAYLOAD, engine.packets.get(1).readableBytes());
        assertEquals(List.of(1_000_000L, 1_000_000L), engine.times);
        channel.runPendingTasks(); // end of turn
        assertEquals(2, clockReads, "the clock is read when a loop turn opens and when it ends, not per packet");
        clockNanos += 5;
        channel.writeInbound(datagram(10));
        channel.runPendingTasks();
        assertEquals(1_000_005L, engine.times.get(2));
        assertEquals(4, clockReads);
        assertEquals(3, counters.snapshot().datagramsReceived());
    }

    @Test
    void aLongTurnIsReportedToTheEngineAsHostLag() {
        engine.whileHandling = () -> clockNanos += 30_000_000; // the engine keeps the turn busy for 30 ms
        channel.writeInbound(datagram(100)); // (the embedded loop ends the turn within writeInbound)
        channel.runPendingTasks();
        assertEquals(List.of(30_000_000L), engine.lags, "the turn's length, reported once");
        engine.whileHandling = () -> { };
        channel.writeInbound(datagram(100));
        channel.runPendingTasks();
        assertEquals(List.of(30_000_000L), engine.lags, "a short turn does not lower the recent lag");
    }

    @Test
    void oversizedDatagramsAreDroppedAndCounted() {
        DatagramPacket tooLong = datagram(MAX_PAYLOAD + 1);
        ByteBuf content = tooLong.content();
        channel.writeInbound(tooLong);
        assertEquals(0, engine.packets.size());
        assertEquals(0, content.refCnt());
        assertEquals(1, counters.snapshot().oversizedDropped());
    }

    @Test
    void foreignMessagesAreReleased() {
        ByteBuf notADatagram = Unpooled.buffer(4).writeInt(7);
        channel.writeInbound(notADatagram);
        assertEquals(0, notADatagram.refCnt());
        assertEquals(0, engine.packets.size());
    }

    @Test
    void packetsBeforeAttachOrAfterCloseAreReleasedUnread() {
        EngineDriver detached = new EngineDriver(channel.eventLoop(), () -> clockNanos);
        ByteBuf early = Unpooled.buffer(8).writeLong(1);
        detached.onPacket(PEER, early);
        assertEquals(0, early.refCnt());
        driver.close();
        ByteBuf late = Unpooled.buffer(8).writeLong(1);
        driver.onPacket(PEER, late);
        assertEquals(0, late.refCnt());
        assertEquals(0, engine.packets.size());
    }

    @Test
    void sinkIsFlushedAtTheEndOfTheTurn() {
        // A GSO-capable sink only queues in send(); EmbeddedChannel.write would run the end-of-turn task early.
        sink = new DatagramSink(new Channel[] {channel}, counters,
                io.netty.channel.unix.SegmentedDatagramPacket::new);
        engine.sink = sink;
        driver.attach(engine, sink);
        engine.echo = true;
        // Straight to the driver: the embedded pipeline would run the pending end-of-turn task on read complete.
        ByteBuf packet = datagram(30).content();
        PacketBatch batch = new PacketBatch(1);
        batch.add(PEER, packet, packet.readerIndex(), packet.readableBytes());
        driver.onPackets(batch);
        packet.release();
        assertNull(channel.readOutbound(), "not flushed before the end of the turn");
        channel.runPendingTasks();
        DatagramPacket out = channel.readOutbound();
        assertNotNull(out);
        assertEquals(PEER, out.recipient());
        out.release();
    }

    @Test
    void pollRunsAtTheEnginesNextWakeTime() {
        channel.freezeTime();
        engine.nextWake = clockNanos + 2_000_000;
        channel.writeInbound(datagram(10));
        channel.runPendingTasks();
        assertEquals(0, engine.polls.size());
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertEquals(0, engine.polls.size(), "not before the wake time");
        clockNanos += 2_000_000;
        engine.nextWake = Long.MAX_VALUE;
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();
        assertEquals(List.of(clockNanos), engine.polls);
    }

    @Test
    void anEarlierWakeReplacesALaterOne() {
        channel.freezeTime();
        engine.nextWake = clockNanos + 10_000_000;
        channel.writeInbound(datagram(10));
        channel.runPendingTasks();
        engine.nextWake = clockNanos + 1_000_000;
        channel.writeInbound(datagram(10));
        channel.runPendingTasks();
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        clockNanos += 1_000_000;
        engine.nextWake = Long.MAX_VALUE;
        channel.runScheduledPendingTasks();
        assertEquals(1, engine.polls.size());
        channel.advanceTimeBy(20, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertEquals(1, engine.polls.size(), "the later wake was cancelled");
    }

    @Test
    void workThatMayRunLateRunsInATurnForPacketsAndTheArmedWakeMovesOn() {
        channel.freezeTime();
        long start = clockNanos;
        engine.nextWake = start + 1_000_000;
        engine.lateness = 750_000;
        engine.tickEvery = 1_000_000;
        channel.writeInbound(datagram(10)); // this turn arms the wake at 1.75 ms
        channel.runPendingTasks();

        advance(1_200_000); // 1.2 ms: the tick is due, its wake not yet
        assertEquals(0, engine.polls.size(), "the wake is armed at the tick's latest time, not at its due time");
        channel.writeInbound(datagram(10));
        channel.runPendingTasks();
        assertEquals(List.of(start + 1_200_000), engine.polls, "the turn for the packet ran the tick");

        advance(600_000); // 1.8 ms: past the first wake's time, which the turn moved to 2.75 ms
        assertEquals(1, engine.polls.size(), "no wake-up for work already done");
        advance(1_000_000); // 2.8 ms: no packet came for the tick due at 2 ms
        assertEquals(List.of(start + 1_200_000, start + 2_800_000), engine.polls);
        assertEquals(2, counters.snapshot().engineWakes());
        assertEquals(1, counters.snapshot().timerWakes(), "one of them needed a wake-up of its own");
    }

    @Test
    void theLatenessOfEveryTimerWakeUpFitsTheEnginesPacer() {
        HomaConfig rack = HomaConfig.builder().linkMbps(50).build();
        long slack = PacerTimerSlack.EVENT_LOOP_TIMER_SLACK_NANOS;
        PacerFit fit = PacerFit.forConfig(rack, PacerTimerSlack.apply(rack, slack), slack);
        driver.attach(engine, sink, null, fit);
        channel.freezeTime();
        for (int i = 0; i < 30; i++) {
            engine.nextWake = clockNanos + 1_000_000;
            channel.writeInbound(datagram(10)); // the turn arms the wake-up 1 ms ahead
            channel.runPendingTasks();
            clockNanos += 1_030_000; // the timer fires 30 us late
            channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
            channel.runScheduledPendingTasks();
            channel.runPendingTasks();
        }
        assertEquals(30, engine.polls.size());
        assertEquals(fit.floorNanos(), engine.fittedBound, "precise timers: the smallest bound");
        assertEquals(fit.wakeLatenessNanos(), engine.fittedWakeLateness);
        engine.releaseAll();
    }

    @Test
    void aWakeUpBeforeItsTimeOrAnImmediateOneIsNotATimerSample() {
        HomaConfig rack = HomaConfig.builder().linkMbps(50).build();
        long slack = PacerTimerSlack.EVENT_LOOP_TIMER_SLACK_NANOS;
        driver.attach(engine, sink, null, PacerFit.forConfig(rack, PacerTimerSlack.apply(rack, slack), slack));
        engine.nextWake = clockNanos - 1; // due at once: an immediate wake
        channel.writeInbound(datagram(10));
        channel.runPendingTasks();
        channel.runPendingTasks();
        assertEquals(-1, engine.fittedBound, "no fit from an immediate wake-up");
        engine.releaseAll();
    }

    /** Moves the driver's clock and the channel's scheduler together, and runs what became due. */
    private void advance(long nanos) {
        clockNanos += nanos;
        channel.advanceTimeBy(nanos, TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();
    }

    @Test
    void overdueWakePollsOnTheNextTurn() {
        engine.nextWake = clockNanos - 1;
        channel.writeInbound(datagram(10));
        channel.runPendingTasks(); // end of turn queues the poll
        channel.runPendingTasks();
        assertEquals(1, engine.polls.size());
    }

    @Test
    void anExceptionThatEscapesTheEngineIsCountedAndConfinedToItsTurn() {
        engine.failNextPacket = true; // a bug in onPacket: the engine took the packet, then threw
        channel.writeInbound(datagram(10));
        channel.runPendingTasks();
        assertEquals(1, counters.snapshot().engineFailures());
        channel.writeInbound(datagram(20));
        channel.runPendingTasks();
        assertEquals(1, engine.packets.size(), "the next packet is handled");
        assertEquals(20, engine.packets.get(0).readableBytes());

        engine.nextWake = clockNanos - 1; // the end-of-turn poll throws
        engine.failPolls = true;
        channel.writeInbound(datagram(30));
        channel.runPendingTasks();
        assertEquals(2, counters.snapshot().engineFailures());
        engine.failPolls = false;
        engine.nextWake = Long.MAX_VALUE;
        channel.writeInbound(datagram(40));
        channel.runPendingTasks();
        assertEquals(3, engine.packets.size(), "still serving after a failed poll");
        assertEquals(2, counters.snapshot().engineFailures(), "a healthy turn counts nothing");
    }

    /** A DATA packet with {@code segment} payload bytes, as the engine's encoder lays it out. */
    private static ByteBuf dataPacket(int segment, int offset) {
        ByteBuf b = Unpooled.buffer(DataHeader.LENGTH + segment);
        b.writeZero(DataHeader.LENGTH + segment);
        DataHeader h = new DataHeader().wrap(b, 0);
        h.writeCommon(PacketType.DATA, 2);
        h.messageLength(1_000_000).offset(offset).segmentLength(segment);
        return b;
    }

    @Test
    void aReadWithMorePacketsThanABurstIsHandedOverInTwoAndReleasedOnce() {
        // 300 one-byte DATA packets in one coalesced read: more than one burst holds.
        ByteBuf read = Unpooled.directBuffer();
        int count = HomaInboundHandler.MAX_BURST + 44;
        for (int i = 0; i < count; i++) {
            ByteBuf p = dataPacket(1, i);
            read.writeBytes(p);
            p.release();
        }
        channel.writeInbound(new DatagramPacket(read, LOCAL, PEER));
        assertEquals(List.of(HomaInboundHandler.MAX_BURST, 44), engine.bursts);
        assertEquals(count, engine.packets.size());
        for (int i = 0; i < count; i++) {
            assertEquals(i, engine.packets.get(i).getInt(DataHeader.OFFSET_OFFSET), "packet " + i + " in order");
        }
        engine.releaseAll(); // the engine's slices were the last references: the handler released its own once
        assertEquals(0, read.refCnt());
    }

    @Test
    void moreSingleDatagramsThanABurstHoldsAreHandedOverAsTheyFill() {
        int count = HomaInboundHandler.MAX_BURST + 1;
        DatagramPacket[] datagrams = new DatagramPacket[count];
        for (int i = 0; i < count; i++) {
            datagrams[i] = datagram(20);
        }
        channel.writeInbound((Object[]) datagrams);
        assertEquals(List.of(HomaInboundHandler.MAX_BURST, 1), engine.bursts);
        engine.releaseAll();
        for (DatagramPacket d : datagrams) {
            assertEquals(0, d.content().refCnt());
        }
    }

    @Test
    void coalescedReadIsCutIntoThePacketsItHolds() {
        // What UDP GRO hands over for a GSO run: equal-size DATA packets, then a shorter last one.
        int full = MAX_PAYLOAD - DataHeader.LENGTH;
        ByteBuf read = Unpooled.directBuffer();
        for (int i = 0; i < 3; i++) {
            ByteBuf p = dataPacket(full, i * full);
            read.writeBytes(p);
            p.release();
        }
        ByteBuf last = dataPacket(100, 3 * full);
        read.writeBytes(last);
        last.release();
        channel.writeInbound(new DatagramPacket(read, LOCAL, PEER));
        assertEquals(4, engine.packets.size());
        for (int i = 0; i < 3; i++) {
            assertEquals(MAX_PAYLOAD, engine.packets.get(i).readableBytes());
            assertEquals(i * full, engine.packets.get(i).getInt(DataHeader.OFFSET_OFFSET));
        }
        assertEquals(DataHeader.LENGTH + 100, engine.packets.get(3).readableBytes());
        assertEquals(List.of(4), engine.bursts, "one burst for the read");
        TransportStats stats = counters.snapshot();
        assertEquals(1, stats.datagramsReceived());
        assertEquals(1, stats.coalescedReceived());
        assertEquals(4, stats.packetsReceived());
    }

    @Test
    void coalescedControlPacketsShorterThanAnMtuAreCutToo() {
        // Four 12-byte BUSY packets sent as one GSO run arrive as one 48-byte read.
        ByteBuf read = Unpooled.directBuffer();
        for (int i = 0; i < 4; i++) {
            read.writeShort(CommonHeader.MAGIC).writeByte(CommonHeader.VERSION).writeByte(PacketType.BUSY.code())
                    .writeLong(2 * i + 3);
        }
        channel.writeInbound(new DatagramPacket(read, LOCAL, PEER));
        assertEquals(4, engine.packets.size());
        for (int i = 0; i < 4; i++) {
            assertEquals(CommonHeader.LENGTH, engine.packets.get(i).readableBytes());
            assertEquals(2 * i + 3, engine.packets.get(i).getLong(CommonHeader.RPC_ID_OFFSET));
        }
    }

    @Test
    void longReadThatIsNoRunOfPacketsIsDroppedAndCounted() {
        channel.writeInbound(datagram(MAX_PAYLOAD + 500)); // zeros: declares no length
        assertEquals(0, engine.packets.size());
        assertEquals(1, counters.snapshot().oversizedDropped());
    }

    @Test
    void packetsOfOneSocketReadReachTheEngineAsOneBurst() {
        channel.pipeline().fireChannelRead(datagram(10)).fireChannelRead(datagram(20)).fireChannelRead(datagram(30));
        assertEquals(0, engine.packets.size(), "held until the read completes");
        channel.pipeline().fireChannelReadComplete();
        assertEquals(List.of(3), engine.bursts);
        assertEquals(3, engine.packets.size());
        assertEquals(3.0, counters.snapshot().packetsPerReceiveBurst());
    }

    /** Records what the driver feeds it; optionally echoes each packet back through the sink, or fails. */
    private static final class RecordingEngine implements Engine {
        final List<ByteBuf> packets = new ArrayList<>();
        final List<InetSocketAddress> from = new ArrayList<>();
        final List<Long> times = new ArrayList<>();
        final List<Long> polls = new ArrayList<>();
        final List<Long> lags = new ArrayList<>();
        Runnable whileHandling = () -> { };
        /** The next packet is released and then the engine throws, as a bug after taking ownership would. */
        boolean failNextPacket;
        /** Every poll throws. */
        boolean failPolls;
        /** Packets per onPackets call. */
        final List<Integer> bursts = new ArrayList<>();
        DatagramSink sink;
        boolean echo;
        long nextWake = Long.MAX_VALUE;
        /** When above 0, work that may run this late follows every {@link #nextWake} (a ticking engine). */
        long lateness;
        /** When above 0, a poll that is due moves {@link #nextWake} on by this much (the next tick). */
        long tickEvery;

        @Override
        public void onPacket(InetSocketAddress sender, ByteBuf packet, long nowNanos) {
            whileHandling.run();
            if (failNextPacket) {
                failNextPacket = false;
                packet.release();
                throw new IllegalStateException("engine bug (test)");
            }
            times.add(nowNanos);
            from.add(sender);
            if (echo) {
                sink.send(sender, 0, packet);
            } else {
                packets.add(packet);
            }
        }

        @Override
        public void onPackets(PacketBatch burst, long nowNanos) {
            bursts.add(burst.count());
            Engine.super.onPackets(burst, nowNanos);
        }

        @Override
        public void onHostLag(long lagNanos, long nowNanos) {
            lags.add(lagNanos);
        }

        long fittedBound = -1;
        long fittedWakeLateness = -1;

        @Override
        public void fitPacer(long maxQueueNanos, long wakeLatenessNanos, long nowNanos) {
            fittedBound = maxQueueNanos;
            fittedWakeLateness = wakeLatenessNanos;
        }

        @Override
        public void poll(long nowNanos) {
            polls.add(nowNanos);
            if (failPolls) {
                throw new IllegalStateException("engine bug in poll (test)");
            }
            if (nowNanos >= nextWake) {
                nextWake = tickEvery > 0 ? nextWake + tickEvery : Long.MAX_VALUE;
            }
        }

        @Override
        public long nextWakeNanos() {
            return nextWake;
        }

        @Override
        public long wakeByNanos() {
            return nextWake == Long.MAX_VALUE ? nextWake : nextWake + lateness;
        }

        void releaseAll() {
            packets.forEach(ByteBuf::release);
            packets.clear();
        }

        @Override
        public long call(InetSocketAddress server, ByteBuf request, long deadlineNanos, long nowNanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean reply(long serverHandle, ByteBuf response, long nowNanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean replyError(long serverHandle, String message, long nowNanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void abort(long rpcId, long nowNanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close(long nowNanos) {
        }

        @Override
        public io.homa4j.core.metrics.MetricsSnapshot metrics() {
            return null;
        }
    }
}
