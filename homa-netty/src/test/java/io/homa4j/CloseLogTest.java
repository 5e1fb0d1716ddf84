package io.homa4j;

import io.homa4j.faults.DatagramFilter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultChannelPipeline;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16.7: closing an endpoint logged Netty's "An exceptionCaught() event was fired, and it reached at the tail
 * of the pipeline" with a {@code StacklessClosedChannelException} each time. Closing is not an error: this test
 * closes endpoints in every state (idle, with calls in flight both ways, under incoming traffic, with a packet
 * filter, after a graceful shutdown) and fails on any such line in what the JVM logged meanwhile (slf4j-simple
 * writes to {@code System.err}, which the test captures).
 */
class CloseLogTest {
    private static final String PROBE = "probe: an exception reached at the tail of the pipeline";
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream originalErr;

    @BeforeEach
    void captureErr() {
        originalErr = System.err;
        PrintStream tee = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                originalErr.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                }
                originalErr.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8);
        System.setErr(tee);
    }

    @AfterEach
    void restoreErr() {
        System.setErr(originalErr);
    }

    private String log() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    private static ByteBuf bytes(int length) {
        return Unpooled.wrappedBuffer(new byte[length]);
    }

    @Test
    void closingEndpointsInAnyStateLogsNoExceptionAtThePipelinesTail() throws Exception {
        // The capture sees what Netty logs there: a probe line through the pipeline's own logger.
        InternalLoggerFactory.getInstance(DefaultChannelPipeline.class).warn(PROBE);
        assertTrue(log().contains(PROBE), "Netty's log reaches System.err: " + log());
        int rounds = 0;
        for (TransportType transport : new TransportType[] {TransportType.AUTO, TransportType.NIO}) {
            for (boolean filtered : new boolean[] {false, true}) {
                for (int state = 0; state < 4; state++) {
                    HomaEndpointBuilder builder = HomaEndpoint.builder().transport(transport);
                    if (filtered) {
                        builder.packetFilter(DatagramFilter.lossy(rounds, 0.01));
                    }
                    closeInState(HomaEndpoint.builder().transport(transport).build(), builder.build(), state);
                    rounds++;
                }
            }
        }
        assertEquals(16, rounds);
        String log = log().replace(PROBE, "");
        assertFalse(log.contains("reached at the tail of the pipeline"), log);
        assertFalse(log.contains("ClosedChannelException"), log);
    }

    /** State 0: idle; 1: calls in flight; 2: the client closes first under responses; 3: graceful shutdown. */
    private static void closeInState(HomaEndpoint server, HomaEndpoint client, int state) throws Exception {
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        List<CompletableFuture<ByteBuf>> calls = new ArrayList<>();
        if (state >= 1) { // calls in flight both ways, some large
            for (int i = 0; i < 8; i++) {
                calls.add(client.call(server.localAddress(), bytes(i % 2 == 0 ? 100 : 500_000)));
            }
        }
        if (state == 2) {
            client.close();
            server.close();
        } else if (state == 3) { // the in-flight calls finish, then both close
            client.shutdown(Duration.ofSeconds(10));
            server.shutdown(Duration.ofSeconds(10));
            assertTrue(client.awaitTermination(30, TimeUnit.SECONDS));
            assertTrue(server.awaitTermination(30, TimeUnit.SECONDS));
        } else {
            server.close();
            client.close();
        }
        for (CompletableFuture<ByteBuf> call : calls) { // every call ended; release what came back
            assertTrue(call.isDone());
            call.handle((response, failure) -> response == null || response.release());
        }
    }
}
