package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;
import io.homa4j.transport.TransportStats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.SegmentedDatagramPacket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A real UDP GSO send on loopback: the kernel splits one send into datagrams of the segment size, in order,
 * and the receiver (a plain socket, no GRO) gets them one by one with their bytes intact.
 */
class GsoLoopbackTest {

    @Test
    void runOfFullPacketsArrivesAsSeparateDatagrams() throws Exception {
        Assumptions.assumeTrue(SegmentedDatagramPacket.isSupported(), "UDP GSO not supported by this kernel/libc");
        HomaConfig config = HomaConfig.defaults();
        int segment = config.maxUdpPayload();
        int count = 30;
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                UdpTransport.ioHandlerFactory(UdpTransport.Kind.EPOLL));
        try (DatagramSocket receiver = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            receiver.setReceiveBufferSize(1 << 20);
            receiver.setSoTimeout(10_000);
            EventLoop loop = group.next();
            TransportCounters counters = new TransportCounters();
            UdpTransport transport = UdpTransport.bind(UdpTransport.Kind.EPOLL, loop, InetAddress.getLoopbackAddress(),
                    0, config, 1 << 20, new HomaInboundHandler(new EngineDriver(loop, System::nanoTime),
                            counters, segment));
            try {
                InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), receiver.getLocalPort());
                DatagramSink sink = new DatagramSink(transport.channelByLevel(), counters,
                        transport.gsoFactory());
                loop.submit(() -> {
                    for (int i = 0; i < count; i++) {
                        int length = i == count - 1 ? 333 : segment;
                        ByteBuf p = PooledByteBufAllocator.DEFAULT.directBuffer(length);
                        for (int j = 0; j < length; j++) {
                            p.writeByte(i + j);
                        }
                        sink.send(to, 2, p);
                    }
                    sink.flush();
                }).sync();
                byte[] buf = new byte[65_536];
                for (int i = 0; i < count; i++) {
                    DatagramPacket d = new DatagramPacket(buf, buf.length);
                    receiver.receive(d);
                    assertEquals(i == count - 1 ? 333 : segment, d.getLength(), "datagram " + i);
                    for (int j = 0; j < d.getLength(); j++) {
                        if (buf[j] != (byte) (i + j)) {
                            throw new AssertionError("datagram " + i + " byte " + j + " differs");
                        }
                    }
                }
                TransportStats stats = loop.submit(() -> counters.snapshot()).get(5, TimeUnit.SECONDS);
                assertEquals(1, stats.gsoSends(), stats.toString());
                assertEquals(0, stats.gsoFallbacks(), stats.toString());
                assertEquals(count, stats.datagramsSent());
            } finally {
                transport.close();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
