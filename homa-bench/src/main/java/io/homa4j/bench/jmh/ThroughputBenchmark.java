package io.homa4j.bench.jmh;

import io.homa4j.bench.transport.Protocol;
import io.netty.buffer.ByteBuf;
import org.openjdk.jmh.annotations.AuxCounters;
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

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Echo RPCs completed per second with a fixed number of calls outstanding, Homa vs TCP on loopback, server and
 * client in the benchmark's JVM (one event-loop thread each). One operation is one echo RPC completed: the
 * benchmark thread takes one completion and starts the next call, so the window stays full: 64 calls at 100 B,
 * 8 at 1 MB. The {@code failed} counter must stay 0 (a failed call still counts as an operation).
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh ThroughputBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
@State(Scope.Thread)
public class ThroughputBenchmark {
    @Param({"HOMA", "TCP"})
    public Protocol transport;

    @Param({"100", "1000000"})
    public int size;

    /** Calls that ended in an error, reported per second by JMH (must be 0). */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Failures {
        public long failed;
    }

    private Endpoints endpoints;
    private ByteBuf payload;
    private BlockingQueue<Boolean> completions;

    /** Calls kept outstanding for {@code size}. */
    static int window(int size) {
        return size <= 1_000 ? 64 : 8;
    }

    @Setup(Level.Trial)
    public void start() {
        endpoints = new Endpoints(transport);
        payload = Endpoints.payload(size);
        int window = window(size);
        completions = new ArrayBlockingQueue<>(window);
        for (int i = 0; i < window; i++) {
            startCall();
        }
    }

    private void startCall() {
        endpoints.start(payload).whenComplete((length, failure) ->
                completions.add(failure == null && length == size));
    }

    @Benchmark
    public boolean echo(Failures failures) throws InterruptedException {
        boolean ok = completions.take();
        if (!ok) {
            failures.failed++;
        }
        startCall();
        return ok;
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        for (int i = 0; i < window(size); i++) {
            completions.poll(Endpoints.CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS); // let the window drain
        }
        endpoints.close();
        payload.release();
    }
}
