package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.assertNoStateLeft;
import static io.homa4j.core.sim.SimScenarios.awaitAll;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pacer keeps the sender's own NIC queue short: one host sends 1 MB to each of 4 receivers at once (4 times
 * what its link can carry), and its NIC backlog must stay within {@code pacerMaxQueueNanos} plus two full packets
 * (the packet that crosses the limit, and a control packet or short message the pacer never holds back).
 * Without a pacer the first 4 x 10,000 unscheduled bytes alone would queue for 33 us.
 */
class HomaPacerSimTest {

    @Test
    void senderNicBacklogStaysNearThePacerLimit() {
        HomaConfig config = SimScenarios.engineConfig().build();
        try (SimulatedNetwork network = new SimulatedNetwork(SimScenarios.rack(5).build())) {
            HomaHost[] hosts = HomaHost.attachAll(network, config);
            List<SimCall> calls = new ArrayList<>();
            for (int i = 1; i <= 4; i++) {
                hosts[i].serve(SimScenarios.crcReply());
                calls.add(hosts[0].call(hosts[i], Payloads.random(1_000_000, i)));
            }
            awaitAll(network, calls, SECONDS);
            assertTrue(calls.stream().allMatch(SimCall::succeeded));

            long packetNanos = network.serializationPicos(config.maxUdpPayload()) / 1_000;
            long backlog = network.host(0).maxNicBacklogNanos();
            long bound = config.pacerMaxQueueNanos() + 2 * packetNanos;
            System.out.printf("pacer: sender NIC backlog max %d ns (%d B); bound %d ns%n", backlog,
                    network.host(0).maxNicBacklogBytes(), bound);
            assertTrue(backlog <= bound, "NIC backlog " + backlog + " ns > " + bound + " ns");
            assertNoStateLeft(network, hosts);
        }
    }
}
