package io.homa4j.bench.faults;

import io.homa4j.core.ErrorCode;
import io.homa4j.faults.FaultCounts;
import io.homa4j.faults.Faults;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the calls of one {@link FaultPlan} ended. Every call is counted exactly once: {@code exact + wrongBytes +
 * failures + untyped + unfinished == calls}.
 *
 * @param exact           responses byte-for-byte equal to the request (the server echoes)
 * @param wrongBytes      responses that differ (length or content)
 * @param failedByCode    calls that failed with a {@code HomaException}, by error code
 * @param untyped         calls that failed with anything else (a bug)
 * @param unfinished      calls still open when the run gave up waiting (a hang: a bug)
 * @param handlerRuns     times the server's handler ran
 * @param engineDrops     packets the two engines dropped as invalid, duplicate, stale, unknown, ... (all reasons)
 * @param towardsServer   what the filter did to client-to-server datagrams
 * @param towardsClient   what the filter did to server-to-client datagrams
 * @param failureSamples  the messages of the first few failures, for diagnosis
 * @param engineMetrics   both engines' counters at the end of the run (packets by type, drops by reason), for
 *                        diagnosis
 * @param deadlineLatenessNanos how late each DEADLINE_EXCEEDED completed after its call's deadline, sorted
 */
public record FaultOutcome(Faults faults, int calls, int exact, int wrongBytes, Map<ErrorCode, Integer> failedByCode,
                           int untyped, int unfinished, long handlerRuns, long engineDrops, long durationNanos,
                           FaultCounts towardsServer, FaultCounts towardsClient, List<String> failureSamples,
                           String engineMetrics, long[] deadlineLatenessNanos) {

    public FaultOutcome {
        failedByCode = Map.copyOf(new TreeMap<>(failedByCode));
        failureSamples = List.copyOf(failureSamples);
        deadlineLatenessNanos = deadlineLatenessNanos.clone();
        java.util.Arrays.sort(deadlineLatenessNanos);
    }

    /** The lateness of DEADLINE_EXCEEDED outcomes as {@code n=.. p50=..ms p99=..ms max=..ms}, or null for none. */
    public String deadlineLatenessText() {
        long[] l = deadlineLatenessNanos;
        if (l.length == 0) {
            return null;
        }
        return String.format(Locale.ROOT, "n=%d p50=%.2f ms p99=%.2f ms max=%.2f ms", l.length,
                l[(l.length - 1) / 2] / 1e6, l[(int) Math.ceil(l.length * 0.99) - 1] / 1e6, l[l.length - 1] / 1e6);
    }

    public int failed() {
        return failedByCode.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** True when every call ended: in a response or a typed error. */
    public boolean everyCallEnded() {
        return untyped == 0 && unfinished == 0 && exact + wrongBytes + failed() == calls;
    }

    /** Failures as {@code CODE=n CODE=n}, or {@code -}. */
    public String failuresText() {
        if (failedByCode.isEmpty()) {
            return "-";
        }
        StringBuilder s = new StringBuilder();
        new TreeMap<>(failedByCode).forEach((code, n) -> s.append(s.length() == 0 ? "" : " ").append(code)
                .append('=').append(n));
        return s.toString();
    }

    /** The faults in short: {@code loss 10% dup 1% ...}. */
    public String faultsText() {
        StringBuilder s = new StringBuilder();
        append(s, "loss", faults.drop());
        append(s, "corrupt", faults.corrupt());
        append(s, "dup", faults.duplicate());
        if (faults.delay() > 0) {
            append(s, "delay", faults.delay());
            s.append(String.format(Locale.ROOT, "<=%dus", faults.maxDelayNanos() / 1_000));
        }
        return s.length() == 0 ? "none" : s.toString();
    }

    private static void append(StringBuilder s, String name, double p) {
        if (p > 0) {
            s.append(s.length() == 0 ? "" : " ").append(name).append(' ')
                    .append(String.format(Locale.ROOT, "%.3g%%", p * 100).replaceAll("\\.?0+%$", "%"));
        }
    }
}
