package io.homa4j.core.sim;

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
 * A receiver tells data queued at its strict-priority switch port from data lost on the way by what its port
 * must have done meanwhile (DownlinkDrain), not by silence alone. A stream of 1 KB messages at the highest level
 * fills the receiver's 10 Gbit/s downlink at 108% for 20 ms; a 200 KB message from another host waits behind it
 * at the lower levels (its first, unscheduled, bytes arrived before the stream began, so the receiver knows it and
 * grants it) for far longer than the RESEND timeout (5 ticks of 1 ms). An older 2 MB message from a third
 * host is the FIFO share's target: its queued bytes are not asked for again either.
 */
class QueueOrLossSimTest {
    private static final long STREAM_NANOS = 20 * MILLIS;
    private static final int MEDIUM = 200_000;

    private SimulatedNetwork network;
    private HomaHost[] hosts;
    private final List<SimCall> calls = new ArrayList<>();

    @AfterEach
    void close() {
        if (network != null) {
            network.close();
        }
    }

    private int maxPayload() {
        return DataHeader.maxPayload(hosts[3].config().maxUdpPayload());
    }

    private static PacketType type(ByteBuf packet) {
        return PacketType.fromCode(packet.getUnsignedByte(packet.readerIndex() + CommonHeader.TYPE_OFFSET));
    }

    /** Runs the scenario with {@code filter} at the switch; returns the 200 KB call. */
    private SimCall run(PacketFilter filter) {
        network = new SimulatedNetwork(SimScenarios.rack(5).build());
        hosts = HomaHost.attachAll(network, SimScenarios.engineConfig().build());
        HomaHost receiver = hosts[0];
        receiver.serve(SimScenarios.crcReply());
        hosts[3].retainResponses(true);
        network.filter(filter);
        calls.add(hosts[4].call(receiver, Payloads.random(2_000_000, 4)));
        SimCall medium = hosts[3].call(receiver, Payloads.random(MEDIUM, 3));
        for (int s = 1; s <= 2; s++) {
            HomaHost sender = hosts[s];
            // 2 senders x 1,082 wire bytes every 1.6 us: 10.8 Gbit/s offered to the 10 Gbit/s downlink
            for (long t = 100_000 + s * 800L; t < STREAM_NANOS; t += 1_600) {
                long seed = t + s;
                network.schedule(t, () -> calls.add(sender.call(receiver, Payloads.random(1_000, seed))));
            }
        }
        network.runUntil(STREAM_NANOS);
        calls.add(medium);
        awaitAll(network, calls, 5 * SECONDS);
        assertTrue(calls.stream().allMatch(SimCall::succeeded));
        assertEquals(Payloads.randomCrc32c(MEDIUM, 3), repliedCrc(medium));
        assertNoStateLeft(network, hosts);
        return medium;
    }

    @Test
    void dataQueuedBehindHigherLevelsIsNeitherAskedForNorCopied() {
        SimCall medium = run(null);
        assertTrue(medium.completionNanos() > STREAM_NANOS,
                "the 200 KB message waited behind the stream (premise): done at " + medium.completionNanos());
        int packets = (MEDIUM + maxPayload() - 1) / maxPayload();
        assertEquals(packets, hosts[3].engine().metrics().packetsOut(PacketType.DATA),
                "nothing of the queued 200 KB message was sent twice (retransmitted or restarted)");
        assertEquals(0, hosts[4].engine().metrics().retransmittedPackets(),
                "nothing of the FIFO share's target was sent twice either: its bytes were only queued");
    }

    @Test
    void aLossBehindHigherLevelsIsRepairedOnceThePortDrains() {
        boolean[] dropped = new boolean[1];
        DataHeader data = new DataHeader();
        SimCall medium = run((from, to, level, packet, now) -> {
            if (dropped[0] || from != hosts[3].host() || type(packet) != PacketType.DATA) {
                return false;
            }
            data.wrap(packet, packet.readerIndex());
            dropped[0] = data.offset() >= 100_000; // a scheduled packet, queued behind the stream
            return dropped[0];
        });
        assertTrue(dropped[0]);
        assertTrue(hosts[3].engine().metrics().retransmittedPackets() >= 1, "the lost packet was sent again");
        assertTrue(medium.completionNanos() < STREAM_NANOS + 20 * MILLIS,
                "repaired within a few RESEND timeouts of the stream's end: " + medium.completionNanos());
    }
}
