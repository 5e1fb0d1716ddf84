package io.homa4j.core;

import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.homa4j.core.RoundTripTest.expectedChecksum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RESEND timers follow the round trip measured with each peer (queueing included), never below the
 * configured one: granted data that waits in a queue on the way is neither asked for again nor retransmitted,
 * and real losses are still repaired. Virtual time; the queue is an extra delay on every scheduled DATA packet.
 */
class MeasuredRoundTripTest {
    private static final long MS = 1_000_000;
    /** Longer than the configured RESEND timeout (5 ticks of 1 ms) and than the configured in-flight time. */
    private static final long QUEUE_NANOS = 12 * MS;
    private static final int LENGTH = 60_000;

    private final TestNet net = new TestNet();
    private final HomaConfig config = HomaConfig.builder().linkMbps(1_000).rttMicros(100).build();
    private final TestNet.Node client = net.node("client", config);
    private final TestNet.Node server = net.node("server", config);

    @AfterEach
    void close() {
        net.close();
    }

    /** Scheduled (granted) first transmissions wait {@link #QUEUE_NANOS} on the way, as at a low priority level. */
    private void queueScheduledData() {
        int unscheduled = config.unscheduledBytes();
        net.delayRule = s -> s.type() == PacketType.DATA && s.offset() >= unscheduled
                && (s.flags() & DataHeader.FLAG_RETRANSMIT) == 0 ? QUEUE_NANOS : 0;
    }

    private long echo(long seed) {
        long id = client.call(server, LENGTH, seed);
        net.runUntil(() -> client.done(id), 2_000 * MS);
        assertTrue(client.responses.containsKey(id), () -> "RPC failed: " + client.failures.get(id));
        assertEquals(expectedChecksum(LENGTH, seed), client.responses.get(id)[1]);
        return id;
    }

    private int countSince(int from, PacketType type, java.util.function.Predicate<TestNet.Sent> which) {
        int n = 0;
        for (TestNet.Sent s : net.sent.subList(from, net.sent.size())) {
            if (s.type() == type && which.test(s)) {
                n++;
            }
        }
        return n;
    }

    private static boolean retransmitted(TestNet.Sent s) {
        return (s.flags() & DataHeader.FLAG_RETRANSMIT) != 0;
    }

    @Test
    void queuedGrantedDataIsNeitherAskedForNorCopiedOnceTheRoundTripIsMeasured() {
        queueScheduledData();
        // The first calls meet the queue with only the configured timeouts and learn it (each side measures its
        // peer once a GRANT's data comes, also after the call completed by retransmission).
        echo(1);
        echo(2);
        assertTrue(countSince(0, PacketType.RESEND, s -> true) > 0,
                "the queue outlasts the configured timeout: without measurements, RESENDs go (test premise)");

        int from = net.sent.size();
        for (int i = 3; i <= 6; i++) {
            echo(i);
        }
        assertTrue(countSince(from, PacketType.DATA, s -> true) > 4 * 2 * LENGTH / 1_500, "the calls moved data");
        assertEquals(0, countSince(from, PacketType.RESEND, s -> true), "no RESEND for data that was only queued");
        assertEquals(0, countSince(from, PacketType.DATA, MeasuredRoundTripTest::retransmitted),
                "nothing retransmitted without a loss");
    }

    @Test
    void aRealLossIsStillRepairedOnceTheMeasuredTimeoutPasses() {
        queueScheduledData();
        echo(1);
        echo(2);
        int scheduledOffset = (config.unscheduledBytes() / 1432 + 3) * 1432;
        Set<Integer> seen = new HashSet<>();
        net.dropRule = s -> s.type() == PacketType.DATA && s.from().equals(client.address)
                && s.offset() == scheduledOffset && !retransmitted(s) && seen.add(s.offset());
        int from = net.sent.size();
        echo(3);

        List<TestNet.Sent> sent = net.sent.subList(from, net.sent.size());
        long lostAt = sent.stream().filter(s -> s.type() == PacketType.DATA && s.from().equals(client.address)
                && s.offset() == scheduledOffset && !retransmitted(s)).findFirst().orElseThrow().atNanos();
        List<TestNet.Sent> copies = sent.stream().filter(s -> s.type() == PacketType.DATA
                && s.from().equals(client.address) && retransmitted(s)).toList();
        assertEquals(List.of(scheduledOffset), copies.stream().map(TestNet.Sent::offset).toList(),
                "exactly the lost packet is sent again");
        long waited = copies.get(0).atNanos() - lostAt;
        assertTrue(waited >= QUEUE_NANOS, "not asked for before the measured round trip: " + waited);
        assertTrue(waited <= 200 * MS, "repaired within the RESEND cap: " + waited);
    }

    @Test
    void aSenderTreatsBytesWithinThePeersMeasuredRoundTripAsOnTheirWay() {
        queueScheduledData();
        echo(1);
        echo(2);
        // A third request; its granted bytes sent within the last few ms are on their way (12 ms of queue). A
        // RESEND for them now (as a receiver with only the configured timeout would send) gets BUSY, not copies.
        long id = client.call(server, LENGTH, 3);
        int unscheduled = config.unscheduledBytes();
        net.runUntil(() -> net.sent.stream().anyMatch(s -> s.type() == PacketType.DATA
                && s.from().equals(client.address) && s.offset() >= unscheduled), 100 * MS);
        net.runFor(6 * MS); // past 2 x RTT + 3 x lag (1 ms here), within the measured 12 ms
        int from = net.sent.size();
        PacketEncoder encoder = new PacketEncoder(UnpooledByteBufAllocator.DEFAULT);
        net.inject(server.address, client, encoder.resend(id ^ 1, unscheduled, 1432, 7));
        net.runFor(MS);
        assertEquals(0, countSince(from, PacketType.DATA, s -> s.from().equals(client.address) && retransmitted(s)),
                "bytes sent within the measured round trip are not copied");
        assertTrue(countSince(from, PacketType.BUSY, s -> s.from().equals(client.address) && s.rpcId() == id) > 0,
                "answered BUSY");
        net.runUntil(() -> client.done(id), 2_000 * MS);
        assertTrue(client.responses.containsKey(id), () -> "RPC failed: " + client.failures.get(id));
    }
}
