package io.homa4j.bench.simulate;

import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.rack.RackLink;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.SlowdownCsv;
import io.homa4j.bench.workload.Workload;

import java.util.List;

/**
 * Homa's limit on a given rack: the same rack as the emulated one (hosts, link rate, switch buffers, workload,
 * load, seed) in the simulator, whose hosts are ideal (no CPU, no scheduler, no timer slack: a packet leaves the
 * moment the engine hands it over). Its slowdown is what Homa itself reaches on that rack, the reference the
 * emulated rack's Homa is measured against ({@code homa-ideal} in {@code compare}'s {@code slowdown.csv}).
 *
 * <p>The measured window is long enough for {@code largestBucketCalls} calls in the workload's largest length
 * bucket (all hosts together), after a warm-up of a tenth of it; the drain lets measured calls finish under the same
 * load.
 */
public final class IdealRack {
    /** The emulated switch's eight queues per port, each {@code bufferPackets} full frames. */
    static final int PRIORITY_LEVELS = 8;
    /** A generous ceiling on the measured virtual time, so that a tiny load cannot ask for years. */
    static final double MAX_MEASURED_SECONDS = 3_600;

    /**
     * The emulated rack, as {@code compare} runs it.
     *
     * @param hosts              hosts on the switch
     * @param linkMbps           every link's rate
     * @param bufferPackets      frames each of a switch port's eight priority queues holds
     * @param workload           message lengths, cut at the run's longest message
     * @param load               offered load per host link: requests and their equally long echoes together, in
     *                           message bytes (as the rack's clients count it)
     * @param seed               the arrivals' seed
     * @param maxOutstanding     calls each host keeps out at once
     * @param largestBucketCalls calls wanted in the largest length bucket
     */
    public record Spec(int hosts, int linkMbps, int bufferPackets, Workload workload, double load, long seed,
                       int maxOutstanding, int largestBucketCalls) {
        public Spec {
            if (hosts < 2 || linkMbps < 1 || bufferPackets < 1 || maxOutstanding < 1 || largestBucketCalls < 1) {
                throw new IllegalArgumentException("bad rack: " + hosts + " hosts, " + linkMbps + " Mbit/s, "
                        + bufferPackets + " packets per queue, " + maxOutstanding + " outstanding, "
                        + largestBucketCalls + " calls");
            }
            if (!(load > 0 && load < 1)) {
                throw new IllegalArgumentException("load must be in (0, 1): " + load);
            }
        }

        /** The simulated rack: the emulated one's hosts, rate and buffers; the simulator's wire delays. */
        public RackSpec rack() {
            long portBuffer = (long) PRIORITY_LEVELS * bufferPackets * RackLink.FULL_FRAME_BYTES;
            return new RackSpec(hosts, linkMbps, RackSpec.DEFAULT_PROPAGATION_NANOS,
                    RackSpec.DEFAULT_SWITCH_LATENCY_NANOS, portBuffer, portBuffer * hosts);
        }

        /** The plan: measured window sized for {@link #largestBucketCalls}, warm-up a tenth of it. */
        public SimulationPlan plan() {
            double measured = measuredSeconds(this);
            long durationNanos = Math.round(measured * 1e9);
            long warmupNanos = durationNanos / 10;
            return new SimulationPlan(rack(), ProtocolSetup.homa(), workload, load, LoadBasis.DATA, warmupNanos,
                    durationNanos, Math.max(durationNanos, 20_000_000_000L), seed, maxOutstanding);
        }
    }

    /** What the run gave: the simulation's histograms and the idle table its slowdowns divide by. */
    public record Result(Spec spec, SimulationResult simulation, UnloadedRtt unloaded) {
        /** The rows of {@code slowdown.csv}, as protocol {@code protocol}. */
        public List<SlowdownCsv.Row> slowdownRows(String protocol) {
            ResultSet slowdowns = new ResultSet().addRecorder(protocol, simulation.slowdownMilli());
            return SlowdownCsv.rows(protocol, slowdowns, spec.workload(), unloaded.table());
        }
    }

    private IdealRack() {
    }

    /** Simulates {@code spec}'s rack with ideal hosts; {@code progress} may be null. */
    public static Result run(Spec spec, RackSimulation.Progress progress) {
        SimulationPlan plan = spec.plan();
        UnloadedRtt unloaded = UnloadedRtt.measure(plan.rack(), plan.homaConfig(), plan.maxMessage());
        SimulationResult result = new RackSimulation(plan, unloaded).run(progress);
        return new Result(spec, result, unloaded);
    }

    /**
     * Virtual seconds in which all hosts together issue {@code largestBucketCalls} calls of the largest length
     * bucket, at the spec's load.
     */
    static double measuredSeconds(Spec spec) {
        Workload workload = spec.workload();
        int[] bounds = LengthBuckets.forWorkload(workload).upperBounds();
        double share = bounds.length < 2 ? 1 : 1 - workload.cumulativeFraction(bounds[bounds.length - 2]);
        double callsPerSecond = spec.hosts() * spec.load() * spec.linkMbps() * 1e6
                / (2 * 8 * workload.meanBytes()) * share;
        return Math.min(MAX_MEASURED_SECONDS, spec.largestBucketCalls() / callsPerSecond);
    }
}
