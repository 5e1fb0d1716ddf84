package io.homa4j.bench.jmh;

import io.homa4j.bench.transport.Protocol;
import org.openjdk.jmh.annotations.Param;

/**
 * Unloaded round-trip time of one unary gRPC echo call by message length: gRPC-java over Homa ({@code homa-grpc})
 * against gRPC-java over its Netty HTTP/2 transport, on loopback (closed loop, one call at a time). Both run their
 * echo handler and client callbacks on the transport's event loop; server and client share the JMH fork, as in
 * {@link RttBenchmark}. The call includes marshalling the message on both sides.
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh GrpcRttBenchmark}.
 */
public class GrpcRttBenchmark extends AbstractEchoRttBenchmark {
    @Param({"GRPC_HOMA", "GRPC_TCP"})
    public Protocol transport;

    @Param({"100", "1000000"})
    public int size;

    @Override
    protected Protocol transport() {
        return transport;
    }

    @Override
    protected int size() {
        return size;
    }
}
