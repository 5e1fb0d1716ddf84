package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every configured limit gives a typed error or a counted drop, and memory stays bounded. */
class LimitsTest {
    private static final long MS = 1_000_000;
    private final TestNet net = new TestNet();

    @AfterEach
    void close() {
        net.close();
    }

    @Test
    void oversizedRequestIsRejectedAndReleased() {
        HomaConfig config = HomaConfig.builder().maxMessageBytes(1000).build();
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        ByteBuf request = TestNet.payload(1001, 1);
        RpcRejectedException e = assertThrows(RpcRejectedException.class, () -> client.call(server, request));
        assertEquals(ErrorCode.MESSAGE_TOO_LARGE, e.code());
        assertEquals(0, request.refCnt(), "released on rejection");
        assertEquals(0, client.engine.clientRpcCount());
    }

    @Test
    void tooManyOutstandingCallsAreRejected() {
        HomaConfig config = HomaConfig.builder().maxOutstandingRpcs(3).build();
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        for (int i = 0; i < 3; i++) {
            client.call(server, 10, i);
        }
        RpcRejectedException e = assertThrows(RpcRejectedException.class, () -> client.call(server, 10, 9));
        assertEquals(ErrorCode.RESOURCE_EXHAUSTED, e.code());
        net.runUntil(() -> client.responses.size() == 3, 10 * MS);
        client.call(server, 10, 10); // room again
    }

    @Test
    void requestLargerThanTheServerAcceptsFailsWithMessageTooLarge() {
        TestNet.Node client = net.node("client", HomaConfig.defaults());
        TestNet.Node server = net.node("server", HomaConfig.builder().maxMessageBytes(50_000).build());
        long id = client.call(server, 200_000, 1);
        net.runUntil(() -> client.done(id), 100 * MS);
        assertEquals(ErrorCode.MESSAGE_TOO_LARGE, client.failures.get(id).code());
        assertEquals(0, server.requestsHandled);
        assertEquals(0, server.engine.bufferedBytes(), "nothing was buffered for it");
        net.runUntilIdle(200 * MS);
        assertEquals(0, server.engine.serverRpcCount());
    }

    @Test
    void responseLargerThanTheServerMaySendFailsWithMessageTooLarge() {
        TestNet.Node client = net.node("client", HomaConfig.defaults());
        TestNet.Node server = net.node("server", HomaConfig.builder().maxMessageBytes(1000).build());
        server.handler = (h, c, req) -> {
            req.release();
            return TestNet.payload(5000, 1);
        };
        long id = client.call(server, 10, 1);
        net.runUntil(() -> client.done(id), 100 * MS);
        assertEquals(ErrorCode.MESSAGE_TOO_LARGE, client.failures.get(id).code());
    }

    @Test
    void responseLargerThanTheClientAcceptsFailsWithMessageTooLarge() {
        TestNet.Node client = net.node("client", HomaConfig.builder().maxMessageBytes(1000).build());
        TestNet.Node server = net.node("server", HomaConfig.defaults());
        server.handler = (h, c, req) -> {
            req.release();
            return TestNet.payload(5000, 1);
        };
        long id = client.call(server, 10, 1);
        net.runUntil(() -> client.done(id), 100 * MS);
        assertEquals(ErrorCode.MESSAGE_TOO_LARGE, client.failures.get(id).code());
        net.runUntilIdle(500 * MS);
        assertEquals(0, server.engine.serverRpcCount(), "the client acked the response it refused");
    }

    @Test
    void serverRpcLimitDropsNewRequestsAndTheyRetryLater() {
        HomaConfig serverConfig = HomaConfig.builder().maxServerRpcs(2).build();
        TestNet.Node server = net.node("server", serverConfig);
        TestNet.Node client = net.node("client", HomaConfig.defaults());
        server.handler = (h, c, req) -> null; // hold: the table stays full
        long[] ids = new long[4];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = client.call(server, 100, i);
        }
        net.runFor(2 * MS);
        assertEquals(2, server.engine.serverRpcCount());
        assertEquals(2, server.engine.metrics().drops(DropReason.SERVER_RPC_LIMIT));
        for (long handle : server.heldRequests.keySet().toArray(new Long[0])) {
            server.replyHeld(handle);
        }
        server.handler = (h, c, req) -> req;
        net.runUntil(() -> client.responses.size() == 4, 500 * MS);
        assertTrue(client.engine.metrics().clientRestarts() >= 2);
        assertEquals(4, server.requestsHandled);
    }

    @Test
    void bufferLimitsBoundWhatASenderCanMakeUsHold() {
        HomaConfig serverConfig = HomaConfig.builder().maxBufferedBytesPerPeer(60_000)
                .maxBufferedBytesTotal(100_000).build();
        TestNet.Node server = net.node("server", serverConfig);
        TestNet.Node a = net.node("a", HomaConfig.defaults());
        TestNet.Node b = net.node("b", HomaConfig.defaults());
        TestNet.Node c = net.node("c", HomaConfig.defaults());
        long a1 = a.call(server, 50_000, 1);
        long a2 = a.call(server, 50_000, 2);
        long b1 = b.call(server, 50_000, 3);
        long c1 = c.call(server, 50_000, 4); // all four: more than all may hold
        // Buffers grow as bytes arrive: the limits refuse the packets that would take them past a cap, and as
        // buffers free up the refused bytes get in (the clients resend them).
        net.runUntil(() -> {
            assertTrue(server.engine.bufferedBytes() <= 100_000);
            return a.done(a1) && a.done(a2) && b.done(b1) && c.done(c1);
        }, 2_000 * MS);
        assertTrue(server.engine.metrics().drops(DropReason.TOTAL_BUFFER_LIMIT) > 0,
                () -> server.engine.metrics().toString());
        assertEquals(2, a.responses.size());
        assertEquals(1, b.responses.size());
        assertEquals(1, c.responses.size());
        assertTrue(server.engine.metrics().bufferedBytesHighWater() <= 100_000);
    }

    /** CRC32 of the 8-byte response carrying the CRC32 of the request, as the handler above builds it. */
    private static long expectedCrcAsResponse(int length, long seed) {
        ByteBuf b = TestNet.payload(8, 2);
        try {
            b.setLong(0, RoundTripTest.expectedChecksum(length, seed));
            return TestNet.checksum(b);
        } finally {
            b.release();
        }
    }

    @Test
    void sixtyFourMebibyteMessageIsSupported() {
        HomaConfig config = HomaConfig.defaults();
        assertTrue(config.maxMessageBytes() >= 64 << 20);
        // Packets from an allocator the leak detector does not track: paranoid tracking of ~47,000 packets
        // would take half a minute. The request and the reassembled message are still tracked.
        io.netty.buffer.ByteBufAllocator untracked = new io.netty.buffer.UnpooledByteBufAllocator(false, true);
        TestNet.Node client = net.node("client", config, untracked);
        TestNet.Node server = net.node("server", config, untracked);
        server.handler = (h, c, req) -> {
            long crc = TestNet.checksum(req);
            req.release();
            ByteBuf response = TestNet.payload(8, 2);
            response.setLong(0, crc);
            return response;
        };
        long id = client.call(server, 64 << 20, 7);
        net.runUntil(() -> client.done(id), 5_000 * MS);
        assertTrue(client.responses.containsKey(id), () -> "failed: " + client.failures.get(id));
        assertEquals(64 << 20, server.engine.metrics().dataBytesIn());
        assertEquals(expectedCrcAsResponse(64 << 20, 7), client.responses.get(id)[1], "request checksum");
    }
}
