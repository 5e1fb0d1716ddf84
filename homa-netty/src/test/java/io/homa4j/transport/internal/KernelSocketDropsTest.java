package io.homa4j.transport.internal;

import io.homa4j.transport.TransportStats;
import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The kernel's receive-buffer drops of a port, as TransportStats reports them. */
class KernelSocketDropsTest {

    @Test
    void aSocketThatIsNeverReadCountsWhatItCouldNotHold() throws Exception {
        try (DatagramSocket receiver = new DatagramSocket(null); DatagramSocket sender = new DatagramSocket()) {
            receiver.setReceiveBufferSize(4096); // the kernel makes it a few KB: a handful of datagrams
            receiver.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = receiver.getLocalPort();
            long before = KernelSocketDrops.forPort(port);
            assumeTrue(before >= 0, "no /proc/net/udp here");
            assertEquals(0, before);
            byte[] payload = new byte[1000];
            for (int i = 0; i < 500; i++) {
                sender.send(new DatagramPacket(payload, payload.length, receiver.getLocalSocketAddress()));
            }
            assertTrue(KernelSocketDrops.forPort(port) > 0, "500 datagrams into a few KB of buffer");
        }
    }
}
