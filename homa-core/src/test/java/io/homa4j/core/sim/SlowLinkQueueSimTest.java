package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.homa4j.core.sim.SimScenarios.MILLIS;
import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.assertNoStateLeft;
import static io.homa4j.core.sim.SimScenarios.awaitAll;
import static io.homa4j.core.sim.SimScenarios.repliedCrc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On a slow link, granted bytes can wait at the receiver's strict-priority switch port for longer than any
 * RESEND interval, even than the longest one (keepAliveTicks, 100 ms by default): at 25 Mbit/s a stream of 1 KB
 * messages at a high level fills the receiver's downlink at 107% for 300 ms, and a 60 KB message from another
 * host, whose first bytes arrived before the stream began (so the receiver grants it), waits behind it at the
 * scheduled levels all that time. Nothing is lost, so nothing may be sent twice: the receiver's port was never
 * seen drained at those levels, which explains the silence; it keeps the sender's timer alive with BUSY instead.
 * A packet of that message really lost there is still repaired once the port drains. An older 2 MB message from a
 * fourth host is the FIFO share's target, whose queued bytes are not fetched again either.
 */
class SlowLinkQueueSimTest {
    private static final int LINK_MBPS = 25;
    private static final long STREAM_START_NANOS = 10 * MILLIS;
    private static final long STREAM_END_NANOS = 300 * MILLIS;
    private static final int MEDIUM = 60_000;

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

    /** Runs the scenario with {@code filter} at the switch; returns the 60 KB call. */
    private SimCall run(PacketFilter filter) {
        network = new SimulatedNetwork(SimScenarios.rack(5).linkMbps(LINK_MBPS).build());
        // an RTT of 2 ms: unscheduled bytes 6,250, maxIncoming 50,000 (16 ms of the link), RESEND after 32 ticks
        HomaConfig config = HomaConfig.builder().linkMbps(LINK_MBPS).rttMicros(2_000).build();
        hosts = HomaHost.attachAll(network, config);
        HomaHost receiver = hosts[0];
        receiver.serve(SimScenarios.crcReply());
        hosts[3].retainResponses(true);
        network.filter(filter);
        calls.add(hosts[4].call(receiver, Payloads.random(2_000_000, 4)));
        SimCall medium = hosts[3].call(receiver, Payloads.random(MEDIUM, 3));
        for (int s = 1; s <= 2; s++) {
            HomaHost sender = hosts[s];
            // 2 senders x 1,068 wire bytes every 640 us: 26.7 Mbit/s offered to the 25 Mbit/s downlink
            for (long t = STREAM_START_NANOS + s * 320_000L; t < STREAM_END_NANOS; t += 640_000) {
                long seed = t + s;
                network.schedule(t, () -> calls.add(sender.call(receiver, Payloads.random(1_000, seed))));
            }
        }
        network.runUntil(STREAM_END_NANOS);
        calls.add(medium);
        awaitAll(network, calls, 5 * SECONDS);
        assertTrue(calls.stream().allMatch(SimCall::succeeded));
        assertEquals(Payloads.randomCrc32c(MEDIUM, 3), repliedCrc(medium));
        assertNoStateLeft(network, hosts);
        return medium;
    }

    @Test
    void bytesQueuedLongerThanTheLongestResendIntervalAreNotSentTwice() {
        SimCall medium = run(null);
        assertTrue(medium.completionNanos() > STREAM_END_NANOS,
                "the 60 KB message waited behind the stream (premise): done at " + medium.completionNanos());
        for (HomaHost h : hosts) {
            assertEquals(0, h.engine().metrics().retransmittedPackets(), h + " sent a packet twice");
        }
        int maxPayload = DataHeader.maxPayload(hosts[3].config().maxUdpPayload());
        assertEquals((MEDIUM + maxPayload - 1) / maxPayload, hosts[3].engine().metrics().packetsOut(PacketType.DATA),
                "every packet of the queued message went once (no retransmission, no restart)");
    }

    @Test
    void aLossBehindTheStreamIsRepairedOnceThePortDrains() {
        boolean[] dropped = new boolean[1];
        DataHeader data = new DataHeader();
        SimCall medium = run((from, to, level, packet, now) -> {
            if (dropped[0] || from != hosts[3].host() || type(packet) != PacketType.DATA) {
                return false;
            }
            data.wrap(packet, packet.readerIndex());
            dropped[0] = data.offset() >= 30_000; // a scheduled packet, granted while the stream ran
            return dropped[0];
        });
        assertTrue(dropped[0]);
        assertTrue(hosts[3].engine().metrics().retransmittedPackets() >= 1, "the lost packet was sent again");
        // the port drains within tens of ms of the stream's end; then 32 drained ticks find the loss
        assertTrue(medium.completionNanos() < STREAM_END_NANOS + 150 * MILLIS,
                "repaired within a few RESEND timeouts of the stream's end: " + medium.completionNanos());
    }
}
