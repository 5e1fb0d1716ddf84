package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.DropReason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16, items 1 to 3, over loopback UDP, as the audit reproduced them: a released request, a handler that
 * releases its reply, a handler that never replies. Each fails its own call, typed; the endpoints keep serving
 * everyone else; nothing leaks (the suite's leak check).
 */
class MisuseTest {
    private static final long WAIT_SECONDS = 30;
    private final OpenedEndpoints endpoints = new OpenedEndpoints();

    @AfterEach
    void closeAll() {
        endpoints.closeAll();
    }

    private HomaEndpoint endpoint(HomaEndpointBuilder builder) {
        return endpoints.add(builder.build());
    }

    /** A pooled buffer of {@code length} bytes, written in one call (the paranoid leak detector records each). */
    private static ByteBuf bytes(int length, int seed) {
        byte[] content = new byte[length];
        for (int i = 0; i < length; i++) {
            content[i] = (byte) (i * 31 + seed);
        }
        return ByteBufAllocator.DEFAULT.buffer(length).writeBytes(content);
    }

    private static HomaException failure(CompletableFuture<?> call) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(WAIT_SECONDS, TimeUnit.SECONDS));
        return assertInstanceOf(HomaException.class, e.getCause());
    }

    private static void assertEcho(HomaEndpoint client, HomaEndpoint server, int length) throws Exception {
        byte[] request = new byte[length];
        request[length - 1] = 7;
        assertArrayEquals(request, client.call(server.localAddress(), request).get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aReleasedRequestIsRefusedToItsCallerAndTheEndpointKeepsWorking() throws Exception {
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        ByteBuf released = bytes(300_000, 1);
        released.release();
        assertThrows(IllegalArgumentException.class, () -> client.call(server.localAddress(), released));
        for (int i = 0; i < 3; i++) {
            assertEcho(client, server, 100_000);
        }
        assertEquals(0, client.metricsNow().get().drops(DropReason.INTERNAL_ERROR));
    }

    @Test
    void aHandlerThatReleasesItsReplyHarmsNoOtherCall() throws Exception {
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        server.serve((ctx, request) -> {
            if (request.readableBytes() == 1) {
                ByteBuf response = bytes(300_000, 2);
                ctx.reply(response);
                response.release(); // the audit's reproduction: the endpoint owns it now
            } else {
                ctx.reply(request.retain());
            }
        });
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        HomaEndpoint other = endpoint(HomaEndpoint.builder());
        byte[] expected = new byte[300_000];
        bytes(300_000, 2).readBytes(expected).release();
        List<CompletableFuture<byte[]>> misused = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            misused.add(client.call(server.localAddress(), new byte[1]));
            assertEcho(other, server, 50_000);
        }
        // The engine holds its own reference while it sends, so the early release frees nothing it still reads:
        // each response arrives whole, and the mistake is counted.
        for (CompletableFuture<byte[]> call : misused) {
            assertArrayEquals(expected, call.get(WAIT_SECONDS, TimeUnit.SECONDS));
        }
        assertEcho(client, server, 200_000);
        client.close(); // its ACKs are out: the server frees the responses
        assertTrue(server.metricsNow().get().buffersReleasedByOwner() <= 20);
        assertEquals(0, server.metricsNow().get().drops(DropReason.INTERNAL_ERROR));
    }

    @Test
    void aReplyWithAReleasedBufferThrowsToTheHandlerAndTheClientGetsHandlerError() throws Exception {
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        server.serve((ctx, request) -> {
            ByteBuf response = bytes(10, 3);
            response.release();
            try {
                ctx.reply(response);
            } catch (RuntimeException e) {
                thrown.complete(e);
                throw e;
            }
        });
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        assertEquals(ErrorCode.HANDLER_ERROR, failure(client.call(server.localAddress(), new byte[5])).code());
        assertInstanceOf(IllegalArgumentException.class, thrown.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    /**
     * A buffer that another owner releases right after its first {@code refCnt()} read, which is the API's check:
     * the interleaving in which a buffer handed to two calls (or used by two threads) is freed by the other one
     * between the endpoint's check and its use, made to happen every time.
     */
    private static ByteBuf releasedRightAfterTheCheck(int length) {
        return new UnpooledHeapByteBuf(UnpooledByteBufAllocator.DEFAULT, length, length) {
            private boolean checked;

            @Override
            public int refCnt() {
                int live = super.refCnt();
                if (!checked) {
                    checked = true;
                    release();
                }
                return live;
            }
        }.writerIndex(length);
    }

    @Test
    void aRequestReleasedWhileTheCallStartsFailsThatCallTypedAndGivesItsPlaceBack() throws Exception {
        // Found by EndpointFuzzTest: the envelope's header was allocated before the payload turned out released;
        // the IllegalReferenceCountException escaped from call() untyped, the header leaked (the suite's leak
        // check) and the call's place in the in-flight window was never given back.
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        HomaEndpoint client = endpoint(HomaEndpoint.builder().maxCallsInFlight(1));
        HomaException e = failure(client.call(server.localAddress(), releasedRightAfterTheCheck(100)));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.isRetrySafe(), "nothing was sent");
        assertTrue(client.isReady(), "the window's one place is free again");
        assertEcho(client, server, 1_000);
    }

    @Test
    void aReplyReleasedWhileTheHandlerRepliesAnswersHandlerErrorAtOnce() throws Exception {
        // The same interleaving in reply(): it counted as given before the envelope failed, so the handler's
        // exception could no longer answer, and the client waited for the handler timeout (60 s by default).
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        server.serve((ctx, request) -> {
            try {
                ctx.reply(releasedRightAfterTheCheck(10));
            } catch (RuntimeException e) {
                thrown.complete(e);
                throw e;
            }
        });
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        assertEquals(ErrorCode.HANDLER_ERROR, failure(client.call(server.localAddress(), new byte[5],
                CallOptions.timeout(Duration.ofSeconds(10)))).code());
        assertInstanceOf(IllegalArgumentException.class, thrown.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aCallToAHandlerThatNeverRepliesEndsAtTheDefaultDeadlineAndTheHandlerLearnsIt() throws Exception {
        HomaEndpoint server = endpoint(HomaEndpoint.builder());
        CompletableFuture<RpcContext> held = new CompletableFuture<>();
        CountDownLatch told = new CountDownLatch(1);
        server.serve((ctx, request) -> {
            ctx.onCancel(told::countDown);
            held.complete(ctx); // and never reply
        });
        HomaEndpoint client = endpoint(HomaEndpoint.builder().defaultCallTimeout(Duration.ofMillis(300)));
        long start = System.nanoTime();
        HomaException e = failure(client.call(server.localAddress(), new byte[100]));
        assertEquals(ErrorCode.DEADLINE_EXCEEDED, e.code());
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(300));
        assertTrue(told.await(WAIT_SECONDS, TimeUnit.SECONDS), "the handler was told the client gave up");
        RpcContext ctx = held.get();
        assertTrue(ctx.isCancelled());
        ctx.reply(new byte[3]); // too late: dropped and counted (the loop takes tasks in order: reply, then metrics)
        assertEquals(1, server.metricsNow().get().deadHandleReplies());
        assertEquals(0, server.metricsNow().get().serverRpcs(), "the server freed the RPC");
    }

    @Test
    void aHandlerThatNeverRepliesIsAnsweredDeadlineExceededByTheServerAndFreesItsSlot() throws Exception {
        HomaConfig config = HomaConfig.builder().maxServerRpcs(4).handlerTimeoutTicks(300).build();
        HomaEndpoint server = endpoint(HomaEndpoint.builder().config(config));
        List<RpcContext> held = new ArrayList<>();
        server.serve((ctx, request) -> {
            if (request.readableBytes() == 1) {
                held.add(ctx); // never replies (event loop: no lock needed)
            } else {
                ctx.reply(request.retain());
            }
        });
        HomaEndpoint client = endpoint(HomaEndpoint.builder());
        List<CompletableFuture<byte[]>> stuck = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            stuck.add(client.call(server.localAddress(), new byte[1], CallOptions.NO_DEADLINE));
        }
        for (CompletableFuture<byte[]> call : stuck) {
            HomaException e = failure(call);
            assertEquals(ErrorCode.DEADLINE_EXCEEDED, e.code());
            assertFalse(e.isRetrySafe());
        }
        assertEcho(client, server, 1_000); // the four slots are free again
        assertEquals(4, server.metricsNow().get().handlerTimeouts());
    }
}
