package io.homa4j.core;

import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static io.homa4j.core.RoundTripTest.assertNoState;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's half of failing fast when nothing listens: PROBE packets are counted and ignored, and
 * {@link HomaEngine#peerUnreachable} fails exactly the calls to the unreachable server, unless that server has
 * been heard from since the probe went.
 */
class UnreachablePeerTest {
    private static final long MS = 1_000_000;
    private final TestNet net = new TestNet();
    private final HomaConfig config = HomaConfig.defaults();
    private final TestNet.Node client = net.node("client", config);
    private final TestNet.Node server = net.node("server", config);
    /** An address no node has: the test network drops what is sent there, as a closed port would. */
    private final InetSocketAddress nobody = new InetSocketAddress("198.18.0.99", 4000);

    @AfterEach
    void close() {
        net.close();
    }

    private static ByteBuf probe() {
        ByteBuf b = Unpooled.buffer(PacketType.PROBE.minLength());
        new CommonHeader().wrap(b, 0).writeCommon(PacketType.PROBE, 0);
        return b.writerIndex(PacketType.PROBE.minLength());
    }

    @Test
    void aProbeIsCountedAndIgnored() {
        InetSocketAddress prober = new InetSocketAddress("198.18.0.50", 51_000);
        net.inject(prober, server, probe());
        net.runUntilIdle(10 * MS);
        assertEquals(1, server.engine.metrics().packetsIn(PacketType.PROBE));
        assertEquals(0, server.engine.metrics().totalDrops(), "a probe is no malformed packet");
        assertEquals(1, server.engine.packetsHandled());
        assertTrue(net.sent.isEmpty(), "nothing answers a probe");
        assertFalse(server.engine.peerHeardSince(prober, 0), "a probe creates no peer");
        assertNoState(server.engine);
    }

    @Test
    void aProbeWithTrailingBytesIsMalformed() {
        ByteBuf longer = probe().writeByte(0);
        net.inject(new InetSocketAddress("198.18.0.50", 51_000), server, longer);
        net.runUntilIdle(10 * MS);
        assertEquals(0, server.engine.metrics().packetsIn(PacketType.PROBE));
        assertEquals(1, server.engine.metrics().drops(io.homa4j.core.metrics.DropReason.MALFORMED));
    }

    @Test
    void unreachableFailsTheCallsToThatServerOnly() {
        long probeSent = net.now();
        long a = client.engine.call(nobody, TestNet.payload(100, 1), Long.MAX_VALUE, net.now());
        long b = client.engine.call(nobody, TestNet.payload(300_000, 2), Long.MAX_VALUE, net.now());
        long live = client.call(server, 1_000, 3);
        assertEquals(2, client.engine.peerRpcCount(nobody));
        net.runFor(MS);

        assertEquals(2, client.engine.peerUnreachable(nobody, probeSent, net.now()));
        RpcFailure small = client.failures.get(a);
        RpcFailure large = client.failures.get(b);
        assertEquals(ErrorCode.UNAVAILABLE, small.code());
        assertTrue(small.message().contains("port unreachable"), small.message());
        assertFalse(small.retrySafe(), "its whole request had left: a server may have had it");
        assertEquals(ErrorCode.UNAVAILABLE, large.code());
        assertTrue(large.retrySafe(), "only the unscheduled part of the 300 KB request left");
        assertEquals(0, client.engine.peerRpcCount(nobody));

        net.runUntil(() -> client.done(live), 50 * MS);
        assertTrue(client.responses.containsKey(live), "the reachable server's call is untouched");
        assertEquals(0, client.engine.peerUnreachable(nobody, probeSent, net.now()), "nothing left to fail");
        assertNoState(client.engine);
    }

    @Test
    void aReportIsStaleWhenTheServerWasHeardSinceTheProbe() {
        server.handler = (h, c, req) -> null; // holds the request
        long probeSent = net.now();
        long id = client.call(server, 200_000, 1); // long enough to need the server's grants
        net.runUntil(() -> !server.heldRequests.isEmpty(), 50 * MS);
        assertTrue(client.engine.peerHeardSince(server.address, probeSent));

        assertEquals(0, client.engine.peerUnreachable(server.address, probeSent, net.now()));
        assertFalse(client.done(id));
        assertTrue(server.replyHeld(server.heldRequests.keySet().iterator().next()));
        net.runUntil(() -> client.done(id), 50 * MS);
        ByteBuf expected = TestNet.payload(200_000, 1);
        try {
            assertArrayEquals(new long[] {200_000, TestNet.checksum(expected)}, client.responses.get(id));
        } finally {
            expected.release();
        }
    }

    @Test
    void aClosedEngineFailsNothing() {
        client.engine.call(nobody, TestNet.payload(100, 1), Long.MAX_VALUE, net.now());
        client.engine.close(net.now());
        assertEquals(0, client.engine.peerUnreachable(nobody, 0, net.now()));
    }
}
