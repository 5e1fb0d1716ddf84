package io.homa4j.micrometer;

import io.homa4j.CallOptions;
import io.homa4j.HomaEndpoint;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HomaMeterBinderTest {

    @Test
    void transportCountersFollowTheEndpointsDatagrams() throws Exception {
        try (HomaEndpoint server = HomaEndpoint.builder().build();
             HomaEndpoint client = HomaEndpoint.builder().build()) {
            server.serve((ctx, request) -> ctx.reply(request.retain()));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            HomaMeterBinder.of(client).bindTo(registry);
            String tag = client.localAddress().getHostString() + ":" + client.localAddress().getPort();

            for (int i = 0; i < 5; i++) {
                client.call(server.localAddress(), new byte[100], CallOptions.timeout(Duration.ofSeconds(5)))
                        .get(10, TimeUnit.SECONDS);
            }

            double sent = registry.get("homa.transport.datagrams").tag("endpoint", tag).tag("direction", "sent")
                    .functionCounter().count();
            double received = registry.get("homa.transport.datagrams").tag("direction", "received")
                    .functionCounter().count();
            assertEquals(client.transportStats().datagramsSent(), sent, 0.0);
            assertTrue(sent >= 5 && received >= 5, "sent " + sent + ", received " + received);
            assertTrue(registry.get("homa.transport.bytes").tag("direction", "sent").functionCounter().count()
                    >= 500, "at least the five requests' bytes");
        }
    }
}
