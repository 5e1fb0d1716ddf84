package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static io.homa4j.core.RoundTripTest.assertNoState;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Acks, deadlines, abort, close and handler errors: how RPC state ends. */
class LifecycleTest {
    private static final long MS = 1_000_000;
    private final TestNet net = new TestNet();
    private final HomaConfig config = HomaConfig.defaults();
    private final TestNet.Node client = net.node("client", config);
    private final TestNet.Node server = net.node("server", config);

    @AfterEach
    void close() {
        net.close();
    }

    @Test
    void needAckAndAckFreeTheServersResponse() {
        long id = client.call(server, 10, 1);
        net.runUntil(() -> client.done(id), 10 * MS);
        assertEquals(1, server.engine.serverRpcCount(), "response kept until acknowledged");
        assertTrue(server.engine.outgoingBytes() > 0);
        net.runUntil(() -> server.engine.serverRpcCount() == 0, (config.loneNeedAckTicks() + 5) * config.tickNanos());
        assertEquals(1, net.sent(PacketType.NEED_ACK).size());
        assertEquals(1, net.sent(PacketType.ACK).size());
        assertEquals(1, server.engine.metrics().serverFreedByAck());
        // NEED_ACK went out loneNeedAckTicks after the response (the server's only RPC)
        long responseAt = net.sent(PacketType.DATA).stream().filter(s -> s.from().equals(server.address))
                .mapToLong(TestNet.Sent::atNanos).max().orElseThrow();
        long needAckAt = net.sent(PacketType.NEED_ACK).get(0).atNanos();
        assertTrue(needAckAt - responseAt >= (config.loneNeedAckTicks() - 1) * config.tickNanos()
                && needAckAt - responseAt <= (config.loneNeedAckTicks() + 1) * config.tickNanos());
        assertNoState(server.engine);
    }

    @Test
    void acksRideOnTheNextRequestToTheSameServer() {
        long first = client.call(server, 10, 1);
        net.runUntil(() -> client.done(first), 10 * MS);
        long second = client.call(server, 10, 2);
        net.runUntil(() -> client.done(second), 10 * MS);
        assertEquals(1, server.engine.serverRpcCount(), "the first RPC was freed by the piggy-backed ack");
        assertEquals(1, server.engine.metrics().serverFreedByAck());
        assertEquals(0, net.sent(PacketType.NEED_ACK).size());
    }

    @Test
    void anAckOnARequestFreesItsRpcOnlyOnceTheTurnsPacketsLeft() {
        ByteBuf request = secondRequestCarryingTheFirstsAck();
        try {
            long responsesBefore = serverDataSent();
            server.engine.onPackets(batchOf(request), net.now());
            assertEquals(responsesBefore + 1, serverDataSent(), "the second response went out");
            assertEquals(2, server.engine.serverRpcCount(), "the acknowledged RPC is freed after that");
            assertEquals(0, server.engine.metrics().serverFreedByAck());
            server.engine.finishTurn(net.now());
            assertEquals(1, server.engine.serverRpcCount());
            assertEquals(1, server.engine.metrics().serverFreedByAck());
        } finally {
            request.release();
        }
    }

    @Test
    void anAckOnARequestIsAppliedByTheNextPollWhenNoTurnEnds() {
        ByteBuf request = secondRequestCarryingTheFirstsAck();
        try {
            server.engine.onPackets(batchOf(request), net.now());
            assertEquals(2, server.engine.serverRpcCount());
            server.engine.poll(net.now());
            assertEquals(1, server.engine.serverRpcCount());
            assertEquals(1, server.engine.metrics().serverFreedByAck());
            assertEquals(0, net.sent(PacketType.NEED_ACK).size(), "the timers saw the ack");
        } finally {
            request.release();
        }
    }

    /** Completes one call, then returns a copy of the next request's packet, kept off the wire. */
    private ByteBuf secondRequestCarryingTheFirstsAck() {
        long first = client.call(server, 10, 1);
        net.runUntil(() -> client.done(first), 10 * MS);
        assertEquals(1, server.engine.serverRpcCount(), "the first response waits for its ack");
        net.captureRule = s -> s.type() == PacketType.DATA && s.from().equals(client.address);
        net.dropRule = net.captureRule;
        client.call(server, 10, 2);
        net.runUntil(() -> !net.captured.isEmpty(), 10 * MS);
        net.captureRule = s -> false;
        net.dropRule = s -> false;
        return net.captured.get(0).copy();
    }

    private PacketBatch batchOf(ByteBuf packet) {
        PacketBatch batch = new PacketBatch(1);
        batch.add(client.address, packet, packet.readerIndex(), packet.readableBytes());
        return batch;
    }

