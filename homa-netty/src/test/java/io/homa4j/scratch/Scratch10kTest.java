package io.homa4j.scratch;

import io.homa4j.HomaEndpoint;
import org.junit.jupiter.api.Test;

import java.util.*;
import java.util.concurrent.*;

class Scratch10kTest {
    @Test
    void tenK() throws Exception {
        try (HomaEndpoint server = HomaEndpoint.builder().build()) {
            server.serve((ctx, req) -> ctx.reply(req.retain()));
            List<HomaEndpoint> clients = new ArrayList<>();
            for (int c = 0; c < 4; c++) clients.add(HomaEndpoint.builder().build());
            List<CompletableFuture<byte[]>> calls = new ArrayList<>();
            SplittableRandom random = new SplittableRandom(10_000);
            long t0 = System.nanoTime();
            for (int i = 0; i < 10_000; i++) calls.add(clients.get(i % 4).call(server.localAddress(), new byte[1 + random.nextInt(2000)]));
            int ok = 0; Map<String, Integer> errs = new TreeMap<>();
            for (CompletableFuture<byte[]> f : calls) {
                try { f.get(60, TimeUnit.SECONDS); ok++; } catch (ExecutionException e) { errs.merge(String.valueOf(e.getCause().getMessage()), 1, Integer::sum); }
            }
            System.out.println("ok=" + ok + " errs=" + errs + " in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            System.out.println("SERVER " + server.metrics());
            for (HomaEndpoint c : clients) { System.out.println("CLIENT " + c.metrics()); c.close(); }
        }
    }
}
