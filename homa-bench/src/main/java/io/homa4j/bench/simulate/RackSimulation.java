package io.homa4j.bench.simulate;

import io.homa4j.bench.driver.LatencyRecorder;
import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.driver.SlowdownRecorder;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.sim.SimulatedNetwork;
import io.homa4j.core.wire.DataHeader;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One run of the study: the rack of {@link RackNode}s under all-to-all open-loop Poisson load, in virtual time,
 * recording every measured call's RTT and slowdown (RTT over the {@link UnloadedRtt} of its length).
 *
 * <p>The run advances in slices of {@link #SLICE_NANOS} of virtual time and reports progress after each; the
 * slices do not change the result (the network's events fire in the same order however the run is cut).
 * Deterministic: the same plan gives the same histograms. Single-threaded; not reusable.
 */
public final class RackSimulation {
    /** Virtual time between progress reports. */
    static final long SLICE_NANOS = 100_000;

    /** Sees the run's progress after each slice. */
    @FunctionalInterface
    public interface Progress {
        void update(long virtualNanos, long endNanos, long wallNanos, long cpuNanos, long packets, long pendingMeasured);
    }

    private final SimulationPlan plan;
    private final LatencyRecorder rtt;
    private final SlowdownRecorder slowdown;
    private final Map<String, Long> failures = new TreeMap<>();
    private static final int DATA_PACKET_OVERHEAD = DataHeader.LENGTH + HomaConfig.IP_UDP_HEADER_BYTES;
    private final int payloadPerPacket;
    private double slowdownSum;
    private long offeredWireBytes;
    private long measured;
    private long pendingMeasured;

    public RackSimulation(SimulationPlan plan, UnloadedRtt unloaded) {
        this.plan = plan;
        LengthBuckets buckets = LengthBuckets.forWorkload(plan.workload());
        this.rtt = new LatencyRecorder(buckets);
        this.slowdown = new SlowdownRecorder(buckets, unloaded.table());
        this.payloadPerPacket = DataHeader.maxPayload(plan.homaConfig().maxUdpPayload());
    }

    /** Runs the plan; {@code progress} may be null. */
    public SimulationResult run(Progress progress) {
        int hosts = plan.rack().hosts();
        long start = plan.measureStartNanos();
        long end = plan.measureEndNanos();
        long deadline = end + plan.drainNanos();
        Observer observer = new Observer(start, end);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean cpuTimed = threads.isCurrentThreadCpuTimeSupported();
        long cpuStart = cpuTimed ? threads.getCurrentThreadCpuTime() : 0;
        long wallStart = System.nanoTime();
        long bytesAtStart = 0;
        long bytesAtEnd = 0;
        LoadedRack rack = new LoadedRack(plan, observer, deadline);
        SimulatedNetwork network = rack.network();
        RackNode[] nodes = rack.nodes();
        try {
            long t = 0;
            boolean startSeen = start == 0;
            boolean endSeen = false;
            while (true) {
                long next = Math.min(t + SLICE_NANOS, deadline);
                if (!startSeen && next >= start) {
                    next = start;
                } else if (!endSeen && next >= end) {
                    next = end;
                }
                network.runUntil(next);
                t = next;
                if (!startSeen && t == start) {
                    startSeen = true;
                    bytesAtStart = rack.downlinkBytes();
                }
                if (!endSeen && t == end) {
                    endSeen = true;
                    bytesAtEnd = rack.downlinkBytes();
                }
                if (progress != null) {
                    progress.update(t, end, System.nanoTime() - wallStart,
                            cpuTimed ? threads.getCurrentThreadCpuTime() - cpuStart : -1, network.packetsSent(),
                            pendingMeasured);
                }
                if (t >= deadline || (endSeen && pendingMeasured == 0)) {
                    break;
                }
            }
            long unfinished = 0;
            for (RackNode node : nodes) {
                for (RackNode.Call call : node.unfinished()) {
                    if (call.intendedNanos >= start && call.intendedNanos < end) {
                        unfinished++;
                        record(call.length, t - call.intendedNanos);
                    }
                }
            }
            long wall = System.nanoTime() - wallStart;
            long cpu = cpuTimed ? threads.getCurrentThreadCpuTime() - cpuStart : -1;
            long retransmitted = 0;
            long maxWaiting = 0;
            for (RackNode node : nodes) {
                retransmitted += node.engine().metrics().retransmittedPackets();
                maxWaiting = Math.max(maxWaiting, node.maxWaiting());
            }
            double capacityBytes = (double) plan.rack().linkBitsPerSecond() / 8 * hosts * (end - start) / 1e9;
            long recorded = measured + unfinished;
            return new SimulationResult(rtt, slowdown.milli(), recorded == 0 ? Double.NaN : slowdownSum / recorded,
                    measured, unfinished, Collections.unmodifiableMap(new TreeMap<>(failures)), t, wall, cpu, network.packetsSent(),
                    network.eventsProcessed(), network.totalDrops(), offeredWireBytes / capacityBytes,
                    (bytesAtEnd - bytesAtStart) / capacityBytes,
                    network.maxPortQueueBytes(), maxWaiting, retransmitted);
        } finally {
            rack.close();
        }
    }

    private void record(int length, long rttNanos) {
        rtt.record(length, rttNanos);
        slowdownSum += slowdown.record(length, rttNanos);
    }

    /** Records measured calls; counts those still pending. */
    private final class Observer implements CallObserver {
        private final long start;
        private final long end;

        Observer(long start, long end) {
            this.start = start;
            this.end = end;
        }

        private boolean inWindow(long intendedNanos) {
            return intendedNanos >= start && intendedNanos < end;
        }

        @Override
        public void arrived(int length, long intendedNanos) {
            if (inWindow(intendedNanos)) {
                pendingMeasured++;
                long packets = Math.max(1, (length + payloadPerPacket - 1) / payloadPerPacket);
                offeredWireBytes += 2 * (length + packets * DATA_PACKET_OVERHEAD);
            }
        }

        @Override
        public void completed(int length, long intendedNanos, long endNanos) {
            if (inWindow(intendedNanos)) {
                measured++;
                pendingMeasured--;
                record(length, endNanos - intendedNanos);
            }
        }

        @Override
        public void failed(int length, long intendedNanos, RpcFailure failure, long nowNanos) {
            if (inWindow(intendedNanos)) {
                pendingMeasured--;
                failures.merge(failure.code().name(), 1L, Long::sum);
            }
        }
    }
}
