package io.homa4j.bench.simulate;

import io.homa4j.bench.Main;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@code simulate} under the JVM's parallel (throughput) collector when the user did not choose one.
 *
 * <p>A simulation is one thread allocating packet and event objects as fast as it can, a batch job with no pause
 * target: the throughput collector suits it. Measured on the 100 virtual ms W4 run (10.9 M packets, 2 cores, load
 * about 1): 0.77-0.79 M packets per wall second with Java 17's default G1, 0.97-1.00 M with
 * {@code -XX:+UseParallelGC} (docs/simulation.md). The JVM cannot change its collector once started, so the bench
 * jar's own {@code main} starts a child JVM with the same options plus that flag, and waits for it. Tests and
 * applications that call the command in-process, a JVM already on the parallel collector, a command line that
 * names a collector, and {@code --in-process} all stay in this JVM.
 *
 * <p>The child also runs with Netty's leak detector off unless the command line sets its level: at its default
 * level the detector tracks one buffer in 128 through a concurrent set, 5% of the simulating thread (W4 100 ms:
 * 0.92-0.95 M packets per wall second with it, 0.98-0.99 without, alternating, in process). The buffers the
 * simulator allocates are the engine's own, whose reference counts the test suite checks at the paranoid level.
 */
final class ThroughputCollector {
    /** Keeps the simulation in the calling JVM. */
    static final String IN_PROCESS = "--in-process";
    private static final String LEAK_DETECTION_PROPERTY = "io.netty.leakDetection.level";
    static final String FLAG = "-XX:+UseParallelGC";
    static final String LEAK_DETECTION_OFF = "-D" + LEAK_DETECTION_PROPERTY + "=disabled";

    private ThroughputCollector() {
    }

    /** Whether this JVM should hand the run to a child on the parallel collector. */
    static boolean shouldRelaunch() {
        return launchedFromMain() && !collectorChosen(ManagementFactory.getRuntimeMXBean().getInputArguments())
                && !parallelInUse();
    }

    /** Runs {@code simulate argv --in-process} in a child JVM on the parallel collector; returns its exit code. */
    static int runChild(List<String> argv) throws IOException, InterruptedException {
        Process child = new ProcessBuilder(childCommand(javaBinary(),
                ManagementFactory.getRuntimeMXBean().getInputArguments(), System.getProperty("java.class.path"), argv))
                .inheritIO().start();
        return child.waitFor();
    }

    static List<String> childCommand(String java, List<String> jvmOptions, String classPath, List<String> argv) {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions);
        command.add(FLAG);
        if (!leakDetectionChosen(jvmOptions)) {
            command.add(LEAK_DETECTION_OFF);
        }
        command.add("-cp");
        command.add(classPath);
        command.add(Main.class.getName());
        command.add("simulate");
        command.addAll(argv);
        command.add(IN_PROCESS);
        return command;
    }

    /** Whether the JVM options select a collector (the user's choice is kept). */
    static boolean collectorChosen(List<String> jvmOptions) {
        for (String option : jvmOptions) {
            if (option.matches("-XX:[+-]Use\\w*GC")) {
                return true;
            }
        }
        return false;
    }

    /** Whether the JVM options set Netty's leak detection level (current or legacy property name). */
    static boolean leakDetectionChosen(List<String> jvmOptions) {
        for (String option : jvmOptions) {
            if (option.startsWith("-D" + LEAK_DETECTION_PROPERTY + "=")
                    || option.startsWith("-Dio.netty.leakDetectionLevel=")) {
                return true;
            }
        }
        return false;
    }

    private static boolean parallelInUse() {
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (collector.getName().startsWith("PS ")) {
                return true;
            }
        }
        return false;
    }

    /** The bench jar's main ({@code java -jar homa-bench.jar} or {@code java -cp ... io.homa4j.bench.Main}). */
    private static boolean launchedFromMain() {
        String command = System.getProperty("sun.java.command", "");
        String first = command.split(" ", 2)[0];
        // java -jar puts the jar first and makes it the whole class path
        return first.equals(Main.class.getName())
                || first.endsWith(".jar") && first.equals(System.getProperty("java.class.path"));
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
