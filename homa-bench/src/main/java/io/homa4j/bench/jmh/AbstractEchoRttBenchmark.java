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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What the unloaded echo RTT benchmarks share ({@link RttBenchmark}, {@link GrpcRttBenchmark}): one echo server and
 * client of a protocol on loopback ({@link Endpoints}), one payload of a length, and a closed loop of one call at a
 * time, with the same JMH settings. A subclass chooses the protocols and lengths as its own {@code @Param}s
 * (JMH makes a benchmark of each concrete subclass, named after it, and none of this abstract one).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public abstract class AbstractEchoRttBenchmark {
    private Endpoints endpoints;
    private ByteBuf payload;

    /** The protocol of this trial: the subclass's {@code transport} parameter. */
    protected abstract Protocol transport();

    /** The message length of this trial, bytes: the subclass's {@code size} parameter. */
    protected abstract int size();

    @Setup(Level.Trial)
    public void start() {
        endpoints = new Endpoints(transport());
        payload = Endpoints.payload(size());
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
