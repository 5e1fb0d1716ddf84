package io.homa4j.bench.jmh;

import io.homa4j.bench.transport.Protocol;
import io.netty.buffer.ByteBuf;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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
 * Small-RPC latency under bulk load: in one group, a probe thread sends 100 B echo RPCs one after another while two
 * bulk threads keep 1 MB echo RPCs going through the same client and server. JMH reports the probe's percentiles
 * ({@code mixed:probe}) separately from the bulk calls ({@code mixed:bulk}); Homa's SRPT should keep the probe
 * close to its unloaded RTT, TCP's probe waits behind bulk bytes. Server in the same fork, as in
 * {@link RttBenchmark}.
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh MixedLoadBenchmark}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Group)
public class MixedLoadBenchmark {
    static final int PROBE_BYTES = 100;
    static final int BULK_BYTES = 1_000_000;

    @Param({"HOMA", "TCP"})
    public Protocol transport;

    private Endpoints endpoints;
    private ByteBuf probePayload;
    private ByteBuf bulkPayload;

    @Setup(Level.Trial)
    public void start() {
        endpoints = new Endpoints(transport);
        probePayload = Endpoints.payload(PROBE_BYTES);
        bulkPayload = Endpoints.payload(BULK_BYTES);
    }

    @Benchmark
    @Group("mixed")
    @GroupThreads(1)
    public int probe() throws Exception {
        return endpoints.call(probePayload);
    }

    @Benchmark
    @Group("mixed")
    @GroupThreads(2)
    public int bulk() throws Exception {
        return endpoints.call(bulkPayload);
    }

    @TearDown(Level.Trial)
    public void stop() {
        endpoints.close();
        probePayload.release();
        bulkPayload.release();
    }
}
