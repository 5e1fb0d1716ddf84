package io.homa4j.bench.driver;

import io.homa4j.bench.transport.BenchClient;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.HdrHistogram.Histogram;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop load: requests arrive as a Poisson process at the offered load regardless of how fast responses come
 * back, and every RTT is measured from the request's <em>intended</em> send time, so a slow transport cannot hide
 * its queueing by slowing the generator (no coordinated omission).
 *
 * <p>At most {@code maxOutstanding} calls are in flight. An arrival that finds the cap reached waits in a FIFO (the
 * wait is part of its RTT and it is counted as waited); when {@code maxWaiting} are already waiting it is skipped and
 * counted. One driver thread generates, sends and waits; completions arrive on the transport's threads.
 *
 * <p>Request payloads are slices of one shared buffer (contents are irrelevant to either transport), so the driver
 * allocates nothing per request but the call's future.
 */
public final class OpenLoopDriver {
    /** Called about once a second from the driver thread. */
    public interface Progress {
        void update(long elapsedNanos, long totalNanos, long sent, long completed, int outstanding);
    }

    /**
     * The calling thread's name while {@link #run} runs (and the kernel's name of the thread: 15 characters at
     * most), so that a script can find the generator among the JVM's threads: the netlab rack's compare.sh gives
     * it real-time priority, as four hosts share two cores there and a generator woken late sends late.
     */
    public static final String THREAD_NAME = "bench-driver";

    private final DriverConfig config;
    private final BenchClient client;
    private final LatencyRecorder recorder;
    private final SlowdownRecorder slowdowns;
    private final Progress progress;

    private final AtomicInteger outstanding = new AtomicInteger();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder recorded = new LongAdder();
    private final LongAdder completedBytes = new LongAdder();
    private volatile Thread waitingDriver;
    private volatile Throwable firstFailure;
    /**
     * Set when {@link #run} has counted: calls still open then are unfinished, and the failures they end with when
     * the client closes (CANCELLED) are neither counted again nor reported as the run's first failure.
     */
    private volatile boolean counted;

    public OpenLoopDriver(DriverConfig config, BenchClient client, LatencyRecorder recorder, Progress progress) {
        this(config, client, recorder, null, progress);
    }

    /** As above; every measured call's slowdown also goes into {@code slowdowns} (when not null). */
    public OpenLoopDriver(DriverConfig config, BenchClient client, LatencyRecorder recorder,
                          SlowdownRecorder slowdowns, Progress progress) {
        this.config = config;
        this.client = client;
        this.recorder = recorder;
        this.slowdowns = slowdowns;
        this.progress = progress;
    }

    /**
     * One request. {@code wakeLagNanos}: how long after its intended time the generator was still idle (parked or
     * spinning towards it) before it had the CPU back and saw the request due: that part of the send lag is the
     * machine's (the thread was not running: scheduling, a JVM safepoint), not a queue in the client.
     */
    private record Arrival(long index, long intendedNanos, long wakeLagNanos, int length, int server,
                           boolean record) {
    }

    /**
     * The measured calls of the largest length bucket, one line each: the arrival's index (the same seed draws
     * the same arrivals for every protocol, so a call can be followed from one protocol's run to another's), its
     * server, length, intended start after the run's start, and round trip. Few enough to keep (W4 at the rack's
     * defaults: about 190 per client run); the P99 of that bucket is a handful of them.
     */
    private final java.util.concurrent.ConcurrentLinkedQueue<String> largestCalls =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile long startNanos;

    /** How late measured requests were handed to the transport, in all and split by cause. */
    private static final class Lags {
        final Histogram send = newLagHistogram();
        final Histogram wake = newLagHistogram();
        final Histogram queue = newLagHistogram();

        private static Histogram newLagHistogram() {
            return new Histogram(1, TimeUnit.SECONDS.toNanos(60), 2);
        }

        void record(Arrival a, long sentNanos) {
            long total = clamp(sentNanos - a.intendedNanos);
            long woken = Math.min(total, clamp(a.wakeLagNanos));
            send.recordValue(total);
            wake.recordValue(woken);
            queue.recordValue(total - woken);
        }

        private static long clamp(long nanos) {
            return Math.min(Math.max(0, nanos), TimeUnit.SECONDS.toNanos(60));
        }
    }

    /** Runs warm-up, measurement and drain on the calling thread (named {@link #THREAD_NAME} meanwhile). */
    public RunStats run(String protocol) {
        Thread self = Thread.currentThread();
        String name = self.getName();
        self.setName(THREAD_NAME);
        try {
            return generate(protocol);
        } finally {
            self.setName(name);
        }
    }

