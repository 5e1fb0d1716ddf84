package io.homa4j.bench.jmh;

import io.homa4j.HomaEndpoint;
import io.homa4j.core.HomaConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Round-trip time of one echo RPC in busy-poll mode: server and client endpoints share one busy-polling event
 * loop ({@link HomaEndpoint#newBusyPollingGroup}) and the benchmark thread spins on the call's future instead of
 * sleeping in {@code get()}. Two threads spin, one per core of a 2-vCPU machine, as in a busy-polling UDP
 * ping-pong. Nothing sleeps, so no thread wake-up is in the path.
 *
 * <p>Warm-up is longer than the other benchmarks' (10 s): with both vCPUs of a 2-vCPU machine taken by the two
 * spinning threads, the JIT's compiler threads get what little time is left, and C2 can still be compiling the
 * engine's paths several seconds into a run (see {@code -XX:+PrintCompilation}); a shorter warm-up would measure a
 * mix of compiled and not yet compiled code.
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh BusyPollRttBenchmark}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class BusyPollRttBenchmark {
    @Param({"100"})
    public int size;

    private EventLoopGroup group;
    private HomaEndpoint server;
    private HomaEndpoint client;
    private ByteBuf payload;

    @Setup(Level.Trial)
    public void start() {
        group = HomaEndpoint.newBusyPollingGroup(1);
        HomaConfig config = HomaConfig.builder().linkMbps(Endpoints.LINK_MBPS)
                .rttMicros(Endpoints.LOOPBACK_RTT_MICROS).maxMessageBytes(Endpoints.MAX_MESSAGE).build();
        server = HomaEndpoint.builder().config(config).eventLoopGroup(group).build();
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        client = HomaEndpoint.builder().config(config).eventLoopGroup(group).build();
        payload = Endpoints.payload(size);
    }

    @Benchmark
    public int rtt() {
        CompletableFuture<ByteBuf> call = client.call(server.localAddress(), payload.retainedSlice());
        while (!call.isDone()) {
            Thread.onSpinWait();
        }
        ByteBuf response = call.join();
        int length = response.readableBytes();
        response.release();
        if (length != size) {
            throw new IllegalStateException("echo returned " + length + " B for " + size + " B");
        }
        return length;
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close();
        server.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        payload.release();
    }
}
