package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.transport.LossyPacketFilter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real engine on real loopback sockets. Skipped, with the reason, while homa-core's engine is missing. */
class HomaEndToEndTest {
    private static final long WAIT_SECONDS = 60;
    private final List<HomaEndpoint> endpoints = new ArrayList<>();

    @BeforeEach
    void needEngine() {
        EngineAvailability.assumeEngineWorks();
    }

    @AfterEach
    void closeAll() {
        endpoints.forEach(HomaEndpoint::close);
    }

    private HomaEndpoint endpoint(HomaEndpoint.Builder b) {
        HomaEndpoint e = b.build();
        endpoints.add(e);
        return e;
    }

    private HomaEndpoint echoServer(HomaEndpoint.Builder b) {
        HomaEndpoint server = endpoint(b);
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        return server;
    }

    private static byte[] pattern(int length, long seed) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    private static HomaException homaFailure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        return assertInstanceOf(HomaException.class, e.getCause());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 1440, 1441, 100 * 1024, 1 << 20, 16 << 20})
    void messagesRoundTripByteExact(int size) throws Exception {
        HomaEndpoint server = echoServer(HomaEndpoint.builder());
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        byte[] request = pattern(size, size);
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(size).writeBytes(request);
        ByteBuf response = client.call(server.localAddress(), buf).get(WAIT_SECONDS, TimeUnit.SECONDS);
        try {
            assertEquals(size, response.readableBytes());
            assertArrayEquals(request, ByteBufUtil.getBytes(response));
        } finally {
            response.release();
        }
        if (size >= 1 << 20 && server.transport() == TransportType.EPOLL) {
            assertTrue(client.transportStats().gsoSends() > 0, "large messages use GSO: " + client.transportStats());
        }
    }

    @Test
    void nioTransportCarriesAMegabyte() throws Exception {
        HomaEndpoint server = echoServer(HomaEndpoint.builder().transport(TransportType.NIO));
        HomaEndpoint client = endpoint(HomaEndpoint.builder().transport(TransportType.NIO));
        byte[] request = pattern(1 << 20, 7);
        assertArrayEquals(request, client.call(server.localAddress(), request).get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void tenThousandConcurrentRpcsFromFourClients() throws Exception {
        HomaEndpoint server = echoServer(HomaEndpoint.builder());
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        List<byte[]> sent = new ArrayList<>();
        List<HomaEndpoint> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            clients.add(endpoint(HomaEndpoint.builder()));
        }
        SplittableRandom random = new SplittableRandom(10_000);
        for (int i = 0; i < 10_000; i++) {
            byte[] request = pattern(1 + random.nextInt(2_000), i);
            sent.add(request);
            calls.add(clients.get(i % 4).call(server.localAddress(), request));
        }
        for (int i = 0; i < calls.size(); i++) {
            assertArrayEquals(sent.get(i), calls.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS), "call " + i);
        }
    }

    @Test
    void handlerExceptionIsHandlerError() {
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        server.serve((ctx, request) -> {
            throw new IllegalArgumentException("bad request");
        });
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        HomaException e = homaFailure(client.call(server.localAddress(), new byte[5000]));
        assertEquals(ErrorCode.HANDLER_ERROR, e.code());
        assertTrue(e.getMessage().contains("bad request"), e.getMessage());
    }

    @Test
    void timeoutIsDeadlineExceeded() {
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        server.serve((ctx, request) -> { }); // never replies
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        HomaException e = homaFailure(client.call(server.localAddress(), new byte[100],
                CallOptions.timeout(Duration.ofMillis(50))));
        assertEquals(ErrorCode.DEADLINE_EXCEEDED, e.code());
    }

    @Test
    void cancellingALargeCallFreesItAndTheEndpointKeepsWorking() throws Exception {
        HomaEndpoint server = echoServer(HomaEndpoint.builder());
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        CompletableFuture<byte[]> big = client.call(server.localAddress(), new byte[16 << 20]);
        assertTrue(big.cancel(true));
        assertThrows(java.util.concurrent.CancellationException.class, big::join);
        byte[] small = pattern(300, 3);
        assertArrayEquals(small, client.call(server.localAddress(), small).get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void serverClosedMidRpcGivesATypedError() throws Exception {
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        CountDownLatch delivered = new CountDownLatch(1);
        server.serve((ctx, request) -> delivered.countDown()); // holds the RPC open
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        CompletableFuture<byte[]> f = client.call(server.localAddress(), new byte[10_000]);
        assertTrue(delivered.await(WAIT_SECONDS, TimeUnit.SECONDS));
        server.close();
        HomaException e = homaFailure(f);
        assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
    }

    @Test
    void fivePercentLossBothWaysStillCompletesEveryRpc() throws Exception {
        HomaEndpoint server = echoServer(HomaEndpoint.builder().packetFilter(new LossyPacketFilter(1, 0.05, 0.05)));
        LossyPacketFilter clientLoss = new LossyPacketFilter(2, 0.05, 0.05);
        HomaEndpoint client = endpoint(HomaEndpoint.builder().packetFilter(clientLoss));
        SplittableRandom random = new SplittableRandom(5);
        List<byte[]> sent = new ArrayList<>();
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            byte[] request = pattern(i % 10 == 0 ? 50_000 + random.nextInt(100_000) : 1 + random.nextInt(3_000), i);
            sent.add(request);
            calls.add(client.call(server.localAddress(), request));
        }
        for (int i = 0; i < calls.size(); i++) {
            assertArrayEquals(sent.get(i), calls.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS), "call " + i);
        }
        assertTrue(clientLoss.droppedOutbound() > 0 && clientLoss.droppedInbound() > 0, "loss happened");
    }

    @Test
    void garbageAtTheServerPortIsDroppedAndServiceContinues() throws Exception {
        HomaEndpoint server = echoServer(HomaEndpoint.builder());
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        byte[] before = pattern(2_000, 1);
        assertArrayEquals(before, client.call(server.localAddress(), before).get(WAIT_SECONDS, TimeUnit.SECONDS));
        SplittableRandom random = new SplittableRandom(99);
        try (DatagramSocket attacker = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            for (int i = 0; i < 500; i++) {
                byte[] junk = pattern(random.nextInt(1_500), i);
                attacker.send(new DatagramPacket(junk, junk.length, server.localAddress()));
            }
        }
        byte[] after = pattern(20_000, 2);
        assertArrayEquals(after, client.call(server.localAddress(), after).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(server.transportStats().datagramsReceived() >= 500);
    }

    @Test
    void endpointsSharingAPortServeDifferentClients() throws Exception {
        HomaEndpoint first = echoServer(HomaEndpoint.builder());
        HomaEndpoint second = echoServer(HomaEndpoint.builder().port(first.localAddress().getPort()));
        for (int i = 0; i < 8; i++) {
            HomaEndpoint client = endpoint(HomaEndpoint.builder());
            byte[] request = pattern(30_000, i);
            assertArrayEquals(request, client.call(first.localAddress(), request).get(WAIT_SECONDS, TimeUnit.SECONDS));
        }
        assertTrue(second.localAddress().equals(first.localAddress()));
    }

    @Test
    void closeWithCallsInFlightCancelsThemAndLeaksNothing() throws Exception {
        HomaEndpoint server = echoServer(HomaEndpoint.builder());
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        List<CompletableFuture<ByteBuf>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(client.call(server.localAddress(), Unpooled.wrappedBuffer(new byte[200_000])));
        }
        client.close();
        for (CompletableFuture<ByteBuf> f : calls) {
            try {
                f.get(WAIT_SECONDS, TimeUnit.SECONDS).release(); // some may have finished before close
            } catch (ExecutionException e) {
                assertEquals(ErrorCode.CANCELLED, assertInstanceOf(HomaException.class, e.getCause()).code());
            }
        }
    }

    @Test
    void smallConfigMtuAndCustomLevelsWork() throws Exception {
        HomaConfig config = HomaConfig.builder().mtu(1000).priorityLevels(4).build();
        HomaEndpoint server = echoServer(HomaEndpoint.builder().config(config));
        HomaEndpoint client = endpoint(HomaEndpoint.builder().config(config));
        byte[] request = pattern(250_000, 4);
        assertArrayEquals(request, client.call(server.localAddress(), request).get(WAIT_SECONDS, TimeUnit.SECONDS));
    }
}
