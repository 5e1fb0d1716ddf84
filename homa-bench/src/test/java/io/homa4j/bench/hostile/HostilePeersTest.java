package io.homa4j.bench.hostile;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An echo server with small caps, attacked over loopback UDP from 32 source ports by spoofed DATA, oversized
 * requests, GRANT and RESEND for ids that never existed and floods of unscheduled bytes, while a real client keeps
 * calling: the caps hold, every attack is dropped under its reason, and real calls keep completing.
 */
class HostilePeersTest {
    private static final HomaConfig SMALL_CAPS = HomaConfig.builder().maxMessageBytes(1_000_000).maxServerRpcs(64)
            .maxBufferedBytesTotal(4_000_000).maxBufferedBytesPerPeer(1_500_000).build();

    @Test
    void capsHoldDropsAreCountedByReasonAndRealCallsComplete() throws Exception {
        HostilePlan plan = new HostilePlan(3, 3_000, 32, SMALL_CAPS, 1_000_000, 30_000, 2, 20_000, 11);
        HostileResult r = HostileRun.run(plan);
        MetricsSnapshot server = r.server();
        String context = r.toString();

        assertEquals(0, r.realLost(), "every real call ended: " + context);
        assertEquals(0, r.realMismatched(), context);
        assertEquals(0, r.realUntyped(), context);
        for (ErrorCode code : r.realFailed().keySet()) {
            assertEquals(ErrorCode.UNAVAILABLE, code, "the only failure a real call may see: " + context);
        }
        assertTrue(r.realCompleted() >= 20, "real calls kept completing: " + context);

        assertTrue(r.serverRpcsHighWater() <= SMALL_CAPS.maxServerRpcs(), context);
        assertTrue(server.bufferedBytesHighWater() <= SMALL_CAPS.maxBufferedBytesTotal(), context);
        assertTrue(server.bufferedBytesHighWater() > SMALL_CAPS.maxBufferedBytesTotal() / 2,
                "the flood really pressed on the buffer cap: " + context);

        assertTrue(r.attackPacketsTotal() >= 3_000, "the attack happened: " + context);
        assertTrue(server.drops(DropReason.UNKNOWN_RPC) > 0, "spoofed DATA, ghost GRANT/RESEND: " + context);
        assertTrue(server.drops(DropReason.MESSAGE_TOO_LARGE) > 0, "huge declared lengths: " + context);
        assertTrue(server.drops(DropReason.TOTAL_BUFFER_LIMIT) + server.drops(DropReason.PEER_BUFFER_LIMIT) > 0,
                "the flood hit the buffer caps: " + context);
        assertEquals(0, server.drops(DropReason.INTERNAL_ERROR), context);
        assertEquals(0, server.listenerErrors(), context);
    }
}
