package io.homa4j.bench.faults;

import io.homa4j.HomaEndpoint;
import io.homa4j.HomaException;
import io.homa4j.core.ErrorCode;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.sim.Payloads;
import io.homa4j.faults.FaultInjector;
import io.netty.buffer.ByteBuf;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a {@link FaultPlan} over real loopback UDP: an echo server endpoint and a client endpoint whose
 * {@link FaultInjector} applies the faults to every datagram once (client outbound: towards the server; client
 * inbound: towards the client). Each response is checked byte for byte (CRC-32C of the echo against that of the
 * request, plus the length).
 *
 * <p>Not thread-safe; one run at a time per instance. Binds two ephemeral loopback ports per run.
 */
public final class FaultRun {
    private static final int MAX_SAMPLES = 5;
    private final FaultPlan plan;
    private final MisbehavingEcho handler;
    private final AtomicInteger exact = new AtomicInteger();
    private final AtomicInteger wrongBytes = new AtomicInteger();
    private final AtomicInteger untyped = new AtomicInteger();
    private final Map<ErrorCode, AtomicInteger> failed = new EnumMap<>(ErrorCode.class);
    private final AtomicLong lastEndNanos = new AtomicLong();
    /** How late each DEADLINE_EXCEEDED came, after the call's deadline (on the event loop's clock reading). */
    private final Queue<Long> deadlineLateness = new ConcurrentLinkedQueue<>();
    private final AtomicInteger ended = new AtomicInteger();
    private final Object endSignal = new Object();
    private final Queue<String> failureSamples = new ConcurrentLinkedQueue<>();

    public FaultRun(FaultPlan plan) {
        this.plan = plan;
        this.handler = new MisbehavingEcho(plan.handler());
        for (ErrorCode code : ErrorCode.values()) {
            failed.put(code, new AtomicInteger());
        }
    }

    /** Runs every call, or until the run hangs, and returns how they ended. */
    public static FaultOutcome run(FaultPlan plan) throws InterruptedException {
        return new FaultRun(plan).execute();
    }

    private FaultOutcome execute() throws InterruptedException {
        FaultInjector injector = FaultInjector.symmetric(plan.seed(), plan.faults());
        long start = System.nanoTime();
        lastEndNanos.set(start);
        int unfinished;
        long engineDrops;
        String engines;
        try (HomaEndpoint server = HomaEndpoint.builder().config(plan.config()).build();
             HomaEndpoint client = HomaEndpoint.builder().config(plan.config()).packetFilter(injector)
                     .defaultCallTimeout(handler.clientDeadline()).build()) {
            server.serve(handler);
            unfinished = issueAndWait(client, server);
            engineDrops = drops(client) + drops(server);
            engines = "client " + client.metrics() + System.lineSeparator() + "server " + server.metrics();
        }
        long duration = System.nanoTime() - start;
        Map<ErrorCode, Integer> byCode = new EnumMap<>(ErrorCode.class);
        failed.forEach((code, n) -> {
            if (n.get() > 0) {
                byCode.put(code, n.get());
            }
        });
        return new FaultOutcome(plan.faults(), plan.calls(), exact.get(), wrongBytes.get(), byCode, untyped.get(),
                unfinished, handler.runs(), engineDrops, duration, injector.outboundCounts(), injector.inboundCounts(),
                List.copyOf(failureSamples), engines,
                deadlineLateness.stream().mapToLong(Long::longValue).toArray());
    }

    /** Returns the number of calls that never ended (cancelled here). */
    private int issueAndWait(HomaEndpoint client, HomaEndpoint server) throws InterruptedException {
        Semaphore slots = new Semaphore(plan.maxOutstanding());
        SplittableRandom lengths = new SplittableRandom(plan.seed());
        CompletableFuture<?>[] calls = new CompletableFuture<?>[plan.calls()];
        int issued = 0;
        for (; issued < plan.calls(); issued++) {
            if (!acquireUnlessHung(slots)) {
                break;
            }
            int length = plan.workload().sample(lengths);
            ByteBuf request = Payloads.random(length, plan.seed() * 1_000_003L + issued);
            int crc = Payloads.crc32c(request);
            long deadline = System.nanoTime() + handler.clientDeadline().toNanos();
            CompletableFuture<ByteBuf> call = client.call(server.localAddress(), request);
            calls[issued] = call;
            call.whenComplete((response, error) -> {
                if (error instanceof HomaException e && e.code() == ErrorCode.DEADLINE_EXCEEDED) {
                    deadlineLateness.add(System.nanoTime() - deadline);
                }
                classify(length, crc, response, error);
                slots.release();
            });
        }
        while (ended.get() < issued && !hung()) {
            synchronized (endSignal) {
                if (ended.get() < issued) {
                    endSignal.wait(100);
                }
            }
        }
        int unfinished = plan.calls() - ended.get();
        for (int i = 0; i < issued; i++) {
            calls[i].cancel(false);
        }
        return unfinished;
    }

    private void sample(String failure) {
        if (failureSamples.size() < MAX_SAMPLES) {
            failureSamples.add(failure);
        }
    }

    private static long drops(HomaEndpoint endpoint) {
        MetricsSnapshot metrics = endpoint.metricsNow().join();
        return metrics == null ? 0 : metrics.totalDrops();
    }

    private boolean acquireUnlessHung(Semaphore slots) throws InterruptedException {
        while (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
            if (hung()) {
                return false;
            }
        }
        return true;
    }

    private boolean hung() {
        return System.nanoTime() - lastEndNanos.get() > plan.hangTimeout().toNanos();
    }

    private void classify(int length, int crc, ByteBuf response, Throwable error) {
        try {
            if (error == null) {
                boolean same = response.readableBytes() == length && Payloads.crc32c(response) == crc;
                (same ? exact : wrongBytes).incrementAndGet();
            } else {
                Throwable cause = error;
                if (cause instanceof HomaException homa) {
                    failed.get(homa.code()).incrementAndGet();
                    sample(length + " B: " + homa.getMessage());
                } else if (!(cause instanceof CancellationException)) {
                    untyped.incrementAndGet();
                    sample(length + " B: " + cause);
                } else {
                    return; // cancelled by the run after giving up: counted as unfinished
                }
            }
            lastEndNanos.set(System.nanoTime());
            ended.incrementAndGet();
            synchronized (endSignal) {
                endSignal.notifyAll();
            }
        } finally {
            if (response != null) {
                response.release();
            }
        }
    }
}
