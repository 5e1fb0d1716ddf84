package io.homa4j;

import io.netty.channel.EventLoopGroup;
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
 * Busy-poll mode: a loop that never sleeps still runs its timers and the tasks other threads hand it, so calls
 * complete, deadlines fire while nothing arrives, and endpoints can share one busy-polling loop.
 */
class BusyPollTest {
    private static final int WAIT_SECONDS = 20;

    @Test
    void busyPollingEndpointsEchoAndFireDeadlinesWhileIdle() throws Exception {
        try (HomaEndpoint server = HomaEndpoint.builder().busyPoll(true).build();
             HomaEndpoint client = HomaEndpoint.builder().busyPoll(true).build()) {
            server.serve((ctx, request) -> {
                if (request.readableBytes() == 1) {
                    return; // never answered: only the client's deadline can end this call
                }
                ctx.reply(request.retain());
            });
            List<CompletableFuture<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                calls.add(client.call(server.localAddress(), new byte[] {(byte) i, 2, 3}));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertArrayEquals(new byte[] {(byte) i, 2, 3}, calls.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS));
            }
            CompletableFuture<byte[]> unanswered = client.call(server.localAddress(), new byte[] {9},
                    CallOptions.timeout(Duration.ofMillis(50)));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> unanswered.get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(io.homa4j.core.ErrorCode.DEADLINE_EXCEEDED,
                    assertInstanceOf(HomaException.class, e.getCause()).code());
        }
    }

    @Test
    void endpointsShareOneBusyPollingLoop() throws Exception {
        EventLoopGroup group = HomaEndpoint.newBusyPollingGroup(1);
        try (HomaEndpoint server = HomaEndpoint.builder().eventLoopGroup(group).build();
             HomaEndpoint client = HomaEndpoint.builder().eventLoopGroup(group).build()) {
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            byte[] request = new byte[100_000];
            request[99_999] = 42;
            assertArrayEquals(request, client.call(server.localAddress(), request).get(WAIT_SECONDS,
                    TimeUnit.SECONDS));
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * One call at a time, so most reads bring a lone packet and the sockets read them with a single slot
     * (recvmsg); every third call is 1 MB, whose first GSO run then arrives in such a read as one coalesced
     * datagram, which Netty cuts into packets. Every byte must come back, nothing may leak.
     */
    @Test
    void loneAndCoalescedReadsAlternateOnABusyLoop() throws Exception {
        EventLoopGroup group = HomaEndpoint.newBusyPollingGroup(1);
        try (HomaEndpoint server = HomaEndpoint.builder().eventLoopGroup(group).build();
             HomaEndpoint client = HomaEndpoint.builder().eventLoopGroup(group).build()) {
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            java.util.Random random = new java.util.Random(5);
            int[] sizes = {100, 1_000_000, 10};
            for (int i = 0; i < 30; i++) {
                byte[] request = new byte[sizes[i % sizes.length]];
                random.nextBytes(request);
                assertArrayEquals(request, client.call(server.localAddress(), request).get(WAIT_SECONDS,
                        TimeUnit.SECONDS), "call " + i);
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
