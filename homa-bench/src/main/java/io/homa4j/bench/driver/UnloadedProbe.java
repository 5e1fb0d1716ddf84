package io.homa4j.bench.driver;

import io.homa4j.bench.rack.RackLink;
import io.homa4j.bench.transport.BenchClient;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The unloaded RTT of a real transport by message length, the denominator of slowdown on the emulated rack: echo
 * calls to one server, one at a time on an otherwise idle network, over a grid of lengths up to the workload's
 * longest ({@link #lengths}), after a warm-up that lets the JIT compile both ends' paths. Each length is measured
 * {@code samples} times, in rounds over the whole grid (so a slow moment of the machine hits one sample of many
 * lengths rather than every sample of one), and its median kept.
 *
 * <p>Single-threaded: {@link #measure} blocks on each call (on each group of calls in the warm-up).
 */
public final class UnloadedProbe {
    /** Lengths up to this are also warm-up lengths: they cover one- and few-packet paths quickly. */
    static final int WARMUP_MAX_BYTES = 100_000;
    /**
     * Calls of the shortest length the warm-up keeps in flight between its single calls of the other lengths. On a
     * slow emulated link one call at a time gives the JIT a few thousand calls in the whole warm-up, too few for C2
     * to compile the per-call path (thousands of invocations per method, then the compile queue), so the idle RTT
     * was measured in profiled C1 code; in-flight calls of a few hundred bytes multiply the calls the link carries.
     */
    static final int WARMUP_IN_FLIGHT = 16;
    /** The warm-up goes on past its time, while the JIT is still compiling, up to this many times that time. */
    static final int WARMUP_MAX_STRETCH = 3;
    /**
     * Calls longer than this (not warm-up lengths) are each followed by an unmeasured call of the shortest length:
     * the first call after a long one was the slowest of its length on the rack, for both protocols (the 1 B call
     * after the 1 MB one: twice the 100 B call's RTT for Homa, ten times for TCP), as the long call's buffers and
     * collections are still being dealt with.
     */
    static final int CHASED_ABOVE_BYTES = WARMUP_MAX_BYTES;
    /** Beyond three packets, each measured length is this many times the previous. */
    static final double GRID_RATIO = 1.5;

    private final BenchClient client;
    private final int server;
    private final LongSupplier nanoClock;
    private final long callTimeoutNanos;
    private final long settleNanos;
    private final Pause pause;
    private final LongSupplier jitCompiledMillis;

    /** How the probe waits between calls: {@link #PARK} in real time, a test's own on a virtual clock. */
    @FunctionalInterface
    public interface Pause {
        void pause(long nanos) throws InterruptedException;
    }

    /** Parks the calling thread for the whole time ({@link #parkFor}). */
    public static final Pause PARK = UnloadedProbe::parkFor;

    /**
     * Parks the calling thread until {@code nanos} have passed on {@link System#nanoTime}, parking again when a park
     * returns early (as it may, spuriously).
     *
     * @throws InterruptedException when the thread is interrupted before or while it waits (the flag is cleared)
     */
    public static void parkFor(long nanos) throws InterruptedException {
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    /** A probe whose calls go back to back (no settling time: links that need none). */
    public UnloadedProbe(BenchClient client, int server, LongSupplier nanoClock, long callTimeoutNanos) {
        this(client, server, nanoClock, callTimeoutNanos, 0, PARK);
    }

    /**
     * @param client           the transport's client; calls go to server {@code server} of its list
     * @param nanoClock        the clock RTTs are read from ({@code System::nanoTime}; tests give their own)
     * @param callTimeoutNanos how long one idle call may take before the probe gives up
     * @param settleNanos      idle time before each measured call (0: none); see {@link #settleNanos(int)}
     * @param pause            how that time is waited
     */
    public UnloadedProbe(BenchClient client, int server, LongSupplier nanoClock, long callTimeoutNanos,
                         long settleNanos, Pause pause) {
        this(client, server, nanoClock, callTimeoutNanos, settleNanos, pause, JitQuiet.NO_JIT);
    }

    /**
     * As {@link #UnloadedProbe(BenchClient, int, LongSupplier, long, long, Pause)}, with the JIT whose compiling
     * stretches the warm-up: {@code jitCompiledMillis} is its total compilation time ({@link JitQuiet#thisJvm()}),
     * or {@link JitQuiet#NO_JIT}.
     */
    public UnloadedProbe(BenchClient client, int server, LongSupplier nanoClock, long callTimeoutNanos,
                         long settleNanos, Pause pause, LongSupplier jitCompiledMillis) {
        if (settleNanos < 0) {
            throw new IllegalArgumentException("settleNanos must not be negative: " + settleNanos);
        }
        this.client = client;
        this.server = server;
        this.nanoClock = nanoClock;
        this.callTimeoutNanos = callTimeoutNanos;
        this.settleNanos = settleNanos;
        this.pause = pause;
        this.jitCompiledMillis = jitCompiledMillis;
    }

    /** Full frames an emulated link lets through at once (netlab's smallest token bucket). */
    static final int SETTLE_FRAMES = 2;

    /**
     * The idle time that lets links of {@code linkMbps} go idle after a call: the time they take to carry
     * {@link #SETTLE_FRAMES} full frames, which refills a shaper's token bucket (a few microseconds on fast links).
     */
    public static long settleNanos(int linkMbps) {
        if (linkMbps < 1) {
            throw new IllegalArgumentException("linkMbps must be positive: " + linkMbps);
        }
        return SETTLE_FRAMES * RackLink.FULL_FRAME_BYTES * 8_000L / linkMbps;
    }

    /**
     * The grid: 1 B, 100 B, both sides of the first three packet boundaries (where an idle RTT steps), then
     * geometric with ratio {@link #GRID_RATIO} up to {@code maxMessage}, which is always the last.
     */
    public static long[] lengths(int maxMessage, int payloadPerPacket) {
        TreeSet<Long> grid = new TreeSet<>();
        grid.add(1L);
        grid.add(100L);
        for (long k = 1; k <= 3; k++) {
            grid.add(k * payloadPerPacket);
            grid.add(k * payloadPerPacket + 1);
        }
        for (double length = 4.0 * payloadPerPacket; length < maxMessage; length *= GRID_RATIO) {
            grid.add((long) length);
        }
        grid.add((long) maxMessage);
        return grid.stream().mapToLong(Long::longValue).filter(l -> l >= 1 && l <= maxMessage).toArray();
    }

    /**
     * Warms up for {@code warmupNanos}, and on while this JVM's JIT is still compiling (at most
     * {@link #WARMUP_MAX_STRETCH} times as long): {@link #WARMUP_IN_FLIGHT} calls of the shortest length at once,
     * then one call of the next of the grid's short lengths, in turn. Then measures every length of {@code lengths}
     * {@code samples} times; returns the medians.
     *
     * @throws ProbeException when a call fails, answers with another length, or outlasts the timeout
     */
    public RttByLength measure(long[] lengths, int samples, long warmupNanos) throws ProbeException,
            InterruptedException {
        if (lengths.length == 0 || samples < 1) {
            throw new IllegalArgumentException("need lengths and at least one sample");
        }
        int longest = (int) Arrays.stream(lengths).max().getAsLong();
        ByteBuf payload = Unpooled.directBuffer(longest);
        payload.writerIndex(longest);
        try {
            long[] warm = Arrays.stream(lengths).filter(l -> l <= WARMUP_MAX_BYTES).toArray();
            if (warm.length == 0) {
                warm = new long[] {lengths[0]};
            }
            warmUp(payload, warm, warmupNanos);
            long[][] rtts = new long[lengths.length][samples];
            for (int s = 0; s < samples; s++) {
                for (int i = 0; i < lengths.length; i++) {
                    if (settleNanos > 0) {
                        pause.pause(settleNanos);
                    }
                    rtts[i][s] = call(payload, (int) lengths[i]);
                    if (lengths[i] > CHASED_ABOVE_BYTES) {
                        call(payload, (int) lengths[0]); // absorbs what a long call leaves behind; not measured
                    }
                }
            }
            double[] medians = new double[lengths.length];
            for (int i = 0; i < lengths.length; i++) {
                medians[i] = median(rtts[i]);
            }
            return new RttByLength(lengths, medians);
        } finally {
            payload.release();
        }
    }

    private void warmUp(ByteBuf payload, long[] warm, long warmupNanos) throws ProbeException,
            InterruptedException {
        long start = nanoClock.getAsLong();
        long warmUntil = start + warmupNanos;
        long latest = start + WARMUP_MAX_STRETCH * warmupNanos;
        JitQuiet jit = new JitQuiet(jitCompiledMillis, nanoClock);
        int shortest = (int) Arrays.stream(warm).min().getAsLong();
        for (int i = 0; ; i++) {
            inFlight(payload, shortest, WARMUP_IN_FLIGHT);
            call(payload, (int) warm[i % warm.length]);
            long now = nanoClock.getAsLong();
            if (now >= latest || (now >= warmUntil && jit.quiet())) {
                return;
            }
        }
    }

    /** {@code count} calls of {@code length} bytes started at once; returns when all are answered. */
    private void inFlight(ByteBuf payload, int length, int count) throws ProbeException, InterruptedException {
        List<CompletableFuture<Integer>> calls = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            calls.add(client.call(server, payload.retainedSlice(0, length)));
        }
        for (CompletableFuture<Integer> call : calls) {
            answered(call, length);
        }
    }

    private long call(ByteBuf payload, int length) throws ProbeException, InterruptedException {
        long start = nanoClock.getAsLong();
        answered(client.call(server, payload.retainedSlice(0, length)), length);
        return Math.max(1, nanoClock.getAsLong() - start);
    }

    /** Waits for {@code call}'s answer and checks it echoed {@code length} bytes. */
    private void answered(CompletableFuture<Integer> call, int length) throws ProbeException, InterruptedException {
        Integer answered;
        try {
            answered = call.get(callTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new ProbeException("an idle call of " + length + " B failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new ProbeException("an idle call of " + length + " B took longer than "
                    + TimeUnit.NANOSECONDS.toMillis(callTimeoutNanos) + " ms", e);
        }
        if (answered == null || answered != length) {
            throw new ProbeException("an idle call of " + length + " B was answered with " + answered + " B", null);
        }
    }

    /** The middle value; of an even count, the mean of the two middle ones. */
    static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }

    /** Why the probe could not measure. */
    public static final class ProbeException extends Exception {
        public ProbeException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
