package io.homa4j.examples;

import io.homa4j.HomaEndpoint;
import io.homa4j.HomaException;
import io.homa4j.RpcObserver;
import io.homa4j.core.ErrorCode;
import io.homa4j.micrometer.HomaMeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The example service over real UDP on loopback: every feature it uses, asserted. */
class KvServiceTest {
    private static final Duration DEADLINE = Duration.ofSeconds(5);
    private static final String TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    /** Counts call ends after the binder recorded them, so the test reads meters only then. */
    private static final class Ends implements RpcObserver {
        volatile CountDownLatch latch = new CountDownLatch(0);

        @Override
        public void callCompleted(long rpcId, InetSocketAddress server, int requestBytes, int responseBytes,
                                  long rttNanos) {
            latch.countDown();
        }

        @Override
        public void callFailed(long rpcId, InetSocketAddress server, int requestBytes, ErrorCode code,
                               long elapsedNanos) {
            latch.countDown();
        }
    }

    private static HomaException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        return assertInstanceOf(HomaException.class, e.getCause());
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void lookupsWithDeadlinesMetadataCancellationMetricsAndGracefulShutdown() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Ends ends = new Ends();
        try (HomaMeterBinder metrics = HomaMeterBinder.builder().build();
             KvServer kv = new KvServer(HomaEndpoint.builder().build());
             HomaEndpoint clientEndpoint = HomaEndpoint.builder().observer(RpcObserver.all(metrics, ends)).build()) {
            metrics.attach(clientEndpoint).bindTo(registry);
            KvClient client = new KvClient(clientEndpoint, kv.endpoint().localAddress());
            kv.put("k", "v".getBytes(StandardCharsets.UTF_8));

            // Metadata both ways, asynchronously.
            ends.latch = new CountDownLatch(2);
            KvClient.Value v = client.get("k", DEADLINE, TRACE).get(10, TimeUnit.SECONDS);
            assertArrayEquals("v".getBytes(StandardCharsets.UTF_8), v.bytes());
            assertEquals(TRACE, v.traceparent(), "the server saw the request's header and answered with it");

            // Application status.
            HomaException missing = failure(client.get("nope", DEADLINE, TRACE));
            assertEquals(KvServer.NOT_FOUND, missing.applicationStatus());

            // Deadlines: the server sees the caller's remaining time and declines work it cannot finish in it...
            kv.lookupTime(Duration.ofMillis(500));
            ends.latch.await(10, TimeUnit.SECONDS);
            ends.latch = new CountDownLatch(2);
            assertEquals(KvServer.NO_TIME, failure(client.get("k", Duration.ofMillis(100), TRACE))
                    .applicationStatus());
            // ...and a caller that waits longer than its deadline gets DEADLINE_EXCEEDED. The lookup is held
            // (not timed) until the caller has failed, so no scheduling delay can let the answer arrive in time.
            kv.lookupTime(Duration.ZERO);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch held = new CountDownLatch(1);
            kv.onLookup(() -> {
                held.countDown();
                awaitUninterruptibly(release);
            });
            CompletableFuture<KvClient.Value> late = client.get("k", Duration.ofMillis(500), TRACE);
            HomaException timedOut = failure(late);
            assertTrue(held.await(10, TimeUnit.SECONDS), "the server accepted the lookup and was holding it");
            kv.onLookup(() -> { });
            release.countDown();
            assertEquals(ErrorCode.DEADLINE_EXCEEDED, timedOut.code(), timedOut.getMessage());

            // Cancellation aborts the RPC; the binder counts it.
            ends.latch.await(10, TimeUnit.SECONDS);
            ends.latch = new CountDownLatch(1);
            CompletableFuture<KvClient.Value> cancelled = client.get("k", DEADLINE, TRACE);
            assertTrue(cancelled.cancel(true));
            assertThrows(CancellationException.class, cancelled::join);
            assertTrue(ends.latch.await(10, TimeUnit.SECONDS));
            assertEquals(1, registry.get("homa.client.calls").tag("outcome", "CANCELLED").timers().stream()
                    .mapToLong(t -> t.count()).sum());
            assertEquals(1, registry.get("homa.client.calls").tag("outcome", "ok").timers().stream()
                    .mapToLong(t -> t.count()).sum());
            assertTrue(registry.get("homa.client.calls").tag("outcome", "HANDLER_ERROR").timers().stream()
                    .mapToLong(t -> t.count()).sum() >= 2);

            // Graceful shutdown: a lookup in flight finishes, a new one is refused, the server terminates.
            kv.lookupTime(Duration.ofMillis(300));
            CountDownLatch started = new CountDownLatch(1);
            kv.onLookup(started::countDown);
            CompletableFuture<KvClient.Value> inFlight = client.get("k", DEADLINE, TRACE);
            assertTrue(started.await(10, TimeUnit.SECONDS), "the lookup is running when the shutdown begins");
            kv.endpoint().shutdown(Duration.ofSeconds(5));
            HomaException refused = failure(client.get("k", DEADLINE, TRACE));
            assertEquals(ErrorCode.UNAVAILABLE, refused.code());
            assertTrue(refused.isRetrySafe());
            assertArrayEquals("v".getBytes(StandardCharsets.UTF_8), inFlight.get(10, TimeUnit.SECONDS).bytes());
            assertTrue(kv.shutdown(Duration.ofSeconds(5)), "drained and terminated");
        }
    }
}
