package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.homa4j.core.sim.SimScenarios.MILLIS;
import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.assertNoStateLeft;
import static io.homa4j.core.sim.SimScenarios.awaitAll;
import static io.homa4j.core.sim.SimScenarios.repliedCrc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A receiver tells data queued at its strict-priority switch port from data lost on the way by what its port
 * must have done meanwhile (DownlinkDrain), not by silence alone. Two senders stream 1 KB messages at the highest
 * level, filling the receiver's downlink at just over its rate; a medium message from another host waits behind
 * the stream at the scheduled levels (its first, unscheduled, bytes arrived before the stream began, so the
 * receiver knows it and grants it) for far longer than the RESEND timeout. Nothing is lost, so nothing may be sent
 * twice; a packet of it really lost there is still repaired once the port drains. An older 2 MB message from a
 * fourth host is the FIFO share's target, whose queued bytes are not fetched again either.
 *
 * <p>Two links: 10 Gbit/s (a 20 ms stream against a RESEND timeout of 5 ticks of 1 ms) and 25 Mbit/s, where the
 * wait (300 ms) is longer than even the longest RESEND interval (keepAliveTicks, 100 ms by default).
 */
class QueueOrLossSimTest {
    /**
     * @param streamEndNanos  when the senders stop starting 1 KB calls
     * @param periodNanos     each sender starts one every period, the two half a period apart
     * @param mediumBytes     the message that waits behind the stream
     * @param lostOffset      the loss case drops the medium message's first DATA packet at or past this offset
     * @param repairNanos     the loss is repaired within this long after the stream's end
     */
    record Link(String name, int linkMbps, HomaConfig config, long streamStartNanos, long streamEndNanos,
                long periodNanos, int mediumBytes, int lostOffset, long repairNanos) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Link> links() {
        return Stream.of(
                // 2 senders x 1,082 wire bytes every 1.6 us: 10.8 Gbit/s offered to the 10 Gbit/s downlink
                new Link("10 Gbit/s", SimScenarios.LINK_MBPS, SimScenarios.engineConfig().build(), 100_000,
                        20 * MILLIS, 1_600, 200_000, 100_000, 20 * MILLIS),
                // 2 senders x 1,068 wire bytes every 640 us: 26.7 Mbit/s offered to the 25 Mbit/s downlink. An RTT of
                // 2 ms: unscheduled bytes 6,250, maxIncoming 50,000 (16 ms of the link), RESEND after 32 ticks; the
                // port drains within tens of ms of the stream's end, then 32 drained ticks find the loss
                new Link("25 Mbit/s", 25, HomaConfig.builder().linkMbps(25).rttMicros(2_000).build(), 10 * MILLIS,
                        300 * MILLIS, 640_000, 60_000, 30_000, 150 * MILLIS));
    }

    private SimulatedNetwork network;
    private HomaHost[] hosts;
    private final List<SimCall> calls = new ArrayList<>();

    @AfterEach
    void close() {
        if (network != null) {
            network.close();
        }
    }

    private static PacketType type(ByteBuf packet) {
        return PacketType.fromCode(packet.getUnsignedByte(packet.readerIndex() + CommonHeader.TYPE_OFFSET));
    }

    /** Runs the scenario on {@code link} with {@code filter} at the switch; returns the medium message's call. */
    private SimCall run(Link link, PacketFilter filter) {
        network = new SimulatedNetwork(SimScenarios.rack(5).linkMbps(link.linkMbps()).build());
        hosts = HomaHost.attachAll(network, link.config());
        HomaHost receiver = hosts[0];
        receiver.serve(SimScenarios.crcReply());
        hosts[3].retainResponses(true);
        network.filter(filter);
        calls.add(hosts[4].call(receiver, Payloads.random(2_000_000, 4)));
        SimCall medium = hosts[3].call(receiver, Payloads.random(link.mediumBytes(), 3));
        for (int s = 1; s <= 2; s++) {
            HomaHost sender = hosts[s];
            long first = link.streamStartNanos() + s * link.periodNanos() / 2;
            for (long t = first; t < link.streamEndNanos(); t += link.periodNanos()) {
                long seed = t + s;
                network.schedule(t, () -> calls.add(sender.call(receiver, Payloads.random(1_000, seed))));
            }
        }
        network.runUntil(link.streamEndNanos());
        calls.add(medium);
        awaitAll(network, calls, 5 * SECONDS);
        assertTrue(calls.stream().allMatch(SimCall::succeeded));
        assertEquals(Payloads.randomCrc32c(link.mediumBytes(), 3), repliedCrc(medium));
        assertNoStateLeft(network, hosts);
        return medium;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("links")
    void dataQueuedBehindHigherLevelsIsNeitherAskedForNorCopied(Link link) {
        SimCall medium = run(link, null);
        assertTrue(medium.completionNanos() > link.streamEndNanos(),
                "the medium message waited behind the stream (premise): done at " + medium.completionNanos());
        for (HomaHost h : hosts) {
            assertEquals(0, h.engine().metrics().retransmittedPackets(), h + " sent a packet twice");
        }
        int maxPayload = DataHeader.maxPayload(hosts[3].config().maxUdpPayload());
        assertEquals((link.mediumBytes() + maxPayload - 1) / maxPayload,
                hosts[3].engine().metrics().packetsOut(PacketType.DATA),
                "every packet of the queued message went once (no retransmission, no restart)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("links")
    void aLossBehindHigherLevelsIsRepairedOnceThePortDrains(Link link) {
        boolean[] dropped = new boolean[1];
        DataHeader data = new DataHeader();
        SimCall medium = run(link, (from, to, level, packet, now) -> {
            if (dropped[0] || from != hosts[3].host() || type(packet) != PacketType.DATA) {
                return false;
            }
            data.wrap(packet, packet.readerIndex());
            dropped[0] = data.offset() >= link.lostOffset(); // a scheduled packet, queued behind the stream
            return dropped[0];
        });
        assertTrue(dropped[0]);
        assertTrue(hosts[3].engine().metrics().retransmittedPackets() >= 1, "the lost packet was sent again");
        assertTrue(medium.completionNanos() < link.streamEndNanos() + link.repairNanos(),
                "repaired within a few RESEND timeouts of the stream's end: " + medium.completionNanos());
    }
}
