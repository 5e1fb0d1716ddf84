package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;
import io.homa4j.transport.TransportStats;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Closing a transport whose event loop has already ended: nothing runs on that loop any more, so the close
 * cannot be carried out there, and the read buffers the sockets hold (one is held after the first read) must
 * still be freed. The leak check that runs after every test class fails on a buffer left held.
 */
class UdpTransportCloseTest {

    @Test
    void closingAfterTheLoopEndedNeitherThrowsNorLeavesTheReadBuffersHeld() throws Exception {
        HomaConfig config = HomaConfig.defaults();
        UdpTransport.Kind kind = UdpTransport.automatic();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, UdpTransport.ioHandlerFactory(kind));
        EventLoop loop = group.next();
        TransportCounters counters = new TransportCounters();
        UdpTransport transport = UdpTransport.bind(kind, loop, InetAddress.getLoopbackAddress(), 0, config, 1 << 16,
                new HomaInboundHandler(new EngineDriver(loop, System::nanoTime), counters, config.maxUdpPayload()));
        try (DatagramSocket sender = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            InetSocketAddress to = transport.localAddress();
            byte[] notHoma = new byte[100];
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            TransportStats stats;
            do { // every level's socket shares the port; datagrams go to one of them: send until one was read
                sender.send(new DatagramPacket(notHoma, notHoma.length, to));
                stats = loop.submit(() -> counters.snapshot()).get(5, TimeUnit.SECONDS);
            } while (stats.datagramsReceived() == 0 && System.nanoTime() < until);
            assertTrue(stats.datagramsReceived() > 0, "no datagram was read: " + stats);
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        assertTrue(loop.isTerminated());

        assertDoesNotThrow(transport::close);
        assertDoesNotThrow(transport::close, "closing twice");
    }
}