    private long serverDataSent() {
        return net.sent(PacketType.DATA).stream().filter(s -> s.from().equals(server.address)).count();
    }

    @Test
    void lostAckIsAskedForAgain() {
        java.util.concurrent.atomic.AtomicBoolean droppedOne = new java.util.concurrent.atomic.AtomicBoolean();
        net.dropRule = s -> s.type() == PacketType.ACK && droppedOne.compareAndSet(false, true);
        long id = client.call(server, 10, 1);
        net.runUntil(() -> client.done(id), 10 * MS);
        net.runUntil(() -> server.engine.serverRpcCount() == 0, 50 * MS);
        assertEquals(2, net.sent(PacketType.NEED_ACK).size());
    }

    @Test
    void deadlineFailsTheCallOnTime() {
        server.handler = (h, c, req) -> null;
        long deadline = net.now() + 3 * MS + 123;
        long id = client.engine.call(server.address, TestNet.payload(100, 1), deadline, net.now());
        net.runUntil(() -> client.done(id), 100 * MS);
        assertEquals(ErrorCode.DEADLINE_EXCEEDED, client.failures.get(id).code());
        assertEquals(deadline, net.now(), "failed exactly at the deadline");
        assertEquals(0, client.engine.clientRpcCount());
        // the late reply reaches a client that forgot the call: the server is told and frees its state
        long handle = server.heldRequests.keySet().iterator().next();
        assertTrue(server.replyHeld(handle));
        net.runUntilIdle(200 * MS);
        assertEquals(0, server.engine.serverRpcCount());
        assertEquals(1, client.failures.size());
        assertTrue(client.responses.isEmpty());
    }

    @Test
    void abortFreesTheCallWithoutAnUpcall() {
        net.dropRule = s -> s.type() == PacketType.GRANT; // the request stalls half-sent
        long id = client.call(server, 200_000, 1);
        net.runFor(MS);
        net.dropRule = s -> false;
        client.engine.abort(id, net.now());
        client.engine.abort(id, net.now()); // idempotent
        client.engine.abort(12345678, net.now()); // unknown: ignored
        assertNoState(client.engine);
        net.runUntilIdle(500 * MS);
        assertFalse(client.done(id));
        assertEquals(1, client.engine.metrics().clientAborted());
        // the server's RESEND for the half-sent request is answered RPC_UNKNOWN, and it lets go
        assertEquals(0, server.engine.serverRpcCount(), () -> server.engine.metrics().toString());
        assertEquals(0, server.requestsHandled);
        assertEquals(1, server.engine.metrics().serverFreedByPeer(), () -> server.engine.metrics().toString());
    }

    @Test
    void closeCancelsCallsRejectsNewOnesAndDropsPackets() {
        server.handler = (h, c, req) -> null;
        long a = client.call(server, 100, 1);
        long b = client.call(server, 300_000, 2);
        net.runFor(MS);
        client.engine.close(net.now());
        assertEquals(ErrorCode.CANCELLED, client.failures.get(a).code());
        assertEquals(ErrorCode.CANCELLED, client.failures.get(b).code());
        assertNoState(client.engine);
        RpcRejectedException e = assertThrows(RpcRejectedException.class,
                () -> client.call(server, 10, 3));
        assertEquals(ErrorCode.CANCELLED, e.code());
        client.engine.onPacket(server.address, Unpooled.wrappedBuffer(new byte[20]), net.now());
        assertEquals(1, client.engine.metrics().drops(DropReason.CLOSED));
        assertEquals(Long.MAX_VALUE, client.engine.nextWakeNanos());
        // server: close frees held handles; replies to them are refused and release the buffer
        long handle = server.heldRequests.keySet().iterator().next();
        server.engine.close(net.now());
        assertFalse(server.replyHeld(handle));
        assertNoState(server.engine);
    }

    @Test
    void handlerErrorReachesTheClientAsHandlerError() {
        server.handler = (h, c, req) -> {
            req.release();
            server.engine.replyError(h, "no such key: ä", net.now());
            return null;
        };
        long id = client.call(server, 10, 1);
        net.runUntil(() -> client.done(id), 10 * MS);
        RpcFailure f = client.failures.get(id);
        assertEquals(ErrorCode.HANDLER_ERROR, f.code());
        assertEquals("no such key: ä", f.message());
        assertFalse(f.retrySafe());
        server.heldRequests.clear();
        net.runUntilIdle(100 * MS);
        assertNoState(server.engine);
    }

