package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.PacketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static io.homa4j.core.sim.SimScenarios.MILLIS;
import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.assertNoStateLeft;
import static io.homa4j.core.sim.SimScenarios.awaitAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lightly loaded rack without loss, whose servers answer only after a sleeping host's wake-up: nothing may be
 * resent. A RESEND there would be spurious (every packet arrives), and each costs both hosts a wake-up and the
 * receiver duplicate data. Virtual time: the servers' wake-up is the handler's delay, the same every run.
 */
class HomaQuietPathSimTest {
    private static final int HOSTS = 4;
    /** Virtual time over which calls arrive. */
    private static final long ARRIVALS_NANOS = 400 * MILLIS;

    private SimulatedNetwork network;

    @AfterEach
    void close() {
        if (network != null) {
            network.close();
        }
    }

    /**
     * {@code load}: the share of each host's link its calls' requests and responses fill on average;
     * {@code wakeMicros}: how long a server takes to answer a request (its loop wakes from sleep, then handles),
     * from a prompt host to one slowed to a few ticks, still short of the RESEND timeout.
     */
    @ParameterizedTest(name = "load {0}, server wake-up {1} us")
    @CsvSource({"0.01, 0", "0.01, 200", "0.01, 3000", "0.05, 0", "0.05, 200", "0.05, 3000"})
    void nothingIsResentAtLowLoadWithoutLoss(double load, long wakeMicros) {
        network = new SimulatedNetwork(SimScenarios.rack(HOSTS).seed(7).build());
        HomaConfig config = SimScenarios.engineConfig().build();
        HomaHost[] hosts = HomaHost.attachAll(network, config);
        for (HomaHost h : hosts) {
            h.serve(RequestHandler.echoAfter(wakeMicros * 1_000));
        }
        SplittableRandom random = new SplittableRandom(37);
        List<SimCall> calls = new ArrayList<>();
        // Poisson arrivals per client host: load x link rate over the mean echo (request and response both cross
        // the client's link, one each way, so the mean message size is what fills it)
        double meanBytes = meanSize();
        double callsPerSecond = load * SimScenarios.LINK_MBPS * 1e6 / 8 / meanBytes;
        for (int c = 0; c < HOSTS; c++) {
            HomaHost client = hosts[c];
            double at = 0;
            for (int i = 0; ; i++) {
                at += -Math.log(1 - random.nextDouble()) / callsPerSecond * 1e9;
                if (at >= ARRIVALS_NANOS) {
                    break;
                }
                HomaHost server = hosts[(c + 1 + random.nextInt(HOSTS - 1)) % HOSTS];
                int size = size(random);
                long seed = c * 1_000_000L + i;
                network.schedule((long) at, () -> calls.add(client.call(server, Payloads.random(size, seed))));
            }
        }
        network.runUntil(ARRIVALS_NANOS);
        awaitAll(network, calls, 10 * SECONDS);

        assertTrue(calls.size() >= 40, "too few calls to mean anything: " + calls.size());
        for (SimCall call : calls) {
            assertTrue(call.echoedRequest(), call.toString());
        }
        assertEquals(0, network.totalDrops(), "no loss");
        for (HomaHost h : hosts) {
            MetricsSnapshot m = h.engine().metrics();
            assertEquals(0, m.packetsOut(PacketType.RESEND), "RESENDs sent by " + h + ": " + m);
            assertEquals(0, m.retransmittedPackets(), "DATA resent by " + h + ": " + m);
        }
        assertNoStateLeft(network, hosts);
    }

    /** 70% short (1..1,000 B), 25% medium (1..20 KB), 5% long (20..200 KB). */
    private static int size(SplittableRandom random) {
        int kind = random.nextInt(100);
        if (kind < 70) {
            return 1 + random.nextInt(1_000);
        } else if (kind < 95) {
            return 1_000 + random.nextInt(19_000);
        }
        return 20_000 + random.nextInt(180_000);
    }

    private static double meanSize() {
        return 0.70 * 500 + 0.25 * 10_500 + 0.05 * 110_000;
    }
}
