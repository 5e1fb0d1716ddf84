package io.homa4j.bench.simulate;

import io.homa4j.core.HomaEngine;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThroughputCollectorTest {
    @Test
    void theChildGetsTheSameOptionsThePlanTheParallelCollectorNoLeakSamplingAndNoBranchTraps() {
        List<String> command = ThroughputCollector.childCommand("/jdk/bin/java", List.of("-Xmx2g", "-Dx=1"),
                "homa-bench.jar", List.of("--workload", "w4", "--duration-ms", "5"));
        assertEquals(List.of("/jdk/bin/java", "-Xmx2g", "-Dx=1", "-XX:+UseParallelGC",
                "-Dio.netty.leakDetection.level=disabled", "-XX:PerMethodTrapLimit=0", "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=dontinline,io/homa4j/core/HomaEngine.onPacket",
                "-XX:CompileCommand=dontinline,io/homa4j/core/HomaEngine.poll", "-cp", "homa-bench.jar",
                "io.homa4j.bench.Main", "simulate", "--workload", "w4", "--duration-ms", "5", "--in-process"),
                command);
    }

    @Test
    void aLeakDetectionLevelTheUserChoseIsKept() {
        assertUserOptionReplacesDefault("-Dio.netty.leakDetection.level=paranoid",
                "-Dio.netty.leakDetection.level=disabled");
        assertTrue(ThroughputCollector.leakDetectionChosen(List.of("-Dio.netty.leakDetectionLevel=simple")));
    }

    @Test
    void aTrapLimitTheUserChoseIsKept() {
        assertUserOptionReplacesDefault("-XX:PerMethodTrapLimit=100", "-XX:PerMethodTrapLimit=0");
    }

    /** The child's command keeps {@code userOption} given for it and leaves out the default it replaces. */
    private static void assertUserOptionReplacesDefault(String userOption, String defaultOption) {
        List<String> command = ThroughputCollector.childCommand("/jdk/bin/java", List.of(userOption),
                "homa-bench.jar", List.of("--workload", "w1"));
        assertTrue(command.contains(userOption), command.toString());
        assertFalse(command.contains(defaultOption), command.toString());
    }

    @Test
    void compileCommandsTheUserGaveAreKeptAndTheNamedEngineMethodsExist() throws NoSuchMethodException {
        List<String> command = ThroughputCollector.childCommand("/jdk/bin/java",
                List.of("-XX:CompileCommand=print,*HomaEngine.poll"), "homa-bench.jar", List.of("--workload", "w1"));
        assertFalse(command.contains("-XX:CompileCommand=quiet"));
        // The commands name methods by string: a rename would silently drop them.
        HomaEngine.class.getMethod("onPacket", InetSocketAddress.class, ByteBuf.class, long.class);
        HomaEngine.class.getMethod("poll", long.class);
    }

    @Test
    void aCollectorTheUserChoseIsKept() {
        assertTrue(ThroughputCollector.collectorChosen(List.of("-Xmx1g", "-XX:+UseG1GC")));
        assertTrue(ThroughputCollector.collectorChosen(List.of("-XX:+UseSerialGC")));
        assertFalse(ThroughputCollector.collectorChosen(List.of("-Xmx1g", "-XX:MaxGCPauseMillis=10")));
    }

    @Test
    void testsAndEmbeddersStayInProcess() {
        // Under the test runner the JVM's main class is not the bench's, so no child is started.
        assertFalse(ThroughputCollector.shouldRelaunch());
    }
}
