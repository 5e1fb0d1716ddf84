package io.homa4j.core;

import io.homa4j.core.wire.PacketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When the engine asks to be polled for its pacer: as soon as a packet has room, and at the latest how much later. */
class PacerWakeTest {
    private static final long PACKET_NANOS = 480_000; // a full 1,500 B frame at 25 Mbit/s
    private static final long BOUND = 8 * PACKET_NANOS;
    private static final long LATENESS = 1_480_000;
    private final TestNet net = new TestNet();

    @AfterEach
    void close() {
        net.close();
    }

    private HomaConfig config(long latenessNanos) {
        // ticks far apart, so the pacer alone decides the next wake-up
        return HomaConfig.builder().linkMbps(25).rttMicros(1_000).unscheduledBytes(100_000).pacerMaxQueueNanos(BOUND)
                .pacerWakeLatenessNanos(latenessNanos).tickNanos(100_000_000).build();
    }

    @Test
    void aFullQueueAsksForAPollWhenOnePacketHasRoomAndAtTheLatestWhenSeveralHave() {
        HomaConfig config = config(LATENESS);
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        client.call(server, 200_000, 1); // more unscheduled bytes than the queue bound holds

        long start = net.now();
        long next = client.engine.nextWakeNanos();
        assertTrue(next > start && next <= start + PACKET_NANOS + 50_000,
                "the queue is full: the next packet has room after about one packet's link time: " + (next - start));
        assertEquals(next + LATENESS, client.engine.wakeByNanos());

        long sentBefore = client.engine.metrics().packetsOut(PacketType.DATA);
        client.engine.poll(next + LATENESS); // the latest wake-up: the queue drained by four packets' worth
        long sentInOnePoll = client.engine.metrics().packetsOut(PacketType.DATA) - sentBefore;
        assertEquals(4, sentInOnePoll, "one poll tops the queue up with what drained");
    }

    @Test
    void withoutLatenessTheLatestWakeIsTheNextOne() {
        HomaConfig config = config(0);
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        client.call(server, 200_000, 1);
        assertEquals(client.engine.nextWakeNanos(), client.engine.wakeByNanos());
    }
}
