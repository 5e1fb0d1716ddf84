package io.homa4j.core;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pacer charges every packet the link's framing, so its estimate of the host's queue matches the link's. */
class LinkFramingTest {
    private static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);

    @Test
    void everyPacketIsChargedTheFramingOnTopOfItsIpPacket() {
        Sent plain = callAndMeasure(0);
        Sent ethernet = callAndMeasure(HomaConfig.ETHERNET_LINE_FRAMING_BYTES);
        assertEquals(plain.packets, ethernet.packets, "the same unscheduled packets went out");
        assertTrue(plain.packets > 1);
        // 100 Mbit/s: 80 ns per byte; 38 B more per packet
        assertEquals(plain.queueNanos + plain.packets * 38 * 80L, ethernet.queueNanos);
        // and without framing, the IP packet's link time: UDP payload + 28 B of headers
        assertEquals(plain.udpBytes * 80L + plain.packets * HomaConfig.IP_UDP_HEADER_BYTES * 80L, plain.queueNanos);
    }

    @Test
    void framingOutsideItsRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> HomaConfig.builder().linkFramingBytes(-1).build());
        assertEquals(14, HomaConfig.builder().linkFramingBytes(14).build().toBuilder().build().linkFramingBytes());
    }

    private record Sent(int packets, long udpBytes, long queueNanos) {
    }

    private static Sent callAndMeasure(int framing) {
        HomaConfig config = HomaConfig.builder().linkMbps(100).rttMicros(1_000).linkFramingBytes(framing)
                .pacerMaxQueueNanos(1_000_000_000L).build(); // a bound that holds every unscheduled packet
        List<Integer> lengths = new ArrayList<>();
        PacketSink sink = (peer, level, packet) -> {
            lengths.add(packet.readableBytes());
            packet.release();
        };
        HomaEngine engine = new HomaEngine(config, sink, new ReleasingListener(), 0);
        engine.call(SERVER, Unpooled.buffer(100_000).writeZero(100_000), Long.MAX_VALUE, 0);
        long queue = engine.pacerQueueNanos(0);
        engine.close(0);
        return new Sent(lengths.size(), lengths.stream().mapToLong(Integer::longValue).sum(), queue);
    }
}
