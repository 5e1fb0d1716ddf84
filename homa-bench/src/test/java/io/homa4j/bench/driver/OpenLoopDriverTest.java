package io.homa4j.bench.driver;

import io.homa4j.bench.transport.BenchClient;
import io.homa4j.bench.workload.Workloads;
import io.netty.buffer.ByteBuf;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpenLoopDriverTest {
    /** A client whose calls never complete until {@link #completeAll}: a server that stopped answering. */
    private static final class StuckClient implements BenchClient {
        final List<CompletableFuture<Integer>> calls = new ArrayList<>();
        final List<ByteBuf> requests = new ArrayList<>();

        @Override
        public synchronized CompletableFuture<Integer> call(int server, ByteBuf request) {
            CompletableFuture<Integer> f = new CompletableFuture<>();
            calls.add(f);
            requests.add(request);
            return f;
        }

        synchronized void completeAll() {
            for (int i = 0; i < calls.size(); i++) {
                calls.get(i).complete(requests.get(i).readableBytes());
                requests.get(i).release();
            }
        }

        @Override public int servers() { return 1; }
        @Override public String describe() { return "stuck"; }
        @Override public void close() { }
    }

    /** Echo with a fixed service time, one call at a time: a server with a capacity of 1 / serviceNanos. */
    private static final class SerialClient implements BenchClient {
        final ExecutorService server = Executors.newSingleThreadExecutor();
        final long serviceNanos;

        SerialClient(long serviceNanos) {
            this.serviceNanos = serviceNanos;
        }

        @Override
        public CompletableFuture<Integer> call(int s, ByteBuf request) {
            return CompletableFuture.supplyAsync(() -> {
                LockSupport.parkNanos(serviceNanos); // simulated service time, not synchronisation
                int n = request.readableBytes();
                request.release();
                return n;
            }, server);
        }

        @Override public int servers() { return 1; }
        @Override public String describe() { return "serial"; }
        @Override public void close() { server.shutdownNow(); }
    }

    /** A client whose call() itself takes {@code callNanos} on the generator's thread before it answers. */
    private static final class SlowSendClient implements BenchClient {
        final long callNanos;

        SlowSendClient(long callNanos) {
            this.callNanos = callNanos;
        }

        @Override
        public CompletableFuture<Integer> call(int s, ByteBuf request) {
            LockSupport.parkNanos(callNanos); // a send path that holds the caller, not synchronisation
            int n = request.readableBytes();
            request.release();
            return CompletableFuture.completedFuture(n);
        }

        @Override public int servers() { return 1; }
        @Override public String describe() { return "slow send"; }
        @Override public void close() { }
    }

    @Test
    void requestsDueWhileTheGeneratorIsBusySendingAreLateInTheClientNotWokenLate() {
        // 1,000 arrivals/s for 0.3 s, but every send holds the generator for 4 ms: a backlog in the client itself
        DriverConfig config = new DriverConfig(Workloads.parse("1000"), 8, 0, TimeUnit.MILLISECONDS.toNanos(300),
                10_000, 10_000, TimeUnit.SECONDS.toNanos(30), 0, 3);
        RunStats stats = new OpenLoopDriver(config, new SlowSendClient(TimeUnit.MILLISECONDS.toNanos(4)),
                new LatencyRecorder(new LengthBuckets(1000)), null).run("fake");

        assertEquals(stats.arrivals(), stats.completed());
        assertTrue(stats.queueLagP99Micros() > 100_000, "client lag p99 " + stats.queueLagP99Micros() + " us");
        assertTrue(stats.wakeLagP99Micros() < stats.queueLagP99Micros() / 10,
                "wake lag p99 " + stats.wakeLagP99Micros() + " us: the generator was never idle");
        assertTrue(stats.sendLagP99Micros() >= stats.queueLagP99Micros());
        assertTrue(stats.overloaded() && stats.overloadReasons().get(0).startsWith("send lag in the client P99"),
                stats.overloadReasons().toString());
    }

    @Test
    void outstandingCapMakesArrivalsWaitThenSkipsAndCountsThem() {
        StuckClient client = new StuckClient();
        // 1,000 B messages at 8 Mbit/s = 1,000 arrivals/s for 0.2 s: about 200 arrivals
        DriverConfig config = new DriverConfig(Workloads.parse("1000"), 8, 0, TimeUnit.MILLISECONDS.toNanos(200),
                5, 10, 0, 0, 42);
        LatencyRecorder recorder = new LatencyRecorder(new LengthBuckets(1000));
        RunStats stats = new OpenLoopDriver(config, client, recorder, null).run("fake");
        client.completeAll();

        assertEquals(5, stats.sent(), "only the cap's worth is sent");
        assertEquals(10, stats.waitedForCap(), "then the wait queue fills");
        assertEquals(stats.arrivals() - 15, stats.skippedAtCap(), "the rest is skipped and counted");
        assertEquals(15, stats.unfinished(), "5 in flight + 10 never sent");
        assertTrue(stats.arrivals() > 120 && stats.arrivals() < 300, "Poisson count " + stats.arrivals());
        assertEquals(0, stats.completed());
    }

    @Test
    void latencyIsMeasuredFromTheIntendedSendTimeSoQueueingShows() {
        // capacity 500 calls/s (2 ms each), offered 1,000/s for 0.4 s: the backlog grows to about 200 calls
        SerialClient client = new SerialClient(TimeUnit.MILLISECONDS.toNanos(2));
        try {
            DriverConfig config = new DriverConfig(Workloads.parse("1000"), 8, 0,
                    TimeUnit.MILLISECONDS.toNanos(400), 10_000, 10_000, TimeUnit.SECONDS.toNanos(30), 0, 7);
            LatencyRecorder recorder = new LatencyRecorder(new LengthBuckets(1000));
            RunStats stats = new OpenLoopDriver(config, client, recorder, null).run("fake");
            Histogram h = recorder.snapshot(0);

            assertEquals(stats.arrivals(), stats.completed());
            assertEquals(stats.completed(), h.getTotalCount());
            assertEquals(0, stats.unfinished());
            // a closed-loop client would see ~2 ms; open loop sees the queue: the last calls waited ~200 ms
            assertTrue(h.getValueAtPercentile(99) > TimeUnit.MILLISECONDS.toNanos(100),
                    "p99 " + h.getValueAtPercentile(99) / 1e6 + " ms");
            assertTrue(h.getValueAtPercentile(50) > TimeUnit.MILLISECONDS.toNanos(20),
                    "p50 " + h.getValueAtPercentile(50) / 1e6 + " ms");
        } finally {
            client.close();
        }
    }

    @Test
    void warmupArrivalsRunButAreNotRecordedAndTheSeedFixesTheOffer() {
        SerialClient client = new SerialClient(0);
        try {
            DriverConfig config = new DriverConfig(Workloads.W1, 2, TimeUnit.MILLISECONDS.toNanos(100),
                    TimeUnit.MILLISECONDS.toNanos(100), 100, 100, TimeUnit.SECONDS.toNanos(10), 0, 11);
            LatencyRecorder recorder = new LatencyRecorder(LengthBuckets.forWorkload(Workloads.W1));
            RunStats first = new OpenLoopDriver(config, client, recorder, null).run("fake");
            RunStats second = new OpenLoopDriver(config, client,
                    new LatencyRecorder(LengthBuckets.forWorkload(Workloads.W1)), null).run("fake");
            assertEquals(first.arrivals(), second.arrivals(), "same seed, same arrivals");
            assertTrue(first.recorded() < first.completed() && first.recorded() > 0,
                    first.recorded() + " recorded of " + first.completed());
            long inBuckets = 0;
            for (int i = 0; i < recorder.buckets().count(); i++) {
                inBuckets += recorder.snapshot(i).getTotalCount();
            }
            assertEquals(first.recorded(), inBuckets);
        } finally {
            client.close();
        }
    }
}
