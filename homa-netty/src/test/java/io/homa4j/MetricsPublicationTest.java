package io.homa4j;

import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link MetricsPublication}: snapshots ride on the loop's turns, and an idle endpoint is not woken for one. */
class MetricsPublicationTest {
    private static final long MS = 1_000_000;
    private static final long INTERVAL = 100 * MS;

    /** Snapshots taken so far (the engine's metrics are not needed to tell when one is taken). */
    private int taken;
    private final MetricsPublication publication = new MetricsPublication(() -> {
        taken++;
        return null;
    }, INTERVAL, 0);

    @Test
    void nothingIsDueUntilATurnEnds() {
        assertEquals(1, taken, "the first snapshot is taken at once");
        assertEquals(Long.MAX_VALUE, publication.dueByNanos(), "no turn, no change: no wake-up");
    }

    @Test
    void aTurnWithinHalfAnIntervalWaitsAndSetsTheDeadline() {
        publication.turnEnded(10 * MS);
        assertEquals(1, taken, "too soon after the last snapshot");
        assertEquals(INTERVAL, publication.dueByNanos(), "due one interval after the last snapshot");
        publication.turnEnded(INTERVAL / 2 - 1);
        assertEquals(1, taken);
        publication.turnEnded(INTERVAL / 2);
        assertEquals(2, taken, "a turn from half an interval on takes it");
        assertEquals(Long.MAX_VALUE, publication.dueByNanos(), "nothing changed since");
    }

    @Test
    void theWakeUpAtTheDeadlinePublishesAndArmsNothingMore() {
        publication.turnEnded(MS);
        // the driver's wake-up for the deadline is a turn of its own
        publication.turnEnded(publication.dueByNanos());
        assertEquals(2, taken);
        assertEquals(Long.MAX_VALUE, publication.dueByNanos(), "the wake-up's own turn does not ask for another");
    }

    @Test
    void publishingNowRestartsTheInterval() {
        publication.turnEnded(MS);
        publication.publish(2 * MS);
        assertEquals(2, taken);
        assertEquals(Long.MAX_VALUE, publication.dueByNanos());
        publication.turnEnded(3 * MS);
        assertEquals(2 * MS + INTERVAL, publication.dueByNanos());
    }

    @Test
    void aNonPositiveIntervalIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new MetricsPublication(() -> null, 0, 0));
    }

    @Test
    void anIdleEndpointArmsNoTimerAndItsMetricsCountItsLastCall() throws Exception {
        HomaConfig config = HomaConfig.defaults();
        try (EmbeddedNetwork net = new EmbeddedNetwork()) {
            InetSocketAddress serverAt = EmbeddedNetwork.address(42_000);
            InetSocketAddress clientAt = EmbeddedNetwork.address(42_001);
            HomaEndpoint server = net.endpoint(HomaEndpoint.builder(), serverAt, config);
            HomaEndpoint client = net.endpoint(HomaEndpoint.builder(), clientAt, config);
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            CompletableFuture<byte[]> call = new CompletableFuture<>();
            net.onLoop(clientAt, () -> client.call(serverAt, new byte[] {7}).whenComplete((r, e) -> {
                if (e != null) {
                    call.completeExceptionally(e);
                } else {
                    call.complete(r);
                }
            }));
            assertTrue(net.advanceUntil(call::isDone, 100 * MS, MS));
            assertArrayEquals(new byte[] {7}, call.get(0, TimeUnit.SECONDS));
            net.advance(2_000 * MS); // the server's lone wait for the ACK and every tick end well before this
            assertFalse(net.hasTimer(clientAt), "the idle client's loop has no timer armed");
            assertFalse(net.hasTimer(serverAt), "nor has the idle server's");
            assertEquals(1, client.metrics().clientCompleted(), "published before the loop went idle");
            assertEquals(1, server.metrics().requestsDelivered(), "on both sides");
            net.onLoop(clientAt, client::close);
            net.onLoop(serverAt, server::close);
        }
    }
}
