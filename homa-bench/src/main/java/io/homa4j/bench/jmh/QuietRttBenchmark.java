package io.homa4j.bench.jmh;

import io.homa4j.bench.driver.JitQuiet;
import io.homa4j.bench.driver.UnloadedProbe;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The round-trip time of a call on a quiet endpoint: one 100 B echo RPC at a time, Homa and TCP on loopback, with
 * an idle gap between calls ({@link #gapMicros}) in which every thread involved goes to sleep, as in a service
 * well below saturation. The machine's floor for the same thing is {@code pingpong udp block COUNT GAP_US} (see
 * the benchmarking docs).
 *
 * <p>Two modes:
 * <ul>
 *   <li>{@link #warm}: warm-up iterations run back to back (no gap), then more back-to-back calls until the JIT
 *       has gone quiet ({@link JitQuiet}), so the hot paths are compiled before the measured calls, which do
 *       wait the gap. Reports P50/P99 (JMH's sample mode), and how much the JIT compiled while measuring.</li>
 *   <li>{@link #cold}: a fresh fork makes a few calls ({@code -i}, at most {@value #MAX_COLD_CALLS}), each after
 *       the gap, with no warm-up of its own: the code of a lightly loaded service. The Homa endpoints still
 *       warm the JIT up when they are built, as every endpoint does by default; with {@code -jvmArgsAppend
 *       -Dhoma4j.warmUpCalls=0} Homa's code is as cold as TCP's and never reaches C2. One call per iteration
 *       (single-shot mode); percentiles are over the iterations of all forks.</li>
 * </ul>
 *
 * <p>Besides time, the fork prints per measured call what the kernel counted for the threads on both sides
 * ({@link ThreadActivity}): voluntary context switches (a sleeping thread's wake-ups) and involuntary ones of the
 * calling thread, the client's event loop and the server's, and with {@code -jvmArgsAppend
 * -Dhoma4j.bench.perf=true} their syscalls ({@link SyscallCounter}). The caller's counts include its own sleep
 * in the gap (one wake-up per call when the gap is not 0). The counts cover the measured iterations and the
 * moments between them, when the endpoints' own timers still run.
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh 'QuietRttBenchmark.warm' -p gapMicros=1000}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class QuietRttBenchmark {
    /** The longest gap accepted: longer ones add nothing but run time (a CPU is in its deepest sleep by then). */
    static final int MAX_GAP_MICROS = 1_000_000;
    /**
     * The most calls a cold fork may make: C2 compiles a method after about 10,000 invocations (fewer for
     * loops), so well below that the calls stay in the interpreter and C1 code.
     */
    static final int MAX_COLD_CALLS = 2_000;
    /** The longest the warm mode waits, after its warm-up iterations, for the JIT to go quiet. */
    static final long MAX_JIT_SETTLE_NANOS = 60_000_000_000L;

    @Param({"HOMA", "TCP"})
    public Protocol transport;

    /** Idle time before each measured call, in microseconds (0: back to back). */
    @Param({"0", "100", "1000", "10000"})
    public int gapMicros;

    @Param({"100"})
    public int size;

    private Endpoints endpoints;
    private ByteBuf payload;
    private long gapNanos;

    private boolean measuring;
    private long measuredCalls;
    private final Set<Integer> callerThreads = new TreeSet<>();
    private ThreadActivity.Switches callerAtStart;
    private ThreadActivity.Switches clientAtStart;
    private ThreadActivity.Switches serverAtStart;
    private final SyscallCounter syscalls = new SyscallCounter();
    /** This JVM's total JIT compilation time, ms. */
    private final LongSupplier jitCompiledMillis = JitQuiet.thisJvm();
    private long jitAtStart;
    private long jitSettleNanos;

    @Setup(Level.Trial)
    public void start(BenchmarkParams params) {
        checkParameters(gapMicros, size, params.getMode(), params.getMeasurement().getCount());
        endpoints = new Endpoints(transport);
        payload = Endpoints.payload(size);
    }

    /** Rejects parameters out of range with a message that names the parameter and its range. */
    static void checkParameters(int gapMicros, int size, Mode mode, int measuredIterations) {
        if (gapMicros < 0 || gapMicros > MAX_GAP_MICROS) {
            throw new IllegalArgumentException("gapMicros must be 0.." + MAX_GAP_MICROS + " (us): " + gapMicros);
        }
        if (size < 1 || size > Endpoints.MAX_MESSAGE) {
            throw new IllegalArgumentException("size must be 1.." + Endpoints.MAX_MESSAGE + " bytes: " + size);
        }
        if (mode == Mode.SingleShotTime && (measuredIterations < 1 || measuredIterations > MAX_COLD_CALLS)) {
            throw new IllegalArgumentException("cold mode makes one call per iteration; -i must be 1.."
                    + MAX_COLD_CALLS + " (more calls warm the JIT up): " + measuredIterations);
        }
    }

    @Setup(Level.Iteration)
    public void beginIteration(BenchmarkParams params, IterationParams iteration) throws Exception {
        boolean measured = iteration.getType() == IterationType.MEASUREMENT;
        gapNanos = measured ? TimeUnit.MICROSECONDS.toNanos(gapMicros) : 0;
        int caller = ThreadActivity.currentThreadId();
        if (measured && !measuring) {
            if (params.getMode() != Mode.SingleShotTime) {
                settleJit();
            }
            // The counting window opens at the first measured iteration and closes when the trial ends.
            measuring = true;
            jitAtStart = jitCompiledMillis.getAsLong();
            syscalls.start();
            callerThreads.add(caller);
            callerAtStart = ThreadActivity.switches(Set.of(caller));
            clientAtStart = ThreadActivity.switches(endpoints.clientThreads());
            serverAtStart = ThreadActivity.switches(endpoints.serverThreads());
        } else if (measured && callerThreads.add(caller)) {
            callerAtStart = callerAtStart.plus(ThreadActivity.switches(Set.of(caller)));
        }
    }

    /**
     * Back-to-back calls until the JIT has gone quiet (see {@link JitQuiet}), at most {@link #MAX_JIT_SETTLE_NANOS}:
     * on a 2-core machine C2 was still compiling the Homa path seconds after JMH's warm-up iterations, and the
     * first measured calls ran partly in profiled C1 code.
     */
    private void settleJit() throws Exception {
        jitSettleNanos = JitQuiet.runUntilQuiet(jitCompiledMillis, MAX_JIT_SETTLE_NANOS, () -> endpoints.call(payload));
    }

    /** The idle gap, outside the measured time. */
    @Setup(Level.Invocation)
    public void pause() throws InterruptedException {
        UnloadedProbe.parkFor(gapNanos);
    }

    /** A call after the gap, with the JIT warmed up by back-to-back calls. */
    @Benchmark
    public int warm() throws Exception {
        return call();
    }

    /** A call after the gap in a fresh JVM that makes only a few. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 200)
    @Fork(3)
    public int cold() throws Exception {
        return call();
    }

    private int call() throws Exception {
        int length = endpoints.call(payload);
        if (measuring) {
            measuredCalls++;
        }
        return length;
    }

    @TearDown(Level.Trial)
    public void stop() {
        try {
            if (measuring && measuredCalls > 0) {
                report();
            }
        } finally {
            endpoints.close();
            payload.release();
        }
    }

    private void report() {
        ThreadActivity.Switches caller = ThreadActivity.switches(callerThreads).minus(callerAtStart);
        ThreadActivity.Switches client = ThreadActivity.switches(endpoints.clientThreads()).minus(clientAtStart);
        ThreadActivity.Switches server = ThreadActivity.switches(endpoints.serverThreads()).minus(serverAtStart);
        @SuppressWarnings("unchecked")
        Set<Integer>[] groups = new Set[] {callerThreads, endpoints.clientThreads(), endpoints.serverThreads()};
        long[] sys = syscalls.stop(groups);
        double n = measuredCalls;
        System.out.printf(Locale.ROOT, "%nquiet-call %s gap %d us, %d B: %d measured calls; per call:"
                        + " wake-ups (voluntary switches) caller %.2f, client loop %.2f, server loop %.2f;"
                        + " preempted (involuntary) caller %.2f, client loop %.2f, server loop %.2f;"
                        + " syscalls caller %s, client loop %s, server loop %s%n",
                transport, gapMicros, size, measuredCalls,
                caller.voluntary() / n, client.voluntary() / n, server.voluntary() / n,
                caller.involuntary() / n, client.involuntary() / n, server.involuntary() / n,
                perCall(sys[0], n), perCall(sys[1], n), perCall(sys[2], n));
        long compiledDuring = jitCompiledMillis.getAsLong() - jitAtStart;
        System.out.printf(Locale.ROOT, "quiet-call %s gap %d us: JIT %s; %d ms compiled during the measured calls%s%n",
                transport, gapMicros, jitSettleNanos > 0 ? String.format(Locale.ROOT,
                        "quiet after %.1f s more of back-to-back calls", jitSettleNanos / 1e9) : "not settled (cold)",
                compiledDuring, jitSettleNanos >= MAX_JIT_SETTLE_NANOS ? " (NOT settled: the JIT was still compiling"
                        + " after " + MAX_JIT_SETTLE_NANOS / 1_000_000_000L + " s; the figures include C1 code)" : "");
    }

    private static String perCall(long count, double calls) {
        return count < 0 ? "n/a (-Dhoma4j.bench.perf=true)" : String.format(Locale.ROOT, "%.2f", count / calls);
    }
}
