package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;

/**
 * Shape and faults of one {@link SimulatedNetwork}: a single switch with one full-duplex link per host.
 *
 * <pre>
 *   host i NIC --uplink (rate, propagation)--> switch --egress port i: 8 strict-priority queues--> downlink --> host i
 * </pre>
 *
 * <p>Units: rates in bits per second, times in nanoseconds, buffers in <em>wire bytes</em> (UDP payload plus
 * {@link #wireOverheadBytes()}) and, optionally, packets. A packet occupies its egress port's buffer from the
 * moment it is accepted until its last bit has left on the downlink; the packet being transmitted counts.
 *
 * <p>Immutable and thread-safe. Build with {@link #builder()}.
 */
public final class NetworkConfig {
    /** Ethernet framing that {@link #wireOverheadBytes()} leaves out by default: header, FCS, preamble, gap. */
    public static final int ETHERNET_FRAMING_BYTES = HomaConfig.ETHERNET_LINE_FRAMING_BYTES;
    /** IPv4 (20) + UDP (8) header bytes, the default {@link #wireOverheadBytes()}. */
    public static final int IP_UDP_HEADER_BYTES = HomaConfig.IP_UDP_HEADER_BYTES;
    /** Means "no limit" for the buffer settings. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private final int hosts;
    private final long linkBitsPerSecond;
    private final long propagationDelayNanos;
    private final long switchLatencyNanos;
    private final int wireOverheadBytes;
    private final long portBufferBytes;
    private final long portBufferPackets;
    private final long sharedBufferBytes;
    private final double lossProbability;
    private final double duplicateProbability;
    private final double reorderProbability;
    private final long reorderMaxDelayNanos;
    private final long seed;
    private final int udpPort;

    private NetworkConfig(Builder b) {
        if (b.hosts < 1 || b.hosts > 65_534) {
            throw new IllegalArgumentException("hosts must be in [1, 65534]: " + b.hosts);
        }
        this.hosts = b.hosts;
        this.linkBitsPerSecond = positive(b.linkBitsPerSecond, "linkBitsPerSecond");
        this.propagationDelayNanos = nonNegative(b.propagationDelayNanos, "propagationDelayNanos");
        this.switchLatencyNanos = nonNegative(b.switchLatencyNanos, "switchLatencyNanos");
        if (b.wireOverheadBytes < 0 || b.wireOverheadBytes > 1_000) {
            throw new IllegalArgumentException("wireOverheadBytes must be in [0, 1000]: " + b.wireOverheadBytes);
        }
        this.wireOverheadBytes = b.wireOverheadBytes;
        this.portBufferBytes = positive(b.portBufferBytes, "portBufferBytes");
        this.portBufferPackets = positive(b.portBufferPackets, "portBufferPackets");
        this.sharedBufferBytes = positive(b.sharedBufferBytes, "sharedBufferBytes");
        this.lossProbability = probability(b.lossProbability, "lossProbability");
        this.duplicateProbability = probability(b.duplicateProbability, "duplicateProbability");
        this.reorderProbability = probability(b.reorderProbability, "reorderProbability");
        this.reorderMaxDelayNanos = nonNegative(b.reorderMaxDelayNanos, "reorderMaxDelayNanos");
        if (reorderProbability > 0 && reorderMaxDelayNanos == 0) {
            throw new IllegalArgumentException("reordering needs reorderMaxDelayNanos > 0");
        }
        this.seed = b.seed;
        if (b.udpPort < 1 || b.udpPort > 65_535) {
            throw new IllegalArgumentException("udpPort must be in [1, 65535]: " + b.udpPort);
        }
        this.udpPort = b.udpPort;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.hosts = hosts;
        b.linkBitsPerSecond = linkBitsPerSecond;
        b.propagationDelayNanos = propagationDelayNanos;
        b.switchLatencyNanos = switchLatencyNanos;
        b.wireOverheadBytes = wireOverheadBytes;
        b.portBufferBytes = portBufferBytes;
        b.portBufferPackets = portBufferPackets;
        b.sharedBufferBytes = sharedBufferBytes;
        b.lossProbability = lossProbability;
        b.duplicateProbability = duplicateProbability;
        b.reorderProbability = reorderProbability;
        b.reorderMaxDelayNanos = reorderMaxDelayNanos;
        b.seed = seed;
        b.udpPort = udpPort;
        return b;
    }

    /** Number of hosts, each with one link to the switch. */
    public int hosts() { return hosts; }

    /** Rate of every link (host uplinks and switch downlinks), bits per second. */
    public long linkBitsPerSecond() { return linkBitsPerSecond; }

    /** One-way propagation delay of every link (host to switch, switch to host). */
    public long propagationDelayNanos() { return propagationDelayNanos; }

    /** Time a packet spends in the switch between its arrival and its enqueue on the egress port. */
    public long switchLatencyNanos() { return switchLatencyNanos; }

    /** Bytes each packet costs on the wire beyond its UDP payload (default: IPv4 + UDP headers). */
    public int wireOverheadBytes() { return wireOverheadBytes; }

