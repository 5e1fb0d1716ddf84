package io.homa4j.bench.jmh;

import io.homa4j.bench.driver.JitQuiet;
import io.homa4j.bench.driver.UnloadedProbe;
import io.homa4j.bench.transport.Protocol;
import io.netty.buffer.ByteBuf;
import org.HdrHistogram.Histogram;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@link QuietRttBenchmark}'s warm case with Homa and TCP side by side in one fork: each invocation waits the gap,
 * makes one 100 B call over one protocol, waits the gap again and makes one over the other (which goes first
 * alternates), and records each call's round trip in that protocol's histogram. On a shared machine whose speed
 * changes for seconds at a time, two forks run one after the other see different machines; calls interleaved
 * within the same seconds see the same one, so the ratio of the two protocols is the steady figure here.
 *
 * <p>JMH's own score is the time of a whole invocation (two gaps and two calls), not a round trip: read the
 * per-protocol percentiles and their ratio that the fork prints when the trial ends. Warm-up iterations run back
 * to back (no gap), then more calls until the JIT has gone quiet, as in {@link QuietRttBenchmark#warm}.
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh QuietPairBenchmark -p gapMicros=1000}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 4)
@Fork(1)
@State(Scope.Benchmark)
public class QuietPairBenchmark {
    /** Round trips above this (10 s, the call timeout) are recorded as this. */
    private static final long HIGHEST_TRACKED_NANOS = TimeUnit.SECONDS.toNanos(Endpoints.CALL_TIMEOUT_SECONDS);

    /** Idle time before each call, in microseconds (0: back to back). */
    @Param({"0", "1000", "10000"})
    public int gapMicros;

    @Param({"100"})
    public int size;

    private Endpoints homa;
    private Endpoints tcp;
    private ByteBuf payload;
    private long gapNanos;
    private boolean measuring;
    private boolean homaFirst;
    private long jitSettleNanos;
    private final Histogram homaNanos = new Histogram(HIGHEST_TRACKED_NANOS, 3);
    private final Histogram tcpNanos = new Histogram(HIGHEST_TRACKED_NANOS, 3);

    @Setup(Level.Trial)
    public void start(BenchmarkParams params) {
        QuietRttBenchmark.checkParameters(gapMicros, size, params.getMode(), params.getMeasurement().getCount());
        homa = new Endpoints(Protocol.HOMA);
        try {
            tcp = new Endpoints(Protocol.TCP);
        } catch (RuntimeException e) {
            homa.close();
            throw e;
        }
        payload = Endpoints.payload(size);
    }

    @Setup(Level.Iteration)
    public void beginIteration(IterationParams iteration) throws Exception {
        boolean measured = iteration.getType() == IterationType.MEASUREMENT;
        gapNanos = measured ? TimeUnit.MICROSECONDS.toNanos(gapMicros) : 0;
        if (measured && !measuring) {
            // back-to-back pairs of calls until the JIT has gone quiet, as QuietRttBenchmark.warm does
            jitSettleNanos = JitQuiet.runUntilQuiet(JitQuiet.thisJvm(), QuietRttBenchmark.MAX_JIT_SETTLE_NANOS, () -> {
                homa.call(payload);
                tcp.call(payload);
            });
            measuring = true;
        }
    }

    /** One call over each protocol, each after the gap; the first protocol alternates. */
    @Benchmark
    public int pair() throws Exception {
        homaFirst = !homaFirst;
        int length = timedCall(homaFirst);
        return length + timedCall(!homaFirst);
    }

    private int timedCall(boolean overHoma) throws Exception {
        UnloadedProbe.parkFor(gapNanos);
        long start = System.nanoTime();
        int length = (overHoma ? homa : tcp).call(payload);
        long rtt = System.nanoTime() - start;
        if (measuring) {
            (overHoma ? homaNanos : tcpNanos).recordValue(Math.min(rtt, HIGHEST_TRACKED_NANOS));
        }
        return length;
    }

    @TearDown(Level.Trial)
    public void stop() {
        try {
            if (homaNanos.getTotalCount() > 0) {
                System.out.println();
                System.out.println(report(gapMicros, size, homaNanos, tcpNanos, jitSettleNanos));
            }
        } finally {
            try {
                homa.close();
            } finally {
                tcp.close();
                payload.release();
            }
        }
    }

    /** The line the fork prints: each protocol's P50 and P99 in microseconds, and Homa's over TCP's. */
    static String report(int gapMicros, int size, Histogram homa, Histogram tcp, long jitSettleNanos) {
        double homa50 = homa.getValueAtPercentile(50) / 1e3;
        double tcp50 = tcp.getValueAtPercentile(50) / 1e3;
        double homa99 = homa.getValueAtPercentile(99) / 1e3;
        double tcp99 = tcp.getValueAtPercentile(99) / 1e3;
        return String.format(Locale.ROOT, "quiet-pair gap %d us, %d B: %d calls per protocol, interleaved;"
                        + " P50 homa %.1f us, tcp %.1f us (homa/tcp %.2f); P99 homa %.1f us, tcp %.1f us"
                        + " (homa/tcp %.2f); JIT quiet after %.1f s more of back-to-back calls",
                gapMicros, size, Math.min(homa.getTotalCount(), tcp.getTotalCount()), homa50, tcp50, homa50 / tcp50,
                homa99, tcp99, homa99 / tcp99, jitSettleNanos / 1e9);
    }
}
