package io.homa4j.core.sim;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static io.homa4j.core.sim.SimScenarios.MILLIS;
import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.awaitAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Same seed, same run, for the whole stack: real engines, faults and a mixed workload give the same completion
 * time, outcome and checksum for every call, and the same packet counts. (Issue 7 relies on this for
 * byte-identical results.)
 */
@ExtendWith(SampledLeakDetection.class)
class HomaDeterminismSimTest {

    @Test
    void sameSeedReproducesEveryCallAndAnotherSeedDoesNot() {
        List<String> first = run(21);
        assertEquals(first, run(21));
        assertNotEquals(first, run(22));
    }

    private static List<String> run(long seed) {
        NetworkConfig config = SimScenarios.rack(4).lossProbability(0.01).duplicateProbability(0.02)
                .reorderProbability(0.05).seed(seed).build();
        List<String> outcome = new ArrayList<>();
        try (SimulatedNetwork network = new SimulatedNetwork(config)) {
            HomaHost[] hosts = HomaHost.attachAll(network, SimScenarios.engineConfig().build());
            for (HomaHost h : hosts) {
                h.serve(RequestHandler.echoAfter(3_000));
            }
            SplittableRandom workload = new SplittableRandom(5); // the same calls for every seed
            List<SimCall> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                HomaHost client = hosts[workload.nextInt(4)];
                HomaHost server = hosts[workload.nextInt(4)];
                int size = workload.nextInt(4) == 0 ? 10_000 + workload.nextInt(90_000) : 1 + workload.nextInt(3_000);
                long at = workload.nextLong(10 * MILLIS);
                long payloadSeed = i;
                network.schedule(at, () -> calls.add(client.call(server, Payloads.random(size, payloadSeed))));
            }
            network.runUntil(10 * MILLIS);
            awaitAll(network, calls, 10 * SECONDS);
            for (SimCall c : calls) {
                outcome.add(c.startNanos() + " " + c.requestBytes() + " " + c.completionNanos() + " "
                        + (c.succeeded() ? Integer.toHexString(c.responseCrc32c()) : c.failure().code()));
            }
            outcome.add("sent=" + network.packetsSent() + " delivered=" + network.packetsDelivered() + " drops="
                    + network.totalDrops() + " events=" + network.eventsProcessed());
            assertTrue(calls.stream().allMatch(SimCall::echoedRequest));
        }
        return outcome;
    }
}
