package io.homa4j.bench.simulate;

import io.homa4j.bench.Main;
import io.homa4j.bench.cli.ChildJvm;
import io.homa4j.core.HomaEngine;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@code simulate} in a child JVM ({@link ChildJvm}) tuned for a simulation, when the user did not choose
 * those settings: the same options plus the ones below, then {@code --in-process}. Tests and applications that
 * call the command in-process, a JVM already on the parallel collector, a command line that names a collector, and
 * {@code --in-process} all stay in this JVM.
 *
 * <ul>
 *   <li>The parallel (throughput) collector: a simulation is one thread allocating packet and event objects as fast
 *   as it can, a batch job with no pause target, and a JVM cannot change its collector once started.</li>
 *   <li>Netty's leak detector off unless the command line sets its level: at its default level it tracks one buffer
 *   in 128 through a concurrent set on the simulating thread. The buffers the simulator allocates are the engine's
 *   own, whose reference counts the test suite checks at the paranoid level.</li>
 *   <li>{@code -XX:PerMethodTrapLimit=0} unless the command line sets that limit: C2 then compiles both sides of a
 *   branch its profile never saw taken instead of a trap that throws the compiled method away when the branch is
 *   taken after all. The unloaded-RTT table before the run profiles the engine on an idle rack, the loaded rack then
 *   takes branches the table never did, and each such trap threw away a large compiled event handler that C2 had to
 *   compile again. The outputs are identical either way.</li>
 *   <li>The engine's two entry points, {@link HomaEngine#onPacket} and {@link HomaEngine#poll}, not inlined into
 *   the simulator's event handlers ({@link #ENGINE_ENTRY_POINTS}, unless the command line gives compile commands
 *   of its own): inlined, the engine's whole receive or timer path went into each handler up to C2's inlining
 *   budget, so the same engine code was compiled again for every handler that reaches it; as separate compile units
 *   they are compiled once each.</li>
 * </ul>
 */
final class ThroughputCollector {
    /** Keeps the simulation in the calling JVM. */
    static final String IN_PROCESS = "--in-process";
    private static final String LEAK_DETECTION_PROPERTY = "io.netty.leakDetection.level";
    static final String FLAG = "-XX:+UseParallelGC";
    static final String LEAK_DETECTION_OFF = "-D" + LEAK_DETECTION_PROPERTY + "=disabled";
    private static final String TRAP_LIMIT_OPTION = "-XX:PerMethodTrapLimit=";
    static final String NO_BRANCH_TRAPS = TRAP_LIMIT_OPTION + "0";
    private static final String COMPILE_COMMAND_OPTION = "-XX:CompileCommand";
    /** The compile commands that keep the engine's entry points out of the simulator's compiled handlers. */
    static final List<String> ENGINE_ENTRY_POINTS = List.of(
            COMPILE_COMMAND_OPTION + "=quiet", // no line per command on stdout
            COMPILE_COMMAND_OPTION + "=dontinline,io/homa4j/core/HomaEngine.onPacket",
            COMPILE_COMMAND_OPTION + "=dontinline,io/homa4j/core/HomaEngine.poll");

    private ThroughputCollector() {
    }

    /** Whether this JVM should hand the run to a child on the parallel collector. */
    static boolean shouldRelaunch() {
        return launchedFromMain() && !collectorChosen(ManagementFactory.getRuntimeMXBean().getInputArguments())
                && !parallelInUse();
    }

    /** Runs {@code simulate argv --in-process} in a child JVM on the parallel collector; returns its exit code. */
    static int runChild(List<String> argv) throws IOException, InterruptedException {
        return ChildJvm.runInheritingIo(childCommand(ChildJvm.javaBinary(), ChildJvm.inheritedJvmOptions(),
                System.getProperty("java.class.path"), argv));
    }

    static List<String> childCommand(String java, List<String> jvmOptions, String classPath, List<String> argv) {
        List<String> options = new ArrayList<>(jvmOptions);
        options.add(FLAG);
        if (!leakDetectionChosen(jvmOptions)) {
            options.add(LEAK_DETECTION_OFF);
        }
        if (jvmOptions.stream().noneMatch(option -> option.startsWith(TRAP_LIMIT_OPTION))) {
            options.add(NO_BRANCH_TRAPS);
        }
        if (jvmOptions.stream().noneMatch(option -> option.startsWith(COMPILE_COMMAND_OPTION))) {
            options.addAll(ENGINE_ENTRY_POINTS);
        }
        List<String> simulateArgs = new ArrayList<>(argv);
        simulateArgs.add(IN_PROCESS);
        return ChildJvm.command(java, options, classPath, "simulate", simulateArgs);
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
}
