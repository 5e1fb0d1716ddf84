package io.homa4j.core;

import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Request/response round trips of the sizes that sit on the engine's boundaries, byte-exact. */
class RoundTripTest {
    private static final HomaConfig CONFIG = HomaConfig.defaults();
    private final TestNet net = new TestNet();
    private final TestNet.Node client = net.node("client", CONFIG);
    private final TestNet.Node server = net.node("server", CONFIG);

    @AfterEach
    void close() {
        net.close();
    }

    private void roundTrip(int length) {
        long seed = 31L * length + 7;
        long expected = expectedChecksum(length, seed);
        long id = client.call(server, length, seed);
        assertEquals(0, id & 1, "client ids are even");
        net.runUntil(() -> client.done(id), 2_000_000_000L);
        assertTrue(client.responses.containsKey(id), () -> "failed: " + client.failures.get(id));
        assertEquals(length, client.responses.get(id)[0]);
        assertEquals(expected, client.responses.get(id)[1], "payload checksum");
        assertEquals(1, server.requestsHandled);
        // the server frees its state once the client acknowledges (NEED_ACK -> ACK here: no later call)
        net.runUntilIdle(1_000_000_000L);
        assertNoState(client.engine);
        assertNoState(server.engine);
        MetricsSnapshot m = client.engine.metrics();
        assertEquals(1, m.clientCompleted());
        assertEquals(0, m.totalDrops() + server.engine.metrics().totalDrops(), () -> m + " / "
                + server.engine.metrics());
    }

    static long expectedChecksum(int length, long seed) {
        io.netty.buffer.ByteBuf b = TestNet.payload(length, seed);
        try {
            return TestNet.checksum(b);
        } finally {
            b.release();
        }
    }

    static void assertNoState(HomaEngine e) {
        assertEquals(0, e.clientRpcCount(), "client RPCs left");
        assertEquals(0, e.serverRpcCount(), "server RPCs left");
        assertEquals(0, e.bufferedBytes(), "buffered bytes left");
        assertEquals(0, e.outgoingBytes(), "outgoing bytes left");
        assertEquals(0, e.incomingOutstandingBytes(), "outstanding grants left");
    }

    @Test
    void empty() {
        roundTrip(0);
    }

    @Test
    void oneByte() {
        roundTrip(1);
    }

    @Test
    void exactlyOnePacket() {
        int onePacket = DataHeader.maxPayload(CONFIG.maxUdpPayload());
        roundTrip(onePacket);
        long requestPackets = net.sent(PacketType.DATA).stream()
                .filter(s -> s.from().equals(client.address)).count();
        assertEquals(1, requestPackets);
    }

    @Test
    void onePacketPlusOneByte() {
        int onePacket = DataHeader.maxPayload(CONFIG.maxUdpPayload());
        roundTrip(onePacket + 1);
        long requestPackets = net.sent(PacketType.DATA).stream()
                .filter(s -> s.from().equals(client.address)).count();
        assertEquals(2, requestPackets);
    }

    @Test
    void exactlyUnscheduledBytesNeedsNoGrant() {
        roundTrip(CONFIG.unscheduledBytes());
        assertEquals(0, net.sent(PacketType.GRANT).size());
    }

    @Test
    void unscheduledBytesPlusOneNeedsAGrant() {
        roundTrip(CONFIG.unscheduledBytes() + 1);
        assertTrue(net.sent(PacketType.GRANT).size() >= 2, "one grant each way at least");
        // no byte beyond the unscheduled ones left before a grant arrived
        long firstGrantAt = net.sent(PacketType.GRANT).get(0).atNanos();
        assertTrue(net.sent(PacketType.DATA).stream()
                .filter(s -> s.from().equals(client.address) && s.offset() >= CONFIG.unscheduledBytes())
                .allMatch(s -> s.atNanos() > firstGrantAt));
    }

    @Test
    void oneMegabyte() {
        roundTrip(1 << 20);
        MetricsSnapshot m = server.engine.metrics();
        assertEquals(1 << 20, m.dataBytesIn());
        assertTrue(m.grantedBytes() >= (1 << 20) - CONFIG.unscheduledBytes());
    }

    @Test
    void manyConcurrentCallsAllComplete() {
        long[] ids = new long[50];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = client.call(server, 1 + i * 7919 % 200_000, i);
        }
        net.runUntil(() -> client.responses.size() == ids.length, 5_000_000_000L);
        for (int i = 0; i < ids.length; i++) {
            int length = 1 + i * 7919 % 200_000;
            assertEquals(length, client.responses.get(ids[i])[0]);
            assertEquals(expectedChecksum(length, i), client.responses.get(ids[i])[1]);
        }
        net.runUntilIdle(1_000_000_000L);
        assertNoState(client.engine);
        assertNoState(server.engine);
    }
}
