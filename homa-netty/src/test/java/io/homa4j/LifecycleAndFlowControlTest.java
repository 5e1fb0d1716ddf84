package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Graceful shutdown, the client's in-flight window, the server's overload limit and the callback executor, on
 * the real engine over loopback UDP.
 */
class LifecycleAndFlowControlTest {
    private static final long WAIT_SECONDS = 10;
    private final OpenedEndpoints endpoints = new OpenedEndpoints();
    private final List<ExecutorService> executors = new ArrayList<>();

    @AfterEach
    void closeAll() {
        endpoints.closeAll();
        executors.forEach(ExecutorService::shutdownNow);
    }

    private HomaEndpoint endpoint(HomaEndpointBuilder builder) {
        return endpoints.add(builder.build());
    }

    /** A server whose handler keeps every request's context until the test answers it. */
    private HomaEndpoint holdingServer(HomaEndpointBuilder builder, ArrayBlockingQueue<RpcContext> held) {
        HomaEndpoint server = endpoint(builder);
        server.serve((ctx, request) -> held.add(ctx));
        return server;
    }

    private static HomaException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        return assertInstanceOf(HomaException.class, e.getCause());
    }

    @Test
    void aShuttingDownServerFinishesWhatItHoldsAndRefusesNewRequests() throws Exception {
        ArrayBlockingQueue<RpcContext> held = new ArrayBlockingQueue<>(4);
        HomaEndpoint server = holdingServer(HomaEndpoint.builder(), held);
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        CompletableFuture<byte[]> inFlight = client.call(server.localAddress(), new byte[] {1});
        RpcContext first = held.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(first != null, "the request reached the handler");

        server.shutdown(Duration.ofSeconds(WAIT_SECONDS));
        assertTrue(server.isShutdown());
        HomaException refused = failure(client.call(server.localAddress(), new byte[] {2}));
        assertEquals(ErrorCode.UNAVAILABLE, refused.code());
        assertTrue(refused.isRetrySafe(), "the handler never ran");
        assertTrue(refused.getMessage().contains("shutting down"), refused.getMessage());
        assertFalse(server.isTerminated(), "the held request keeps the server up");

        first.reply(new byte[] {42});
        assertArrayEquals(new byte[] {42}, inFlight.get(WAIT_SECONDS, TimeUnit.SECONDS), "the held call completed");
        assertTrue(server.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), "drained, then closed");
        assertTrue(server.isClosed());
    }

    @Test
    void aShuttingDownClientLetsItsCallsFinishAndRefusesNewOnes() throws Exception {
        ArrayBlockingQueue<RpcContext> held = new ArrayBlockingQueue<>(4);
        HomaEndpoint server = holdingServer(HomaEndpoint.builder(), held);
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        CompletableFuture<byte[]> inFlight = client.call(server.localAddress(), new byte[] {1});
        RpcContext ctx = held.poll(WAIT_SECONDS, TimeUnit.SECONDS);

        client.shutdown(Duration.ofSeconds(WAIT_SECONDS));
        HomaException late = failure(client.call(server.localAddress(), new byte[] {2}));
        assertEquals(ErrorCode.CANCELLED, late.code());
        assertTrue(late.isRetrySafe());
        assertFalse(client.awaitTermination(50, TimeUnit.MILLISECONDS), "a call is still in flight");

        ctx.reply(new byte[] {7});
        assertArrayEquals(new byte[] {7}, inFlight.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(client.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void whatIsStillInFlightWhenTheGraceEndsFailsCancelled() throws Exception {
        ArrayBlockingQueue<RpcContext> held = new ArrayBlockingQueue<>(4);
        HomaEndpoint server = holdingServer(HomaEndpoint.builder(), held);
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        CompletableFuture<byte[]> never = client.call(server.localAddress(), new byte[] {1});
        assertTrue(held.poll(WAIT_SECONDS, TimeUnit.SECONDS) != null);

        client.shutdown(Duration.ofMillis(100));
        assertTrue(client.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(ErrorCode.CANCELLED, failure(never).code());
    }

    @Test
    void theInFlightWindowRefusesACallOverItAndTellsWhenThereIsRoom() throws Exception {
        ArrayBlockingQueue<RpcContext> held = new ArrayBlockingQueue<>(4);
        HomaEndpoint server = holdingServer(HomaEndpoint.builder(), held);
        HomaEndpoint client = endpoint(HomaEndpoint.builder().maxCallsInFlight(2));
        CompletableFuture<byte[]> a = client.call(server.localAddress(), new byte[] {1});
        CompletableFuture<byte[]> b = client.call(server.localAddress(), new byte[] {2});
        assertFalse(client.isReady());

        HomaException full = failure(client.call(server.localAddress(), new byte[] {3}));
        assertEquals(ErrorCode.RESOURCE_EXHAUSTED, full.code());
        assertTrue(full.isRetrySafe(), "nothing of it was sent");
        assertFalse(client.awaitReady(Duration.ofMillis(20)), "no room while both calls are outstanding");

        CountDownLatch ready = new CountDownLatch(1);
        client.onReady(ready::countDown);
        assertEquals(1, ready.getCount(), "no room yet");
        RpcContext first = held.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(first != null);
        first.reply(new byte[] {1});
        assertTrue(ready.await(WAIT_SECONDS, TimeUnit.SECONDS), "a call ended, so onReady ran");
        assertTrue(client.awaitReady(Duration.ofSeconds(WAIT_SECONDS)));
        a.get(WAIT_SECONDS, TimeUnit.SECONDS);

        b.cancel(false);
        CompletableFuture<byte[]> c = client.call(server.localAddress(), new byte[] {4});
        CompletableFuture<byte[]> d = client.call(server.localAddress(), new byte[] {5});
        assertFalse(c.isDone() || d.isDone(), "a cancelled call gives its place back too");
    }

    @Test
    void aServerOverItsPendingLimitRefusesWithoutRunningTheHandler() throws Exception {
        ArrayBlockingQueue<RpcContext> held = new ArrayBlockingQueue<>(4);
        HomaEndpoint server = holdingServer(HomaEndpoint.builder().maxPendingRequests(1), held);
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        CompletableFuture<byte[]> first = client.call(server.localAddress(), new byte[] {1});
        RpcContext ctx = held.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(ctx != null);

        HomaException overloaded = failure(client.call(server.localAddress(), new byte[] {2}));
        assertEquals(ErrorCode.RESOURCE_EXHAUSTED, overloaded.code());
        assertTrue(overloaded.isRetrySafe(), "the handler never ran");
        assertTrue(overloaded.getMessage().contains("overloaded"), overloaded.getMessage());
        assertTrue(held.isEmpty(), "the handler did not see the refused request");

        ctx.reply(new byte[] {1});
        first.get(WAIT_SECONDS, TimeUnit.SECONDS);
        CompletableFuture<byte[]> third = client.call(server.localAddress(), new byte[] {3});
        RpcContext again = held.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(again != null, "room again once the first request was answered");
        again.reply(new byte[] {3});
        third.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void futuresCompleteOnTheCallbackExecutor() throws Exception {
        ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> new Thread(r, "app-callbacks"));
        executors.add(callbacks);
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        HomaEndpoint client = endpoint(HomaEndpoint.builder().callbackExecutor(callbacks));

        // The callback thread is held until the dependent stage is attached: the completion queues behind it, so
        // the stage cannot find the future already complete and run on this thread instead.
        HeldThread attached = HeldThread.hold(callbacks, WAIT_SECONDS);
        AtomicReference<String> completedOn = new AtomicReference<>();
        CompletableFuture<ByteBuf> f = client.call(server.localAddress(),
                io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {5}));
        CompletableFuture<Integer> length = f.thenApply(response -> {
            completedOn.set(Thread.currentThread().getName());
            int n = response.readableBytes();
            response.release();
            return n;
        });
        attached.release();
        assertEquals(1, length.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals("app-callbacks", completedOn.get());

        AtomicReference<String> failedOn = new AtomicReference<>();
        HomaEndpoint silent = endpoint(HomaEndpoint.builder());
        silent.serve((ctx, request) -> { });
        HeldThread failureAttached = HeldThread.hold(callbacks, WAIT_SECONDS);
        CompletableFuture<byte[]> timedOut = client.call(silent.localAddress(), new byte[] {1},
                CallOptions.timeout(Duration.ofMillis(20)));
        CompletableFuture<Void> seen = timedOut.handle((r, e) -> {
            failedOn.set(Thread.currentThread().getName());
            return null;
        });
        failureAttached.release();
        seen.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals("app-callbacks", failedOn.get(), "failures complete there too");
    }
}
