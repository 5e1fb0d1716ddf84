package io.homa4j.bench.driver;

import java.util.Locale;

/**
 * Counts of one open-loop run. {@code sent} counts calls handed to the transport; {@code waitedForCap} counts
 * requests whose arrival time came while the outstanding cap was reached (they were sent later, and their RTT
 * includes the wait); {@code skippedAtCap} counts requests dropped because the wait queue was full as well.
 * The send lags (how late measured requests were handed to the transport) are NaN when none was sent.
 */
public record RunStats(String protocol, long arrivals, long sent, long completed, long failed, long waitedForCap,
                       long skippedAtCap, long unfinished, long recorded, double sendLagP50Micros,
                       double sendLagP99Micros, double offeredMbps, double achievedMbps) {

    /** The one-line summary the client prints. */
    public String summaryLine() {
        return String.format(Locale.ROOT,
                "%s: requests sent=%d completed=%d failed=%d unfinished=%d skipped_outstanding_cap=%d"
                        + " waited_outstanding_cap=%d recorded=%d offered=%.1f Mbit/s achieved=%.1f Mbit/s"
                        + " send_lag_p50=%s send_lag_p99=%s",
                protocol, sent, completed, failed, unfinished, skippedAtCap, waitedForCap, recorded, offeredMbps,
                achievedMbps, micros(sendLagP50Micros), micros(sendLagP99Micros));
    }

    private static String micros(double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.1f us", value);
    }
}
