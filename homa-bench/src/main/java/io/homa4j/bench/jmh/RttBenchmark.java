package io.homa4j.bench.jmh;

import io.homa4j.bench.transport.Protocol;
import org.openjdk.jmh.annotations.Param;

/**
 * Unloaded round-trip time of one echo RPC by message length, Homa vs TCP on loopback (closed loop, one call at a
 * time). The echo server runs in the same JMH fork as the client (its own event-loop thread), so the two share
 * the JVM and the machine's cores, as in {@code compare --mode in-process}.
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh RttBenchmark}.
 */
public class RttBenchmark extends AbstractEchoRttBenchmark {
    @Param({"HOMA", "TCP"})
    public Protocol transport;

    @Param({"100", "1000", "10000", "100000", "1000000"})
    public int size;

    @Override
    protected Protocol transport() {
        return transport;
    }

    @Override
    protected int size() {
        return size;
    }
}
