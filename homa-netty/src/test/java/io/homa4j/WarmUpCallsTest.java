package io.homa4j;

import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HomaEndpointBuilder#warmUpCalls} and {@link EndpointWarmUp}: the calls are made once per JVM, between
 * temporary endpoints, and the endpoint being built is left ordinary. The tests run with
 * {@code -Dhoma4j.warmUpCalls=0} (the build's surefire settings), so the JVM-wide warm-up is asked for only here.
 */
class WarmUpCallsTest {
    @Test
    void aWarmUpMakesItsCallsOneInThirtyTwoLongAndRunsOncePerWarmUp() {
        EndpointWarmUp warmUp = new EndpointWarmUp(System::nanoTime);
        EndpointWarmUp.Result first = warmUp.ensureWarm(TransportType.AUTO, HomaConfig.defaults(), 250);
        assertEquals(250, first.calls(), "every warm-up call was made and answered");
        assertEquals(250 / EndpointWarmUp.LARGE_EVERY, first.largeCalls(),
                "one call in " + EndpointWarmUp.LARGE_EVERY + " is a long message");
        assertEquals(EndpointWarmUp.Result.NONE, warmUp.ensureWarm(TransportType.AUTO, HomaConfig.defaults(), 250),
                "compiled code is the JVM's: a second warm-up has nothing to do");
    }

    @Test
    void aSlowConfiguredLinkDoesNotSlowTheWarmUp() {
        // 1 Mbit/s: 8 long calls of 256 KB would take 4 s each way at the configured rate
        HomaConfig slow = HomaConfig.builder().linkMbps(1).build();
        EndpointWarmUp.Result result = new EndpointWarmUp(System::nanoTime).ensureWarm(TransportType.AUTO, slow, 256);
        assertEquals(256, result.calls());
        assertEquals(8, result.largeCalls());
    }

    @Test
    void theWarmUpStopsAtItsTimeLimit() {
        AtomicLong now = new AtomicLong();
        // every clock read moves a second on: the limit passes after a few groups of calls
        EndpointWarmUp warmUp = new EndpointWarmUp(() -> now.addAndGet(TimeUnit.SECONDS.toNanos(1)));
        EndpointWarmUp.Result result = warmUp.ensureWarm(TransportType.AUTO, HomaConfig.defaults(), 100_000);
        long groups = TimeUnit.NANOSECONDS.toSeconds(EndpointWarmUp.TIME_LIMIT_NANOS);
        assertTrue(result.calls() > 0 && result.calls() <= groups * EndpointWarmUp.IN_FLIGHT,
                "stopped after at most " + groups + " groups: " + result.calls() + " calls");
    }

    @Test
    void theBuiltEndpointMakesNoneOfTheCallsAndServesAsUsual() throws Exception {
        try (HomaEndpoint server = HomaEndpoint.builder().build();
             HomaEndpoint built = HomaEndpoint.builder().warmUpCalls(100).build()) {
            assertEquals(0, built.metricsNow().get(20, TimeUnit.SECONDS).clientCalls(),
                    "the warm-up's calls are not the endpoint's");
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            byte[] request = {1, 2, 3};
            assertArrayEquals(request, built.call(server.localAddress(), request).get(20, TimeUnit.SECONDS));
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
