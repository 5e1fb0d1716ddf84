package io.homa4j.bench.driver;

import io.homa4j.bench.workload.Workload;

/**
 * What one open-loop run offers.
 *
 * @param workload        message lengths (already truncated at the maximum message length)
 * @param loadMbps        offered request bits per second; Poisson arrivals at {@code loadMbps / (8 x mean length)}
 *                        (responses are as long as requests, so the reverse direction carries the same)
 * @param warmupNanos     arrivals in this first period run but are not recorded (JIT, connection warm-up)
 * @param durationNanos   recorded period after the warm-up
 * @param maxOutstanding  most calls in flight at once; later arrivals wait and their wait counts in their RTT
 * @param maxWaiting      most arrivals waiting for the cap; arrivals beyond are skipped and counted
 * @param drainNanos      how long to wait for the last calls after the last arrival; still open then: unfinished
 * @param spinNanos       the driver spins (instead of parking) this close to an arrival, so sends start on time
 * @param seed            seeds lengths, arrival gaps and server choice: the same seed offers the same requests
 */
public record DriverConfig(Workload workload, double loadMbps, long warmupNanos, long durationNanos,
                           int maxOutstanding, int maxWaiting, long drainNanos, long spinNanos, long seed) {
    public DriverConfig {
        if (!(loadMbps > 0)) {
            throw new IllegalArgumentException("load must be positive: " + loadMbps);
        }
        if (warmupNanos < 0 || durationNanos <= 0 || drainNanos < 0 || spinNanos < 0) {
            throw new IllegalArgumentException("times must be non-negative (duration positive)");
        }
        if (maxOutstanding < 1 || maxWaiting < 0) {
            throw new IllegalArgumentException("maxOutstanding must be >= 1, maxWaiting >= 0");
        }
    }

    /** Mean gap between arrivals, nanoseconds. */
    public double meanGapNanos() {
        return workload.meanBytes() * 8 * 1_000.0 / loadMbps;
    }
}
