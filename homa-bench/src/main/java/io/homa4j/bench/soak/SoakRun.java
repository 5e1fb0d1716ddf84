package io.homa4j.bench.soak;

import io.homa4j.HomaEndpoint;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.faults.DatagramFilter;
import io.homa4j.faults.FaultInjector;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.PrintStream;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A long closed-loop run over loopback: an echo server and a client whose datagrams are dropped at random
 * ({@link DatagramFilter#lossy}) both ways, {@code concurrency} calls always in flight ({@link ClosedLoopCalls}),
 * request lengths from the workload. Prints a progress line with the call counts and the memory gauges every
 * {@code progressSeconds}, so a leak shows as a rising column.
 */
public final class SoakRun {
    private final SoakPlan plan;
    private final PrintStream progress;

    public SoakRun(SoakPlan plan, PrintStream progress) {
        this.plan = plan;
        this.progress = progress;
    }

    public static HomaConfig config(SoakPlan plan) {
        return HomaConfig.builder().rttMicros(plan.rttMicros()).maxMessageBytes(plan.workload().maxMessage())
                .build();
    }

    public SoakResult run() throws InterruptedException {
        HomaConfig config = config(plan);
        FaultInjector loss = DatagramFilter.lossy(plan.seed(), plan.loss());
        SplittableRandom random = new SplittableRandom(plan.seed());
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(
                new DefaultThreadFactory("soak-memory", true));
        long lost;
        double callsPerSecond;
        ClosedLoopCalls calls = null;
        try (MemoryGauges gauges = new MemoryGauges();
             HomaEndpoint server = HomaEndpoint.builder().config(config).build();
             HomaEndpoint client = HomaEndpoint.builder().config(config).packetFilter(loss).build()) {
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            calls = new ClosedLoopCalls(client, server.localAddress(), plan.concurrency(),
                    () -> plan.workload().sample(random));
            sampler.scheduleAtFixedRate(gauges::sample, 0, 100, TimeUnit.MILLISECONDS);
            progress.println(String.format(Locale.ROOT, "soak: %.0f s, %.1f%% loss each way at the client, %d calls"
                            + " in flight, workload %s truncated at %d B, seed %d; server %s, client %s",
                    plan.seconds(), plan.loss() * 100, plan.concurrency(), plan.workload().name(),
                    plan.workload().maxMessage(), plan.seed(), server.localAddress(), client.localAddress()));
            long begin = System.nanoTime();
            calls.start();
            long end = begin + (long) (plan.seconds() * 1e9);
            long period = (long) (plan.progressSeconds() * 1e9);
            for (long next = begin + period; ; next = Math.min(next + period, end)) {
                TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime())); // the report cadence
                progress.println(progressLine(System.nanoTime() - begin, calls, server, gauges));
                if (next >= end) {
                    break;
                }
            }
            callsPerSecond = calls.started() / ((System.nanoTime() - begin) / 1e9);
            lost = calls.stopAndDrain((long) (plan.drainSeconds() * 1e9));
            gauges.sample();
            progress.println(progressLine(System.nanoTime() - begin, calls, server, gauges));
            progress.println("memory high-water: " + gauges.highWater());
            progress.println(String.format(Locale.ROOT, "loss filter dropped %d datagrams out, %d in",
                    loss.droppedOutbound(), loss.droppedInbound()));
            progress.println("client engine: " + client.metrics());
            progress.println("server engine: " + server.metrics());
        } finally {
            sampler.shutdownNow();
            if (calls != null) {
                calls.close();
            }
        }
        if (calls.firstUntyped() != null) {
            progress.println("first untyped failure: " + calls.firstUntyped());
        }
        long leaks = LeakCounter.counting() ? LeakCounter.flush() : -1;
        return new SoakResult(calls.started(), calls.completed(), calls.failedByCode(), calls.mismatched(),
                calls.untyped(), lost, leaks, callsPerSecond);
    }

    private static String progressLine(long elapsedNanos, ClosedLoopCalls calls, HomaEndpoint server,
                                       MemoryGauges gauges) {
        MetricsSnapshot s = server.metrics();
        return String.format(Locale.ROOT, "[soak] %6.1f s  started %d  ok %d  failed %d  in flight %d  |  %s"
                        + "  |  server rpcs %d, buffered %s",
                elapsedNanos / 1e9, calls.started(), calls.completed(), calls.notCompleted(), calls.inFlight(),
                gauges.now(), s == null ? -1 : s.serverRpcs(), s == null ? "n/a" : MemoryGauges.mb(s.bufferedBytes()));
    }
}
