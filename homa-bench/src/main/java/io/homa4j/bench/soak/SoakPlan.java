package io.homa4j.bench.soak;

import io.homa4j.bench.faults.FaultPlan;
import io.homa4j.bench.workload.Workload;

/**
 * One soak run: how long, how much loss, how many calls in flight, which message lengths, how the server's handler
 * behaves, and whether a slow memory attack runs alongside.
 *
 * @param seconds         how long calls are started
 * @param loss            drop probability of each datagram, each way, applied at the client
 * @param concurrency     calls kept in flight (closed loop)
 * @param workload        request lengths (the server echoes, so responses are as long)
 * @param seed            seeds the lengths, the loss and the attack
 * @param progressSeconds period of the progress lines
 * @param drainSeconds    how long calls in flight at the end may take before they count as lost
 * @param rttMicros       RTT the endpoints size their windows for
 * @param handler         the server's handler: echo, or every tenth request never answered or answered with a
 *                        buffer the handler then releases
 * @param attackPerSecond forged first packets per second, each declaring a whole {@code maxMessageBytes} request
 *                        (the huge-first-packet memory attack, docs/reliability.md); 0 for none
 * @param attackPorts     source ports the attack comes from
 */
public record SoakPlan(double seconds, double loss, int concurrency, Workload workload, long seed,
                       double progressSeconds, double drainSeconds, int rttMicros, FaultPlan.Handler handler,
                       double attackPerSecond, int attackPorts) {
}
