package io.homa4j.bench.cli;

import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.workload.Workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One {@code compare}, checked and with every default resolved: what both places share, and the place's own
 * settings ({@link #rack} in the emulated rack, {@link #loopback} on loopback, the other null).
 *
 * @param workload      message lengths, cut at {@code maxMessage}
 * @param load          offered load as a fraction of {@code linkMbps}
 * @param rttUs         Homa's unloaded round trip; null in the rack: the rack measures it
 * @param seed          the first repeat's seed; repeat r uses {@code seed + r - 1}
 */
public record ComparePlan(List<Protocol> protocols, Workload workload, int maxMessage, double load, int linkMbps,
                          double durationSeconds, double warmupSeconds, long seed, int maxOutstanding,
                          int tcpConnections, Integer rttUs, int repeats, Path outDir, RackSetup rack,
                          LoopbackSetup loopback) {

    /**
     * What only the emulated rack takes.
     *
     * @param hostQueues the hosts' NICs: one FIFO, or strict-priority queues by DSCP as at the switch's ports
     */
    public record RackSetup(int hosts, String prefix, HostQueues hostQueues) {
    }

    /** The transmit queues of the emulated hosts' NICs ({@code netlab.sh --host-queues}). */
    public enum HostQueues {
        /** One FIFO: every packet waits behind every packet the host queued before it. */
        FIFO,
        /**
         * Eight strict-priority queues selected by the packet's DSCP class, as at the switch's ports and as on NICs
         * with hardware traffic classes (IEEE 802.1Qaz ETS with strict-priority classes, set up through DCB or
         * Linux's mqprio in hardware mode).
         */
        PRIO;

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** What only loopback takes. */
    public record LoopbackSetup(CompareCommand.Mode mode, int homaLinkMbps, double drainSeconds) {
    }

    public ComparePlan {
        protocols = List.copyOf(protocols);
        if ((rack == null) == (loopback == null)) {
            throw new IllegalArgumentException("a comparison runs in the rack or on loopback");
        }
    }

    public boolean inRack() {
        return rack != null;
    }

    /** Homa first in odd repeats, TCP first in even ones, so neither always runs on the fresher machine. */
    public List<Protocol> order(int repeat) {
        List<Protocol> order = new ArrayList<>(protocols);
        if (repeat % 2 == 0) {
            Collections.reverse(order);
        }
        return order;
    }

    /** The seed of repeat {@code repeat} (from 1). */
    public long seed(int repeat) {
        return seed + repeat - 1;
    }

    /** Where repeat {@code repeat}'s files go. */
    public Path repeatDir(int repeat) {
        return outDir.resolve("repeat-" + repeat);
    }

    /**
     * Mbit/s of requests all clients offer together: in the rack's all-to-all echo each host's link carries its
     * requests and its responses, so each of the {@code hosts} clients offers {@code load x link / 2}.
     */
    public double requestMbps() {
        return inRack() ? load * linkMbps / 2 * rack.hosts() : load * linkMbps;
    }

    /** The options of {@code compare} that give this plan, every default written out. */
    public List<String> argv() {
        List<String> argv = new ArrayList<>(List.of("--where", inRack() ? "rack" : "loopback",
                "--repeats", Integer.toString(repeats), "--workload", WorkloadOption.spec(workload),
                "--max-message", Integer.toString(maxMessage), "--load", Double.toString(load),
                "--link-mbps", Integer.toString(linkMbps), "--duration", Converters.number(durationSeconds),
                "--warmup", Converters.number(warmupSeconds), "--seed", Long.toString(seed),
                "--max-outstanding", Integer.toString(maxOutstanding),
                "--tcp-connections", Integer.toString(tcpConnections),
                "--protocols", String.join(",", protocols.stream().map(Protocol::id).toList()),
                "--out", outDir.toString()));
        if (rttUs != null) {
            argv.addAll(List.of("--rtt-us", Integer.toString(rttUs)));
        }
        if (inRack()) {
            argv.addAll(List.of("--hosts", Integer.toString(rack.hosts()), "--prefix", rack.prefix(),
                    "--host-queues", rack.hostQueues().toString()));
        } else {
            argv.addAll(List.of("--mode", loopback.mode().toString(), "--homa-link-mbps",
                    Integer.toString(loopback.homaLinkMbps()), "--drain", Converters.number(loopback.drainSeconds())));
        }
        return argv;
    }
}
