package io.homa4j.core;

import java.util.Arrays;

/**
 * Every protocol parameter of one Homa endpoint, immutable. Defaults follow the Linux module, scaled to the
 * configured link rate and round-trip time; see {@code docs/protocol.md} and {@code docs/architecture.md}.
 *
 * <p>Build one with {@link #builder()}; {@link #defaults()} suits a 10 Gb/s link with a 20 us RTT (loopback).
 * Thread-safe (immutable).
 *
 * <p>One documented, validated field per protocol parameter, each with its builder setter; the defaults derived
 * from other parameters (byte budgets, RESEND timeout, buffer cap) are computed by {@code DerivedDefaults}.
 */
public final class HomaConfig {
    /** Bytes of IPv4 + UDP header that every packet pays on the wire. */
    public static final int IP_UDP_HEADER_BYTES = 28;
    /** Ethernet's framing per packet at line rate: header 14, FCS 4, preamble 8, inter-frame gap 12. */
    public static final int ETHERNET_LINE_FRAMING_BYTES = 38;
    /** What a Linux qdisc shaper (tbf, htb) charges per packet beyond the IP packet: the Ethernet header. */
    public static final int QDISC_SHAPER_FRAMING_BYTES = 14;

    private final int linkMbps;
    private final int linkFramingBytes;
    private final int rttMicros;
    private final int mtu;
    private final int priorityLevels;
    private final int[] unscheduledCutoffs;
    private final int[] dscpByLevel;
    private final int unscheduledBytes;
    private final int maxOvercommit;
    private final int maxGrantedPerPeer;
    private final long maxIncomingBytes;
    private final double fifoGrantFraction;
    private final long pacerMaxQueueNanos;
    private final int pacerNeverDeferBytes;
    private final long pacerWakeLatenessNanos;
    private final long tickNanos;
    private final int resendTicks;
    /** What the builder was given: 0 derives {@link #resendTicks} (kept so toBuilder re-derives). */
    private final int resendTicksSetting;
    private final int abortTicks;
    private final int needAckTicks;
    private final int loneNeedAckTicks;
    /** What the builder was given: 0 derives {@link #loneNeedAckTicks} (kept so toBuilder re-derives). */
    private final int loneNeedAckTicksSetting;
    private static final int DEFAULT_LONE_NEED_ACK_TICKS = 40;
    private final int maxMessageBytes;
    private final int maxOutstandingRpcs;
    private final int maxServerRpcs;
    private final long maxBufferedBytesPerPeer;
    private final long maxBufferedBytesTotal;
    private final int handlerTimeoutTicks;
    private final boolean retryOnServerStateLoss;
    private final boolean srpt;

