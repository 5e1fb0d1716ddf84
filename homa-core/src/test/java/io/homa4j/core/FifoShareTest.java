package io.homa4j.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A long message under a steady stream of shorter ones: SRPT alone would starve it (shown with the FIFO share
 * switched off); the FIFO share of sender picks and of grants keeps it moving.
 */
class FifoShareTest {
    private static final long MS = 1_000_000;
    private final TestNet net = new TestNet();

    @AfterEach
    void close() {
        net.close();
    }

    /** Runs the stream for {@code nanos}; returns whether the long call finished. */
    private boolean longCallFinishesUnderAStreamOfShortOnes(HomaConfig config, long nanos) {
        // untracked packet buffers: tens of thousands of packets under paranoid leak tracking would be slow
        io.netty.buffer.ByteBufAllocator untracked = new io.netty.buffer.UnpooledByteBufAllocator(false, true);
        TestNet.Node client = net.node("client", config, untracked);
        TestNet.Node longServer = net.node("long", config, untracked);
        TestNet.Node shortServer = net.node("short", config, untracked);
        // keep the client's link busy with short (but scheduled: > unscheduledBytes) requests
        int shortLength = config.unscheduledBytes() + 20_000;
        long longCall = client.call(longServer, 1_000_000, 1);
        long[] inFlight = new long[4];
        for (int i = 0; i < inFlight.length; i++) {
            inFlight[i] = client.call(shortServer, shortLength, 10 + i);
        }
        long end = net.now() + nanos;
        int issued = inFlight.length;
        while (net.now() < end && !client.done(longCall)) {
            net.step();
            for (int i = 0; i < inFlight.length; i++) {
                if (client.done(inFlight[i])) {
                    inFlight[i] = client.call(shortServer, shortLength, 10 + issued++);
                }
            }
        }
        assertTrue(issued > 20, "the stream of short calls kept going: " + issued);
        return client.responses.containsKey(longCall);
    }

    @Test
    void withTheFifoShareTheLongMessageCompletes() {
        assertTrue(longCallFinishesUnderAStreamOfShortOnes(HomaConfig.defaults(), 200 * MS));
    }

    @Test
    void withoutItSrptStarvesTheLongMessage() {
        HomaConfig noFifo = HomaConfig.builder().fifoGrantFraction(0).build();
        assertFalse(longCallFinishesUnderAStreamOfShortOnes(noFifo, 10 * MS));
    }
}
