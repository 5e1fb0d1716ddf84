package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.SplittableRandom;

/**
 * Measures the whole stack's speed, real engines on the simulated network: 16 hosts at 100 Gb/s, every host
 * client and echo server, 16 calls per host outstanding (closed loop), sizes 60% 100 B..1 KB, 30% 1..20 KB,
 * 10% 20..500 KB, random servers. Not a unit test; run by hand like {@link SimThroughputProbe}:
 *
 * <pre>
 *   java -Dio.netty.leakDetection.level=disabled -cp homa-core/target/classes:homa-core/target/test-classes:\
 *        &lt;netty-buffer.jar&gt;:&lt;netty-common.jar&gt;:&lt;slf4j-api.jar&gt; io.homa4j.core.sim.SimEngineThroughputProbe [virtualMs]
 * </pre>
 */
public final class SimEngineThroughputProbe {
    private static final int HOSTS = 16;
    private static final int OUTSTANDING = 16;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private SimEngineThroughputProbe() {
    }

    public static void main(String[] args) {
        long virtualMs = args.length > 0 ? Long.parseLong(args[0]) : 20;
        run(virtualMs / 4, "warm-up");
        run(virtualMs, "measured");
    }

    private static void run(long virtualMs, String label) {
        NetworkConfig net = NetworkConfig.builder().hosts(HOSTS).linkGbps(100).propagationDelayNanos(250)
                .portBufferBytes(1L << 20).build();
        HomaConfig config = HomaConfig.builder().linkMbps(100_000).rttMicros(5).build();
        try (SimulatedNetwork network = new SimulatedNetwork(net)) {
            HomaHost[] hosts = HomaHost.attachAll(network, config);
            SplittableRandom random = new SplittableRandom(1);
            long[] completed = {0};
            for (HomaHost h : hosts) {
                h.serve(RequestHandler.echo()).checksumPayloads(false);
                for (int i = 0; i < OUTSTANDING; i++) {
                    callAgain(h, hosts, random, completed);
                }
            }
            long start = System.nanoTime();
            long cpuStart = THREADS.getCurrentThreadCpuTime();
            network.runUntil(virtualMs * 1_000_000L);
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
            long bytes = network.bytesDelivered();
            long polls = 0;
            for (int i = 0; i < HOSTS; i++) {
                polls += network.host(i).polls();
            }
            System.out.printf("%s: %d virtual ms in %.2f s wall: %,d packets (%.2f M packets/s wall), %,d calls done, "
                            + "%.1f Gb/s average per host delivered, %d drops, %,d polls, %,d events; %.2f M packets per CPU-second "
                            + "of the simulating thread%n", label,
                    virtualMs, seconds,
                    network.packetsDelivered(), network.packetsDelivered() / seconds / 1e6, completed[0],
                    bytes * 8.0 / (virtualMs * 1e6) / HOSTS, network.totalDrops(), polls, network.eventsProcessed(),
                    network.packetsDelivered() / cpuSeconds / 1e6);
        }
    }

    private static void callAgain(HomaHost client, HomaHost[] hosts, SplittableRandom random, long[] completed) {
        HomaHost server = hosts[random.nextInt(hosts.length)];
        int kind = random.nextInt(100);
        int size = kind < 60 ? 100 + random.nextInt(900) : kind < 90 ? 1_000 + random.nextInt(19_000)
                : 20_000 + random.nextInt(480_000);
        ByteBuf request = ByteBufAllocator.DEFAULT.buffer(size);
        request.writerIndex(size);
        client.call(server, request).whenDone(c -> {
            completed[0]++;
            if (!client.network().isClosed()) {
                callAgain(client, hosts, random, completed);
            }
        });
    }
}
