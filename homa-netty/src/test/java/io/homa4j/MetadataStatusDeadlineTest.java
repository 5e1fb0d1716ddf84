package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Request and response headers, application status and the request's deadline, end to end over loopback UDP. */
class MetadataStatusDeadlineTest {
    private static final long WAIT_SECONDS = 10;
    private final OpenedEndpoints endpoints = new OpenedEndpoints();

    @AfterEach
    void closeAll() {
        endpoints.closeAll();
    }

    private HomaEndpoint endpoint() {
        return endpoints.add(HomaEndpoint.builder().build());
    }

    private static HomaException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        return assertInstanceOf(HomaException.class, e.getCause());
    }

    @Test
    void headersTravelWithTheRequestAndTheResponse() throws Exception {
        HomaEndpoint server = endpoint();
        AtomicReference<Metadata> seen = new AtomicReference<>();
        server.serve((ctx, request) -> {
            seen.set(ctx.metadata());
            ctx.reply(request.retain(), Metadata.of("served-by", "shard-7"));
        });
        HomaEndpoint client = endpoint();
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        CallOptions options = CallOptions.timeout(Duration.ofSeconds(WAIT_SECONDS))
                .withMetadata(Metadata.of("traceparent", traceparent));
        try (RpcResponse response = client.callForResponse(server.localAddress(),
                Unpooled.copiedBuffer("get k", StandardCharsets.UTF_8), options).get(WAIT_SECONDS, TimeUnit.SECONDS)) {
            assertEquals("get k", response.payload().toString(StandardCharsets.UTF_8), "the envelope is not seen");
            assertEquals(Metadata.of("served-by", "shard-7"), response.metadata());
        }
        assertEquals(traceparent, seen.get().get("traceparent"));

        // The plain call API carries the payload alone, and a request without headers reads as empty.
        ByteBuf plain = client.call(server.localAddress(), Unpooled.wrappedBuffer(new byte[] {1, 2, 3}))
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        try {
            assertEquals(3, plain.readableBytes());
        } finally {
            plain.release();
        }
        assertTrue(seen.get().isEmpty());
    }

    @Test
    void theHandlerAndTheCallerSeeThePayloadAtIndexZero() throws Exception {
        HomaEndpoint server = endpoint();
        AtomicReference<String> seen = new AtomicReference<>();
        server.serve((ctx, request) -> {
            seen.set(request.readerIndex() + ":" + request.getByte(0));
            ctx.reply(Unpooled.wrappedBuffer(new byte[] {9, 8}));
        });
        HomaEndpoint client = endpoint();
        ByteBuf response = client.call(server.localAddress(), Unpooled.wrappedBuffer(new byte[] {5, 6}),
                CallOptions.timeout(Duration.ofSeconds(WAIT_SECONDS)).withMetadata(Metadata.of("k", "v")))
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        try {
            assertEquals("0:5", seen.get(), "the envelope is not part of what the handler sees");
            assertEquals(0, response.readerIndex());
            assertEquals(9, response.getByte(0));
        } finally {
            response.release();
        }
    }

    @Test
    void aHandlerFailsWithAnApplicationStatusAndHeaders() throws Exception {
        HomaEndpoint server = endpoint();
        server.serve((ctx, request) -> ctx.fail(404, "no such key", Metadata.of("retry-after", "5")));
        HomaEndpoint client = endpoint();
        HomaException e = failure(client.call(server.localAddress(), new byte[] {1}));
        assertEquals(ErrorCode.HANDLER_ERROR, e.code());
        assertEquals(404, e.applicationStatus());
        assertEquals("5", e.metadata().get("retry-after"));
        assertTrue(e.getMessage().contains("no such key"), e.getMessage());
        assertFalse(e.isRetrySafe(), "the handler ran");

        HomaEndpoint plainFailure = endpoint();
        plainFailure.serve((ctx, request) -> ctx.fail("broken"));
        HomaException plain = failure(client.call(plainFailure.localAddress(), new byte[] {1}));
        assertEquals(ErrorCode.HANDLER_ERROR, plain.code());
        assertEquals(0, plain.applicationStatus(), "fail(String) carries no status");
    }

    @Test
    void statusZeroIsNotAFailure() throws Exception {
        HomaEndpoint server = endpoint();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        server.serve((ctx, request) -> {
            try {
                ctx.fail(0, "ok?");
            } catch (IllegalArgumentException expected) {
                thrown.set(expected);
                ctx.reply(new byte[] {0});
            }
        });
        HomaEndpoint client = endpoint();
        assertEquals(1, client.call(server.localAddress(), new byte[] {1}).get(WAIT_SECONDS, TimeUnit.SECONDS).length);
        assertInstanceOf(IllegalArgumentException.class, thrown.get());
    }

    @Test
    void theHandlerSeesTheCallersRemainingDeadline() throws Exception {
        HomaEndpoint server = endpoint();
        AtomicLong remaining = new AtomicLong();
        AtomicLong deadline = new AtomicLong();
        server.serve((ctx, request) -> {
            remaining.set(ctx.remainingNanos());
            deadline.set(ctx.deadlineNanos());
            ctx.reply(new byte[0]);
        });
        HomaEndpoint client = endpoint();
        long budget = TimeUnit.SECONDS.toNanos(3);
        long before = System.nanoTime();
        client.call(server.localAddress(), new byte[] {1}, CallOptions.timeout(Duration.ofNanos(budget)))
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        long after = System.nanoTime();
        assertTrue(remaining.get() > 0 && remaining.get() <= budget, "remaining " + remaining.get());
        // Sent as the time left at the call, counted from delivery: not before the client's own deadline, and
        // later by no more than the call took.
        long clientDeadline = before + budget;
        assertTrue(deadline.get() >= clientDeadline - TimeUnit.MICROSECONDS.toNanos(1)
                && deadline.get() <= after + budget, "deadline " + (deadline.get() - clientDeadline) + " ns late");

        client.call(server.localAddress(), new byte[] {1}, CallOptions.NO_DEADLINE).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(Long.MAX_VALUE, deadline.get(), "no deadline: none seen");
        assertEquals(Long.MAX_VALUE, remaining.get());
    }
}