    /** Most wire bytes one egress port holds over its 8 queues; an arriving packet that does not fit is dropped. */
    public long portBufferBytes() { return portBufferBytes; }

    /** Most packets one egress port holds over its 8 queues. */
    public long portBufferPackets() { return portBufferPackets; }

    /** Most wire bytes all egress ports hold together (a shared-memory switch); unlimited by default. */
    public long sharedBufferBytes() { return sharedBufferBytes; }

    /** Chance that a packet is lost on its uplink (it still uses the uplink's time). */
    public double lossProbability() { return lossProbability; }

    /** Chance that a packet reaches the switch twice (the copy right behind the original). */
    public double duplicateProbability() { return duplicateProbability; }

    /** Chance that a packet is held back on its uplink by a uniform extra delay in (0, reorderMaxDelayNanos]. */
    public double reorderProbability() { return reorderProbability; }

    /** Largest extra delay of a reordered packet. */
    public long reorderMaxDelayNanos() { return reorderMaxDelayNanos; }

    /** Seed of the one random stream all faults are drawn from. */
    public long seed() { return seed; }

    /** UDP port of every host's address. */
    public int udpPort() { return udpPort; }

    @Override
    public String toString() {
        return "NetworkConfig{hosts=" + hosts + ", linkBitsPerSecond=" + linkBitsPerSecond
                + ", propagationDelayNanos=" + propagationDelayNanos + ", switchLatencyNanos=" + switchLatencyNanos
                + ", wireOverheadBytes=" + wireOverheadBytes + ", portBufferBytes=" + limit(portBufferBytes)
                + ", portBufferPackets=" + limit(portBufferPackets) + ", sharedBufferBytes=" + limit(sharedBufferBytes)
                + ", loss=" + lossProbability + ", duplicate=" + duplicateProbability + ", reorder="
                + reorderProbability + "/" + reorderMaxDelayNanos + "ns, seed=" + seed + '}';
    }

    private static String limit(long v) {
        return v == UNLIMITED ? "unlimited" : Long.toString(v);
    }

    private static long positive(long v, String name) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + v);
        }
        return v;
    }

    private static long nonNegative(long v, String name) {
        if (v < 0) {
            throw new IllegalArgumentException(name + " must not be negative: " + v);
        }
        return v;
    }

    private static double probability(double v, String name) {
        if (!(v >= 0 && v <= 1)) {
            throw new IllegalArgumentException(name + " must be in [0, 1]: " + v);
        }
        return v;
    }

    /** Mutable builder; not thread-safe. Defaults: 2 hosts, 10 Gb/s, 500 ns per link, 1 MiB per port, no faults. */
    public static final class Builder {
        private int hosts = 2;
        private long linkBitsPerSecond = 10_000_000_000L;
        private long propagationDelayNanos = 500;
        private long switchLatencyNanos;
        private int wireOverheadBytes = IP_UDP_HEADER_BYTES;
        private long portBufferBytes = 1L << 20;
        private long portBufferPackets = UNLIMITED;
        private long sharedBufferBytes = UNLIMITED;
        private double lossProbability;
        private double duplicateProbability;
        private double reorderProbability;
        private long reorderMaxDelayNanos = 10_000;
        private long seed = 1;
        private int udpPort = 4_000;

        private Builder() {
        }

        public Builder hosts(int v) { hosts = v; return this; }
        public Builder linkBitsPerSecond(long v) { linkBitsPerSecond = v; return this; }
        public Builder linkMbps(long v) { linkBitsPerSecond = Math.multiplyExact(v, 1_000_000L); return this; }
        public Builder linkGbps(long v) { linkBitsPerSecond = Math.multiplyExact(v, 1_000_000_000L); return this; }
        public Builder propagationDelayNanos(long v) { propagationDelayNanos = v; return this; }
        public Builder switchLatencyNanos(long v) { switchLatencyNanos = v; return this; }
        public Builder wireOverheadBytes(int v) { wireOverheadBytes = v; return this; }
        /** Per-port limit in wire bytes; {@link #UNLIMITED} for none. */
        public Builder portBufferBytes(long v) { portBufferBytes = v; return this; }
        /** Per-port limit in packets; {@link #UNLIMITED} (default) for none. */
        public Builder portBufferPackets(long v) { portBufferPackets = v; return this; }
        /** Switch-wide limit in wire bytes; {@link #UNLIMITED} (default) for none. */
        public Builder sharedBufferBytes(long v) { sharedBufferBytes = v; return this; }
        public Builder lossProbability(double v) { lossProbability = v; return this; }
        public Builder duplicateProbability(double v) { duplicateProbability = v; return this; }
        public Builder reorderProbability(double v) { reorderProbability = v; return this; }
        public Builder reorderMaxDelayNanos(long v) { reorderMaxDelayNanos = v; return this; }
        public Builder seed(long v) { seed = v; return this; }
        public Builder udpPort(int v) { udpPort = v; return this; }

        public NetworkConfig build() {
            return new NetworkConfig(this);
        }
    }
}
