package io.homa4j.bench.jmh;

import io.homa4j.bench.transport.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.annotations.Param;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The unloaded echo RTT benchmarks' trials do what JMH will have them do, without timing anything: for every value
 * of their {@code transport} and {@code size} parameters, the trial's setup starts a server and client, one
 * benchmark call echoes all of the payload, and the teardown releases it (the run's leak check sees any buffer
 * left).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EchoRttBenchmarkTest {

    @Test
    void rttBenchmarkEchoesEveryLengthOverHomaAndTcp() throws Exception {
        assertEquals(List.of("HOMA", "TCP"), params(RttBenchmark.class, "transport"));
        assertEquals(List.of("100", "1000", "10000", "100000", "1000000"), params(RttBenchmark.class, "size"));
        for (String transport : params(RttBenchmark.class, "transport")) {
            for (String size : params(RttBenchmark.class, "size")) {
                RttBenchmark trial = new RttBenchmark();
                trial.transport = Protocol.valueOf(transport);
                trial.size = Integer.parseInt(size);
                assertEchoes(trial, trial.size);
            }
        }
    }

    @Test
    void grpcRttBenchmarkEchoesBothLengthsOverGrpcHomaAndGrpcTcp() throws Exception {
        assertEquals(List.of("GRPC_HOMA", "GRPC_TCP"), params(GrpcRttBenchmark.class, "transport"));
        assertEquals(List.of("100", "1000000"), params(GrpcRttBenchmark.class, "size"));
        for (String transport : params(GrpcRttBenchmark.class, "transport")) {
            for (String size : params(GrpcRttBenchmark.class, "size")) {
                GrpcRttBenchmark trial = new GrpcRttBenchmark();
                trial.transport = Protocol.valueOf(transport);
                trial.size = Integer.parseInt(size);
                assertEchoes(trial, trial.size);
            }
        }
    }

    private static void assertEchoes(AbstractEchoRttBenchmark trial, int size) throws Exception {
        trial.start();
        try {
            assertEquals(size, trial.rtt(), trial.transport() + " " + size + " B");
            assertEquals(size, trial.rtt(), "a second call on the same trial");
        } finally {
            trial.stop();
        }
    }

    /** The values JMH gives the benchmark's {@code @Param} field {@code name}. */
    private static List<String> params(Class<?> benchmark, String name) throws NoSuchFieldException {
        Field field = benchmark.getField(name);
        return new ArrayList<>(List.of(field.getAnnotation(Param.class).value()));
    }
}
