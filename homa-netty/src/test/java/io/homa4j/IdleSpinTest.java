package io.homa4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Idle spin: a loop that polls before it sleeps still runs the tasks other threads hand it while it spins and its
 * timers, so calls from another thread complete one after the other, concurrent ones too, and a deadline fires
 * while a spinning loop waits for a response that never comes. The spin is long (one second, the most allowed)
 * so that these happen during a spin, not after it.
 */
class IdleSpinTest {
    private static final int WAIT_SECONDS = 20;

    @Test
    void spinningEndpointsEchoAndFireDeadlines() throws Exception {
        try (HomaEndpoint server = HomaEndpoint.builder().idleSpin(Duration.ofMillis(1)).build();
             HomaEndpoint client = HomaEndpoint.builder().idleSpin(Duration.ofSeconds(1)).build()) {
            server.serve((ctx, request) -> {
                if (request.readableBytes() == 1) {
                    return; // never answered: only the client's deadline can end this call
                }
                ctx.reply(request.retain());
            });
            for (int i = 0; i < 20; i++) {
                byte[] request = {(byte) i, 2, 3};
                assertArrayEquals(request, client.call(server.localAddress(), request).get(WAIT_SECONDS,
                        TimeUnit.SECONDS));
            }
            CompletableFuture<byte[]> unanswered = client.call(server.localAddress(), new byte[] {9},
                    CallOptions.timeout(Duration.ofMillis(50)));
            // Handed to the client's loop while it spins for the unanswered call's response.
            List<CompletableFuture<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                calls.add(client.call(server.localAddress(), new byte[] {(byte) i, 7}));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertArrayEquals(new byte[] {(byte) i, 7}, calls.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS));
            }
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> unanswered.get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(io.homa4j.core.ErrorCode.DEADLINE_EXCEEDED,
                    assertInstanceOf(HomaException.class, e.getCause()).code());
        }
    }

    @Test
    void spinOutOfRangeIsRejected() {
        HomaEndpointBuilder builder = HomaEndpoint.builder();
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> builder.idleSpin(Duration.ofNanos(-1)));
        assertEquals("idleSpin must be 0..1 s: PT-0.000000001S", negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> builder.idleSpin(Duration.ofMillis(1_001)));
        assertThrows(NullPointerException.class, () -> builder.idleSpin(null));
    }
}
