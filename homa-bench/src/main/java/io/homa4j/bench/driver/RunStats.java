package io.homa4j.bench.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Counts of one open-loop run. {@code sent} counts calls handed to the transport; {@code waitedForCap} counts
 * requests whose arrival time came while the outstanding cap was reached (they were sent later, and their RTT
 * includes the wait); {@code skippedAtCap} counts requests dropped because the wait queue was full as well.
 * The send lags (how late measured requests were handed to the transport; NaN when none was sent) are split by
 * cause: {@code wakeLagP99Micros} is the P99 of the part that passed while the generator thread, idle and waiting
 * for the request's time, did not get the CPU back (the machine's scheduling, a JVM safepoint: the client could not
 * have sent earlier, and neither transport held it back), {@code queueLagP99Micros} the P99 of the rest, the time
 * the request waited in the client itself (for the outstanding cap, or behind the sends of earlier requests).
 * Every RTT includes the whole send lag, as it is measured from the intended time.
 */
public record RunStats(String protocol, long arrivals, long sent, long completed, long failed, long waitedForCap,
                       long skippedAtCap, long unfinished, long recorded, double sendLagP50Micros,
                       double sendLagP99Micros, double queueLagP99Micros, double wakeLagP99Micros,
                       double offeredMbps, double achievedMbps) {
    /**
     * Send lag P99 above which requests left late enough to be queueing in the client: "a few milliseconds",
     * far below the seconds an overloaded transport's backlog adds. It is applied to the client's own part of the
     * lag ({@link #queueLagP99Micros}; the whole send lag for results files without that column): the generator's late
     * wake-ups on a loaded machine (milliseconds at P99, even at real-time priority) are no queue, and counting them
     * would make a run OVERLOADED at random.
     */
    public static final double OVERLOAD_SEND_LAG_P99_MICROS = 5_000;
    /** Share of arrivals that may find the outstanding cap reached before the run counts as overloaded. */
    public static final double OVERLOAD_WAITED_FRACTION = 0.01;

    /**
     * Why this run measured its own queue rather than the transport, one short reason each; empty when it did not:
     * requests sent late, more than 1% of arrivals waiting for the outstanding cap, skipped arrivals, or calls
     * still open at the end of the drain.
     */
    public List<String> overloadReasons() {
        List<String> reasons = new ArrayList<>();
        if (clientLagP99Micros() > OVERLOAD_SEND_LAG_P99_MICROS) {
            reasons.add(String.format(Locale.ROOT, "%s P99 %s > %.0f ms", Double.isNaN(queueLagP99Micros)
                            ? "send lag" : "send lag in the client", duration(clientLagP99Micros()),
                    OVERLOAD_SEND_LAG_P99_MICROS / 1_000));
        }
        if (arrivals > 0 && waitedForCap > OVERLOAD_WAITED_FRACTION * arrivals) {
            reasons.add(String.format(Locale.ROOT, "%.1f%% of calls waited for the outstanding cap (> %.0f%%)",
                    100.0 * waitedForCap / arrivals, OVERLOAD_WAITED_FRACTION * 100));
        }
        if (skippedAtCap > 0) {
            reasons.add(skippedAtCap + " calls skipped");
        }
        if (unfinished > 0) {
            reasons.add(unfinished + " calls unfinished");
        }
        return reasons;
    }

    /** The part of the send lag the client's own queue adds (the whole send lag where the split is unknown). */
    public double clientLagP99Micros() {
        return Double.isNaN(queueLagP99Micros) ? sendLagP99Micros : queueLagP99Micros;
    }

    /**
     * Several clients' runs of one protocol as one (e.g. the hosts of a rack): counts and rates add up, the send
     * lags are the worst client's (so a late client is not averaged away).
     */
    public static RunStats combine(String protocol, List<RunStats> runs) {
        long arrivals = 0, sent = 0, completed = 0, failed = 0, waited = 0, skipped = 0, unfinished = 0, recorded = 0;
        double lag50 = Double.NaN, lag99 = Double.NaN, queue99 = Double.NaN, wake99 = Double.NaN;
        double offered = 0, achieved = 0;
        for (RunStats r : runs) {
            arrivals += r.arrivals;
            sent += r.sent;
            completed += r.completed;
            failed += r.failed;
            waited += r.waitedForCap;
            skipped += r.skippedAtCap;
            unfinished += r.unfinished;
            recorded += r.recorded;
            lag50 = worse(lag50, r.sendLagP50Micros);
            lag99 = worse(lag99, r.sendLagP99Micros);
            queue99 = worse(queue99, r.queueLagP99Micros);
            wake99 = worse(wake99, r.wakeLagP99Micros);
            offered += r.offeredMbps;
            achieved += r.achievedMbps;
        }
        return new RunStats(protocol, arrivals, sent, completed, failed, waited, skipped, unfinished, recorded, lag50,
                lag99, queue99, wake99, offered, achieved);
    }

    private static double worse(double a, double b) {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
    }

    public boolean overloaded() {
        return !overloadReasons().isEmpty();
    }

    /** The one-line summary the client prints; it ends with {@code OVERLOADED (reasons)} when the run was. */
    public String summaryLine() {
        List<String> reasons = overloadReasons();
        return String.format(Locale.ROOT,
                "%s: requests sent=%d completed=%d failed=%d unfinished=%d skipped_outstanding_cap=%d"
                        + " waited_outstanding_cap=%d recorded=%d offered=%.1f Mbit/s achieved=%.1f Mbit/s"
                        + " send_lag_p50=%s send_lag_p99=%s client_lag_p99=%s wake_lag_p99=%s%s",
                protocol, sent, completed, failed, unfinished, skippedAtCap, waitedForCap, recorded, offeredMbps,
                achievedMbps, micros(sendLagP50Micros), micros(sendLagP99Micros), micros(queueLagP99Micros),
                micros(wakeLagP99Micros),
                reasons.isEmpty() ? "" : " OVERLOADED (" + String.join("; ", reasons) + ")");
    }

    private static String micros(double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.1f us", value);
    }

    /** 840 us, 8.3 ms, 12.1 s. */
    private static String duration(double micros) {
        if (micros < 1_000) {
            return String.format(Locale.ROOT, "%.0f us", micros);
        }
        return micros < 1_000_000 ? String.format(Locale.ROOT, "%.1f ms", micros / 1e3)
                : String.format(Locale.ROOT, "%.1f s", micros / 1e6);
    }
}
