package io.homa4j.scratch;

import io.homa4j.HomaEndpoint;
import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

class ScratchMbTest {
    @Test
    void mb() throws Exception {
        for (int mbps : new int[] {100, 1000, 10000}) {
            HomaConfig cfg = HomaConfig.builder().linkMbps(mbps).rttMicros(100).pacerMaxQueueNanos(Long.getLong("q", 5000)).build();
            try (HomaEndpoint server = HomaEndpoint.builder().config(cfg).build(); HomaEndpoint client = HomaEndpoint.builder().config(cfg).build()) {
                server.serve((ctx, req) -> ctx.reply(req.retain()));
                byte[] m = new byte[1 << 20];
                long t0 = System.nanoTime(); int n = 5; int fails = 0;
                for (int i = 0; i < n; i++) { try { client.call(server.localAddress(), m).get(30, TimeUnit.SECONDS); } catch (Exception e) { fails++; System.out.println(e); } }
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("link %d: %.1f Mbit/s each way (1 outstanding), fails %d%n", mbps, n * 8.388608 / s, fails);
                System.out.println("C " + client.metrics());
                System.out.println("S " + server.metrics());
            }
        }
    }
}
