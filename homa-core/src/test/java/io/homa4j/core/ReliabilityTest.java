package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static io.homa4j.core.RoundTripTest.assertNoState;
import static io.homa4j.core.RoundTripTest.expectedChecksum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Loss, silence, BUSY, server state loss and duplicates: every RPC ends, no handler runs twice. */
class ReliabilityTest {
    private static final long MS = 1_000_000;
    private final TestNet net = new TestNet();
    private final HomaConfig config = HomaConfig.defaults();
    private final TestNet.Node client = net.node("client", config);
    private final TestNet.Node server = net.node("server", config);

    @AfterEach
    void close() {
        net.close();
    }

    private void assertCompleted(long id, int length, long seed) {
        assertTrue(client.responses.containsKey(id), () -> "RPC failed: " + client.failures.get(id));
        assertEquals(length, client.responses.get(id)[0]);
        assertEquals(expectedChecksum(length, seed), client.responses.get(id)[1]);
    }

    private void dropOnce(java.util.function.Predicate<TestNet.Sent> which) {
        Set<String> seen = new HashSet<>();
        net.dropRule = s -> which.test(s) && seen.add(s.type() + ":" + s.rpcId() + ":" + s.offset());
    }

    @Test
    void lostRequestPacketInTheMiddleIsResent() {
        dropOnce(s -> s.type() == PacketType.DATA && s.from().equals(client.address) && s.offset() == 2 * 1432);
        long id = client.call(server, 100_000, 5);
        net.runUntil(() -> client.done(id), 200 * MS);
        assertCompleted(id, 100_000, 5);
        assertTrue(net.sent(PacketType.RESEND).stream().anyMatch(s -> s.from().equals(server.address)
                && s.offset() == 2 * 1432), "server asked for the hole");
        assertEquals(1, client.engine.metrics().retransmittedPackets());
        assertEquals(1, server.requestsHandled);
    }

    @Test
    void lostOnlyPacketOfTheResponseIsResent() {
        dropOnce(s -> s.type() == PacketType.DATA && s.from().equals(server.address));
        long id = client.call(server, 100, 6);
        net.runUntil(() -> client.done(id), 200 * MS);
        assertCompleted(id, 100, 6);
        assertTrue(net.sent(PacketType.RESEND).stream().anyMatch(s -> s.from().equals(client.address)));
        assertEquals(1, server.requestsHandled);
    }

    @Test
    void lostOnlyPacketOfTheRequestIsSentAgainAfterRpcUnknown() {
        dropOnce(s -> s.type() == PacketType.DATA && s.from().equals(client.address));
        long id = client.call(server, 100, 7);
        net.runUntil(() -> client.done(id), 200 * MS);
        assertCompleted(id, 100, 7);
        assertEquals(1, net.sent(PacketType.RPC_UNKNOWN).size());
        assertEquals(1, client.engine.metrics().clientRestarts());
        assertEquals(1, server.requestsHandled);
    }

    @Test
    void lostGrantIsRepeatedWhenTheClientAsks() {
        dropOnce(s -> s.type() == PacketType.GRANT && s.from().equals(server.address));
        long id = client.call(server, 60_000, 8);
        net.runUntil(() -> client.done(id), 500 * MS);
        assertCompleted(id, 60_000, 8);
    }

