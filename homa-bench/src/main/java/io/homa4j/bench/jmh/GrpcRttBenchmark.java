package io.homa4j.bench.jmh;

import io.homa4j.bench.transport.Protocol;
import io.netty.buffer.ByteBuf;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Unloaded round-trip time of one unary gRPC echo call by message length: gRPC-java over Homa ({@code homa-grpc})
 * against gRPC-java over its Netty HTTP/2 transport, on loopback (closed loop, one call at a time). Both run their
 * echo handler and client callbacks on the transport's event loop; server and client share the JMH fork, as in
 * {@link RttBenchmark}. The call includes marshalling the message on both sides.
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh GrpcRttBenchmark}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class GrpcRttBenchmark {
    @Param({"GRPC_HOMA", "GRPC_TCP"})
    public Protocol transport;

    @Param({"100", "1000000"})
    public int size;

    private Endpoints endpoints;
    private ByteBuf payload;

    @Setup(Level.Trial)
    public void start() {
        endpoints = new Endpoints(transport);
        payload = Endpoints.payload(size);
    }

    @Benchmark
    public int rtt() throws Exception {
        return endpoints.call(payload);
    }

    @TearDown(Level.Trial)
    public void stop() {
        endpoints.close();
        payload.release();
    }
}
