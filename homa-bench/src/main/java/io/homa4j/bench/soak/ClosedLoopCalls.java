package io.homa4j.bench.soak;

import io.homa4j.HomaEndpoint;
import io.homa4j.HomaException;
import io.homa4j.core.ErrorCode;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * Keeps {@code concurrency} echo calls in flight from a client endpoint and accounts for every one: completed
 * byte-exact, failed with a typed {@link HomaException} (by code), answered with wrong bytes (mismatched), failed
 * with anything else (untyped), or lost (no outcome by the end of the drain).
 *
 * <p>Calls are started and checked on one driver thread of its own; the endpoint's event loop only completes
 * futures. Counters may be read from any thread.
 */
public final class ClosedLoopCalls implements AutoCloseable {
    private final HomaEndpoint client;
    private final InetSocketAddress server;
    private final int concurrency;
    private final IntSupplier lengths;
    private final ExecutorService driver = Executors.newSingleThreadExecutor(new DefaultThreadFactory("calls-driver"));
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong mismatched = new AtomicLong();
    private final AtomicLong untyped = new AtomicLong();
    private final Map<ErrorCode, LongAdder> failed = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean stopping;
    private volatile boolean finished;
    private volatile Throwable firstUntyped;

    /** @param lengths request lengths, called on the driver thread only (so a plain seeded generator is fine) */
    public ClosedLoopCalls(HomaEndpoint client, InetSocketAddress server, int concurrency, IntSupplier lengths) {
        this.client = client;
        this.server = server;
        this.concurrency = concurrency;
        this.lengths = lengths;
    }

    public void start() {
        driver.execute(() -> {
            for (int i = 0; i < concurrency; i++) {
                startCall();
            }
        });
    }

    /**
     * Starts no more calls and waits up to {@code drainNanos} for those in flight; returns how many had no
     * outcome by then (lost). Outcomes arriving later are ignored.
     */
    public long stopAndDrain(long drainNanos) throws InterruptedException {
        stopping = true;
        long end = System.nanoTime() + drainNanos;
        while (inFlight.get() > 0 && System.nanoTime() < end) {
            Thread.sleep(20); // waiting for outcomes that may never come: that is what is measured
        }
        finished = true;
        return inFlight.get();
    }

    private void startCall() {
        if (stopping) {
            return;
        }
        long id = started.incrementAndGet();
        inFlight.incrementAndGet();
        byte[] request = pattern(lengths.getAsInt(), id);
        client.call(server, request).whenCompleteAsync((response, error) -> {
            if (finished) {
                return; // counted as lost already
            }
            record(request, response, error);
            inFlight.decrementAndGet();
            startCall();
        }, driver);
    }

    private void record(byte[] request, byte[] response, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause == null) {
            (Arrays.equals(request, response) ? completed : mismatched).incrementAndGet();
        } else if (cause instanceof HomaException) {
            failed.computeIfAbsent(((HomaException) cause).code(), c -> new LongAdder()).increment();
        } else if (untyped.getAndIncrement() == 0) {
            firstUntyped = cause;
        }
    }

    /** Request bytes that differ from call to call, so a response from the wrong call is caught. */
    static byte[] pattern(int length, long id) {
        byte[] b = new byte[length];
        long x = id * 0x9E3779B97F4A7C15L;
        for (int i = 0; i < length; i++) {
            b[i] = (byte) ((x >>> ((i & 7) * 8)) ^ i);
        }
        return b;
    }

    public long started() {
        return started.get();
    }

    public long completed() {
        return completed.get();
    }

    public long mismatched() {
        return mismatched.get();
    }

    public long untyped() {
        return untyped.get();
    }

    public int inFlight() {
        return inFlight.get();
    }

    /** Typed failures, by code. */
    public Map<ErrorCode, Long> failedByCode() {
        Map<ErrorCode, Long> out = new EnumMap<>(ErrorCode.class);
        failed.forEach((code, count) -> out.put(code, count.sum()));
        return out;
    }

    /** Every call that ended without the right bytes: typed, mismatched or untyped. */
    public long notCompleted() {
        return failedByCode().values().stream().mapToLong(Long::longValue).sum() + mismatched() + untyped();
    }

    public Throwable firstUntyped() {
        return firstUntyped;
    }

    @Override
    public void close() throws InterruptedException {
        driver.shutdown();
        driver.awaitTermination(10, TimeUnit.SECONDS);
    }
}