    @Test
    void handlerThatThrowsIsAnsweredWithAnError() {
        server.handler = (h, c, req) -> {
            req.release();
            throw new IllegalStateException("boom");
        };
        long id = client.call(server, 10, 1);
        net.runUntil(() -> client.done(id), 10 * MS);
        assertEquals(ErrorCode.HANDLER_ERROR, client.failures.get(id).code());
        assertTrue(client.failures.get(id).message().contains("boom"));
        assertEquals(1, server.engine.metrics().listenerErrors());
    }

    @Test
    void replyingTwiceOrToUnknownHandlesIsACountedNoOp() {
        long[] handle = new long[1];
        server.handler = (h, c, req) -> {
            handle[0] = h;
            return req;
        };
        long id = client.call(server, 10, 1);
        net.runUntil(() -> client.done(id), 10 * MS);
        assertFalse(server.engine.reply(handle[0], TestNet.payload(5, 1), net.now()));
        assertFalse(server.engine.reply(999_999, TestNet.payload(5, 1), net.now()));
        assertFalse(server.engine.replyError(999_999, "x", net.now()));
        assertEquals(3, server.engine.metrics().deadHandleReplies());
    }

    @Test
    void serverHandlesAreEngineLocalAndDistinctPerClient() {
        TestNet.Node other = net.node("other", config);
        java.util.Set<Long> handles = new java.util.HashSet<>();
        server.handler = (h, c, req) -> {
            handles.add(h);
            return req;
        };
        long a = client.call(server, 10, 1);
        long b = other.call(server, 10, 1);
        assertEquals(a, b, "both clients use their first id");
        net.runUntil(() -> client.done(a) && other.done(b), 10 * MS);
        assertEquals(2, handles.size());
    }

    @Test
    void emptyResponseAndLargeResponseToSmallRequest() {
        server.handler = (h, c, req) -> {
            int n = req.readableBytes();
            req.release();
            if (n == 1) {
                return ByteBufAllocator.DEFAULT.buffer(0);
            }
            ByteBuf big = ByteBufAllocator.DEFAULT.buffer(500_000);
            big.writeZero(500_000);
            return big;
        };
        long empty = client.call(server, 1, 1);
        long big = client.call(server, 2, 1);
        net.runUntil(() -> client.done(empty) && client.done(big), 100 * MS);
        assertEquals(0, client.responses.get(empty)[0]);
        assertEquals(500_000, client.responses.get(big)[0]);
    }

    @Test
    void theTickMayWaitForATurnButACallDeadlineMayNot() {
        client.call(server, 10, 1); // sent at once: the tick is all the client has pending
        long tickAt = client.engine.nextWakeNanos();
        assertEquals(net.now() + config.tickNanos(), tickAt);
        long latest = client.engine.wakeByNanos();
        assertTrue(latest > tickAt && latest < tickAt + config.tickNanos(), "late by less than a tick: " + latest);

        long deadline = net.now() + config.tickNanos() + 1;
        client.engine.call(server.address, TestNet.payload(10, 2), deadline, net.now());
        assertEquals(tickAt, client.engine.nextWakeNanos());
        assertEquals(deadline, client.engine.wakeByNanos(), "a caller's deadline is not run late");
    }

    @Test
    void nextWakeIsIdleWithoutState() {
        assertEquals(Long.MAX_VALUE, client.engine.nextWakeNanos());
        long id = client.call(server, 10, 1);
        assertTrue(client.engine.nextWakeNanos() <= net.now() + config.tickNanos());
        net.runUntil(() -> client.done(id), 10 * MS);
        net.runUntilIdle(100 * MS);
        assertEquals(Long.MAX_VALUE, client.engine.nextWakeNanos());
        assertEquals(Long.MAX_VALUE, server.engine.nextWakeNanos());
        assertEquals("x", new String(new byte[] {'x'}, StandardCharsets.US_ASCII));
    }

    @Test
    void aThrowingSinkIsCountedAsLossAndTheCallStillCompletes() {
        int[] sends = {0};
        PacketSink flaky = new PacketSink() {
            @Override
            public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
                if (++sends[0] == 1) {
                    packet.release();
                    throw new IllegalStateException("socket closed");
                }
                client.send(peer, priorityLevel, packet);
            }
        };
        client.replaceEngine(new HomaEngine(config, flaky, client, net.now()));
        long id = client.call(server, 10, 1); // its only request packet hits the throwing sink
        net.runUntil(() -> client.done(id), 100 * MS);
        assertTrue(client.responses.containsKey(id), () -> "failed: " + client.failures.get(id));
        assertEquals(1, client.engine.metrics().sinkErrors());
    }
}
