package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Crash and restart under load, over loopback UDP: a server endpoint is closed (its engine and every server RPC
 * gone) and a new one bound to the same port, twice, while a client keeps 32 calls of mixed sizes outstanding.
 * Every call must end, in a byte-exact response or UNAVAILABLE; a call failed as retry-safe is re-issued by the
 * test (as an application would); and no request's handler may run twice, across both restarts: the engine
 * re-sends a request on its own only when the server provably never had all of it (docs/reliability.md).
 */
class CrashRestartTest {
    private static final int CALLS = 600;
    private static final int OUTSTANDING = 32;
    private static final int MAX_APP_RETRIES = 20;
    /** Default timers, but a 2 s abort: the suite may run on a starved machine (see HomaEndToEndTest). */
    private static final HomaConfig CONFIG = HomaConfig.builder().rttMicros(100).abortTicks(2_000).build();

    private final Map<Long, AtomicInteger> handlerRuns = new ConcurrentHashMap<>();
    private final OpenedEndpoints endpoints = new OpenedEndpoints();
    private final ExecutorService retrier = Executors.newSingleThreadExecutor();

    private final Semaphore slots = new Semaphore(OUTSTANDING);
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicInteger wrongBytes = new AtomicInteger();
    private final AtomicInteger appRetries = new AtomicInteger();
    private final Map<Long, HomaException> failures = new ConcurrentHashMap<>();
    private final Map<Long, Throwable> untyped = new ConcurrentHashMap<>();
    private final CountDownLatch allEnded = new CountDownLatch(CALLS);
    private final CountDownLatch thirdEnded = new CountDownLatch(CALLS / 3);
    private final CountDownLatch twoThirdsEnded = new CountDownLatch(2 * CALLS / 3);

    @AfterEach
    void closeAll() {
        endpoints.closeAll();
        retrier.shutdownNow();
    }

    private HomaEndpoint server(int port) {
        // The handler comes with the builder: a restarted server must serve the retries that reach it at once.
        HomaEndpoint server = HomaEndpoint.builder().config(CONFIG).port(port).handler((ctx, request) -> {
            handlerRuns.computeIfAbsent(request.getLong(request.readerIndex()), id -> new AtomicInteger())
                    .incrementAndGet();
            ctx.reply(request.retain());
        }).build();
        endpoints.add(server);
        return server;
    }

    @Test
    void callsEndInResponsesOrUnavailableAndNoHandlerRunsTwice() throws Exception {
        HomaEndpoint first = server(0);
        int port = first.localAddress().getPort();
        HomaEndpoint client = HomaEndpoint.builder().config(CONFIG).build();
        endpoints.add(client);
        SplittableRandom sizes = new SplittableRandom(3);

        Thread issuer = new Thread(() -> {
            for (long id = 0; id < CALLS; id++) {
                slots.acquireUninterruptibly();
                int length = Long.BYTES + (id % 8 == 0 ? 20_000 + sizes.nextInt(130_000) : sizes.nextInt(3_000));
                issue(client, first.localAddress(), id, length, 0);
            }
        }, "issuer");
        issuer.setDaemon(true); // a failed assertion must not leave it blocking the JVM's exit
        issuer.start();

        assertTrue(thirdEnded.await(60, TimeUnit.SECONDS), "a third of the calls ended before the first crash");
        first.close();
        HomaEndpoint second = server(port);
        assertTrue(twoThirdsEnded.await(60, TimeUnit.SECONDS), "two thirds ended before the second crash");
        second.close();
        server(port);
        assertTrue(allEnded.await(120, TimeUnit.SECONDS), "every call ended; completed " + completed + ", failed "
                + failures.size() + ", untyped " + untyped.size());
        issuer.join();

        assertEquals(Map.of(), untyped, "every failure is a HomaException");
        assertEquals(0, wrongBytes.get(), "every response is byte-exact");
        for (HomaException e : failures.values()) {
            assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
        }
        assertEquals(CALLS, completed.get() + failures.size());
        for (Map.Entry<Long, AtomicInteger> runs : handlerRuns.entrySet()) {
            assertEquals(1, runs.getValue().get(), "the handler ran once for request " + runs.getKey());
        }
        assertTrue(handlerRuns.size() >= completed.get(), "every completed call's handler ran");
        MetricsSnapshot metrics = client.metricsNow().join();
        long disrupted = failures.size() + appRetries.get() + metrics.clientRestarts();
        System.out.printf("crash/restart: %d completed, %d UNAVAILABLE, %d re-issued by the test, %d restarted by"
                + " the engine, %d handler runs%n", completed.get(), failures.size(), appRetries.get(),
                metrics.clientRestarts(), handlerRuns.values().stream().mapToInt(AtomicInteger::get).sum());
        assertTrue(disrupted > 0, "the crashes hit calls in flight");
    }

    private void issue(HomaEndpoint client, java.net.InetSocketAddress server, long id, int length, int attempt) {
        ByteBuf request = Unpooled.buffer(length).writeLong(id);
        for (int i = Long.BYTES; i < length; i++) {
            request.writeByte((int) (id * 31 + i));
        }
        byte[] expected = ByteBufUtil.getBytes(request);
        client.call(server, request).whenCompleteAsync((response, error) -> {
            if (error == null) {
                if (!ByteBufUtil.equals(Unpooled.wrappedBuffer(expected), response)) {
                    wrongBytes.incrementAndGet();
                }
                response.release();
                completed.incrementAndGet();
            } else if (error instanceof HomaException e && e.isRetrySafe() && attempt < MAX_APP_RETRIES) {
                appRetries.incrementAndGet();
                issue(client, server, id, length, attempt + 1); // keeps its slot
                return;
            } else if (error instanceof HomaException e) {
                failures.put(id, e);
            } else {
                untyped.put(id, error);
            }
            slots.release();
            thirdEnded.countDown();
            twoThirdsEnded.countDown();
            allEnded.countDown();
        }, retrier);
    }
}
