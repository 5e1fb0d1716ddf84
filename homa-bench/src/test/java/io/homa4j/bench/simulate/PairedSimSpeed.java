package io.homa4j.bench.simulate;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Compares the simulator's speed in two builds on a noisy machine: the same study rack (the JMH
 * {@code SimulatorThroughputBenchmark}'s, 16 hosts x 100 Gb/s, 80% load) runs in one JVM once per build, each
 * build's bench jar in its own class loader, and the racks advance in alternating chunks of virtual time. Both
 * racks simulate exactly the same packets (checked), so each chunk's CPU-time ratio compares equal work measured
 * within a second of each other, and the other processes' load falls on both alike.
 *
 * <p>Racks run in the order A, A, B, B, A: the first only warms the JVM up (whichever build it is, the first rack
 * in a JVM runs 5-10% slower), and A B B A cancels what remains of a position effect. Two runs of one build
 * against itself gave median ratios of 0.999 (quartiles 0.975..1.007) and 1.034 (0.981..1.071), so differences
 * under about 4% are noise. Not a unit test; run it by hand:
 *
 * <pre>
 *   mvn -B -q -o -pl homa-bench test-compile
 *   java -Dio.netty.leakDetection.level=disabled -cp homa-bench/target/test-classes \
 *        io.homa4j.bench.simulate.PairedSimSpeed w4 40 25 /tmp/before.jar /tmp/after.jar
 * </pre>
 *
 * Arguments: workload (w1..w5), chunks, 20-us slices per chunk, the two bench jars. The first fifth of the chunks
 * is JIT warm-up and not counted.
 */
public final class PairedSimSpeed {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private PairedSimSpeed() {
    }

    public static void main(String[] args) throws Exception {
        String workload = args[0];
        int chunks = Integer.parseInt(args[1]);
        int slices = Integer.parseInt(args[2]);
        String[] jars = {args[3], args[3], args[4], args[4], args[3]};
        Rack[] racks = new Rack[jars.length];
        for (int i = 0; i < jars.length; i++) {
            racks[i] = new Rack(jars[i], workload);
        }
        long[][] cpu = new long[racks.length][chunks];
        long[][] packets = new long[racks.length][chunks];
        for (int k = 0; k < chunks; k++) {
            for (int i = 0; i < racks.length; i++) {
                long cpuBefore = THREADS.getCurrentThreadCpuTime();
                packets[i][k] = racks[i].advance(slices);
                cpu[i][k] = THREADS.getCurrentThreadCpuTime() - cpuBefore;
            }
        }
        for (int i = 1; i < racks.length; i++) {
            if (!Arrays.equals(packets[i], packets[0])) {
                throw new IllegalStateException("the builds simulate different packets; not comparable");
            }
        }
        int skip = chunks / 5;
        long counted = Arrays.stream(packets[0], skip, chunks).sum();
        double[] ratios = new double[chunks - skip];
        long cpuA = 0;
        long cpuB = 0;
        for (int k = skip; k < chunks; k++) {
            long a = cpu[1][k] + cpu[4][k];
            long b = cpu[2][k] + cpu[3][k];
            ratios[k - skip] = (double) a / b;
            cpuA += a;
            cpuB += b;
        }
        Arrays.sort(ratios);
        System.out.printf("%s: %,d packets per rack counted; A %.3f M packets per CPU-s, B %.3f%n", workload,
                counted, 2 * counted / (cpuA / 1e3), 2 * counted / (cpuB / 1e3));
        System.out.printf("CPU time A/B per chunk: median %.3f, quartiles %.3f..%.3f (A = %s, B = %s)%n",
                ratios[ratios.length / 2], ratios[ratios.length / 4], ratios[3 * ratios.length / 4], args[3],
                args[4]);
    }

    /** One build's rack, driven through the benchmark class by reflection. */
    private static final class Rack {
        private final Object benchmark;
        private final Object counters;
        private final Field packets;
        private final Method advance;

        Rack(String jar, String workload) throws Exception {
            ClassLoader loader = new URLClassLoader(new URL[]{Path.of(jar).toUri().toURL()},
                    ClassLoader.getPlatformClassLoader());
            Class<?> type = loader.loadClass("io.homa4j.bench.jmh.SimulatorThroughputBenchmark");
            Class<?> countersType = loader.loadClass("io.homa4j.bench.jmh.SimulatorThroughputBenchmark$Counters");
            benchmark = type.getConstructor().newInstance();
            type.getField("workload").set(benchmark, workload);
            counters = countersType.getConstructor().newInstance();
            packets = countersType.getField("packets");
            advance = type.getMethod("advance", countersType);
            type.getMethod("build").invoke(benchmark);
        }

        long advance(int slices) throws Exception {
            long before = packets.getLong(counters);
            for (int i = 0; i < slices; i++) {
                advance.invoke(benchmark, counters);
            }
            return packets.getLong(counters) - before;
        }
    }
}
