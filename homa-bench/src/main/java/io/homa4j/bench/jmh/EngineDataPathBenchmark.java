package io.homa4j.bench.jmh;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.HomaEngine;
import io.homa4j.core.PacketBatch;
import io.homa4j.core.PacketSink;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.openjdk.jmh.annotations.AuxCounters;
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

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The engine's own cost per packet: two {@link HomaEngine}s, a client and an echo server, wired back to back
 * with no sockets, on one thread. Each side's packets are handed to the other in bursts, as the UDP transport
 * does after a socket read ({@link HomaEngine#onPackets}), and a virtual clock moves 1 us per exchange, so the
 * pacer (at 100 Gbit/s) never holds a packet back. One operation is one echo RPC of {@code size} bytes; the
 * {@code dataPackets} counter is every DATA packet either engine handled, so its JMH row is DATA packets per
 * second of one core, payload copies and buffer allocation included. It runs on a Netty
 * {@code FastThreadLocalThread} ({@link EventLoopThreads}), as the engine does in an endpoint, so pooled buffers
 * are recycled as they are there. The fork's options are prepended, so {@code -jvmArgsAppend} (a profiler, a
 * recording) keeps them.
 *
 * <p>Run: {@code java -jar homa-bench/target/homa-bench.jar jmh EngineDataPathBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(java.util.concurrent.TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsPrepend = {"-Dio.netty.leakDetection.level=disabled", "-Djmh.executor=CUSTOM",
        "-Djmh.executor.class=io.homa4j.bench.jmh.EventLoopThreads"})
@State(Scope.Thread)
public class EngineDataPathBenchmark {
    private static final int MAX_BURST = 64;
    private static final long STEP_NANOS = 1_000;

    @Param({"1000000", "100"})
    public int size;

    /** DATA packets handled by both engines, reported per second by JMH. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Counters {
        public long dataPackets;
    }

    private final InetSocketAddress clientAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
    private final InetSocketAddress serverAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), 2);
    private Wire toServer;
    private Wire toClient;
    private HomaEngine client;
    private HomaEngine server;
    private ByteBuf request;
    private long now = 1_000_000_000L;
    private boolean responded;

    /** One direction: the packets a sink was given, replayed into the other engine in bursts. */
    private static final class Wire implements PacketSink {
        private final InetSocketAddress from;
        private ByteBuf[] queued = new ByteBuf[1024];
        private int count;
        private final PacketBatch burst = new PacketBatch(MAX_BURST);

        Wire(InetSocketAddress from) {
            this.from = from;
        }

        @Override
        public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
            if (count == queued.length) {
                queued = java.util.Arrays.copyOf(queued, count * 2);
            }
            queued[count++] = packet;
        }

        @Override
        public void flush() {
        }

        /** Hands everything queued so far to {@code to}; returns the DATA packets among it. */
        int deliver(HomaEngine to, long nowNanos) {
            int n = count;
            count = 0;
            int data = 0;
            for (int start = 0; start < n; start += MAX_BURST) {
                int k = Math.min(MAX_BURST, n - start);
                for (int i = 0; i < k; i++) {
                    ByteBuf p = queued[start + i];
                    if (p.getUnsignedByte(p.readerIndex() + 3) == 0x10) {
                        data++;
                    }
                    burst.add(from, p, p.readerIndex(), p.readableBytes());
                }
                to.onPackets(burst, nowNanos);
                burst.clear();
                for (int i = 0; i < k; i++) { // the batch's buffers stay ours: released once the engine is done
                    queued[start + i].release();
                    queued[start + i] = null;
                }
            }
            return data;
        }

        boolean isEmpty() {
            return count == 0;
        }

        void releaseAll() {
            for (int i = 0; i < count; i++) {
                queued[i].release();
            }
            count = 0;
        }
    }

    @Setup(Level.Trial)
    public void start() {
        HomaConfig config = HomaConfig.builder().linkMbps(100_000).rttMicros(10).maxMessageBytes(1 << 20).build();
        toServer = new Wire(clientAddress);
        toClient = new Wire(serverAddress);
        PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
        server = new HomaEngine(config, toClient, new RpcListener() {
            @Override
            public void onRequest(long serverHandle, InetSocketAddress from, ByteBuf payload) {
                server.reply(serverHandle, payload, now);
            }

            @Override
            public void onResponse(long rpcId, ByteBuf response) {
                response.release();
            }

            @Override
            public void onCallFailed(long rpcId, RpcFailure failure) {
            }
        }, alloc, now);
        client = new HomaEngine(config, toServer, new RpcListener() {
            @Override
            public void onRequest(long serverHandle, InetSocketAddress from, ByteBuf payload) {
                payload.release();
            }

            @Override
            public void onResponse(long rpcId, ByteBuf response) {
                response.release();
                responded = true;
            }

            @Override
            public void onCallFailed(long rpcId, RpcFailure failure) {
                throw new IllegalStateException("echo failed: " + failure);
            }
        }, alloc, now);
        request = alloc.directBuffer(size).writeZero(size);
    }

    @Benchmark
    public int echo(Counters counters) {
        responded = false;
        client.call(serverAddress, request.retainedSlice(), Long.MAX_VALUE, now);
        int data = 0;
        int rounds = 0;
        while (!responded) {
            now += STEP_NANOS;
            data += toServer.deliver(server, now);
            data += toClient.deliver(client, now);
            if (toServer.isEmpty() && toClient.isEmpty()) {
                client.poll(now);
                server.poll(now);
            }
            if (++rounds > 1_000_000) {
                throw new IllegalStateException("echo did not finish");
            }
        }
        counters.dataPackets += data;
        return data;
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close(now);
        server.close(now);
        toServer.releaseAll();
        toClient.releaseAll();
        request.release();
    }
}
