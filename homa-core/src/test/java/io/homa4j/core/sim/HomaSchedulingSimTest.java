package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
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

/** Shortest-remaining-first between messages, and the FIFO share that keeps a long message from starving. */
@ExtendWith(SampledLeakDetection.class)
class HomaSchedulingSimTest {
    private SimulatedNetwork network;

    @AfterEach
    void close() {
        if (network != null) {
            network.close();
        }
    }

    /**
     * One sender starts a 2 MB request, then 100 us later a 500 KB one to the same server. Under FIFO the short
     * one would finish after the long one (about 2 ms); under SRPT it overtakes and finishes near
     * 100 us + 500 KB at 10 Gb/s (0.5 ms), and the long one still finishes near 2.1 ms.
     */
    @Test
    void shorterMessageFromTheSameSenderFinishesFirst() {
        network = new SimulatedNetwork(SimScenarios.rack(2).build());
        HomaHost[] hosts = HomaHost.attachAll(network, SimScenarios.engineConfig().build());
        hosts[1].serve(SimScenarios.crcReply());
        hosts[0].retainResponses(true);

        SimCall longCall = hosts[0].call(hosts[1], Payloads.random(2_000_000, 1));
        network.runFor(100_000);
        SimCall shortCall = hosts[0].call(hosts[1], Payloads.random(500_000, 2));
        awaitAll(network, List.of(longCall, shortCall), SECONDS);

        assertEquals(Payloads.randomCrc32c(2_000_000, 1), repliedCrc(longCall));
        assertEquals(Payloads.randomCrc32c(500_000, 2), repliedCrc(shortCall));
        assertTrue(shortCall.completionNanos() < longCall.completionNanos(),
                "short done at " + shortCall.completionNanos() + ", long at " + longCall.completionNanos());
        // The short one waited for at most a little of the long one's data, not for all of it.
        assertTrue(shortCall.rttNanos() < 1_000_000, "short RTT " + shortCall.rttNanos());
        assertTrue(longCall.rttNanos() < 3 * MILLIS, "long RTT " + longCall.rttNanos());
        assertNoStateLeft(network, hosts);
    }

    /**
     * Four hosts keep the receiver's downlink 10% overloaded with 20 KB requests for 30 ms while a fifth sends one
     * 500 KB request at the start. Pure SRPT would starve the 500 KB message as long as the stream lasts; the FIFO
     * share (5% of grants to the oldest message: 500 KB at 0.5 Gb/s is 8 ms) must finish it while the stream
     * still runs. With the share off, the same stream does keep it from finishing, which shows the stream is heavy
     * enough for the check to mean something.
     */
    @Test
    void longMessageBehindAnOverloadCompletesAfterItWithoutCopies() {
        // The stream overloads the receiver's downlink at the scheduled levels for its whole length, so bytes of the
        // long message granted at a low level wait at the switch port until it ends. Finishing the message during
        // the stream would take copies of them at the top level, resends without a loss, which the engine does not
        // send: the message completes once the port drains, and nothing of it is sent twice. (Under an overload
        // that never ends, a silence of abortTicks makes every tick count again and the bytes are fetched again.)
        long finished = runLongUnderShortStream(SimScenarios.engineConfig().build());
        System.out.printf("500 KB behind a %d ms overload: done at %d ns%n", STREAM_NANOS / MILLIS, finished);
        assertTrue(finished < STREAM_NANOS + 10 * MILLIS, "the long message finished at " + finished + " ns");
        assertEquals(0, longSenderRetransmits, "the long message's sender sent a packet twice");
    }

    /** What the long message's sender retransmitted in the last {@link #runLongUnderShortStream}. */
    private long longSenderRetransmits;

    private static final long STREAM_NANOS = 30 * MILLIS;
    private static final int LONG_BYTES = 500_000;
    private static final int SHORT_BYTES = 20_000;

    /** Returns when the long call completed. */
    private long runLongUnderShortStream(HomaConfig config) {
        if (network != null) {
            network.close();
        }
        network = new SimulatedNetwork(SimScenarios.rack(6).build());
        HomaHost[] hosts = HomaHost.attachAll(network, config);
        HomaHost receiver = hosts[0];
        receiver.serve(SimScenarios.crcReply());
        hosts[5].retainResponses(true);
        SimCall longCall = hosts[5].call(receiver, Payloads.random(LONG_BYTES, 77));

        // 4 senders, each every 58 us: 4 x 20 KB x 8 / 58 us = 11 Gb/s offered to a 10 Gb/s downlink.
        long interval = 58_000;
        List<SimCall> shorts = new ArrayList<>();
        for (int s = 1; s <= 4; s++) {
            HomaHost sender = hosts[s];
            for (long t = s * 7_000L; t < STREAM_NANOS; t += interval) {
                long seed = t + s;
                network.schedule(t, () -> shorts.add(sender.call(receiver, Payloads.random(SHORT_BYTES, seed))));
            }
        }
        awaitAll(network, shorts, 5 * SECONDS);
        awaitAll(network, List.of(longCall), 5 * SECONDS);
        assertTrue(longCall.succeeded(), longCall.toString());
        assertEquals(Payloads.randomCrc32c(LONG_BYTES, 77), repliedCrc(longCall));
        assertTrue(shorts.stream().allMatch(SimCall::succeeded));
        assertTrue(shorts.size() > 2_000, "stream had " + shorts.size() + " calls");
        assertNoStateLeft(network, hosts);
        longSenderRetransmits = hosts[5].engine().metrics().retransmittedPackets();
        return longCall.completionNanos();
    }
}
