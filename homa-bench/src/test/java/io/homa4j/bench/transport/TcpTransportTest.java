package io.homa4j.bench.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TcpTransportTest {
    private static final TransportOptions OPTIONS = TransportOptions.loopback(1000, 1_000_000);

    @Test
    void echoesEveryLengthOnEveryConnectionOfEveryServer() throws Exception {
        try (BenchServer a = TcpEchoServer.start(OPTIONS); BenchServer b = TcpEchoServer.start(OPTIONS);
             TcpBenchClient client = TcpBenchClient.connect(List.of(a.localAddress(), b.localAddress()),
                     new TransportOptions(OPTIONS.bindAddress(), 0, 1000, 20, 1_000_000, 3))) {
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            List<Integer> lengths = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                int length = new int[] {0, 1, 100, 1_500, 65_536, 1_000_000}[i % 6];
                ByteBuf request = Unpooled.directBuffer(length).writeZero(length);
                calls.add(client.call(i % 2, request));
                lengths.add(length);
            }
            for (int i = 0; i < calls.size(); i++) {
                assertEquals(lengths.get(i), calls.get(i).get(10, TimeUnit.SECONDS), "call " + i);
            }
            assertEquals(2, client.servers());
        }
    }

    @Test
    void socketsUseCubicWhereTheKernelHasItElseTheSystemDefault() throws Exception {
        try (TcpEchoServer server = TcpEchoServer.start(OPTIONS);
             TcpBenchClient client = TcpBenchClient.connect(List.of(server.localAddress()), OPTIONS)) {
            assertEquals(1_000, client.call(0, Unpooled.directBuffer(1_000).writeZero(1_000))
                    .get(10, TimeUnit.SECONDS));
            Path available = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
            boolean cubicAvailable = Files.exists(available) && Files.readString(available).contains("cubic");
            boolean root = "root".equals(System.getProperty("user.name"));
            if (TcpSockets.epoll() && cubicAvailable && root) {
                assertEquals("cubic", client.congestionControl(), client.describe());
                assertEquals("cubic", server.congestionControl(), server.statistics());
            } else {
                assertEquals(TcpSockets.systemDefaultCongestionControl(), client.congestionControl().split(" ")[0]);
            }
        }
    }

    @Test
    void callsFailWhenTheServerGoesAwayAndAfterClose() throws Exception {
        TcpEchoServer server = TcpEchoServer.start(OPTIONS);
        InetSocketAddress address = server.localAddress();
        TcpBenchClient client = TcpBenchClient.connect(List.of(address), OPTIONS);
        try {
            assertEquals(10, client.call(0, Unpooled.directBuffer(10).writeZero(10)).get(10, TimeUnit.SECONDS));
            client.close();
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> client.call(0, Unpooled.directBuffer(10).writeZero(10)).get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof java.nio.channels.ClosedChannelException, e.toString());
        } finally {
            client.close();
            server.close();
        }
        assertThrows(IllegalStateException.class, () -> TcpBenchClient.connect(List.of(address), OPTIONS));
    }
}
