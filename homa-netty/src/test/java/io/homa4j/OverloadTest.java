package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.PacketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Overload over loopback UDP: a client over its {@code maxOutstandingRpcs} fails at once with RESOURCE_EXHAUSTED
 * (nothing sent); a handler slower than the client's abort time still gets its response through, because the
 * server answers the client's RESENDs with BUSY; a handler executor that refuses work yields RESOURCE_EXHAUSTED
 * (retry-safe: the handler never ran).
 */
class OverloadTest {
    private static final long WAIT_SECONDS = 60;
    private final OpenedEndpoints endpoints = new OpenedEndpoints();
    private final List<ExecutorService> executors = new ArrayList<>();

    @AfterEach
    void closeAll() {
        endpoints.closeAll();
        executors.forEach(ExecutorService::shutdownNow);
    }

    private HomaEndpoint endpoint(HomaConfig config) {
        HomaEndpoint e = HomaEndpoint.builder().config(config).build();
        endpoints.add(e);
        return e;
    }

    @Test
    void callsBeyondMaxOutstandingFailFastWithResourceExhausted() throws Exception {
        HomaEndpoint server = endpoint(HomaConfig.defaults());
        ArrayBlockingQueue<RpcContext> held = new ArrayBlockingQueue<>(16);
        server.serve((ctx, request) -> held.add(ctx)); // answers nothing until the test says so
        HomaEndpoint client = endpoint(HomaConfig.builder().maxOutstandingRpcs(8).build());

        List<CompletableFuture<byte[]>> admitted = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            admitted.add(client.call(server.localAddress(), new byte[] {(byte) i}));
        }
        for (int i = 0; i < 8; i++) {
            assertTrue(held.poll(WAIT_SECONDS, TimeUnit.SECONDS) != null, "request " + i + " reached the handler");
        }
        long dataSent = client.metricsNow().join().packetsOut(PacketType.DATA);

        CompletableFuture<byte[]> ninth = client.call(server.localAddress(), new byte[] {9});
        ExecutionException e = assertThrows(ExecutionException.class, () -> ninth.get(WAIT_SECONDS, TimeUnit.SECONDS));
        HomaException refused = assertInstanceOf(HomaException.class, e.getCause());
        assertEquals(ErrorCode.RESOURCE_EXHAUSTED, refused.code());
        assertTrue(refused.isRetrySafe(), "nothing of it was sent");
        assertEquals(dataSent, client.metricsNow().join().packetsOut(PacketType.DATA), "the refused call sent no packet");
        assertTrue(admitted.stream().noneMatch(CompletableFuture::isDone), "the admitted calls are unaffected");

