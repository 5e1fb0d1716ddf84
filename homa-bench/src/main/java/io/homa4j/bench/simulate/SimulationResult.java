package io.homa4j.bench.simulate;

import io.homa4j.bench.driver.LatencyRecorder;

import java.util.Map;

/**
 * What one run measured. RTT histograms in nanoseconds; slowdown histograms in thousandths (slowdown x 1000) so
 * that they share HdrHistogram's integer range and 3-digit precision.
 *
 * @param rtt                 RTT of every measured call by length bucket (unfinished calls at their age when the
 *                            run stopped, a lower bound)
 * @param slowdownMilli       slowdown x 1000, same calls and buckets
 * @param meanSlowdown        exact mean slowdown over all measured calls
 * @param measured            measured calls that completed
 * @param unfinished          measured calls still pending when the run stopped (recorded at their age)
 * @param failures            measured calls that failed, by error code
 * @param virtualNanos        virtual time simulated
 * @param wallNanos           wall time of the loaded run (not of the unloaded calibration)
 * @param cpuNanos            CPU time of the simulating thread over the same run (-1 if the JVM cannot tell)
 * @param packets             packets the hosts sent in the run
 * @param events              simulator events fired
 * @param drops               packets dropped by the switch (buffers full)
 * @param offeredUtilization  wire bytes of the DATA packets of the calls that arrived in the window (requests and
 *                            responses) over the links' capacity in the window: the load the window really drew
 * @param linkUtilization     bytes the switch sent down its links during the measurement window over their capacity
 * @param maxPortQueueBytes   most wire bytes one egress port ever held
 * @param maxWaiting          most arrivals one host ever had waiting for its outstanding cap
 * @param retransmittedPackets DATA packets sent again (RESEND) by all engines
 */
public record SimulationResult(LatencyRecorder rtt, LatencyRecorder slowdownMilli, double meanSlowdown,
                               long measured, long unfinished, Map<String, Long> failures, long virtualNanos,
                               long wallNanos, long cpuNanos, long packets, long events, long drops, double offeredUtilization, double linkUtilization,
                               long maxPortQueueBytes, long maxWaiting, long retransmittedPackets) {

    /** Packets per wall-clock second of the loaded run. */
    public double packetsPerWallSecond() {
        return wallNanos == 0 ? 0 : packets * 1e9 / wallNanos;
    }

    /** Packets per CPU second of the simulating thread: the speed without the other processes on the machine. */
    public double packetsPerCpuSecond() {
        return cpuNanos <= 0 ? Double.NaN : packets * 1e9 / cpuNanos;
    }

    public long failed() {
        return failures.values().stream().mapToLong(Long::longValue).sum();
    }
}
