package io.homa4j.bench.transport;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The gRPC bench protocols echo what the bench sends, up to its longest message, through {@link Protocol}. */
class GrpcTransportTest {
    private static final int MAX_MESSAGE = 1_000_000;
    private static final TransportOptions OPTIONS = TransportOptions.loopback(1000, MAX_MESSAGE);

    @ParameterizedTest
    @EnumSource(value = Protocol.class, names = {"GRPC_HOMA", "GRPC_TCP"})
    void echoesEveryLengthUpToTheLongestMessageOnEveryServer(Protocol protocol) throws Exception {
        try (BenchServer a = protocol.startServer(OPTIONS); BenchServer b = protocol.startServer(OPTIONS);
             BenchClient client = protocol.connect(List.of(a.localAddress(), b.localAddress()), OPTIONS)) {
            assertEquals(2, client.servers());
            int[] lengths = {0, 1, 100, 1_500, 65_536, MAX_MESSAGE};
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 4 * lengths.length; i++) {
                int length = lengths[i % lengths.length];
                calls.add(client.call(i % 2, Unpooled.directBuffer(length).writeZero(length)));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertEquals(lengths[i % lengths.length], calls.get(i).get(30, TimeUnit.SECONDS),
                        protocol + " call " + i);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Protocol.class, names = {"GRPC_HOMA", "GRPC_TCP"})
    void callsFailAfterTheClientCloses(Protocol protocol) throws Exception {
        try (BenchServer server = protocol.startServer(OPTIONS)) {
            BenchClient client = protocol.connect(List.of(server.localAddress()), OPTIONS);
            assertEquals(10, client.call(0, Unpooled.directBuffer(10).writeZero(10)).get(30, TimeUnit.SECONDS));
            client.close();
            assertThrows(ExecutionException.class,
                    () -> client.call(0, Unpooled.directBuffer(10).writeZero(10)).get(30, TimeUnit.SECONDS));
            client.close();
        }
    }

    @org.junit.jupiter.api.Test
    void aGrpcHomaClientBesideItsHostsServerSendsFromTheServersEndpointAndLeavesItServing() throws Exception {
        try (BenchServer local = Protocol.GRPC_HOMA.startServer(OPTIONS);
             BenchServer other = Protocol.GRPC_HOMA.startServer(OPTIONS)) {
            BenchClient client = Protocol.GRPC_HOMA.connect(List.of(other.localAddress()), OPTIONS, local);
            assertEquals(100, client.call(0, Unpooled.directBuffer(100).writeZero(100)).get(30, TimeUnit.SECONDS));
            org.junit.jupiter.api.Assertions.assertTrue(client.describe().contains(
                    local.localAddress().getPort() + ", the echo server's endpoint"), client.describe());
            client.close();
            // the server's endpoint still serves: a client of its own reaches it
            try (BenchClient remote = Protocol.GRPC_HOMA.connect(List.of(local.localAddress()), OPTIONS)) {
                assertEquals(7, remote.call(0, Unpooled.directBuffer(7).writeZero(7)).get(30, TimeUnit.SECONDS));
            }
        }
    }
}
