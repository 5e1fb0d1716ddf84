package io.homa4j.bench.transport;

import io.homa4j.HomaEndpoint;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** A Homa bench client given its process's echo server calls from that server's endpoint, and leaves it open. */
class HomaSharedEndpointTest {
    private static final TransportOptions OPTIONS = TransportOptions.loopback(1000, 100_000);

    @Test
    void callsLeaveFromTheLocalServersPortAndClosingTheClientKeepsItServing() throws Exception {
        CompletableFuture<InetSocketAddress> seenFrom = new CompletableFuture<>();
        try (HomaEndpoint remote = HomaEndpoint.builder().bindAddress(OPTIONS.bindAddress()).build();
             BenchServer local = Protocol.HOMA.startServer(OPTIONS);
             HomaEndpoint third = HomaEndpoint.builder().bindAddress(OPTIONS.bindAddress()).build()) {
            remote.serve((ctx, request) -> {
                seenFrom.complete(ctx.client());
                ctx.reply(request.retain());
            });
            BenchClient client = Protocol.HOMA.connect(List.of(remote.localAddress()), OPTIONS, local);
            assertEquals(3_000, client.call(0, Unpooled.directBuffer(3_000).writeZero(3_000))
                    .get(10, TimeUnit.SECONDS));
            assertEquals(local.localAddress().getPort(), seenFrom.get(10, TimeUnit.SECONDS).getPort());
            client.close();

            byte[] echoed = third.call(local.localAddress(), new byte[] {1, 2, 3}).get(10, TimeUnit.SECONDS);
            assertEquals(3, echoed.length);
        }
    }

    @Test
    void withoutALocalServerTheClientHasItsOwnEndpoint() throws Exception {
        CompletableFuture<InetSocketAddress> seenFrom = new CompletableFuture<>();
        try (HomaEndpoint remote = HomaEndpoint.builder().bindAddress(OPTIONS.bindAddress()).build();
             BenchServer local = Protocol.HOMA.startServer(OPTIONS);
             BenchClient client = Protocol.HOMA.connect(List.of(remote.localAddress()), OPTIONS)) {
            remote.serve((ctx, request) -> {
                seenFrom.complete(ctx.client());
                ctx.reply(request.retain());
            });
            assertEquals(10, client.call(0, Unpooled.directBuffer(10).writeZero(10)).get(10, TimeUnit.SECONDS));
            int from = seenFrom.get(10, TimeUnit.SECONDS).getPort();
            assertNotEquals(local.localAddress().getPort(), from, "a client of its own");
        }
    }
}
