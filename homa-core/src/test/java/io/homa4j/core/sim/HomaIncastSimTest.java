package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.DataHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.assertNoStateLeft;
import static io.homa4j.core.sim.SimScenarios.await;
import static io.homa4j.core.sim.SimScenarios.awaitAll;
import static io.homa4j.core.sim.SimScenarios.repliedCrc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Incast: 8 senders each send a 1 MB request to one receiver (host 0) at once; half-way through (when the
 * receiver's downlink has carried about 4 MB) a 9th host makes a 100 B echo call to the receiver.
 *
 * <p><b>The queue bound.</b> The bottleneck is the switch port towards the receiver. Everything queued there was
 * sent either unscheduled (at most {@code unscheduledBytes} per message, 8 messages) or against a grant, and the
 * receiver never lets granted-but-not-received bytes exceed {@code maxIncomingBytes}; grants may round up to a
 * whole packet per granted message (at most {@code maxOvercommit}). The 100 B call and control packets add a few
 * packets. In wire bytes (each full DATA packet carries {@code maxUdpPayload - DataHeader.LENGTH} message bytes
 * and costs {@code maxUdpPayload + 28} on the wire):
 *
 * <pre>
 *   bound = (8 x unscheduledBytes + maxIncomingBytes + maxOvercommit x packetPayload) x wirePerPayload
 *           + 4 x 1,500            (the short call, grants/acks in the same port, rounding)
 *         = (80,000 + 80,000 + 8 x 1,432) x 1,500 / 1,432 + 6,000 = 185,597 B   (defaults, maxOvercommit 8)
 * </pre>
 *
 * The grant limit is checked twice: by the engine's own high-water mark and by a {@link GrantWatcher} that
 * reads GRANT and DATA packets off the wire (a message stops holding a grant slot once it is fully granted, as in
 * the Linux module, so more messages than maxOvercommit may still have granted bytes in flight).
 *
 * <p>Without grants (every sender blasting 1 MB) the port would have to hold about 7 MB, so the bound is a real test
 * of receiver-driven scheduling. The short call must finish within 5x its unloaded RTT (measured on the same
 * idle rack first): it rides the highest unscheduled level past the queued scheduled data.
 */
@ExtendWith(SampledLeakDetection.class)
class HomaIncastSimTest {
    private static final int SENDERS = 8;
    private static final int LONG_BYTES = 1_000_000;
    private SimulatedNetwork network;

    @AfterEach
    void close() {
        if (network != null) {
            network.close();
        }
    }

    @ParameterizedTest(name = "maxOvercommit {0}")
    @ValueSource(ints = {8, 3})
    void shortCallCutsThroughAndTheQueueStaysBounded(int maxOvercommit) {
        HomaConfig config = SimScenarios.engineConfig().maxOvercommit(maxOvercommit).build();
        network = new SimulatedNetwork(SimScenarios.rack(SENDERS + 2).portBufferBytes(NetworkConfig.UNLIMITED)
                .build());
        HomaHost[] hosts = HomaHost.attachAll(network, config);
        HomaHost receiver = hosts[0];
        HomaHost shortCaller = hosts[SENDERS + 1];
        receiver.serve(SimScenarios.crcReply()).retainResponses(true);
        for (HomaHost h : hosts) {
            h.retainResponses(true);
        }

        // Unloaded RTT of the short call on the idle rack.
        SimCall unloaded = await(network, shortCaller.call(receiver, Payloads.random(100, 1)), SECONDS);
        assertTrue(unloaded.succeeded(), unloaded.toString());
        long unloadedRtt = unloaded.rttNanos();
        assertNoStateLeft(network, hosts);
        receiver.host().port().resetMaxima();

        GrantWatcher watcher = new GrantWatcher(receiver.host(), config.unscheduledBytes());
        network.tap(watcher);
        long startNanos = network.nowNanos();
        long bytesBefore = receiver.host().port().bytesTransmitted();
        List<SimCall> longs = new ArrayList<>();
        for (int i = 1; i <= SENDERS; i++) {
            longs.add(hosts[i].call(receiver, Payloads.random(LONG_BYTES, i)));
        }
        // Half-way: the receiver's downlink has carried half of the 8 MB.
        long halfWayNanos = (long) SENDERS * LONG_BYTES / 2 * 8 / SimScenarios.LINK_MBPS * 1_000;
        network.runFor(halfWayNanos);
        long doneAtHalfWay = longs.stream().filter(SimCall::isDone).count();
        assertTrue(doneAtHalfWay < SENDERS - 1, "the short call must meet competing long messages");
        SimCall loaded = await(network, shortCaller.call(receiver, Payloads.random(100, 2)), SECONDS);
        awaitAll(network, longs, 10 * SECONDS);

        for (int i = 0; i < SENDERS; i++) {
            SimCall c = longs.get(i);
            assertTrue(c.succeeded(), c.toString());
            assertEquals(Payloads.randomCrc32c(LONG_BYTES, i + 1), repliedCrc(c), "payload of sender " + (i + 1));
        }
        assertEquals(Payloads.randomCrc32c(100, 2), repliedCrc(loaded));

        MetricsSnapshot metrics = receiver.engine().metrics();
        int packetPayload = config.maxUdpPayload() - DataHeader.LENGTH;
        double wirePerPayload = (double) (config.maxUdpPayload() + NetworkConfig.IP_UDP_HEADER_BYTES)
                / packetPayload;
        long bound = (long) ((SENDERS * (long) config.unscheduledBytes() + config.maxIncomingBytes()
                + (long) maxOvercommit * packetPayload) * wirePerPayload) + 4 * 1_500;
        long maxQueue = receiver.host().port().maxQueueBytes();
        long lastDone = longs.stream().mapToLong(SimCall::completionNanos).max().orElse(-1);
        double utilization = (receiver.host().port().bytesTransmitted() - bytesBefore) * 8.0
                / ((lastDone - startNanos) * (SimScenarios.LINK_MBPS / 1_000.0));
        String figures = String.format("maxOvercommit=%d: short RTT loaded %d ns vs unloaded %d ns (%.2fx); "
                        + "bottleneck max queue %d B (bound %d B); granted messages high-water %d; "
                        + "granted-outstanding high-water %d B; on the wire: %d holding grant slots, %d with granted bytes in flight; "
                        + "%d longs done at the half-way point; "
                        + "longs done at %d..%d ns after start; bottleneck link busy %.0f%% until the last",
                maxOvercommit, loaded.rttNanos(), unloadedRtt, (double) loaded.rttNanos() / unloadedRtt, maxQueue,
                bound, metrics.grantedMessagesHighWater(), metrics.grantedBytesOutstandingHighWater(),
                watcher.maxSlotHolders(), watcher.maxInFlight(), doneAtHalfWay,
                longs.stream().mapToLong(SimCall::completionNanos).min().orElse(-1) - startNanos,
                lastDone - startNanos, utilization * 100);
        System.out.println("incast figures: " + figures);

        assertTrue(loaded.rttNanos() <= 5 * unloadedRtt, figures);
        assertTrue(metrics.grantedMessagesHighWater() <= maxOvercommit, figures);
        assertTrue(watcher.maxSlotHolders() <= maxOvercommit, "seen on the wire: " + figures);
        assertTrue(metrics.grantedMessagesHighWater() >= Math.min(maxOvercommit, 2), "grants overlapped: " + figures);
        assertTrue(maxQueue <= bound, figures);
        assertEquals(0, network.totalDrops());
        assertNoStateLeft(network, hosts);
    }
}
