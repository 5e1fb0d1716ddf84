package io.homa4j.bench.simulate;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.sim.HomaHost;
import io.homa4j.core.sim.NetworkConfig;
import io.homa4j.core.sim.Payloads;
import io.homa4j.core.sim.RequestHandler;
import io.homa4j.core.sim.SimCall;
import io.homa4j.core.sim.SimulatedNetwork;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code HomaConfig.srpt(false)}, the {@code --no-srpt} ablation, really changes the order messages finish in. */
class SrptSwitchTest {

    /** Nanoseconds by which the short call finished before the long one (negative: after). */
    private static long shortLead(boolean srpt) {
        try (SimulatedNetwork net = new SimulatedNetwork(NetworkConfig.builder().hosts(2).linkGbps(10).seed(1)
                .build())) {
            HomaConfig config = HomaConfig.builder().linkMbps(10_000).rttMicros(4).srpt(srpt).build();
            HomaHost[] hosts = HomaHost.attachAll(net, config);
            hosts[1].serve(RequestHandler.echo());
            SimCall longCall = hosts[0].call(hosts[1], Payloads.random(600_000, 1));
            SimCall shortCall = hosts[0].call(hosts[1], Payloads.random(60_000, 2));
            assertTrue(net.runUntil(() -> longCall.isDone() && shortCall.isDone(), 1_000_000_000L));
            assertTrue(longCall.echoedRequest() && shortCall.echoedRequest());
            return longCall.completionNanos() - shortCall.completionNanos();
        }
    }

    @Test
    void srptFinishesTheShortMessageFirstAndOldestFirstTheLongOne() {
        long withSrpt = shortLead(true);
        long withoutSrpt = shortLead(false);
        assertTrue(withSrpt > 0, "SRPT: the short call should finish first, lead " + withSrpt + " ns");
        assertTrue(withoutSrpt < 0, "oldest first: the long call (started first) should finish first, lead "
                + withoutSrpt + " ns");
    }
}
