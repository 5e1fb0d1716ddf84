package io.homa4j.bench.soak;

import io.homa4j.bench.workload.Workload;

/**
 * One soak run: how long, how much loss, how many calls in flight, which message lengths.
 *
 * @param seconds         how long calls are started
 * @param loss            drop probability of each datagram, each way, applied at the client
 * @param concurrency     calls kept in flight (closed loop)
 * @param workload        request lengths (the server echoes, so responses are as long)
 * @param seed            seeds the lengths and the loss
 * @param progressSeconds period of the progress lines
 * @param drainSeconds    how long calls in flight at the end may take before they count as lost
 * @param rttMicros       RTT the endpoints size their windows for
 */
public record SoakPlan(double seconds, double loss, int concurrency, Workload workload, long seed,
                       double progressSeconds, double drainSeconds, int rttMicros) {
}
