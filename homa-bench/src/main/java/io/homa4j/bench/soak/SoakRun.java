package io.homa4j.bench.soak;

import io.homa4j.HomaEndpoint;
import io.homa4j.bench.faults.MisbehavingEcho;
import io.homa4j.bench.hostile.HostilePeer;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.faults.DatagramFilter;
import io.homa4j.faults.FaultInjector;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
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
 * {@code progressSeconds}, so a leak shows as a rising column. The server's handler may mishandle every tenth
 * request ({@link MisbehavingEcho}), and a {@link HostilePeer} may send forged first packets of huge requests at
 * a slow, steady rate meanwhile (the huge-first-packet memory attack), whose reflection and pinned memory are reported.
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

    public SoakResult run() throws InterruptedException, IOException {
        HomaConfig config = config(plan);
        FaultInjector loss = DatagramFilter.lossy(plan.seed(), plan.loss());
        SplittableRandom random = new SplittableRandom(plan.seed());
        MisbehavingEcho handler = new MisbehavingEcho(plan.handler());
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(
                new DefaultThreadFactory("soak-memory", true));
        ScheduledExecutorService attackThread = Executors.newSingleThreadScheduledExecutor(
                new DefaultThreadFactory("soak-attack", true));
        long lost;
        double callsPerSecond;
        SoakResult.Attack attack = null;
        ClosedLoopCalls calls = null;
        try (MemoryGauges gauges = new MemoryGauges();
             HomaEndpoint server = HomaEndpoint.builder().config(config).build();
             HomaEndpoint client = HomaEndpoint.builder().config(config).packetFilter(loss)
                     .defaultCallTimeout(handler.clientDeadline()).build();
             HostilePeer attacker = plan.attackPerSecond() > 0 ? new HostilePeer(server.localAddress(),
                     plan.attackPorts(), plan.seed(), config.maxMessageBytes(), 0, 0) : null) {
            server.serve(handler);
            calls = new ClosedLoopCalls(client, server.localAddress(), plan.concurrency(),
                    () -> plan.workload().sample(random));
            sampler.scheduleAtFixedRate(gauges::sample, 0, 100, TimeUnit.MILLISECONDS);
            progress.println(String.format(Locale.ROOT, "soak: %.0f s, %.1f%% loss each way at the client, %d calls"
                            + " in flight, workload %s truncated at %d B, seed %d, handler %s, attack %s;"
                            + " server %s, client %s",
                    plan.seconds(), plan.loss() * 100, plan.concurrency(), plan.workload().name(),
                    plan.workload().maxMessage(), plan.seed(), plan.handler(), attacker == null ? "none"
                            : String.format(Locale.ROOT, "%.1f forged %d-byte first packets/s from %d ports",
                            plan.attackPerSecond(), config.maxMessageBytes(), plan.attackPorts()),
                    server.localAddress(), client.localAddress()));
            long begin = System.nanoTime();
            calls.start();
            if (attacker != null) {
                attackThread.scheduleAtFixedRate(() -> attackOnce(attacker),
                        0, (long) (1e9 / plan.attackPerSecond()), TimeUnit.NANOSECONDS);
            }
            long end = begin + (long) (plan.seconds() * 1e9);
            long period = (long) (plan.progressSeconds() * 1e9);
            for (long next = begin + period; ; next = Math.min(next + period, end)) {
                TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime())); // the report cadence
                progress.println(progressLine(System.nanoTime() - begin, calls, server, gauges));
                if (next >= end) {
                    break;
                }
            }
            attackThread.shutdown();
            attackThread.awaitTermination(5, TimeUnit.SECONDS);
            callsPerSecond = calls.started() / ((System.nanoTime() - begin) / 1e9);
            lost = calls.stopAndDrain((long) (plan.drainSeconds() * 1e9));
            gauges.sample();
            progress.println(progressLine(System.nanoTime() - begin, calls, server, gauges));
            progress.println("memory high-water: " + gauges.highWater());
            progress.println(String.format(Locale.ROOT, "loss filter dropped %d datagrams out, %d in",
                    loss.droppedOutbound(), loss.droppedInbound()));
            progress.println("handler runs: " + handler.runs());
            MetricsSnapshot serverMetrics = server.metricsNow().join();
            if (attacker != null) {
                // The answers to the last forged packets: probes end soon after them, RPCs expire after abortTicks.
                Thread.sleep(config.abortTicks() * config.tickNanos() / 1_000_000 + 200);
                attacker.drainReflected();
                attack = new SoakResult.Attack(attacker.packetsSent().get(HostilePeer.Attack.HUGE_FIRST_PACKET),
                        attacker.bytesSentOnWire(), attacker.bytesReflectedOnWire(),
                        serverMetrics.bufferedBytesHighWater());
            }
            progress.println("client engine: " + client.metrics());
            progress.println("server engine: " + serverMetrics);
        } finally {
            sampler.shutdownNow();
            attackThread.shutdownNow();
            if (calls != null) {
                calls.close();
            }
        }
        if (calls.firstUntyped() != null) {
            progress.println("first untyped failure: " + calls.firstUntyped());
        }
        long leaks = LeakCounter.counting() ? LeakCounter.flush() : -1;
        return new SoakResult(calls.started(), calls.completed(), calls.failedByCode(), calls.mismatched(),
                calls.untyped(), lost, leaks, callsPerSecond, attack);
    }

    /** One forged first packet, and a read of what came back to the attacker's ports. Attack thread only. */
    private void attackOnce(HostilePeer attacker) {
        try {
            attacker.send(HostilePeer.Attack.HUGE_FIRST_PACKET);
            attacker.drainReflected();
        } catch (IOException e) {
            progress.println("attack send failed: " + e);
        }
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
