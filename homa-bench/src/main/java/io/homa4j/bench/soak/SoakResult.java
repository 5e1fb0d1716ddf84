package io.homa4j.bench.soak;

import io.homa4j.core.ErrorCode;

import java.util.Map;

/**
 * What a soak run ended with. Every started call is counted once: completed byte-exact, failed with a typed
 * error (by code), completed with wrong bytes (mismatched), failed with something else (untyped), or lost (no
 * outcome when the drain time ran out).
 *
 * @param leaks buffer leaks Netty reported, or -1 when they could not be counted
 */
public record SoakResult(long started, long completed, Map<ErrorCode, Long> failedByCode, long mismatched,
                         long untyped, long lost, long leaks, double callsPerSecond) {

    public long failed() {
        return failedByCode.values().stream().mapToLong(Long::longValue).sum();
    }

    /** No call lost, none answered with wrong bytes or an untyped error, no leak, and at least one completed. */
    public boolean passed() {
        return lost == 0 && mismatched == 0 && untyped == 0 && leaks <= 0 && completed > 0
                && started == completed + failed() + mismatched + untyped + lost;
    }
}
