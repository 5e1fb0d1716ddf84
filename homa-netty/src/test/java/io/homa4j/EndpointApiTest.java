package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The public API on real loopback sockets, driving the scripted {@link FakeEngine}: futures, handlers (inline,
 * executor, async), errors, cancellation, deadlines, close, misuse. Protocol behaviour (large messages, loss)
 * is covered with the real engine in {@link HomaEndToEndTest}.
 */
class EndpointApiTest {
    private static final long WAIT_SECONDS = 10;
    private final List<HomaEndpoint> endpoints = new ArrayList<>();

    private HomaEndpoint endpoint(TransportType transport) {
        return endpoint(HomaEndpoint.builder().transport(transport));
    }

    private HomaEndpoint endpoint(HomaEndpointBuilder builder) {
        HomaEndpoint e = builder.engineFactory(FakeEngine.factory()).build();
        endpoints.add(e);
        return e;
    }

    @AfterEach
    void closeAll() {
        endpoints.forEach(HomaEndpoint::close);
    }

    private static HomaException homaFailure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        return assertInstanceOf(HomaException.class, e.getCause());
    }

    @Test
    void echoRoundTripsOnEpollAndNio() throws Exception {
        for (TransportType t : new TransportType[] {TransportType.EPOLL, TransportType.NIO}) {
            HomaEndpoint server = endpoint(t);
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            HomaEndpoint client = endpoint(t);
            assertEquals(t, server.transport());
            ByteBuf response = client.call(server.localAddress(), Unpooled.copiedBuffer("ping", StandardCharsets.UTF_8))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            try {
                assertEquals("ping", response.toString(StandardCharsets.UTF_8));
            } finally {
                response.release();
            }
            byte[] bytes = client.call(server.localAddress(), new byte[] {1, 2, 3}).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertArrayEquals(new byte[] {1, 2, 3}, bytes);
        }
    }

    @Test
    void autoPicksEpollHereAndEverySocketSharesThePortWithItsLevelsTos() throws Exception {
        HomaEndpoint e = endpoint(TransportType.AUTO);
        assertEquals(TransportType.EPOLL, e.transport(), "epoll native library is on the test classpath");
        assertTrue(e.marksPriorityPerLevel());
        assertTrue(e.localAddress().getPort() > 0);
        assertEquals(InetAddress.getLoopbackAddress(), e.localAddress().getAddress());
    }

    @Test
    void handlerOnExecutorRepliesLaterFromAnotherThread() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            HomaEndpoint server = endpoint(TransportType.AUTO);
            CountDownLatch go = new CountDownLatch(1);
            AtomicReference<String> handlerThread = new AtomicReference<>();
            server.serve((ctx, request) -> {
                handlerThread.set(Thread.currentThread().getName());
                ByteBuf kept = request.retain();
                pool.execute(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    ByteBuf reply = Unpooled.buffer().writeBytes(kept).writeByte('!');
                    kept.release();
                    ctx.reply(reply);
                });
            }, pool);
            HomaEndpoint client = endpoint(TransportType.AUTO);
            CompletableFuture<byte[]> f = client.call(server.localAddress(), "hi".getBytes(StandardCharsets.UTF_8));
            assertFalse(f.isDone());
            go.countDown();
            assertEquals("hi!", new String(f.get(WAIT_SECONDS, TimeUnit.SECONDS), StandardCharsets.UTF_8));
            assertTrue(handlerThread.get().startsWith("pool"), handlerThread.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void handlerExceptionReachesTheCallerAsHandlerError() {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        server.serve((ctx, request) -> {
            throw new IllegalStateException("boom");
        });
        HomaEndpoint client = endpoint(TransportType.AUTO);
        HomaException e = homaFailure(client.call(server.localAddress(), new byte[10]));
        assertEquals(ErrorCode.HANDLER_ERROR, e.code());
        assertTrue(e.getMessage().contains("boom"), e.getMessage());
    }

    @Test
    void ctxFailIsAHandlerError() {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        server.serve((ctx, request) -> ctx.fail("not today"));
        HomaEndpoint client = endpoint(TransportType.AUTO);
        HomaException failed = homaFailure(client.call(server.localAddress(), new byte[1]));
        assertEquals(ErrorCode.HANDLER_ERROR, failed.code());
        assertTrue(failed.getMessage().contains("not today"));
        assertFalse(failed.isRetrySafe(), "the handler ran");
    }

    @Test
    void aReplyLongerThanMaxMessageBytesFailsTheCallWithMessageTooLarge() throws Exception {
        HomaConfig small = HomaConfig.builder().maxMessageBytes(1_000).build();
        HomaEndpoint server = endpoint(HomaEndpoint.builder().config(small));
        ByteBuf tooLong = Unpooled.directBuffer(1_001).writeZero(1_001);
        server.serve((ctx, request) -> ctx.reply(request.readableBytes() == 1 ? tooLong.retain()
                : Unpooled.directBuffer(1_000).writeZero(1_000)));
        HomaEndpoint client = endpoint(HomaEndpoint.builder().config(small));
        try {
            HomaException e = homaFailure(client.call(server.localAddress(), new byte[1]));
            assertEquals(ErrorCode.MESSAGE_TOO_LARGE, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("1001 bytes exceeds"), e.getMessage());
            assertFalse(e.isRetrySafe(), "the handler ran");
            assertEquals(1, tooLong.refCnt(), "the reply's reference was released");
            assertEquals(1_000, client.call(server.localAddress(), new byte[2]).get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .length, "a reply of exactly maxMessageBytes arrives");
        } finally {
            tooLong.release();
        }
    }

    @Test
    void requestsBeforeServeAreRefusedRetrySafeAndTheRetryIsServed() throws Exception {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        HomaEndpoint client = endpoint(TransportType.AUTO);
        HomaException refused = homaFailure(client.call(server.localAddress(), new byte[] {1}));
        assertEquals(ErrorCode.UNAVAILABLE, refused.code(), refused.getMessage());
        assertTrue(refused.isRetrySafe(), "the handler never ran");
        assertTrue(refused.getMessage().contains("does not serve"), refused.getMessage());

        server.serve((ctx, request) -> ctx.reply(request.retain()));
        assertArrayEquals(new byte[] {1},
                client.call(server.localAddress(), new byte[] {1}).get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void builderHandlerServesFromTheFirstRequestAndServeThenThrows() throws Exception {
        HomaEndpoint server = endpoint(HomaEndpoint.builder().handler((ctx, request) -> ctx.reply(request.retain())));
        HomaEndpoint client = endpoint(TransportType.AUTO);
        assertArrayEquals(new byte[] {2, 3},
                client.call(server.localAddress(), new byte[] {2, 3}).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThrows(IllegalStateException.class, () -> server.serve((ctx, request) -> ctx.fail("second")));
    }

    @Test
    void builderHandlerRunsOnItsExecutor() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "pool-handler"));
        try {
            AtomicReference<String> handlerThread = new AtomicReference<>();
            HomaEndpoint server = endpoint(HomaEndpoint.builder().handler((ctx, request) -> {
                handlerThread.set(Thread.currentThread().getName());
                ctx.reply(request.retain());
            }, pool));
            HomaEndpoint client = endpoint(TransportType.AUTO);
            assertArrayEquals(new byte[] {4},
                    client.call(server.localAddress(), new byte[] {4}).get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals("pool-handler", handlerThread.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void secondReplyThrowsAndReleasesItsBuffer() throws Exception {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        CompletableFuture<Throwable> second = new CompletableFuture<>();
        ByteBuf extra = Unpooled.buffer(4).writeInt(1);
        server.serve((ctx, request) -> {
            ctx.reply(new byte[] {7});
            try {
                ctx.reply(extra);
                second.complete(null);
            } catch (IllegalStateException expected) {
                second.complete(expected);
            }
        });
        HomaEndpoint client = endpoint(TransportType.AUTO);
        assertArrayEquals(new byte[] {7}, client.call(server.localAddress(), new byte[0]).get(WAIT_SECONDS,
                TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, second.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, extra.refCnt());
    }

    @Test
    void timeoutFailsWithDeadlineExceeded() {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        server.serve((ctx, request) -> { }); // never replies
        HomaEndpoint client = endpoint(TransportType.AUTO);
        HomaException e = homaFailure(client.call(server.localAddress(), Unpooled.buffer(3).writeMedium(1),
                CallOptions.timeout(Duration.ofMillis(30))));
        assertEquals(ErrorCode.DEADLINE_EXCEEDED, e.code());
        HomaException past = homaFailure(client.call(server.localAddress(), Unpooled.buffer(1).writeByte(1),
                CallOptions.deadlineNanos(System.nanoTime() - 1)));
        assertEquals(ErrorCode.DEADLINE_EXCEEDED, past.code());
    }

    @Test
    void cancelAbortsTheRpcAndALateResponseIsReleased() throws Exception {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        CountDownLatch delivered = new CountDownLatch(1);
        AtomicReference<RpcContext> pending = new AtomicReference<>();
        server.serve((ctx, request) -> {
            pending.set(ctx);
            delivered.countDown();
        });
        List<ErrorCode> observed = new ArrayList<>();
        CountDownLatch observedFailure = new CountDownLatch(1);
        HomaEndpoint client = endpoint(HomaEndpoint.builder().observer(new RpcObserver() {
            @Override
            public void callFailed(long rpcId, InetSocketAddress s, int requestBytes, ErrorCode code,
                                   long elapsedNanos) {
                observed.add(code);
                observedFailure.countDown();
            }
        }));
        CompletableFuture<ByteBuf> f = client.call(server.localAddress(), Unpooled.buffer(1).writeByte(1));
        assertTrue(delivered.await(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(f.cancel(true));
        assertTrue(observedFailure.await(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(List.of(ErrorCode.CANCELLED), observed);
        assertThrows(CancellationException.class, f::join);
        // The server's late reply reaches a client that forgot the RPC; the fake engine releases it.
        pending.get().reply(Unpooled.buffer(100).writeZero(100));
        // A later call still works, so the late reply did not disturb anything.
        server.close();
        HomaEndpoint echo = endpoint(TransportType.AUTO);
        echo.serve((ctx, request) -> ctx.reply(request.retain()));
        assertArrayEquals(new byte[] {5}, client.call(echo.localAddress(), new byte[] {5}).get(WAIT_SECONDS,
                TimeUnit.SECONDS));
    }

    @Test
    void closeFailsOutstandingCallsWithCancelledAndLaterCallsToo() throws Exception {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        CountDownLatch delivered = new CountDownLatch(3);
        server.serve((ctx, request) -> delivered.countDown());
        HomaEndpoint client = endpoint(TransportType.AUTO);
        List<CompletableFuture<ByteBuf>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(client.call(server.localAddress(), Unpooled.buffer(8).writeLong(i)));
        }
        assertTrue(delivered.await(WAIT_SECONDS, TimeUnit.SECONDS));
        client.close();
        for (CompletableFuture<ByteBuf> f : calls) {
            assertEquals(ErrorCode.CANCELLED, homaFailure(f).code());
        }
        ByteBuf late = Unpooled.buffer(1).writeByte(1);
        assertEquals(ErrorCode.CANCELLED, homaFailure(client.call(server.localAddress(), late)).code());
        assertEquals(0, late.refCnt());
        client.close(); // idempotent
        assertTrue(client.isClosed());
        assertThrows(IllegalStateException.class, () -> client.serve((ctx, r) -> { }));
    }

    @Test
    void misuseGetsClearExceptions() throws Exception {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        assertThrows(IllegalStateException.class, () -> server.serve((ctx, r) -> { }));
        ByteBuf owned = Unpooled.buffer(1).writeByte(1);
        assertThrows(IllegalArgumentException.class,
                () -> server.call(InetSocketAddress.createUnresolved("nowhere.invalid", 1), owned));
        assertEquals(0, owned.refCnt(), "the request is released even when call throws");
        assertThrows(NullPointerException.class, () -> server.call(null, new byte[0]));
        assertThrows(IllegalArgumentException.class,
                () -> server.call(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> CallOptions.timeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> HomaEndpoint.builder().port(70_000));

        HomaEndpoint client = endpoint(TransportType.AUTO);
        HomaEndpoint other = endpoint(TransportType.AUTO);
        // Blocking on a call from the event loop would deadlock: it throws instead.
        CompletableFuture<Throwable> fromLoop = new CompletableFuture<>();
        other.serve((ctx, request) -> {
            try {
                client.call(server.localAddress(), new byte[1]).join();
                fromLoop.complete(null);
            } catch (Throwable t) {
                fromLoop.complete(t);
            }
            ctx.reply(new byte[0]);
        });
        // The nested call is made by `other`'s handler on `other`'s loop, but to block on `client`'s future
        // there is fine; the deadlock case is blocking on one's own loop:
        CompletableFuture<Throwable> ownLoop = new CompletableFuture<>();
        HomaEndpoint selfCaller = endpoint(TransportType.AUTO);
        selfCaller.serve((ctx, request) -> {
            try {
                selfCaller.call(server.localAddress(), new byte[1]).get();
                ownLoop.complete(null);
            } catch (Throwable t) {
                ownLoop.complete(t);
            }
            ctx.reply(new byte[0]);
        });
        client.call(other.localAddress(), new byte[0]).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(null, fromLoop.get(WAIT_SECONDS, TimeUnit.SECONDS));
        client.call(selfCaller.localAddress(), new byte[0]).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertInstanceOf(IllegalStateException.class, ownLoop.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void requestTooLargeFailsFastWithMessageTooLarge() {
        HomaEndpoint client = endpoint(HomaEndpoint.builder().config(HomaConfig.builder().maxMessageBytes(1000).build()));
        HomaException e = homaFailure(client.call(new InetSocketAddress(InetAddress.getLoopbackAddress(), 9), new byte[1001]));
        assertEquals(ErrorCode.MESSAGE_TOO_LARGE, e.code());
        assertTrue(e.isRetrySafe());
    }

    @Test
    void bindingAPortInUseByAnotherProcessSocketFailsWithUnavailable() throws Exception {
        try (DatagramSocket taken = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            HomaException e = assertThrows(HomaException.class, () -> endpoint(HomaEndpoint.builder()
                    .port(taken.getLocalPort())));
            assertEquals(ErrorCode.UNAVAILABLE, e.code());
        }
    }

    @Test
    void garbageDatagramsAreDroppedByTheEngineAndServiceContinues() throws Exception {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        HomaEndpoint client = endpoint(TransportType.AUTO);
        try (DatagramSocket attacker = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            byte[] junk = new byte[200];
            for (int i = 0; i < 50; i++) {
                junk[0] = (byte) i;
                attacker.send(new DatagramPacket(junk, junk.length, server.localAddress()));
            }
            attacker.send(new DatagramPacket(new byte[3000], 3000, server.localAddress())); // longer than the MTU
        }
        assertArrayEquals(new byte[] {9}, client.call(server.localAddress(), new byte[] {9}).get(WAIT_SECONDS,
                TimeUnit.SECONDS));
        var stats = server.transportStats();
        assertEquals(1, stats.oversizedDropped());
        assertTrue(stats.datagramsReceived() >= 52, stats.toString());
    }

    @Test
    void observerSeesCompletedCallsAndServedRequests() throws Exception {
        CountDownLatch served = new CountDownLatch(1);
        AtomicReference<long[]> serverSide = new AtomicReference<>();
        HomaEndpoint server = endpoint(HomaEndpoint.builder().observer(new RpcObserver() {
            @Override
            public void requestServed(long rpcId, InetSocketAddress c, int requestBytes, int responseBytes,
                                      long serviceNanos) {
                serverSide.set(new long[] {requestBytes, responseBytes});
                served.countDown();
            }
        }));
        server.serve((ctx, request) -> ctx.reply(new byte[42]));
        AtomicReference<long[]> clientSide = new AtomicReference<>();
        CountDownLatch completed = new CountDownLatch(1);
        HomaEndpoint client = endpoint(HomaEndpoint.builder().observer(new RpcObserver() {
            @Override
            public void callCompleted(long rpcId, InetSocketAddress s, int requestBytes, int responseBytes,
                                      long rttNanos) {
                clientSide.set(new long[] {requestBytes, responseBytes, rttNanos, rpcId});
                completed.countDown();
            }
        }));
        client.call(server.localAddress(), new byte[17]).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(completed.await(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(served.await(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(17, clientSide.get()[0]);
        assertEquals(42, clientSide.get()[1]);
        assertTrue(clientSide.get()[2] > 0);
        assertNotEquals(RpcObserver.NO_RPC_ID, clientSide.get()[3], "the engine's id of the call");
        assertArrayEquals(new long[] {17, 42}, serverSide.get());
    }

    @Test
    void lossyFilterDropsInBothDirectionsAndCounts() throws Exception {
        var filter = new io.homa4j.faults.FaultInjector(42, io.homa4j.faults.Faults.NONE.withDrop(1.0),
                io.homa4j.faults.Faults.NONE);
        HomaEndpoint client = endpoint(HomaEndpoint.builder().packetFilter(filter));
        HomaEndpoint server = endpoint(TransportType.AUTO);
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        HomaException e = homaFailure(client.call(server.localAddress(), Unpooled.buffer(1).writeByte(1),
                CallOptions.timeout(Duration.ofMillis(20))));
        assertEquals(ErrorCode.DEADLINE_EXCEEDED, e.code(), "every request was dropped on the way out");
        assertEquals(1, filter.droppedOutbound());
        assertEquals(1, client.transportStats().filteredOutbound());
    }

    @Test
    void endpointsShareOneEventLoopGroupAndOnePort() throws Exception {
        var group = new io.netty.channel.MultiThreadIoEventLoopGroup(2, io.netty.channel.epoll.EpollIoHandler.newFactory());
        try {
            HomaEndpoint first = endpoint(HomaEndpoint.builder().eventLoopGroup(group));
            HomaEndpoint second = endpoint(HomaEndpoint.builder().eventLoopGroup(group)
                    .port(first.localAddress().getPort()).joinExistingPort(true));
            assertEquals(first.localAddress(), second.localAddress());
            first.serve((ctx, request) -> ctx.reply(new byte[] {1}));
            second.serve((ctx, request) -> ctx.reply(new byte[] {2}));
            // Each client's traffic hashes to one of the two; over several clients both usually answer, but
            // the hash is the kernel's, so assert only that every call is answered by one of them.
            for (int i = 0; i < 6; i++) {
                HomaEndpoint client = endpoint(TransportType.AUTO);
                byte[] r = client.call(first.localAddress(), new byte[0]).get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertTrue(r[0] == 1 || r[0] == 2);
            }
            first.close();
            second.close();
            assertFalse(group.isShuttingDown(), "a shared group is not the endpoint's to stop");
            var nio = new io.netty.channel.MultiThreadIoEventLoopGroup(1, io.netty.channel.nio.NioIoHandler.newFactory());
            try {
                assertThrows(IllegalArgumentException.class,
                        () -> HomaEndpoint.builder().eventLoopGroup(nio).transport(TransportType.EPOLL).build());
            } finally {
                nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
        } finally {
            endpoints.forEach(HomaEndpoint::close);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void closeFromAHandlerOnTheLoopDoesNotHang() throws Exception {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        CountDownLatch closedInside = new CountDownLatch(1);
        server.serve((ctx, request) -> {
            server.close();
            closedInside.countDown();
        });
        HomaEndpoint client = endpoint(TransportType.AUTO);
        CompletableFuture<byte[]> f = client.call(server.localAddress(), new byte[1], CallOptions.timeout(Duration.ofMillis(50)));
        assertTrue(closedInside.await(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(server.isClosed());
        assertEquals(ErrorCode.DEADLINE_EXCEEDED, homaFailure(f).code());
    }

    @Test
    void closeAfterTheSharedGroupWasShutDownFailsCallsAndReturns() throws Exception {
        var group = new io.netty.channel.MultiThreadIoEventLoopGroup(1, io.netty.channel.epoll.EpollIoHandler.newFactory());
        HomaEndpoint server = endpoint(TransportType.AUTO);
        CountDownLatch delivered = new CountDownLatch(1);
        server.serve((ctx, request) -> delivered.countDown());
        HomaEndpoint client = HomaEndpoint.builder().eventLoopGroup(group).engineFactory(FakeEngine.factory()).build();
        CompletableFuture<byte[]> f = client.call(server.localAddress(), new byte[1]);
        assertTrue(delivered.await(WAIT_SECONDS, TimeUnit.SECONDS));
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        client.close();
        assertTrue(f.isDone(), "the outstanding call ended");
        assertEquals(ErrorCode.CANCELLED, homaFailure(f).code());
    }
}
