package io.homa4j.bench.simulate;

import io.homa4j.bench.workload.Workload;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.DataHeader;

/**
 * Everything one simulation run needs. Virtual times in nanoseconds: arrivals from time 0; calls that arrive in
 * {@code [warmup, warmup + duration)} are measured; arrivals go on after that (so the measured calls finish under
 * the same load) until every measured call has ended or {@code drain} has passed.
 *
 * @param workload       message lengths, already truncated at the maximum message length
 * @param load           offered load per host link, in (0, 1), counted as {@code basis} says
 * @param maxOutstanding calls each host keeps out at once; later arrivals wait (and their wait is latency)
 */
public record SimulationPlan(RackSpec rack, ProtocolSetup setup, Workload workload, double load, LoadBasis basis,
                             long warmupNanos, long durationNanos, long drainNanos, long seed, int maxOutstanding) {
    public SimulationPlan {
        if (!(load > 0 && load < 1)) {
            throw new IllegalArgumentException("load must be in (0, 1): " + load);
        }
        if (warmupNanos < 0 || durationNanos <= 0 || drainNanos < 0 || maxOutstanding < 1) {
            throw new IllegalArgumentException("bad times or outstanding cap");
        }
    }

    /** Longest message of the run (the workload's largest draw). */
    public int maxMessage() {
        return workload.quantile(1.0);
    }

    /** The engine configuration every host runs. */
    public HomaConfig homaConfig() {
        return setup.homaConfig(rack, maxMessage());
    }

    /** Poisson rate of requests issued by each host. */
    public double requestsPerSecondPerHost() {
        int perPacket = DataHeader.maxPayload(homaConfig().maxUdpPayload());
        return load * rack.linkBitsPerSecond() / (2 * 8 * basis.bytesPerMessage(workload, perPacket));
    }

    public long measureStartNanos() {
        return warmupNanos;
    }

    public long measureEndNanos() {
        return warmupNanos + durationNanos;
    }
}
