package io.homa4j.bench.jmh;

import io.homa4j.bench.simulate.LoadBasis;
import io.homa4j.bench.simulate.LoadedRack;
import io.homa4j.bench.simulate.ProtocolSetup;
import io.homa4j.bench.simulate.RackSpec;
import io.homa4j.bench.simulate.SimulationPlan;
import io.homa4j.bench.workload.Workloads;
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

import java.util.concurrent.TimeUnit;

/**
 * How fast the simulator runs the study's rack: 16 hosts x 100 Gb/s, real engines, all-to-all open-loop Poisson
 * at 80% load (wire basis), echo responses. One operation advances the rack by {@link #SLICE_NANOS} of virtual
 * time; the {@code packets} counter is every packet the hosts sent, so JMH's {@code packets} row is packets per
 * wall-clock second, engine and network together. Setup runs 2 virtual ms (W1: 0.3 ms) first so the rack is in steady state.
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh SimulatorThroughputBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@State(Scope.Thread)
public class SimulatorThroughputBenchmark {
    static final long SLICE_NANOS = 20_000;

    @Param({"w4", "w1"})
    public String workload;

    private LoadedRack rack;

    /** Packets sent, reported per second by JMH. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Counters {
        public long packets;
    }

    @Setup(Level.Trial)
    public void build() {
        SimulationPlan plan = new SimulationPlan(RackSpec.defaults(), ProtocolSetup.homa(),
                Workloads.parse(workload), 0.8, LoadBasis.WIRE, 0, 1, 0, 1, 1_000);
        rack = LoadedRack.unobserved(plan);
        rack.advance(workload.equals("w1") ? 300_000 : 2_000_000);
    }

    @Benchmark
    public long advance(Counters counters) {
        long sent = rack.advance(SLICE_NANOS);
        counters.packets += sent;
        return sent;
    }

    @TearDown(Level.Trial)
    public void close() {
        rack.close();
    }
}
