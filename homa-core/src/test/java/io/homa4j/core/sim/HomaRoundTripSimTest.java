package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketType;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static io.homa4j.core.sim.SimScenarios.MILLIS;
import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.assertNoStateLeft;
import static io.homa4j.core.sim.SimScenarios.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Echo round trips of the boundary sizes on an idle two-host rack, byte-exact by CRC-32C. */
class HomaRoundTripSimTest {
    private SimulatedNetwork network;

    @AfterEach
    void close() {
        if (network != null) {
            network.close();
        }
    }

    private HomaHost[] twoHosts(HomaConfig config) {
        network = new SimulatedNetwork(SimScenarios.rack(2).build());
        HomaHost[] hosts = HomaHost.attachAll(network, config);
        hosts[1].serve(RequestHandler.echo());
        return hosts;
    }

    /**
     * Symbolic sizes: -1 one full packet, -2 exactly unscheduledBytes, -3 one byte more.
     *
     * <p>The 64 MiB case runs with Netty's leak detection lowered from paranoid to simple for its duration: paranoid
     * records a stack trace on every buffer access, which makes 94,000 packets take minutes. Simple still tracks
     * a sample of buffers, and every other case here runs fully paranoid.
     */
    @ParameterizedTest(name = "size {0}")
    @ValueSource(ints = {0, 1, -1, -2, -3, 1_000_000, 64 << 20})
    void echoRoundTripIsByteExact(int symbolicSize) {
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        if (symbolicSize > 1_000_000) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        }
        try {
            roundTrip(symbolicSize);
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    private void roundTrip(int symbolicSize) {
        HomaConfig config = SimScenarios.engineConfig().build();
        HomaHost[] hosts = twoHosts(config);
        int onePacket = config.maxUdpPayload() - DataHeader.LENGTH;
        int size = switch (symbolicSize) {
            case -1 -> onePacket;
            case -2 -> config.unscheduledBytes();
            case -3 -> config.unscheduledBytes() + 1;
            default -> symbolicSize;
        };
        SimCall call = await(network, hosts[0].call(hosts[1], Payloads.random(size, size)), 10 * SECONDS);

        assertTrue(call.echoedRequest(), call.toString());
        assertEquals(Payloads.randomCrc32c(size, size), call.responseCrc32c());
        assertEquals(size, call.responseBytes());
        assertEquals(1, hosts[1].requestsReceived());
        assertEquals(0, network.totalDrops());
        if (symbolicSize == -1) {
            assertEquals(1, hosts[0].engine().metrics().packetsOut(PacketType.DATA), "one DATA packet out");
            assertEquals(1, hosts[1].engine().metrics().packetsOut(PacketType.DATA), "one DATA packet back");
        }
        // Byte-exact and also not slower than the links allow: size * 8 / rate each way, plus slack for grants.
        long wireNanos = 2L * size * 8 / SimScenarios.LINK_MBPS * 1_000;
        assertTrue(call.rttNanos() < wireNanos * 1.2 + 100_000, "rtt " + call.rttNanos() + " ns for " + size);
        assertNoStateLeft(network, hosts);
    }

    @Test
    void slowServerKeepsTheCallAliveAndRunsTheHandlerOnce() {
        HomaConfig config = SimScenarios.engineConfig().build();
        HomaHost[] hosts = twoHosts(config);
        // Works three times longer than the abort timeout: only BUSY (or equivalent) keeps the client waiting.
        long work = 3 * config.abortTicks() * config.tickNanos();
        hosts[1].serve(RequestHandler.echoAfter(work));
        SimCall call = await(network, hosts[0].call(hosts[1], Payloads.random(50_000, 9)), 2 * work);

        assertTrue(call.echoedRequest(), call.toString());
        assertTrue(call.rttNanos() >= work, "replied before the work was done: " + call);
        assertEquals(1, hosts[1].requestsReceived(), "handler ran once");
        assertNoStateLeft(network, hosts);
    }

    @Test
    void deadlineEndsACallToASilentServer() {
        HomaConfig config = SimScenarios.engineConfig().build();
        HomaHost[] hosts = twoHosts(config);
        hosts[1].crash();
        long deadline = network.nowNanos() + 20 * MILLIS;
        SimCall call = await(network, hosts[0].call(hosts[1].address(), Payloads.random(100, 1), deadline),
                SECONDS);
        assertEquals(io.homa4j.core.ErrorCode.DEADLINE_EXCEEDED, call.failure().code(), call.toString());
        assertTrue(call.completionNanos() >= deadline && call.completionNanos() < deadline + 2 * MILLIS,
                call.toString());
        assertNoStateLeft(network, hosts[0]);
    }
}