    @Test
    void randomLossDuplicationAndReorderingStillDeliverEverything() {
        Random random = new Random(2026);
        net.dropRule = s -> random.nextInt(100) < 10;
        net.duplicateRule = s -> random.nextInt(100) < 5;
        long[] ids = new long[40];
        int[] lengths = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            lengths[i] = i % 4 == 0 ? 150_000 + i * 1000 : 1 + random.nextInt(5_000);
            ids[i] = client.call(server, lengths[i], 100 + i);
        }
        net.runUntil(() -> {
            for (long id : ids) {
                if (!client.done(id)) {
                    return false;
                }
            }
            return true;
        }, 20_000 * MS);
        for (int i = 0; i < ids.length; i++) {
            assertCompleted(ids[i], lengths[i], 100 + i);
        }
        assertEquals(ids.length, server.requestsHandled, "each handler ran once");
        net.dropRule = s -> false;
        net.duplicateRule = s -> false;
        net.runUntilIdle(1_000 * MS);
        assertNoState(client.engine);
        assertNoState(server.engine);
        assertEquals(0, client.engine.metrics().drops(DropReason.INTERNAL_ERROR)
                + server.engine.metrics().drops(DropReason.INTERNAL_ERROR));
    }

    @Test
    void serverAnswersBusyWhileTheHandlerRunsAndTheCallSurvivesLongHandlers() {
        server.handler = (h, c, req) -> null; // answer by hand
        long id = client.call(server, 1000, 9);
        net.runFor(3 * config.abortTicks() * config.tickNanos()); // far past the abort timeout
        assertFalse(client.done(id), "the call must wait while the server works");
        assertTrue(net.sent(PacketType.BUSY).size() >= 3);
        assertEquals(1, server.requestsHandled);
        long handle = server.heldRequests.keySet().iterator().next();
        assertTrue(server.replyHeld(handle));
        net.runUntil(() -> client.done(id), 100 * MS);
        assertCompleted(id, 1000, 9);
    }

    @Test
    void silentServerEndsTheCallWithUnavailable() {
        net.dropRule = s -> s.from().equals(server.address);
        long id = client.call(server, 1000, 10);
        long start = net.now();
        net.runUntil(() -> client.done(id), 1_000 * MS);
        RpcFailure f = client.failures.get(id);
        assertEquals(ErrorCode.UNAVAILABLE, f.code());
        assertFalse(f.retrySafe(), "the whole request went out: it may have been handled");
        long elapsed = net.now() - start;
        assertTrue(elapsed >= config.abortTicks() * config.tickNanos()
                && elapsed <= (config.abortTicks() + 2) * config.tickNanos(), "aborted after " + elapsed);
        assertTrue(net.sent(PacketType.RESEND).size() >= config.abortTicks() / config.resendTicks() - 1);
        assertEquals(0, client.engine.clientRpcCount());
    }

    @Test
    void serverRestartAfterTheRequestArrivedFailsTheCallWithoutRunningTheHandlerAgain() {
        server.handler = (h, c, req) -> null;
        long id = client.call(server, 1000, 11);
        net.runUntil(() -> server.requestsHandled == 1, 10 * MS);
        net.runFor(MS); // outside the rttMicros/2 ambiguity window documented on retryOnServerStateLoss
        server.releaseAll();
        net.restart(server);
        net.runUntil(() -> client.done(id), 500 * MS);
        RpcFailure f = client.failures.get(id);
        assertEquals(ErrorCode.UNAVAILABLE, f.code(), () -> "got " + f);
        assertFalse(f.retrySafe());
        assertEquals(1, server.requestsHandled, "never handled twice");
    }

    @Test
    void serverRestartWhileTheRequestIsIncompleteRestartsTheCall() {
        // lose every grant for a while, so the request cannot be completed before the restart
        net.dropRule = s -> s.type() == PacketType.GRANT;
        long id = client.call(server, 200_000, 12);
        net.runFor(2 * MS);
        net.restart(server);
        net.dropRule = s -> false;
        net.runUntil(() -> client.done(id), 2_000 * MS);
        assertCompleted(id, 200_000, 12);
        assertEquals(1, server.requestsHandled);
        assertTrue(client.engine.metrics().clientRestarts() >= 1);
    }

    @Test
    void withoutRetryAnIncompleteRequestFailsRetrySafe() {
        TestNet.Node strictClient = net.node("strict", config.toBuilder().retryOnServerStateLoss(false).build());
        net.dropRule = s -> s.type() == PacketType.GRANT;
        long id = strictClient.call(server, 200_000, 13);
        net.runFor(2 * MS);
        net.restart(server);
        net.dropRule = s -> false;
        net.runUntil(() -> strictClient.done(id), 2_000 * MS);
        RpcFailure f = strictClient.failures.get(id);
        assertEquals(ErrorCode.UNAVAILABLE, f.code());
        assertTrue(f.retrySafe());
        assertEquals(0, server.requestsHandled);
    }

    @Test
    void duplicatedAndReplayedRequestPacketsNeverRunTheHandlerTwice() {
        net.duplicateRule = s -> s.type() == PacketType.DATA;
        net.captureRule = s -> s.type() == PacketType.DATA && s.from().equals(client.address);
        long small = client.call(server, 300, 14);
        long large = client.call(server, 80_000, 15);
        net.runUntil(() -> client.done(small) && client.done(large), 500 * MS);
        assertCompleted(small, 300, 14);
        assertCompleted(large, 80_000, 15);
        assertEquals(2, server.requestsHandled);
        // replay every request packet after the RPCs finished and were acknowledged
        net.runUntilIdle(500 * MS);
        assertEquals(0, server.engine.serverRpcCount());
        for (TestNet.Captured c : net.captured) {
            net.inject(client.address, server, c.copy().retainedDuplicate());
        }
        net.runUntilIdle(500 * MS);
        assertEquals(2, server.requestsHandled, "replays after the ACK are refused");
        assertTrue(server.engine.metrics().drops(DropReason.STALE) > 0);
        assertTrue(server.engine.metrics().drops(DropReason.DUPLICATE) > 0);
        assertEquals(0, server.engine.serverRpcCount());
    }

    /** Encodes the packets the tests inject as if a peer had sent them. */
    private static final PacketEncoder ENCODER = new PacketEncoder(UnpooledByteBufAllocator.DEFAULT);

    /** A DATA packet as a corrupted header would make it: claims a 3,000-byte message, carries 1432 B at 1432. */
    private static io.netty.buffer.ByteBuf liarPacket(long wireId) {
        io.netty.buffer.ByteBuf message = io.netty.buffer.Unpooled.wrappedBuffer(new byte[3_000]);
        return ENCODER.data(wireId, 3_000, 1432, 3_000, 0, 0, 0, message, 1432);
    }

    @Test
    void aResponseWhoseFirstPacketLiedAboutItsLengthFailsTheCallInsteadOfHangingIt() {
        server.handler = (h, c, req) -> null; // answer by hand, after the forged packet
        long id = client.call(server, 100, 20);
        net.runUntil(() -> server.requestsHandled == 1, 10 * MS);
        net.inject(server.address, client, liarPacket(id ^ 1));
        net.runFor(MS);
        long start = net.now();
        assertTrue(server.replyHeld(server.heldRequests.keySet().iterator().next()));
        // The real packets never match the length the client now expects; the server keeps answering its RESENDs
        // with them, which must not count as progress.
        net.runUntil(() -> client.done(id), 3 * config.abortTicks() * config.tickNanos());
        RpcFailure f = client.failures.get(id);
        assertEquals(ErrorCode.UNAVAILABLE, f.code(), () -> "got " + f);
        assertTrue(client.engine.metrics().drops(DropReason.INCONSISTENT) > 10, "the server kept answering");
        assertTrue(net.now() - start <= (config.abortTicks() + 2 * config.resendTicks()) * config.tickNanos(),
                "failed within the abort time: " + (net.now() - start));
        assertEquals(1, server.requestsHandled);
    }

    @Test
    void aRequestWhoseFirstPacketLiedAboutItsLengthExpiresAndTheCallIsRestarted() {
        dropOnce(s -> s.type() == PacketType.DATA && s.from().equals(client.address));
        long id = client.call(server, 100, 21);
        net.inject(client.address, server, liarPacket(id)); // arrives instead of the lost real packet
        // The server asks for the message it believes in; the client re-sends its real 100 B, which never fits.
        net.runUntil(() -> client.done(id), 3 * config.abortTicks() * config.tickNanos());
        assertCompleted(id, 100, 21);
        assertTrue(server.engine.metrics().drops(DropReason.INCONSISTENT) > 10, "the client kept answering");
        assertEquals(1, server.engine.metrics().serverExpired(), "the forged RPC expired");
        assertEquals(1, client.engine.metrics().clientRestarts(), "then the call was safely restarted");
        assertEquals(1, server.requestsHandled);
    }

    @Test
    void retransmittedPacketsAreFlagged() {
        dropOnce(s -> s.type() == PacketType.DATA && s.from().equals(client.address) && s.offset() == 0);
        long id = client.call(server, 5000, 16);
        net.runUntil(() -> client.done(id), 200 * MS);
        assertTrue(net.sent(PacketType.DATA).stream().anyMatch(s -> s.from().equals(client.address)
                && (s.flags() & DataHeader.FLAG_RETRANSMIT) != 0 && s.offset() == 0 && s.priority() == 7));
    }

    @Test
    void restartedClientDoesNotTakeALateResponseMeantForItsPreviousIncarnation() {
        server.handler = (h, c, req) -> null; // answer by hand, late
        long old = client.call(server, 10, 21);
        net.runUntil(() -> server.requestsHandled == 1, 10 * MS);
        net.runFor(MS);
        net.restart(client);
        long fresh = client.call(server, 10, 22);
        assertTrue(fresh != old, "a new incarnation does not reuse ids");
        long oldHandle = server.heldRequests.keySet().iterator().next();
        assertTrue(server.replyHeld(oldHandle)); // the late response to the dead call
        net.runUntil(() -> server.requestsHandled == 2, 10 * MS);
        long freshHandle = server.heldRequests.keySet().iterator().next();
        assertTrue(server.replyHeld(freshHandle));
        net.runUntil(() -> client.done(fresh), 100 * MS);
        assertCompleted(fresh, 10, 22); // its own bytes, not the old call's
        assertEquals(ErrorCode.CANCELLED, client.failures.get(old).code(), "closed with the old engine");
        assertFalse(client.responses.containsKey(old));
        net.runUntilIdle(500 * MS);
        assertEquals(0, server.engine.serverRpcCount(), "the late response was refused and freed");
    }

    @Test
    void aResendForBytesNotSentYetIsAnsweredBusyNotWithData() {
        // A slow link keeps most of the request in the sender's queue (pacer, SRPT), as a receiver that granted
        // several messages at once sees for all but the one being sent.
        TestNet slowNet = new TestNet();
        HomaConfig slow = HomaConfig.builder().linkMbps(100).rttMicros(100).build();
        TestNet.Node sender = slowNet.node("client", slow);
        TestNet.Node receiver = slowNet.node("server", slow);
        try {
            long id = sender.call(receiver, 200_000, 7);
            slowNet.runUntil(() -> !slowNet.sent(PacketType.DATA).isEmpty(), 10 * MS);
            int notSent = 150_000;
            slowNet.inject(receiver.address, sender, ENCODER.resend(id ^ 1, notSent, 1432, 3));
            slowNet.runFor(3 * MS); // byte 0 left over two in-flight times ago: a RESEND for it means a loss
            slowNet.inject(receiver.address, sender, ENCODER.resend(id ^ 1, 0, 1432, 7));
            slowNet.runUntil(() -> sender.done(id), 2_000 * MS);

            assertTrue(sender.responses.containsKey(id), () -> "RPC failed: " + sender.failures.get(id));
            assertEquals(expectedChecksum(200_000, 7), sender.responses.get(id)[1]);
            assertEquals(1, slowNet.sent(PacketType.BUSY).stream()
                    .filter(b -> b.from().equals(sender.address) && b.rpcId() == id).count(),
                    "the RESEND for unsent bytes got one BUSY");
            assertTrue(slowNet.sent(PacketType.DATA).stream().noneMatch(d -> d.from().equals(sender.address)
                    && d.offset() == notSent && (d.flags() & DataHeader.FLAG_RETRANSMIT) != 0),
                    "unsent bytes are sent once, in SRPT order, not as a retransmission");
            assertTrue(slowNet.sent(PacketType.DATA).stream().anyMatch(d -> d.from().equals(sender.address)
                    && d.offset() == 0 && (d.flags() & DataHeader.FLAG_RETRANSMIT) != 0),
                    "bytes already sent are retransmitted");
        } finally {
            slowNet.close();
        }
    }

    @Test
    void aResendCrossingTheDataItAsksForIsAnsweredBusyNotWithACopy() {
        // The receiver asked for bytes that left the sender a moment ago: the RESEND and the data crossed. A copy
        // would arrive as a duplicate; the sender answers BUSY instead, and the bytes arrive once.
        TestNet net = new TestNet();
        HomaConfig config = HomaConfig.builder().linkMbps(1_000).rttMicros(100).build();
        TestNet.Node sender = net.node("client", config);
        TestNet.Node receiver = net.node("server", config);
        try {
            long id = sender.call(receiver, 20_000, 3);
            net.runUntil(() -> !net.sent(PacketType.DATA).isEmpty(), 10 * MS);
            net.inject(receiver.address, sender, ENCODER.resend(id ^ 1, 0, 1432, 7));
            net.runUntil(() -> sender.done(id), 2_000 * MS);

            assertTrue(sender.responses.containsKey(id), () -> "RPC failed: " + sender.failures.get(id));
            assertEquals(expectedChecksum(20_000, 3), sender.responses.get(id)[1]);
            assertTrue(retransmissionsFrom(net, sender).isEmpty(), "nothing retransmitted");
            assertEquals(1, net.sent(PacketType.BUSY).stream()
                    .filter(b -> b.from().equals(sender.address) && b.rpcId() == id).count(),
                    "the crossing RESEND got one BUSY");
        } finally {
            net.close();
        }
    }

    @Test
    void aHostThatLagsTreatsBytesSentWithinThreeLagsAsInFlight() {
        // The host reported 20 ms turns: a RESEND it reads may have waited that long behind them, so bytes sent
        // 10 ms ago may have crossed it (BUSY, no copy); once the lag is gone, the same question means a loss.
        TestNet net = new TestNet();
        TestNet.Node sender = net.node("client", LAG_CONFIG);
        TestNet.Node receiver = net.node("server", LAG_CONFIG);
        try {
            long id = resendAfterLosingByteZeroWhileLagging(net, sender, receiver, 20 * MS, 9 * MS, 5);
            assertTrue(retransmissionsFrom(net, sender).isEmpty(), "10 ms < 3 lags: not retransmitted");
            assertTrue(net.sent(PacketType.BUSY).stream()
                    .anyMatch(b -> b.from().equals(sender.address) && b.rpcId() == id), "answered BUSY");

            assertResentOnceTheLagIsGone(net, sender, receiver, id);
            assertEquals(expectedChecksum(20_000, 5), sender.responses.get(id)[1]);
        } finally {
            net.close();
        }
    }

    @Test
    void aLagLongerThanTheInFlightCapStillWidensIt() {
        // A 300 ms turn (a JVM compiling in its first seconds): the engine stamps the whole turn's sends with the
        // turn's start, so bytes that left at its end look 300 ms old. The in-flight time's cap (keepAliveTicks,
        // 100 ms here) is for the peer's measured round trip; it must not clip the host's own lag, or a RESEND
        // that crossed those bytes draws copies of them (seen on loopback: up to 0.27% of DATA packets).
        TestNet net = new TestNet();
        TestNet.Node sender = net.node("client", LAG_CONFIG);
        TestNet.Node receiver = net.node("server", LAG_CONFIG);
        try {
            long id = resendAfterLosingByteZeroWhileLagging(net, sender, receiver, 300 * MS, 200 * MS, 6);
            assertTrue(retransmissionsFrom(net, sender).isEmpty(),
                    "200 ms is above the 100 ms cap but within three 300 ms lags: not retransmitted");

            assertResentOnceTheLagIsGone(net, sender, receiver, id);
        } finally {
            net.close();
        }
    }

    private static final HomaConfig LAG_CONFIG = HomaConfig.builder().linkMbps(1_000).rttMicros(100).build();

    /**
     * {@code sender} calls {@code receiver} with 20,000 B whose byte 0 is lost; then the host reports
     * {@code lagNanos} turns, {@code waitNanos} pass, and the server's RESEND for byte 0 arrives (and 1 ms more).
     * Returns the call's id.
     */
    private static long resendAfterLosingByteZeroWhileLagging(TestNet net, TestNet.Node sender, TestNet.Node receiver,
                                                              long lagNanos, long waitNanos, int seed) {
        net.dropRule = s -> s.type() == PacketType.DATA && s.from().equals(sender.address) && s.offset() == 0;
        long id = sender.call(receiver, 20_000, seed);
        net.runFor(MS); // every unscheduled byte has left; byte 0 was lost
        net.dropRule = s -> false;
        sender.engine.onHostLag(lagNanos, net.now());
        net.runFor(waitNanos);
        net.inject(receiver.address, sender, ENCODER.resend(id ^ 1, 0, 1432, 7));
        net.runFor(MS);
        return id;
    }

    /** With the lag back to 0, the same RESEND draws byte 0 again, and the call completes. */
    private static void assertResentOnceTheLagIsGone(TestNet net, TestNet.Node sender, TestNet.Node receiver,
                                                     long id) {
        sender.engine.onHostLag(0, net.now());
        net.inject(receiver.address, sender, ENCODER.resend(id ^ 1, 0, 1432, 7));
        net.runUntil(() -> sender.done(id), 2_000 * MS);
        assertEquals(List.of(0), retransmissionsFrom(net, sender), "without the lag, byte 0 is resent");
        assertTrue(sender.responses.containsKey(id), () -> "RPC failed: " + sender.failures.get(id));
    }

    private static List<Integer> retransmissionsFrom(TestNet net, TestNet.Node node) {
        return net.sent(PacketType.DATA).stream()
                .filter(d -> d.from().equals(node.address) && (d.flags() & DataHeader.FLAG_RETRANSMIT) != 0)
                .map(TestNet.Sent::offset).distinct().toList();
    }
}
