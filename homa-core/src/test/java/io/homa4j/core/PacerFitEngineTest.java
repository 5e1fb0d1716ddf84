package io.homa4j.core;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link HomaEngine#fitPacer}: the driver lowers the pacer's bound when its wake-ups prove precise, never raising
 * it past the configured one, and the engine then queues no more than the new bound in the host's queue.
 */
class PacerFitEngineTest {
    private static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4000);
    /** 50 Mbit/s: a full packet (1,500 B on the wire) is 240 us. */
    private static final long PACKET_NANOS = 240_000;

    private static HomaEngine engine(long boundNanos) {
        HomaConfig config = HomaConfig.builder().linkMbps(50).rttMicros(10_000).pacerMaxQueueNanos(boundNanos)
                .pacerWakeLatenessNanos(boundNanos / 4).build();
        PacketSink sink = (peer, level, packet) -> packet.release();
        return new HomaEngine(config, sink, new ReleasingListener(), 0);
    }

    @Test
    void aFittedBoundLimitsWhatTheHostQueues() {
        HomaEngine configured = engine(8 * PACKET_NANOS);
        HomaEngine fitted = engine(8 * PACKET_NANOS);
        fitted.fitPacer(2 * PACKET_NANOS, 0, 0);
        assertEquals(2 * PACKET_NANOS, fitted.pacerMaxQueueNanos());
        // 60 KB of unscheduled bytes (RTT 10 ms at 50 Mbit/s) are sendable at once: only the bound holds them back
        for (HomaEngine e : new HomaEngine[] {configured, fitted}) {
            e.call(SERVER, Unpooled.buffer(60_000).writeZero(60_000), Long.MAX_VALUE, 0);
        }
        assertEquals(8 * PACKET_NANOS, configured.pacerQueueNanos(0), 20_000);
        assertEquals(2 * PACKET_NANOS, fitted.pacerQueueNanos(0), 20_000);
        assertEquals(0, fitted.wakeByNanos() - fitted.nextWakeNanos(), "the wake lateness was fitted to 0 too");
        configured.close(0);
        fitted.close(0);
    }

    @Test
    void aFitNeverRaisesTheBoundPastTheConfiguredOne() {
        HomaEngine e = engine(4 * PACKET_NANOS);
        e.fitPacer(100 * PACKET_NANOS, 50 * PACKET_NANOS, 0);
        assertEquals(4 * PACKET_NANOS, e.pacerMaxQueueNanos());
        e.call(SERVER, Unpooled.buffer(60_000).writeZero(60_000), Long.MAX_VALUE, 0);
        assertEquals(4 * PACKET_NANOS, e.pacerQueueNanos(0), 20_000);
        assertEquals(4 * PACKET_NANOS - 1, e.wakeByNanos() - e.nextWakeNanos(), "the lateness stays below the bound");
        e.close(0);
    }
}
