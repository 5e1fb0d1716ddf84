package io.homa4j.bench.simulate;

import io.homa4j.bench.driver.RttByLength;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.sim.SimulatedNetwork;
import io.homa4j.core.wire.DataHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.TreeSet;

/**
 * The round-trip time of an echo RPC of each length on an idle simulated network: the denominator of slowdown.
 *
 * <p>Measured, not modelled: the same engine configuration runs on a two-host copy of the rack (between two hosts
 * of one switch every pair is alike), one RPC at a time on an otherwise idle network, after a warm-up RPC so the
 * peers know each other as they do in the loaded run. Measuring every length would be quadratic in the longest
 * message, so the table holds:
 * <ul>
 *   <li>for every packet count {@code n <= EXACT_PACKETS}, the RTT of the shortest and the longest length with
 *       {@code n} packets; between them the RTT is linear in the length (only the last packet's serialization
 *       changes, on four links);</li>
 *   <li>beyond, full-packet lengths on a geometric grid (each {@code GRID_RATIO} times the previous), where the RTT
 *       is the linear pipeline time of the message; lengths between grid points are interpolated linearly.</li>
 * </ul>
 * {@code UnloadedRttTest} checks the interpolation against direct measurement at random lengths (within 1%).
 *
 * <p>Immutable after construction; thread-safe.
 */
public final class UnloadedRtt {
    static final int EXACT_PACKETS = 64;
    static final double GRID_RATIO = 1.04;
    /** The shortest wait for an idle network to go quiet; slow links get longer (see IdleProbe#quietNanos). */
    private static final long QUIET_NANOS = 50_000_000L;

    private final int payloadPerPacket;
    private final int maxLength;
    private final RttByLength table;

    private UnloadedRtt(int payloadPerPacket, int maxLength, RttByLength table) {
        this.payloadPerPacket = payloadPerPacket;
        this.maxLength = maxLength;
        this.table = table;
    }

    /** Measures the table for lengths 1..{@code maxLength} with {@code config} on {@code rack}. */
    public static UnloadedRtt measure(RackSpec rack, HomaConfig config, int maxLength) {
        int perPacket = DataHeader.maxPayload(config.maxUdpPayload());
        long[] points = gridLengths(perPacket, maxLength);
        double[] rtts = new double[points.length];
        try (IdleProbe probe = new IdleProbe(rack, config, maxLength)) {
            for (int i = 0; i < points.length; i++) {
                rtts[i] = probe.rttNanos((int) points[i]);
            }
        }
        return new UnloadedRtt(perPacket, maxLength, new RttByLength(points, rtts));
    }

    /** Lengths measured for the table, ascending, each in [1, maxLength]. */
    static long[] gridLengths(int perPacket, int maxLength) {
        TreeSet<Long> points = new TreeSet<>();
        long packets = 1;
        while (true) {
            long lo = (packets - 1) * perPacket + 1;
            long hi = packets * perPacket;
            if (packets <= EXACT_PACKETS) {
                points.add(Math.min(lo, maxLength));
            }
            points.add(Math.min(hi, maxLength));
            if (hi >= maxLength) {
                break;
            }
            packets = packets < EXACT_PACKETS ? packets + 1
                    : Math.max(packets + 1, (long) Math.ceil(packets * GRID_RATIO));
        }
        return points.stream().mapToLong(Long::longValue).toArray();
    }

    /** Unloaded RTT of an echo RPC of {@code length} bytes (1..maxLength), in nanoseconds. */
    public double rttNanos(int length) {
        if (length < 1 || length > maxLength) {
            throw new IllegalArgumentException("length out of the measured range [1, " + maxLength + "]: " + length);
        }
        return table.rttNanos(length);
    }

    /** The measured points, interpolated as {@link #rttNanos} does. */
    public RttByLength table() { return table; }

    /** Message bytes per DATA packet the table assumed. */
    public int payloadPerPacket() { return payloadPerPacket; }

    public int maxLength() { return maxLength; }

    /** Number of idle RPCs measured. */
    public int points() { return table.points(); }

    /**
     * Two hosts of the rack, echoing, one RPC at a time. Each measurement starts after the network has been quiet
     * long enough for the previous RPC's acknowledgements to finish.
     */
    static final class IdleProbe implements AutoCloseable, CallObserver {
        private final SimulatedNetwork network;
        private final RackNode client;
        private final RackNode server;
        private final ByteBuf payload;
        private long lastEnd = -1;
        private long lastRtt;
        private boolean failed;
        private final long quietNanos;

        IdleProbe(RackSpec rack, HomaConfig config, int maxLength) {
            // The previous RPC's last packets and acknowledgements take longer to drain on a slow link: allow four
            // transmissions of the longest message, at least QUIET_NANOS.
            this.quietNanos = Math.max(QUIET_NANOS, 4 * (maxLength * 8L * 1_000_000_000L / rack.linkBitsPerSecond()));
            this.network = new SimulatedNetwork(rack.withHosts(2).networkConfig(1));
            this.payload = SharedPayload.allocate(maxLength);
            ByteBufAllocator buffers = RackNode.rackBuffers();
            this.client = new RackNode(network.host(0), config, payload, this, buffers);
            this.server = new RackNode(network.host(1), config, payload, this, buffers);
            rttNanos(1); // warm-up: both engines now know each other
        }

        long rttNanos(int length) {
            if (!network.runUntilIdle(quietNanos)) {
                throw new IllegalStateException("the idle network did not go quiet within " + quietNanos / 1_000_000
                        + " ms");
            }
            long before = lastEnd;
            client.callNow(network.host(1).address(), length);
            if (!network.runUntil(() -> lastEnd != before || failed, 10_000_000_000L) || failed) {
                throw new IllegalStateException("an idle RPC of " + length + " B did not complete");
            }
            return lastRtt;
        }

        @Override
        public void completed(int length, long intendedNanos, long endNanos) {
            lastEnd = endNanos;
            lastRtt = endNanos - intendedNanos;
        }

        @Override
        public void failed(int length, long intendedNanos, RpcFailure failure, long nowNanos) {
            failed = true;
        }

        @Override
        public void close() {
            network.close();
            payload.release();
        }
    }
}
