package io.homa4j.bench.hostile;

import io.homa4j.HomaEndpoint;
import io.homa4j.bench.soak.ClosedLoopCalls;
import io.homa4j.bench.soak.MemoryGauges;
import io.homa4j.core.HomaConfig;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * An echo server under attack by a {@link HostilePeer} while a real client keeps calling it, all over loopback.
 * The attacker cycles through every {@link HostilePeer.Attack} at a fixed datagram rate from many source ports.
 */
public final class HostileRun {
    private static final HomaConfig CLIENT = HomaConfig.builder().build();

    private HostileRun() {
    }

    public static HostileResult run(HostilePlan plan) throws IOException, InterruptedException {
        SplittableRandom random = new SplittableRandom(plan.seed());
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(
                new DefaultThreadFactory("hostile-sampler", true));
        AtomicInteger serverRpcsHigh = new AtomicInteger();
        try (MemoryGauges gauges = new MemoryGauges();
             HomaEndpoint server = HomaEndpoint.builder().config(plan.serverConfig()).build();
             HomaEndpoint client = HomaEndpoint.builder().config(CLIENT).build();
             HostilePeer attacker = new HostilePeer(server.localAddress(), plan.ports(), plan.seed(),
                     plan.serverConfig().maxMessageBytes(), plan.floodMessageBytes(), plan.floodBytes());
             ClosedLoopCalls calls = new ClosedLoopCalls(client, server.localAddress(), plan.realConcurrency(),
                     () -> 1 + random.nextInt(plan.realMaxBytes()))) {
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            System.gc(); // a settled baseline
            long heapBefore = MemoryGauges.heapUsed();
            long directBefore = direct();
            sampler.scheduleAtFixedRate(() -> {
                gauges.sample();
                serverRpcsHigh.accumulateAndGet(server.metricsNow().join().serverRpcs(), Math::max);
            }, 0, 10, TimeUnit.MILLISECONDS);
            long[] directHigh = {directBefore};
            calls.start();
            attack(plan, attacker, directHigh);
            long lost = calls.stopAndDrain(TimeUnit.SECONDS.toNanos(30));
            // The answers to the last forged packets: probes end 10 ms after them, RPCs expire after abortTicks.
            Thread.sleep(plan.serverConfig().abortTicks() * plan.serverConfig().tickNanos() / 1_000_000 + 200);
            attacker.drainReflected();
            sampler.shutdown();
            sampler.awaitTermination(5, TimeUnit.SECONDS);
            gauges.sample();
            return new HostileResult(calls.started(), calls.completed(), calls.failedByCode(), calls.mismatched(),
                    calls.untyped(), lost, attacker.packetsSent(), server.metricsNow().join(), serverRpcsHigh.get(),
                    heapBefore, gauges.heapUsedHigh(), gauges.liveHeapHigh(), directBefore,
                    Math.max(directHigh[0], Math.max(gauges.nettyDirectHigh(), gauges.allocatorDirectHigh())),
                    attacker.bytesSentOnWire(), attacker.datagramsReflected(), attacker.bytesReflectedOnWire());
        } finally {
            sampler.shutdownNow();
        }
    }

    /** Netty's direct memory: its own counter when it keeps one, else its allocators' arenas. */
    static long direct() {
        long netty = MemoryGauges.nettyDirect();
        return netty >= 0 ? netty : MemoryGauges.allocatorDirect();
    }

    /** Sends the attack at the plan's rate (in 1 ms batches) until the plan's time is up. */
    private static void attack(HostilePlan plan, HostilePeer attacker, long[] directHigh) throws IOException {
        HostilePeer.Attack[] kinds = plan.attacks().toArray(new HostilePeer.Attack[0]);
        long begin = System.nanoTime();
        long end = begin + (long) (plan.seconds() * 1e9);
        long sent = 0;
        int next = 0;
        for (long now = begin; now < end; now = System.nanoTime()) {
            long due = (long) ((now - begin) / 1e9 * plan.packetsPerSecond());
            while (sent < due) {
                sent += Math.max(1, attacker.send(kinds[next++ % kinds.length]));
            }
            directHigh[0] = Math.max(directHigh[0], direct());
            attacker.drainReflected();
            LockSupport.parkNanos(1_000_000); // the send cadence
        }
    }
}
