package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.HomaEngine;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rack the engine scenarios run on, and their shared checks.
 *
 * <p>10 Gb/s links with 500 ns propagation each way: an unloaded small-packet RTT is about 2.4 us, a full-packet
 * one about 7 us. The engines are told the link rate and an 8 us RTT, so unscheduled bytes are 10,000 B (one
 * bandwidth-delay product) and maxIncoming 80,000 B.
 */
final class SimScenarios {
    static final int LINK_MBPS = 10_000;
    static final long PROPAGATION_NANOS = 500;
    static final long MILLIS = 1_000_000L;
    static final long SECONDS = 1_000 * MILLIS;

    private SimScenarios() {
    }

    static NetworkConfig.Builder rack(int hosts) {
        return NetworkConfig.builder().hosts(hosts).linkMbps(LINK_MBPS).propagationDelayNanos(PROPAGATION_NANOS)
                .portBufferBytes(4L << 20);
    }

    static HomaConfig.Builder engineConfig() {
        return HomaConfig.builder().linkMbps(LINK_MBPS).rttMicros(8);
    }

    /** Runs until {@code call} ends (or fails the test after {@code timeoutNanos} of virtual time). */
    static SimCall await(SimulatedNetwork network, SimCall call, long timeoutNanos) {
        assertTrue(network.runUntil(call::isDone, timeoutNanos), "call still pending after "
                + timeoutNanos / MILLIS + " virtual ms: " + call);
        return call;
    }

    /** Runs until every call ends. */
    static void awaitAll(SimulatedNetwork network, Collection<SimCall> calls, long timeoutNanos) {
        boolean done = network.runUntil(() -> {
            // Cheap enough per event for test sizes: stop scanning at the first pending call.
            for (SimCall c : calls) {
                if (!c.isDone()) {
                    return false;
                }
            }
            return true;
        }, timeoutNanos);
        if (!done) {
            List<SimCall> stuck = calls.stream().filter(c -> !c.isDone()).limit(5).collect(Collectors.toList());
            long pending = calls.stream().filter(c -> !c.isDone()).count();
            throw new AssertionError(pending + " of " + calls.size() + " calls pending after "
                    + timeoutNanos / MILLIS + " virtual ms, e.g. " + stuck);
        }
    }

    /**
     * Lets acks and timers finish, then checks every engine holds nothing: no client or server RPC, no buffered
     * or outgoing bytes, and the network went idle (no engine wants a timer).
     */
    static void assertNoStateLeft(SimulatedNetwork network, HomaHost... hosts) {
        boolean idle = network.runUntilIdle(10 * SECONDS);
        StringBuilder problems = new StringBuilder();
        for (HomaHost h : hosts) {
            HomaEngine engine = h.engine();
            if (engine == null) {
                continue;
            }
            MetricsSnapshot m = engine.metrics();
            if (m.clientRpcs() != 0 || m.serverRpcs() != 0 || m.bufferedBytes() != 0 || m.outgoingBytes() != 0) {
                problems.append('\n').append(h).append(": ").append(m);
            }
        }
        assertEquals("", problems.toString(), "state left in engines");
        assertTrue(idle, "network not idle: " + network.pendingEvents() + " events pending");
        for (HomaHost h : hosts) {
            assertEquals(0, h.callsPending(), h + " has pending calls");
            assertEquals(0, h.unmatchedUpcalls(), h + " got upcalls for unknown RPC ids");
        }
    }

    /** Replies with the 4-byte CRC-32C of the request: proves the server got it byte-exact, cheaply. */
    static RequestHandler crcReply() {
        return request -> {
            int crc = Payloads.crc32c(request.payload());
            request.payload().release();
            ByteBuf reply = ByteBufAllocator.DEFAULT.buffer(4);
            reply.writeInt(crc);
            request.reply(reply);
        };
    }

    /** The CRC a {@link #crcReply()} server sent back. */
    static int repliedCrc(SimCall call) {
        byte[] data = call.responseData();
        assertTrue(data != null && data.length == 4, "expected a 4-byte CRC reply: " + call);
        return ((data[0] & 0xff) << 24) | ((data[1] & 0xff) << 16) | ((data[2] & 0xff) << 8) | (data[3] & 0xff);
    }
}
