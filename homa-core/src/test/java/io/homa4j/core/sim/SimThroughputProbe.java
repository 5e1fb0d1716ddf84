package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;

/**
 * Measures the network's own event-loop speed (no engine): 16 hosts at 100 Gb/s, each delivery makes the receiver
 * send a new packet (closed loop, 64 packets per host in flight, sizes 64..1,472 B, random destinations).
 * Not a unit test (timed results belong in docs/simulator.md); run it by hand:
 *
 * <pre>
 *   mvn -B -q -o -pl homa-core test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 *   java -Dio.netty.leakDetection.level=disabled \
 *        -cp homa-core/target/classes:homa-core/target/test-classes:$(cat homa-core/target/cp.txt) \
 *        io.homa4j.core.sim.SimThroughputProbe [packets]
 * </pre>
 */
public final class SimThroughputProbe {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private SimThroughputProbe() {
    }

    public static void main(String[] args) {
        long packets = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L;
        for (int round = 0; round < 3; round++) {
            run(packets / 4, round == 0 ? "warm-up" : "warm-up " + round);
        }
        run(packets, "measured");
    }

    private static void run(long packets, String label) {
        NetworkConfig config = NetworkConfig.builder().hosts(16).linkGbps(100).propagationDelayNanos(250)
                .portBufferBytes(1L << 20).build();
        try (SimulatedNetwork network = new SimulatedNetwork(config)) {
            Bouncer[] nodes = new Bouncer[16];
            for (int i = 0; i < nodes.length; i++) {
                nodes[i] = new Bouncer(network, network.host(i), i);
            }
            for (Bouncer b : nodes) {
                for (int w = 0; w < 64; w++) {
                    b.sendOne();
                }
            }
            long start = System.nanoTime();
            long cpuStart = THREADS.getCurrentThreadCpuTime();
            long events0 = network.eventsProcessed();
            network.runUntil(() -> network.packetsDelivered() >= packets, Long.MAX_VALUE / 2_000);
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
            System.out.printf("%s: %,d packets delivered in %.2f s wall (%.2f M packets/s, %.2f M events/s), "
                            + "%,d virtual us, %d dropped; %.2f M packets per CPU-second of the simulating thread%n", label, network.packetsDelivered(), seconds,
                    network.packetsDelivered() / seconds / 1e6, (network.eventsProcessed() - events0) / seconds / 1e6,
                    network.nowNanos() / 1_000, network.totalDrops(), network.packetsDelivered() / cpuSeconds / 1e6);
        }
    }

    /** Answers every packet with a new one to a random host. */
    private static final class Bouncer implements SimNode {
        private final SimulatedNetwork network;
        private final SimHost host;
        private final SplittableRandom random;

        Bouncer(SimulatedNetwork network, SimHost host, int seed) {
            this.network = network;
            this.host = host;
            this.random = new SplittableRandom(seed);
            host.attach(this);
        }

        void sendOne() {
            int to = random.nextInt(network.hostCount());
            int size = 64 + random.nextInt(1_472 - 64);
            ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(size);
            buf.writerIndex(size);
            host.sink().send(network.host(to).address(), random.nextInt(8), buf);
        }

        @Override
        public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
            packet.release();
            sendOne();
        }

        @Override
        public void poll(long nowNanos) {
        }

        @Override
        public long nextWakeNanos() {
            return Long.MAX_VALUE;
        }
    }
}
