package io.homa4j.core;

import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16, item 5: what one forged packet makes a server send to the address it names. The reproduction: a
 * 69-byte first packet (a 2-byte request, 1 byte of it) drew 199 RESENDs and a CUTOFFS, 151x its bytes.
 */
class ReflectionTest {
    private static final long MS = 1_000_000;
    private static final InetSocketAddress VICTIM = new InetSocketAddress("198.18.9.9", 5000);
    private final TestNet net = new TestNet();
    private final TestNet.Node server = net.node("server", HomaConfig.defaults());

    @AfterEach
    void close() {
        net.close();
    }

    private long bytesReflected() {
        return net.sent.stream().filter(s -> s.to().equals(VICTIM)).mapToLong(TestNet.Sent::wireBytes).sum();
    }

    @Test
    void aForgedFirstPacketReflectsAtMostThreeTimesItsBytes() {
        net.inject(VICTIM, server, HostileMemoryTest.forgedRequestData(ByteBufAllocator.DEFAULT, 2, 2, 0, 1));
        int forgedWireBytes = 41 + HomaConfig.IP_UDP_HEADER_BYTES;
        net.runUntilIdle(3_000 * MS);

        long resends = net.sent(PacketType.RESEND).stream().filter(s -> s.to().equals(VICTIM)).count();
        assertTrue(resends <= 2, resends + " RESENDs to a source that never answered");
        assertTrue(bytesReflected() <= 3L * forgedWireBytes,
                () -> bytesReflected() + " bytes reflected for a " + forgedWireBytes + "-byte packet");
        assertEquals(0, server.engine.serverRpcCount(), "the forged RPC expired");
    }

    @Test
    void aForgedOnePacketRequestDrawsItsResponseAndAtMostTwoNeedAcks() {
        net.inject(VICTIM, server, HostileMemoryTest.forgedRequestData(ByteBufAllocator.DEFAULT, 2, 1, 0, 1));
        net.runUntilIdle(3_000 * MS);

        assertEquals(1, server.requestsHandled);
        long needAcks = net.sent(PacketType.NEED_ACK).stream().filter(s -> s.to().equals(VICTIM)).count();
        assertTrue(needAcks <= 2, needAcks + " NEED_ACKs to a source that never answered (was 14)");
        assertEquals(0, server.engine.serverRpcCount());
    }

    @Test
    void aLiveClientWhoseRequestLosesPacketsStillGetsThemAskedFor() {
        // The cap must not cost real calls: a client that answers keeps the server's budget whole.
        TestNet.Node client = net.node("client", HomaConfig.defaults());
        java.util.Set<Integer> droppedOnce = new java.util.HashSet<>();
        net.dropRule = s -> s.type() == PacketType.DATA && s.from().equals(client.address)
                && s.offset() % (5 * 1432) == 1432 && droppedOnce.add(s.offset());
        long id = client.call(server, 200_000, 3);
        net.runUntil(() -> client.done(id), 2_000 * MS);
        assertTrue(client.responses.containsKey(id), () -> "" + client.failures.get(id));
        assertTrue(droppedOnce.size() > 3);
    }
}