        // Capacity comes back as calls end: cancel one, and a new call is admitted and answered.
        admitted.get(0).cancel(false);
        server.close();
        HomaEndpoint echo = endpoint(HomaConfig.defaults());
        echo.serve((ctx, request) -> ctx.reply(request.retain()));
        assertArrayEquals(new byte[] {10}, client.call(echo.localAddress(), new byte[] {10})
                .get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aHandlerSlowerThanTheClientsAbortTimeIsKeptAliveWithBusy() throws Exception {
        // The client gives a silent server up after 250 ms; each handler takes 4 times as long. (Not much shorter:
        // on a machine shared by several builds an event loop may not run for 100 ms.)
        HomaConfig impatient = HomaConfig.builder().tickNanos(1_000_000).resendTicks(5).abortTicks(250).build();
        long abortMillis = impatient.abortTicks() * impatient.tickNanos() / 1_000_000;
        long handlerMillis = 4 * abortMillis;
        HomaEndpoint server = endpoint(impatient);
        ExecutorService workers = Executors.newFixedThreadPool(8);
        executors.add(workers);
        server.serve((ctx, request) -> {
            if (request.readableBytes() > 1) {
                Thread.sleep(handlerMillis); // the slow handler under test, not synchronisation
            }
            ctx.reply(request.retain());
        }, workers);
        HomaEndpoint client = endpoint(impatient);
        warmUpJvm();
        client.call(server.localAddress(), new byte[] {1}).get(WAIT_SECONDS, TimeUnit.SECONDS); // and these two
        long busyBefore = server.metricsNow().join().packetsOut(PacketType.BUSY);

        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        List<byte[]> requests = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            byte[] request = new byte[i % 2 == 0 ? 100 : 50_000];
            Arrays.fill(request, (byte) i);
            requests.add(request);
            calls.add(client.call(server.localAddress(), request));
        }
        for (int i = 0; i < calls.size(); i++) {
            assertArrayEquals(requests.get(i), calls.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS), "call " + i);
        }
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        MetricsSnapshot s = server.metricsNow().join();
        MetricsSnapshot c = client.metricsNow().join();
        long busy = s.packetsOut(PacketType.BUSY) - busyBefore;
        System.out.printf("slow handler: 8 calls of %d ms handlers (client abort %d ms) took %d ms; server sent %d"
                + " BUSY, client sent %d RESEND%n", handlerMillis, abortMillis, elapsedMillis, busy,
                c.packetsOut(PacketType.RESEND));
        assertTrue(elapsedMillis >= handlerMillis, "the handlers outlasted the abort time: " + elapsedMillis + " ms");
        assertEquals(0, c.totalClientFailed(), "no call was given up");
        // Each call waited handlerMillis (4 abort times) with no data; a RESEND is due after 5 silent ticks, then
        // (answered BUSY) every 10, 20, then abortTicks/10 ticks: about 40 BUSY per call; at least half of that
        // even when the machine delays the timers.
        assertTrue(busy >= 8 * 20, "the server kept the clients waiting with BUSY: " + busy);
    }

    /**
     * One large call between patient endpoints: in a fresh JVM the first pooled-chunk allocation alone (Netty's
     * JFR event class initialising) can stall an event loop for longer than an impatient client's abort time.
     */
    private static void warmUpJvm() throws Exception {
        try (HomaEndpoint server = HomaEndpoint.builder().build(); HomaEndpoint client = HomaEndpoint.builder().build()) {
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            client.call(server.localAddress(), new byte[200_000]).get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Test
    void aHandlerExecutorThatRefusesWorkAnswersOverloaded() throws Exception {
        HomaEndpoint server = endpoint(HomaConfig.defaults());
        ThreadPoolExecutor oneAtATime = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(1));
        executors.add(oneAtATime);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        server.serve((ctx, request) -> {
            release.await();
            ctx.reply(request.retain());
        }, oneAtATime);
        HomaEndpoint client = endpoint(HomaConfig.defaults());
        CompletableFuture<byte[]> running = client.call(server.localAddress(), new byte[] {1});
        awaitTrue(() -> oneAtATime.getActiveCount() == 1, "the first handler occupies the only thread");
        CompletableFuture<byte[]> queued = client.call(server.localAddress(), new byte[] {2});
        awaitTrue(() -> oneAtATime.getQueue().size() == 1, "the second request fills the queue");
        CompletableFuture<byte[]> refused = client.call(server.localAddress(), new byte[] {3});
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> refused.get(WAIT_SECONDS, TimeUnit.SECONDS));
        HomaException overloaded = assertInstanceOf(HomaException.class, e.getCause());
        assertEquals(ErrorCode.RESOURCE_EXHAUSTED, overloaded.code());
        assertTrue(overloaded.isRetrySafe(), "the handler never ran");
        assertFalse(running.isDone());
        release.countDown();
        assertArrayEquals(new byte[] {1}, running.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertArrayEquals(new byte[] {2}, queued.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    /** Spins until {@code condition} holds (a state of the executor, which offers no latch), at most WAIT_SECONDS. */
    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "timed out waiting until " + what);
            Thread.onSpinWait();
        }
    }
}
