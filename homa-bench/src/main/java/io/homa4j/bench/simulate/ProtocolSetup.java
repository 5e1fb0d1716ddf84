package io.homa4j.bench.simulate;

import io.homa4j.core.HomaConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * The engine configuration every simulated host runs: the protocol plus the ablation switches, mapped onto
 * {@link HomaConfig}.
 *
 * @param protocol       Homa or the FIFO baseline
 * @param priorityLevels {@code --priorities}: levels in use (1..8), or 0 for the protocol's default
 * @param maxOvercommit  {@code --overcommit}: messages granted at once, or 0 for the default (8)
 * @param srpt           false with {@code --no-srpt}: oldest-first order on senders and in grants
 * @param pacerQueueNanos {@code --pacer-queue-ns}: most link time the pacer lets queue in the host's NIC, or 0 for
 *                       the engine's default (5 us)
 * @param fifoGrantFraction {@code --fifo-fraction}: the receivers' and senders' FIFO share, or a negative value for
 *                       the engine's default (0.05)
 * @param rttMicros      {@code --rtt-budget-us}: the RTT budget the engine sizes unscheduled bytes and grant windows from,
 *                       or 0 for the rack's full-packet round trip
 */
public record ProtocolSetup(SimProtocol protocol, int priorityLevels, int maxOvercommit, boolean srpt,
                            long pacerQueueNanos, double fifoGrantFraction, int rttMicros) {
    public ProtocolSetup(SimProtocol protocol, int priorityLevels, int maxOvercommit, boolean srpt,
                         long pacerQueueNanos) {
        this(protocol, priorityLevels, maxOvercommit, srpt, pacerQueueNanos, -1, 0);
    }

    public ProtocolSetup {
        if (rttMicros < 0) {
            throw new IllegalArgumentException("RTT budget must be positive: " + rttMicros);
        }
        if (pacerQueueNanos < 0) {
            throw new IllegalArgumentException("pacer queue must be positive: " + pacerQueueNanos);
        }
        if (priorityLevels < 0 || priorityLevels > 8) {
            throw new IllegalArgumentException("priority levels must be in [1, 8]: " + priorityLevels);
        }
        if (maxOvercommit < 0) {
            throw new IllegalArgumentException("overcommit must be positive: " + maxOvercommit);
        }
        if (protocol == SimProtocol.FIFO_BASELINE && (priorityLevels > 1 || maxOvercommit > 0 || !srpt
                || fifoGrantFraction >= 0 || rttMicros > 0)) {
            throw new IllegalArgumentException("fifo-baseline has no priorities, grants or SRPT to ablate");
        }
    }

    public static ProtocolSetup homa() {
        return new ProtocolSetup(SimProtocol.HOMA, 0, 0, true, 0);
    }

    /**
     * The engine's configuration on {@code rack} for messages up to {@code maxMessage} bytes. Homa: the defaults
     * with the link rate and the rack's full-packet RTT (so unscheduled bytes = one bandwidth-delay product), then
     * the ablations. Baseline: one level, unscheduled bytes = the longest message (no grant is ever needed), FIFO.
     */
    public HomaConfig homaConfig(RackSpec rack, int maxMessage) {
        int mtu = RackSpec.mtu();
        HomaConfig.Builder b = HomaConfig.builder()
                .linkMbps(rack.linkMbps())
                .rttMicros(rttMicros > 0 ? rttMicros : rack.fullPacketRttMicros(mtu))
                .mtu(mtu)
                .maxMessageBytes(Math.max(maxMessage, 1))
                // the open-loop generator bounds outstanding calls itself; the engine's caps must not bind first
                .maxOutstandingRpcs(100_000)
                .maxServerRpcs(100_000);
        if (pacerQueueNanos > 0) {
            b.pacerMaxQueueNanos(pacerQueueNanos);
        }
        if (protocol == SimProtocol.FIFO_BASELINE) {
            return b.priorityLevels(1)
                    .unscheduledBytes(Math.max(maxMessage, 1))
                    .srpt(false)
                    .build();
        }
        if (priorityLevels > 0) {
            b.priorityLevels(priorityLevels);
        }
        if (maxOvercommit > 0) {
            b.maxOvercommit(maxOvercommit);
        }
        if (fifoGrantFraction >= 0) {
            b.fifoGrantFraction(fifoGrantFraction);
        }
        return b.srpt(srpt).build();
    }

    /** A short description: {@code homa}, {@code homa --priorities 1}, {@code fifo-baseline}, ... */
    public String describe() {
        List<String> parts = new ArrayList<>();
        parts.add(protocol.id());
        if (priorityLevels > 0) {
            parts.add("--priorities " + priorityLevels);
        }
        if (maxOvercommit > 0) {
            parts.add("--overcommit " + maxOvercommit);
        }
        if (!srpt) {
            parts.add("--no-srpt");
        }
        if (pacerQueueNanos > 0) {
            parts.add("--pacer-queue-ns " + pacerQueueNanos);
        }
        if (fifoGrantFraction >= 0) {
            parts.add("--fifo-fraction " + fifoGrantFraction);
        }
        if (rttMicros > 0) {
            parts.add("--rtt-budget-us " + rttMicros);
        }
        return String.join(" ", parts);
    }
}