    private RunStats generate(String protocol) {
        SplittableRandom random = new SplittableRandom(config.seed());
        ByteBuf payload = Unpooled.directBuffer(config.workload().quantile(1.0));
        payload.writerIndex(payload.capacity());
        for (int i = 0; i < payload.capacity(); i += 64) {
            payload.setByte(i, i >>> 6);
        }
        Lags lags = new Lags();
        ArrayDeque<Arrival> waiting = new ArrayDeque<>();
        long arrivals = 0;
        long sent = 0;
        long waited = 0;
        long skipped = 0;
        double meanGap = config.meanGapNanos();
        long start = System.nanoTime();
        startNanos = start;
        long measureFrom = start + config.warmupNanos();
        long end = measureFrom + config.durationNanos();
        long total = end - start;
        long nextArrival = start + (long) exponential(random, meanGap);
        long nextProgress = start + TimeUnit.SECONDS.toNanos(1);
        long idleSince = start; // when the generator last went idle (into pause)
        try {
            while (true) {
                long now = System.nanoTime();
                while (nextArrival <= now && nextArrival < end) {
                    arrivals++;
                    Arrival a = new Arrival(arrivals, nextArrival, Math.max(0, now - Math.max(nextArrival, idleSince)),
                            config.workload().sample(random),
                            client.servers() == 1 ? 0 : random.nextInt(client.servers()),
                            nextArrival >= measureFrom);
                    nextArrival += Math.max(1, (long) exponential(random, meanGap));
                    if (outstanding.get() >= config.maxOutstanding() || !waiting.isEmpty()) {
                        if (waiting.size() >= config.maxWaiting()) {
                            skipped++;
                            continue;
                        }
                        waited++;
                        waiting.add(a);
                    } else {
                        send(a, payload, lags);
                        sent++;
                    }
                }
                while (!waiting.isEmpty() && outstanding.get() < config.maxOutstanding()) {
                    send(waiting.poll(), payload, lags);
                    sent++;
                }
                if (now >= nextProgress && progress != null) {
                    progress.update(Math.min(now - start, total), total, sent, completed.sum(), outstanding.get());
                    nextProgress += TimeUnit.SECONDS.toNanos(1);
                }
                if (nextArrival >= end) {
                    break;
                }
                idleSince = System.nanoTime();
                pause(waiting.isEmpty() ? nextArrival : Math.min(nextArrival, now + 1_000_000), !waiting.isEmpty());
            }
            // No more arrivals: send what still waits as slots free up, and let outstanding calls finish.
            long drainUntil = System.nanoTime() + config.drainNanos();
            while ((outstanding.get() > 0 || !waiting.isEmpty()) && System.nanoTime() < drainUntil) {
                while (!waiting.isEmpty() && outstanding.get() < config.maxOutstanding()) {
                    send(waiting.poll(), payload, lags);
                    sent++;
                }
                waitingDriver = Thread.currentThread();
                if (outstanding.get() > 0 && (waiting.isEmpty() || outstanding.get() >= config.maxOutstanding())) {
                    LockSupport.parkNanos(this, 1_000_000);
                }
                waitingDriver = null;
            }
        } finally {
            payload.release();
        }
        if (progress != null) {
            progress.update(total, total, sent, completed.sum(), outstanding.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        counted = true;
        return new RunStats(protocol, arrivals, sent, completed.sum(), failed.sum(), waited, skipped,
                outstanding.get() + waiting.size(), recorded.sum(), lagMicros(lags.send, 50), lagMicros(lags.send, 99),
                lagMicros(lags.queue, 99), lagMicros(lags.wake, 99), config.loadMbps(),
                completedBytes.sum() * 8 / seconds / 1e6);
    }

    /** NaN when no measured request was sent at all (then there is no lag to report). */
    private static double lagMicros(Histogram sendLag, double percentile) {
        return sendLag.getTotalCount() == 0 ? Double.NaN : sendLag.getValueAtPercentile(percentile) / 1e3;
    }

    /**
     * Writes the largest bucket's measured calls (see {@link #largestCalls}) to {@code file} as CSV: {@code
     * arrival,server,length,intended_us,rtt_us}, in completion order.
     */
    public void writeLargestCalls(java.nio.file.Path file) throws java.io.IOException {
        StringBuilder csv = new StringBuilder("arrival,server,length,intended_us,rtt_us\n");
        for (String line : largestCalls) {
            csv.append(line).append('\n');
        }
        java.nio.file.Files.writeString(file, csv);
    }

    /** The first failure a call completed with, or null: for the summary when calls fail. */
    public Throwable firstFailure() {
        return firstFailure;
    }

    private void send(Arrival a, ByteBuf payload, Lags lags) {
        outstanding.incrementAndGet();
        if (a.record) {
            lags.record(a, System.nanoTime());
        }
        client.call(a.server, payload.retainedSlice(0, a.length)).whenComplete((length, error) -> {
            long rtt = System.nanoTime() - a.intendedNanos;
            if (counted) {
                return; // counted as unfinished
            }
            if (error != null || length == null || length != a.length) {
                failed.increment();
                if (firstFailure == null) {
                    firstFailure = error != null ? error
                            : new IllegalStateException("response of " + length + " B to a " + a.length + " B request");
                }
            } else {
                completed.increment();
                completedBytes.add(a.length);
                if (a.record) {
                    recorder.record(a.length, rtt);
                    if (slowdowns != null) {
                        slowdowns.record(a.length, rtt);
                    }
                    recorded.increment();
                    if (recorder.buckets().indexOf(a.length) == recorder.buckets().count() - 1) {
                        largestCalls.add(a.index + "," + a.server + "," + a.length + ","
                                + (a.intendedNanos - startNanos) / 1_000 + "," + rtt / 1_000);
                    }
                }
            }
            outstanding.decrementAndGet();
            Thread driver = waitingDriver;
            if (driver != null) {
                LockSupport.unpark(driver);
            }
        });
    }

    /**
     * Parks until shortly before {@code deadline}, then spins, so that sends start close to their time. With
     * {@code wakeOnCompletion} (arrivals wait for the cap) a completing call unparks the driver early.
     */
    private void pause(long deadline, boolean wakeOnCompletion) {
        if (wakeOnCompletion) {
            waitingDriver = Thread.currentThread();
            if (outstanding.get() < config.maxOutstanding()) {
                waitingDriver = null;
                return; // a slot freed before we registered
            }
        }
        try {
            long remaining = deadline - System.nanoTime();
            if (remaining > config.spinNanos()) {
                LockSupport.parkNanos(this, remaining - config.spinNanos());
                return; // re-evaluate: a completion may have freed a slot
            }
            while (System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        } finally {
            waitingDriver = null;
        }
    }

    private static double exponential(SplittableRandom random, double mean) {
        return -Math.log(1.0 - random.nextDouble()) * mean;
    }
}