    private HomaConfig(Builder b) {
        this.linkMbps = positive(b.linkMbps, "linkMbps");
        if (b.linkFramingBytes < 0 || b.linkFramingBytes > 1_000) {
            throw new IllegalArgumentException("linkFramingBytes must be in [0, 1000]: " + b.linkFramingBytes);
        }
        this.linkFramingBytes = b.linkFramingBytes;
        this.rttMicros = positive(b.rttMicros, "rttMicros");
        if (b.mtu < 576 || b.mtu > 65_535) {
            throw new IllegalArgumentException("mtu must be in [576, 65535]: " + b.mtu);
        }
        this.mtu = b.mtu;
        if (b.priorityLevels < 1 || b.priorityLevels > 8) {
            throw new IllegalArgumentException("priorityLevels must be in [1, 8]: " + b.priorityLevels);
        }
        this.priorityLevels = b.priorityLevels;
        this.unscheduledCutoffs = b.unscheduledCutoffs.clone();
        for (int i = 1; i < unscheduledCutoffs.length; i++) {
            if (unscheduledCutoffs[i] < unscheduledCutoffs[i - 1]) {
                throw new IllegalArgumentException("unscheduledCutoffs must be ascending: "
                        + Arrays.toString(unscheduledCutoffs));
            }
        }
        this.dscpByLevel = b.dscpByLevel.clone();
        if (dscpByLevel.length != 8) {
            throw new IllegalArgumentException("dscpByLevel needs 8 entries");
        }
        for (int dscp : dscpByLevel) {
            if (dscp < 0 || dscp > 63) {
                throw new IllegalArgumentException("DSCP out of range [0, 63]: " + dscp);
            }
        }
        this.unscheduledBytes = b.unscheduledBytes > 0 ? b.unscheduledBytes
                : DerivedDefaults.unscheduledBytes(linkMbps, rttMicros, mtu - IP_UDP_HEADER_BYTES);
        this.maxOvercommit = positive(b.maxOvercommit, "maxOvercommit");
        this.maxGrantedPerPeer = positive(b.maxGrantedPerPeer, "maxGrantedPerPeer");
        this.maxIncomingBytes = b.maxIncomingBytes > 0 ? b.maxIncomingBytes
                : DerivedDefaults.maxIncomingBytes(unscheduledBytes);
        if (b.fifoGrantFraction < 0 || b.fifoGrantFraction > 0.5) {
            throw new IllegalArgumentException("fifoGrantFraction must be in [0, 0.5]: " + b.fifoGrantFraction);
        }
        this.fifoGrantFraction = b.fifoGrantFraction;
        this.pacerMaxQueueNanos = positive(b.pacerMaxQueueNanos, "pacerMaxQueueNanos");
        this.pacerNeverDeferBytes = nonNegative(b.pacerNeverDeferBytes, "pacerNeverDeferBytes");
        if (b.pacerWakeLatenessNanos < 0 || b.pacerWakeLatenessNanos >= pacerMaxQueueNanos) {
            throw new IllegalArgumentException("pacerWakeLatenessNanos must be in [0, pacerMaxQueueNanos "
                    + pacerMaxQueueNanos + "): " + b.pacerWakeLatenessNanos);
        }
        this.pacerWakeLatenessNanos = b.pacerWakeLatenessNanos;
        this.tickNanos = positive(b.tickNanos, "tickNanos");
        this.resendTicksSetting = nonNegative(b.resendTicks, "resendTicks");
        this.resendTicks = b.resendTicks > 0 ? b.resendTicks
                : DerivedDefaults.resendTicks(pacerMaxQueueNanos, maxIncomingBytes, linkMbps, tickNanos);
        this.abortTicks = positive(b.abortTicks, "abortTicks");
        this.needAckTicks = positive(b.needAckTicks, "needAckTicks");
        this.loneNeedAckTicksSetting = nonNegative(b.loneNeedAckTicks, "loneNeedAckTicks");
        if (b.loneNeedAckTicks == 0) {
            this.loneNeedAckTicks = Math.max(needAckTicks, Math.min(DEFAULT_LONE_NEED_ACK_TICKS, abortTicks - 1));
        } else if (b.loneNeedAckTicks < needAckTicks || b.loneNeedAckTicks >= abortTicks) {
            throw new IllegalArgumentException("loneNeedAckTicks must be in [needAckTicks " + needAckTicks
                    + ", abortTicks " + abortTicks + "): " + b.loneNeedAckTicks);
        } else {
            this.loneNeedAckTicks = b.loneNeedAckTicks;
        }
        this.maxMessageBytes = positive(b.maxMessageBytes, "maxMessageBytes");
        this.maxOutstandingRpcs = positive(b.maxOutstandingRpcs, "maxOutstandingRpcs");
        this.maxServerRpcs = positive(b.maxServerRpcs, "maxServerRpcs");
        this.maxBufferedBytesPerPeer = positive(b.maxBufferedBytesPerPeer, "maxBufferedBytesPerPeer");
        this.maxBufferedBytesTotal = b.maxBufferedBytesTotal == 0 ? DerivedDefaults.bufferCap()
                : positive(b.maxBufferedBytesTotal, "maxBufferedBytesTotal");
        this.handlerTimeoutTicks = positive(b.handlerTimeoutTicks, "handlerTimeoutTicks");
        this.retryOnServerStateLoss = b.retryOnServerStateLoss;
        this.srpt = b.srpt;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static HomaConfig defaults() {
        return builder().build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.linkMbps = linkMbps;
        b.linkFramingBytes = linkFramingBytes;
        b.rttMicros = rttMicros;
        b.mtu = mtu;
        b.priorityLevels = priorityLevels;
        b.unscheduledCutoffs = unscheduledCutoffs.clone();
        b.dscpByLevel = dscpByLevel.clone();
        b.unscheduledBytes = unscheduledBytes;
        b.maxOvercommit = maxOvercommit;
        b.maxGrantedPerPeer = maxGrantedPerPeer;
        b.maxIncomingBytes = maxIncomingBytes;
        b.fifoGrantFraction = fifoGrantFraction;
        b.pacerMaxQueueNanos = pacerMaxQueueNanos;
        b.pacerNeverDeferBytes = pacerNeverDeferBytes;
        b.pacerWakeLatenessNanos = pacerWakeLatenessNanos;
        b.tickNanos = tickNanos;
        b.resendTicks = resendTicksSetting;
        b.abortTicks = abortTicks;
        b.needAckTicks = needAckTicks;
        b.loneNeedAckTicks = loneNeedAckTicksSetting;
        b.maxMessageBytes = maxMessageBytes;
        b.maxOutstandingRpcs = maxOutstandingRpcs;
        b.maxServerRpcs = maxServerRpcs;
        b.maxBufferedBytesPerPeer = maxBufferedBytesPerPeer;
        b.maxBufferedBytesTotal = maxBufferedBytesTotal;
        b.handlerTimeoutTicks = handlerTimeoutTicks;
        b.retryOnServerStateLoss = retryOnServerStateLoss;
        b.srpt = srpt;
        return b;
    }

    /** Link rate the pacer and the derived byte budgets assume, in Mbit/s. */
    public int linkMbps() { return linkMbps; }

    /**
     * Bytes each packet takes on the link beyond its IP packet, which the pacer adds to every packet's link
     * time. 0 (default) counts the IP packet only, as the simulator's links do unless told otherwise. A pacer that
     * counts less than the link charges sends faster than the link drains, and the host's queue grows by that
     * share of every busy period (with 14 B uncounted per 1,500 B packet, by about a millisecond per 100 ms of
     * sending), in front of every short message. Set {@link #ETHERNET_LINE_FRAMING_BYTES} when {@link #linkMbps}
     * is an Ethernet NIC's line rate, {@link #QDISC_SHAPER_FRAMING_BYTES} when a qdisc shapes the link to it.
     */
    public int linkFramingBytes() { return linkFramingBytes; }

    /** Unloaded round-trip time the derived byte budgets assume, in microseconds. */
    public int rttMicros() { return rttMicros; }

    /** IP MTU: the largest IP packet the engine produces (IP + UDP + Homa header + payload). */
    public int mtu() { return mtu; }

    /** Largest UDP payload (Homa header included) of one packet. */
    public int maxUdpPayload() { return mtu - IP_UDP_HEADER_BYTES; }

    /** Number of priority levels in use, 1..8; level {@code priorityLevels - 1} is the highest. */
    public int priorityLevels() { return priorityLevels; }

    /**
     * Unscheduled priority cutoffs, ascending message lengths: a message no longer than {@code cutoffs[i]} uses
     * the {@code i}-th highest unscheduled level; longer than all uses the lowest unscheduled level. Copy.
     */
    public int[] unscheduledCutoffs() { return unscheduledCutoffs.clone(); }

    /** DSCP code point (0..63) for priority level {@code level} (0..7). The IP TOS byte is {@code dscp << 2}. */
    public int dscpForLevel(int level) { return dscpByLevel[level]; }

    /** Bytes of each message the sender sends before any grant: about one bandwidth-delay product. */
    public int unscheduledBytes() { return unscheduledBytes; }

    /** Most incoming messages granted at once. */
    public int maxOvercommit() { return maxOvercommit; }

    /**
     * Most incoming messages from one peer granted at once (the Linux module's max_rpcs_per_peer, also 1 there).
     * A sender sends its own messages shortest first, so grants to its other messages would only sit unused
     * while counting against {@link #maxIncomingBytes()} and shrinking every message's window.
     */
    public int maxGrantedPerPeer() { return maxGrantedPerPeer; }

    /** Cap on granted-but-not-yet-received bytes over all incoming messages. */
    public long maxIncomingBytes() { return maxIncomingBytes; }

    /** Share of grant bandwidth given to the oldest incoming message regardless of its size. */
    public double fifoGrantFraction() { return fifoGrantFraction; }

    /** The pacer keeps at most this much link time of packets queued in the host. */
    public long pacerMaxQueueNanos() { return pacerMaxQueueNanos; }

    /** Messages with at most this many bytes left are never deferred by the pacer. */
    public int pacerNeverDeferBytes() { return pacerNeverDeferBytes; }

    /**
     * How late a wake-up for the pacer may come: the engine asks to be polled when the next packet has room
     * ({@link PacketDriven#nextWakeNanos()}) and at the latest this much later ({@link PacketDriven#wakeByNanos()}),
     * when the host's queue has drained that much further; the packets that fit then go in one turn. 0 (the
     * default, and the simulator's): one wake-up per packet once the queue is full. A driver whose timers fire
     * late must keep this below {@link #pacerMaxQueueNanos()} minus that lateness, or the link idles.
     */
    public long pacerWakeLatenessNanos() { return pacerWakeLatenessNanos; }

    /** Period of the timer tick that drives RESEND, NEED_ACK and timeouts. */
    public long tickNanos() { return tickNanos; }

    /**
     * Silent ticks before the first RESEND (and between RESENDs). Unless set, the Linux module's
     * {@link #DEFAULT_RESEND_TICKS}, or more on slow links: at least twice the longest wait granted data can have
     * without any loss (behind a full pacer queue at its sender, then behind every byte this receiver has granted
     * at its switch port), so that a RESEND does not ask for data that is only queued.
     */
    public int resendTicks() { return resendTicks; }

    /** The module's RESEND timeout, in ticks: right for the fast links it was tuned on. */
    public static final int DEFAULT_RESEND_TICKS = 5;

    /**
     * Silent ticks after which an RPC is abandoned (client: UNAVAILABLE). Default 1,000 (1 s), ten times the Linux
     * module's 100: a JVM stalls where a kernel does not (JIT warm-up, GC pauses, an event loop starved of CPU),
     * and on loopback with a freshly started server 100 ms of silence failed calls to a live server. Lower it
     * where the peers are known to answer promptly and fast failure matters more.
     */
    public int abortTicks() { return abortTicks; }

    /** Ticks after a response is fully sent before the server asks the client for an ACK. */
    public int needAckTicks() { return needAckTicks; }

    /**
     * {@link #needAckTicks()} for a response that is the server's only RPC. Default 40 (40 ms at the default
     * tick; fewer when abortTicks is lower, never below needAckTicks), about TCP's shortest delayed ACK. A client
     * acknowledges on its next request to the server, so on a busy server the question is rarely needed; on a
     * quiet one the next request may come a few milliseconds later, and a NEED_ACK sent just before it wakes both
     * hosts in the middle of that call (on a VM a thread wake-up costs tens of microseconds and, with the CPUs
     * shared, sometimes a scheduler slice). Holding one response a little longer costs only its memory. Between
     * {@code needAckTicks} and {@code abortTicks}.
     */
    public int loneNeedAckTicks() { return loneNeedAckTicks; }

    /** Longest request or response accepted or sent. */
    public int maxMessageBytes() { return maxMessageBytes; }

    /** Most client RPCs outstanding at once; more calls are rejected with RESOURCE_EXHAUSTED. */
    public int maxOutstandingRpcs() { return maxOutstandingRpcs; }

    /** Most server RPCs held at once; new requests beyond it are dropped and counted. */
    public int maxServerRpcs() { return maxServerRpcs; }

    /** Cap on bytes buffered for incoming messages from one peer. */
    public long maxBufferedBytesPerPeer() { return maxBufferedBytesPerPeer; }

    /**
     * Cap on bytes buffered for all incoming messages. Default: half the JVM's direct-memory limit, at most 1 GiB
     * ({@link #defaultMaxBufferedBytesTotal}; logged once at INFO when first derived). Incoming messages live in
     * direct memory, and a cap above the limit would turn a flood of large first packets into OutOfMemoryErrors
     * instead of counted drops.
     */
    public long maxBufferedBytesTotal() { return maxBufferedBytesTotal; }

    /**
     * The default {@link #maxBufferedBytesTotal()} in a JVM whose direct memory is limited to {@code maxDirectBytes}
     * (Netty's view of it, {@code -XX:MaxDirectMemorySize} or by default the heap's maximum): half of it, leaving
     * the other half to packets in flight, outgoing copies and the allocator's own arenas; at most 1 GiB, at
     * least 1 MiB.
     */
    public static long defaultMaxBufferedBytesTotal(long maxDirectBytes) {
        return Math.max(1L << 20, Math.min(1L << 30, maxDirectBytes / 2));
    }

    /**
     * Timer ticks a server RPC may wait for its handler's reply (default 60,000: one minute at 1 ms ticks). Then the
     * client gets DEADLINE_EXCEEDED, the handler is told ({@code RpcListener.onRequestAbandoned}) and its late reply
     * is dropped and counted. Bounds what a handler that never replies can hold: without it such RPCs would fill
     * {@link #maxServerRpcs()} for ever. Longer than the API's default call deadline (30 s), so a client that waits
     * normally gives up first, and tells the server.
     */
    public int handlerTimeoutTicks() { return handlerTimeoutTicks; }

    /**
     * When a server answers RPC_UNKNOWN for a call whose request was not yet wholly delivered, restart the call
     * from scratch (true) or fail it with UNAVAILABLE (false). Calls whose request may have been handled are
     * always failed, never re-sent, so a handler never runs twice for one call.
     *
     * <p>"Not yet wholly delivered" means: the client has not finished transmitting the request in this attempt,
     * or the server engine (whose age RPC_UNKNOWN carries) started before the attempt's first request packet
     * left, has no tombstone for the call, and keeps every request it received until the client ACKs it or the
     * call expires (leaving a tombstone). The age is read late, which only makes the engine look younger; it is
     * compared with a grace of {@code rttMicros / 2}, so the guarantee holds unless the server host restarts
     * within {@code rttMicros / 2} of the request's first packet after running its handler.
     */
    public boolean retryOnServerStateLoss() { return retryOnServerStateLoss; }

    /**
     * Whether the sender and the grant scheduler order messages by fewest remaining bytes (SRPT, the default);
     * false orders both oldest first (FIFO), an ablation that shows what SRPT contributes.
     */
    public boolean srpt() { return srpt; }

    @Override
    public String toString() {
        return "HomaConfig{linkMbps=" + linkMbps + ", linkFramingBytes=" + linkFramingBytes
                + ", rttMicros=" + rttMicros + ", mtu=" + mtu
                + ", priorityLevels=" + priorityLevels + ", unscheduledCutoffs=" + Arrays.toString(unscheduledCutoffs)
                + ", unscheduledBytes=" + unscheduledBytes + ", maxOvercommit=" + maxOvercommit
                + ", maxGrantedPerPeer=" + maxGrantedPerPeer
                + ", maxIncomingBytes=" + maxIncomingBytes + ", fifoGrantFraction=" + fifoGrantFraction
                + ", pacerMaxQueueNanos=" + pacerMaxQueueNanos + ", pacerWakeLatenessNanos=" + pacerWakeLatenessNanos
                + ", tickNanos=" + tickNanos
                + ", resendTicks=" + resendTicks + ", maxMessageBytes=" + maxMessageBytes + '}';
    }

    private static int positive(int v, String name) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + v);
        }
        return v;
    }

    private static long positive(long v, String name) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + v);
        }
        return v;
    }

    private static int nonNegative(int v, String name) {
        if (v < 0) {
            throw new IllegalArgumentException(name + " must not be negative: " + v);
        }
        return v;
    }

    /** Mutable builder; not thread-safe. Unset derived values (unscheduled bytes, max incoming) follow link x RTT. */
    public static final class Builder {
        private int linkMbps = 10_000;
        private int linkFramingBytes;
        private int rttMicros = 20;
        private int mtu = 1500;
        private int priorityLevels = 8;
        private int[] unscheduledCutoffs = {200, 2_800, 15_000};
        private int[] dscpByLevel = {0, 8, 16, 24, 32, 40, 48, 56};
        private int unscheduledBytes;
        private int maxOvercommit = 8;
        private int maxGrantedPerPeer = 1;
        private long maxIncomingBytes;
        private double fifoGrantFraction = 0.05;
        private long pacerMaxQueueNanos = 5_000;
        private int pacerNeverDeferBytes = 1_000;
        private long pacerWakeLatenessNanos;
        private long tickNanos = 1_000_000;
        private int resendTicks;
        private int abortTicks = 1_000;
        private int needAckTicks = 2;
        /** 0 derives it (see loneNeedAckTicks()). */
        private int loneNeedAckTicks;
        private int maxMessageBytes = 64 << 20;
        private int maxOutstandingRpcs = 10_000;
        private int maxServerRpcs = 10_000;
        private long maxBufferedBytesPerPeer = 256L << 20;
        /** 0: derived from the JVM's direct-memory limit when built. */
        private long maxBufferedBytesTotal;
        private int handlerTimeoutTicks = 60_000;
        private boolean retryOnServerStateLoss = true;
        private boolean srpt = true;

        private Builder() {
        }

        public Builder linkMbps(int v) { linkMbps = v; return this; }
        /** Bytes per packet the link charges beyond the IP packet; see {@link HomaConfig#linkFramingBytes()}. */
        public Builder linkFramingBytes(int v) { linkFramingBytes = v; return this; }
        public Builder rttMicros(int v) { rttMicros = v; return this; }
        public Builder mtu(int v) { mtu = v; return this; }
        public Builder priorityLevels(int v) { priorityLevels = v; return this; }
        public Builder unscheduledCutoffs(int... v) { unscheduledCutoffs = v.clone(); return this; }
        public Builder dscpByLevel(int... v) { dscpByLevel = v.clone(); return this; }
        /** Fixed unscheduled bytes; 0 (default) derives it from linkMbps x rttMicros. */
        public Builder unscheduledBytes(int v) { unscheduledBytes = v; return this; }
        public Builder maxOvercommit(int v) { maxOvercommit = v; return this; }
        public Builder maxGrantedPerPeer(int v) { maxGrantedPerPeer = v; return this; }
        /** Fixed cap on granted-but-unreceived bytes; 0 (default) derives it as 8 x unscheduled bytes. */
        public Builder maxIncomingBytes(long v) { maxIncomingBytes = v; return this; }
        public Builder fifoGrantFraction(double v) { fifoGrantFraction = v; return this; }
        public Builder pacerMaxQueueNanos(long v) { pacerMaxQueueNanos = v; return this; }
        public Builder pacerNeverDeferBytes(int v) { pacerNeverDeferBytes = v; return this; }
        public Builder pacerWakeLatenessNanos(long v) { pacerWakeLatenessNanos = v; return this; }
        public Builder tickNanos(long v) { tickNanos = v; return this; }
        /** Fixed RESEND timeout in ticks; 0 (default) derives it from the link rate (see resendTicks()). */
        public Builder resendTicks(int v) { resendTicks = v; return this; }
        public Builder abortTicks(int v) { abortTicks = v; return this; }
        public Builder needAckTicks(int v) { needAckTicks = v; return this; }
        public Builder loneNeedAckTicks(int v) { loneNeedAckTicks = v; return this; }
        public Builder maxMessageBytes(int v) { maxMessageBytes = v; return this; }
        public Builder maxOutstandingRpcs(int v) { maxOutstandingRpcs = v; return this; }
        public Builder maxServerRpcs(int v) { maxServerRpcs = v; return this; }
        public Builder maxBufferedBytesPerPeer(long v) { maxBufferedBytesPerPeer = v; return this; }
        /** Cap on all buffered incoming bytes; 0 (default) derives it from the JVM's direct-memory limit. */
        public Builder maxBufferedBytesTotal(long v) { maxBufferedBytesTotal = v; return this; }
        public Builder handlerTimeoutTicks(int v) { handlerTimeoutTicks = v; return this; }
        public Builder retryOnServerStateLoss(boolean v) { retryOnServerStateLoss = v; return this; }
        /** SRPT ordering on the sender and in grants (default true); false: oldest message first. */
        public Builder srpt(boolean v) { srpt = v; return this; }

        public HomaConfig build() {
            return new HomaConfig(this);
        }
    }
}
