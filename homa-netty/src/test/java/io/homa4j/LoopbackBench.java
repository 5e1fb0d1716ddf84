package io.homa4j;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A small loopback benchmark (not a test): 100 B echo round-trip time, closed loop with one call outstanding,
 * and 1 MB echo throughput with 1 and 4 calls outstanding. Run with leak detection off; see docs/api.md for
 * the command and the figures it produced.
 *
 * <p>Arguments: {@code [transport=AUTO] [rttCalls=20000] [mbCalls=200] [gso=true]}.
 */
public final class LoopbackBench {
    public static void main(String[] args) throws Exception {
        TransportType transport = args.length > 0 ? TransportType.valueOf(args[0]) : TransportType.AUTO;
        int rttCalls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int mbCalls = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        boolean gso = args.length <= 3 || Boolean.parseBoolean(args[3]);
        try (HomaEndpoint server = HomaEndpoint.builder().transport(transport).gso(gso).build();
             HomaEndpoint client = HomaEndpoint.builder().transport(transport).gso(gso).build()) {
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            System.out.printf("transport=%s gso=%s cores=%d%n", client.transport(), gso,
                    Runtime.getRuntime().availableProcessors());

            long[] rtts;
            try {
                rtt(client, server, 100, rttCalls / 4);            // warm-up
                rtts = rtt(client, server, 100, rttCalls);
            } catch (java.util.concurrent.ExecutionException e) {
                System.out.println("FAILED: " + e.getCause());
                for (HomaEndpoint ep : new HomaEndpoint[] {server, client}) {
                    System.out.println(ep + "\n  " + ep.transportStats() + "\n  " + ep.metrics() + "\n  " + ep.debugState());
                }
                throw e;
            }
            Arrays.sort(rtts);
            System.out.printf("100 B echo RTT over %d calls: P50 %.1f us, P99 %.1f us, P99.9 %.1f us, min %.1f us%n",
                    rtts.length, us(pct(rtts, 0.50)), us(pct(rtts, 0.99)), us(pct(rtts, 0.999)), us(rtts[0]));

            for (int outstanding : new int[] {1, 4}) {
                throughput(client, server, 1 << 20, Math.max(4, mbCalls / 10), outstanding); // warm-up
                double mbps = throughput(client, server, 1 << 20, mbCalls, outstanding);
                System.out.printf("1 MB echo, %d outstanding, %d calls: %.0f MB/s of requests (%.2f Gbit/s each way)%n",
                        outstanding, mbCalls, mbps, mbps * 8 / 1000);
            }
            System.out.println("client " + client.transportStats());
            System.out.println("client " + client.metrics());
        }
    }

    private static long[] rtt(HomaEndpoint client, HomaEndpoint server, int size, int calls) throws Exception {
        long[] rtts = new long[calls];
        for (int i = 0; i < calls; i++) {
            ByteBuf request = PooledByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
            long start = System.nanoTime();
            ByteBuf response = client.call(server.localAddress(), request).get(10, TimeUnit.SECONDS);
            rtts[i] = System.nanoTime() - start;
            response.release();
        }
        return rtts;
    }

    private static double throughput(HomaEndpoint client, HomaEndpoint server, int size, int calls, int outstanding)
            throws Exception {
        long start = System.nanoTime();
        List<CompletableFuture<ByteBuf>> inFlight = new ArrayList<>();
        int started = 0;
        int done = 0;
        while (done < calls) {
            while (started < calls && inFlight.size() < outstanding) {
                inFlight.add(client.call(server.localAddress(),
                        PooledByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size)));
                started++;
            }
            inFlight.remove(0).get(60, TimeUnit.SECONDS).release();
            done++;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return (double) calls * size / 1e6 / seconds;
    }

    private static long pct(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }

    private static double us(long nanos) {
        return nanos / 1e3;
    }
}
