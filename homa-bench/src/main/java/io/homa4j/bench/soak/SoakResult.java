package io.homa4j.bench.soak;

import io.homa4j.core.ErrorCode;

import java.util.Map;

/**
 * What a soak run ended with. Every started call is counted once: completed byte-exact, failed with a typed
 * error (by code), completed with wrong bytes (mismatched), failed with something else (untyped), or lost (no
 * outcome when the drain time ran out).
 *
 * @param leaks  buffer leaks Netty reported, or -1 when they could not be counted
 * @param attack what the memory attack sent and drew, or null when none ran
 */
public record SoakResult(long started, long completed, Map<ErrorCode, Long> failedByCode, long mismatched,
                         long untyped, long lost, long leaks, double callsPerSecond, Attack attack) {

    /**
     * The slow memory attack's figures.
     *
     * @param forgedPackets      forged first packets handed to the kernel
     * @param forgedBytesOnWire  their bytes, IP and UDP headers included
     * @param reflectedBytes     bytes the server sent back to the forged sources (headers included)
     * @param bufferedHighWater  the server's buffered-bytes high-water, real calls' requests included
     */
    public record Attack(long forgedPackets, long forgedBytesOnWire, long reflectedBytes, long bufferedHighWater) {
        /** Bytes the server sent to the forged sources per forged packet (reflection). */
        public double reflectedBytesPerPacket() {
            return forgedPackets == 0 ? 0 : (double) reflectedBytes / forgedPackets;
        }

        /** Buffered bytes at the high-water per byte the attacker sent: an upper bound of what it pinned. */
        public double pinnedPerAttackerByte() {
            return forgedBytesOnWire == 0 ? 0 : (double) bufferedHighWater / forgedBytesOnWire;
        }
    }

    public long failed() {
        return failedByCode.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Calls that ended in any way (everything but the lost ones). */
    public long ended() {
        return completed + failed() + mismatched + untyped;
    }

    /** No call lost, none answered with wrong bytes or an untyped error, no leak, and at least one completed. */
    public boolean passed() {
        return lost == 0 && mismatched == 0 && untyped == 0 && leaks <= 0 && completed > 0
                && started == ended() + lost;
    }
}
