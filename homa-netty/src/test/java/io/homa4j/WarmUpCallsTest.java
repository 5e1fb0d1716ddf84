package io.homa4j;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link HomaEndpointBuilder#warmUpCalls}: the calls are made before build() returns, and the endpoint is ordinary. */
class WarmUpCallsTest {
    @Test
    void buildMakesTheWarmUpCallsAndReturnsAnOrdinaryEndpoint() throws Exception {
        try (HomaEndpoint server = HomaEndpoint.builder().build();
             HomaEndpoint warmed = HomaEndpoint.builder().warmUpCalls(250).build()) {
            io.homa4j.core.metrics.MetricsSnapshot metrics = warmed.metricsNow().get(20, TimeUnit.SECONDS);
            assertEquals(250, metrics.clientCalls(), "every warm-up call was made");
            assertEquals(250, metrics.clientCompleted(), "and answered, before build() returned");
            assertEquals(0, metrics.totalClientFailed());
            long largeCalls = 250 / EndpointWarmUp.LARGE_EVERY;
            assertTrue(metrics.dataBytesOut() >= largeCalls * EndpointWarmUp.LARGE_REQUEST_BYTES,
                    "one call in " + EndpointWarmUp.LARGE_EVERY + " is a long message: " + metrics.dataBytesOut()
                            + " B of DATA sent");
            assertTrue(metrics.packetsIn(io.homa4j.core.wire.PacketType.GRANT) > 0,
                    "the long calls were granted, as long messages are");

            server.serve((ctx, request) -> ctx.reply(request.retain()));
            byte[] request = {1, 2, 3};
            assertArrayEquals(request, warmed.call(server.localAddress(), request).get(20, TimeUnit.SECONDS));
        }
    }

    @Test
    void anEndpointOnTheWildcardAddressWarmsUpOverLoopback() throws Exception {
        try (HomaEndpoint warmed = HomaEndpoint.builder().bindAddress(java.net.InetAddress.getByName("0.0.0.0"))
                .warmUpCalls(100).build()) {
            assertEquals(100, warmed.metricsNow().get(20, TimeUnit.SECONDS).clientCompleted());
        }
    }

    @Test
    void noWarmUpByDefault() throws Exception {
        try (HomaEndpoint endpoint = HomaEndpoint.builder().build()) {
            assertEquals(0, endpoint.metricsNow().get(20, TimeUnit.SECONDS).clientCalls());
        }
    }

    @Test
    void warmUpCallsOutOfRangeAreRejected() {
        HomaEndpointBuilder builder = HomaEndpoint.builder();
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> builder.warmUpCalls(-1));
        assertEquals("warmUpCalls must be 0..1000000: -1", negative.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> builder.warmUpCalls(HomaEndpointBuilder.MAX_WARM_UP_CALLS + 1));
    }
}
