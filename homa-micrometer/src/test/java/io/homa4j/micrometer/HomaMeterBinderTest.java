package io.homa4j.micrometer;

import io.homa4j.CallOptions;
import io.homa4j.HomaEndpoint;
import io.homa4j.HomaException;
import io.homa4j.RpcObserver;
import io.homa4j.core.ErrorCode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The binder over real UDP: two endpoints on loopback, each with its own binder and registry. */
class HomaMeterBinderTest {
    private static final CallOptions FIVE_SECONDS = CallOptions.timeout(Duration.ofSeconds(5));
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final AtomicLong clock = new AtomicLong();
    private final SimpleMeterRegistry clientRegistry = new SimpleMeterRegistry();
    private final SimpleMeterRegistry serverRegistry = new SimpleMeterRegistry();

    /** Told after the binder, so the test reads meters only once the binder recorded every call's end. */
    private static final class Ends implements RpcObserver {
        private volatile CountDownLatch ended = new CountDownLatch(0);

        void expect(int count) {
            ended = new CountDownLatch(count);
        }

        void await() throws InterruptedException {
            assertTrue(ended.await(10, TimeUnit.SECONDS), "the observer saw every call end");
        }

        @Override
        public void callCompleted(long rpcId, InetSocketAddress server, int requestBytes, int responseBytes,
                                  long rttNanos) {
            ended.countDown();
        }

        @Override
        public void callFailed(long rpcId, InetSocketAddress server, int requestBytes, ErrorCode code,
                               long elapsedNanos) {
            ended.countDown();
        }

        @Override
        public void requestServed(long rpcId, InetSocketAddress client, int requestBytes, int responseBytes,
                                  long serviceNanos) {
            ended.countDown();
        }
    }

    @Test
    void callsAreTimedByOutcomeAndSizeAndTheBusiestPeerIsPublished() throws Exception {
        try (HomaMeterBinder clientMetrics = HomaMeterBinder.builder().clock(clock::get)
                     .busiestPeers(3, Duration.ofNanos(WINDOW_NANOS)).build();
             HomaMeterBinder serverMetrics = HomaMeterBinder.builder().build()) {
            Ends clientEnds = new Ends();
            Ends serverEnds = new Ends();
            try (HomaEndpoint server = HomaEndpoint.builder().observer(RpcObserver.all(serverMetrics, serverEnds))
                         .build();
                 HomaEndpoint client = HomaEndpoint.builder().observer(RpcObserver.all(clientMetrics, clientEnds))
                         .build()) {
                server.serve((ctx, request) -> {
                    if (request.getByte(0) == 1) {
                        ctx.fail("refused");
                    } else {
                        ctx.reply(request.retain());
                    }
                });
                clientMetrics.attach(client).bindTo(clientRegistry);
                serverMetrics.attach(server).bindTo(serverRegistry);

                clientEnds.expect(5);
                serverEnds.expect(5);
                for (int i = 0; i < 3; i++) {
                    client.call(server.localAddress(), new byte[100], FIVE_SECONDS).get(10, TimeUnit.SECONDS);
                }
                client.call(server.localAddress(), new byte[2_000], FIVE_SECONDS).get(10, TimeUnit.SECONDS);
                byte[] refused = new byte[100];
                refused[0] = 1;
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> client.call(server.localAddress(), refused, FIVE_SECONDS).get(10, TimeUnit.SECONDS));
                assertEquals(ErrorCode.HANDLER_ERROR, assertInstanceOf(HomaException.class, e.getCause()).code());
                clientEnds.await();
                serverEnds.await();

                assertEquals(3, clientRegistry.get("homa.client.calls").tag("outcome", "ok").tag("size", "0-1024")
                        .timer().count());
                assertEquals(1, clientRegistry.get("homa.client.calls").tag("outcome", "ok")
                        .tag("size", "1025-65536").timer().count());
                assertEquals(1, clientRegistry.get("homa.client.calls").tag("outcome", "HANDLER_ERROR")
                        .tag("size", "0-1024").timer().count());
                assertTrue(clientRegistry.get("homa.client.calls").tag("outcome", "ok").tag("size", "0-1024")
                        .timer().totalTime(TimeUnit.NANOSECONDS) > 0);
                assertEquals(4, serverRegistry.get("homa.server.requests").tag("outcome", "replied").timers()
                        .stream().mapToLong(t -> t.count()).sum());
                assertEquals(1, serverRegistry.get("homa.server.requests").tag("outcome", "failed")
                        .tag("size", "0-1024").timer().count());

                // The engine meters read the published snapshot; have both loops publish one after the calls.
                client.metricsNow().get(10, TimeUnit.SECONDS);
                server.metricsNow().get(10, TimeUnit.SECONDS);
                assertEquals(5, clientRegistry.get("homa.client.rpcs").tag("event", "started").functionCounter()
                        .count());
                assertEquals(5, serverRegistry.get("homa.server.rpcs").tag("event", "delivered").functionCounter()
                        .count());
                assertEquals(client.transportStats().datagramsSent(), clientRegistry.get("homa.transport.datagrams")
                        .tag("direction", "sent").functionCounter().count(), 0.0);

                // Close the window: the five calls to the server, over 10 s of the test's clock.
                clock.addAndGet(WINDOW_NANOS);
                clientEnds.expect(1);
                client.call(server.localAddress(), new byte[10], FIVE_SECONDS).get(10, TimeUnit.SECONDS);
                clientEnds.await();
                clientMetrics.refreshPeers();
                String peer = server.localAddress().getHostString() + ":" + server.localAddress().getPort();
                assertEquals(0.5, clientRegistry.get("homa.peer.calls").tag("peer", peer).gauge().value(), 1e-9);
                assertEquals(0.1, clientRegistry.get("homa.peer.failures").tag("peer", peer).gauge().value(), 1e-9);
                assertEquals((3 * 100 + 2_000 + 100) / 10.0,
                        clientRegistry.get("homa.peer.sent").tag("peer", peer).gauge().value(), 1e-9);
                assertEquals((3 * 100 + 2_000) / 10.0,
                        clientRegistry.get("homa.peer.received").tag("peer", peer).gauge().value(), 1e-9);

                // Two windows without an event: the endpoint has no busy peer any more.
                clock.addAndGet(2 * WINDOW_NANOS + 1);
                clientMetrics.refreshPeers();
                assertTrue(clientRegistry.find("homa.peer.calls").gauges().isEmpty());
            }
        }
    }

    @Test
    void bindingWithoutAnEndpointIsRefused() {
        try (HomaMeterBinder metrics = HomaMeterBinder.builder().build()) {
            assertThrows(IllegalStateException.class, () -> metrics.bindTo(new SimpleMeterRegistry()));
        }
    }
}
