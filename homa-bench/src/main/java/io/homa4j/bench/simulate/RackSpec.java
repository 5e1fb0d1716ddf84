package io.homa4j.bench.simulate;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.sim.NetworkConfig;

/**
 * The simulated rack: {@code hosts} hosts, each with one full-duplex link of {@code linkMbps} to one switch whose
 * egress ports have 8 strict-priority queues (see {@link io.homa4j.core.sim.SwitchPort}).
 *
 * <p>Buffers are tail-drop and stated in wire bytes (UDP payload + 28 B of IPv4/UDP header): each egress port holds
 * at most {@code portBufferBytes} over its 8 queues, and all ports together at most {@code sharedBufferBytes} (a
 * shared-memory switch). No Ethernet framing is modelled, so the engine's pacer and the links count the same bytes.
 *
 * @param hosts              hosts on the switch, at least 2
 * @param linkMbps           rate of every link, Mbit/s (1 Mbit/s to 1 Tbit/s)
 * @param propagationNanos   one-way delay of every link (host to switch, switch to host): NIC, PHY and cable
 * @param switchLatencyNanos time from a packet's last bit arriving at the switch to its enqueue on the egress port
 * @param portBufferBytes    per-port buffer, wire bytes
 * @param sharedBufferBytes  switch-wide buffer, wire bytes
 */
public record RackSpec(int hosts, int linkMbps, long propagationNanos, long switchLatencyNanos, long portBufferBytes,
                       long sharedBufferBytes) {
    public static final int DEFAULT_HOSTS = 16;
    public static final int DEFAULT_LINK_GBPS = 100;
    public static final int MAX_LINK_MBPS = 1_000_000;
    public static final long DEFAULT_PROPAGATION_NANOS = 200;
    public static final long DEFAULT_SWITCH_LATENCY_NANOS = 250;
    /** 1 MiB per port, and 8 MiB shared by the 16 ports: about a Tomahawk-class switch's buffer per port. */
    public static final long DEFAULT_PORT_BUFFER_BYTES = 1L << 20;
    public static final long DEFAULT_SHARED_BUFFER_BYTES = 8L << 20;

    public RackSpec {
        if (hosts < 2) {
            throw new IllegalArgumentException("a rack needs at least 2 hosts: " + hosts);
        }
        if (linkMbps < 1 || linkMbps > MAX_LINK_MBPS) {
            throw new IllegalArgumentException("linkMbps must be in [1, " + MAX_LINK_MBPS + "]: " + linkMbps);
        }
        if (propagationNanos < 0 || switchLatencyNanos < 0 || portBufferBytes < 1 || sharedBufferBytes < 1) {
            throw new IllegalArgumentException("delays must be >= 0 and buffers >= 1 byte");
        }
    }

    public static RackSpec defaults() {
        return new RackSpec(DEFAULT_HOSTS, DEFAULT_LINK_GBPS * 1_000, DEFAULT_PROPAGATION_NANOS, DEFAULT_SWITCH_LATENCY_NANOS,
                DEFAULT_PORT_BUFFER_BYTES, DEFAULT_SHARED_BUFFER_BYTES);
    }

    public RackSpec withHosts(int n) {
        return new RackSpec(n, linkMbps, propagationNanos, switchLatencyNanos, portBufferBytes, sharedBufferBytes);
    }

    public long linkBitsPerSecond() {
        return linkMbps * 1_000_000L;
    }

    /** The simulated network; {@code seed} only matters for fault injection, which the study does not use. */
    public NetworkConfig networkConfig(long seed) {
        return NetworkConfig.builder()
                .hosts(hosts)
                .linkMbps(linkMbps)
                .propagationDelayNanos(propagationNanos)
                .switchLatencyNanos(switchLatencyNanos)
                .wireOverheadBytes(NetworkConfig.IP_UDP_HEADER_BYTES)
                .portBufferBytes(portBufferBytes)
                .sharedBufferBytes(sharedBufferBytes)
                .seed(seed)
                .build();
    }

    /** Time to put {@code wireBytes} on one link, nanoseconds (fractional). */
    public double serializationNanos(long wireBytes) {
        return wireBytes * 8_000.0 / linkMbps;
    }

    /**
     * Round trip of one full-size packet each way on the idle rack, rounded up to whole microseconds: what the
     * engine's byte budgets (unscheduled bytes = one bandwidth-delay product) are derived from.
     */
    public int fullPacketRttMicros(int mtu) {
        double oneWay = 2 * propagationNanos + switchLatencyNanos + 2 * serializationNanos(mtu);
        return (int) Math.max(1, Math.ceil(2 * oneWay / 1_000.0));
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT,
                "%d hosts x %s, %d ns per link + %d ns switch, buffers %d KiB per port / %d KiB shared"
                        + " (tail drop, 8 strict-priority queues per port)", hosts, rateLabel(), propagationNanos,
                switchLatencyNanos, portBufferBytes >> 10, sharedBufferBytes >> 10);
    }

    /** The link rate as "25 Mb/s" or "100 Gb/s". */
    public String rateLabel() {
        return linkMbps % 1_000 == 0 ? linkMbps / 1_000 + " Gb/s" : linkMbps + " Mb/s";
    }

    static int mtu() {
        return HomaConfig.defaults().mtu();
    }
}
